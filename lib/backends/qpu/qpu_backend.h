// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft qpu backend: its factory, with the OS access and shaders as
 * parameters so tests can run it over a fake GPU. */
#ifndef GPUFFT_QPU_BACKEND_H
#define GPUFFT_QPU_BACKEND_H

#include "host.h"
#include "shaders/shader_table.h" // qpu/shaders, through the qpu_shaders target
#include <gpufft/backend.h>
#include <chrono>
#include <functional>
#include <memory>

namespace gpufft::qpu {

struct backend_config {
    //! Finds the board, or says why there is none.
    std::function<probe_result()> probe;
    //! Opens a board probe found (called once; executors share the host).
    std::function<std::shared_ptr<host>(const board&)> open;
    shader_table shaders;
    //! How long a launch may run before it is declared hung.
    std::chrono::milliseconds timeout{ 2000 };
    //! GPU memory for one launch's data buffers; bigger batches take several launches.
    std::size_t launch_data_bytes = std::size_t(16) << 20;
    //! Launches of up to this many points (jobs x N) poll the V3D registers;
    //! longer ones go through the firmware's execute_qpu. GPU_FFT's figure,
    //! about 1 ms of work.
    std::size_t direct_max_points = 5 << 12;
};

//! The real system: device tree, /dev/vcio, /dev/mem, the built-in shaders.
backend_config system_backend_config();

std::unique_ptr<backend> make_qpu_backend(backend_config config);

} // namespace gpufft::qpu

#endif
