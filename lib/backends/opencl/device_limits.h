// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: what the planner knows of a device, as plain
 * values (no OpenCL runtime), so that plans for any device are made and
 * checked anywhere: device.cc fills one from the device's queries, and the
 * presets stand for devices this machine does not have. */
#ifndef GPUFFT_LIB_OPENCL_DEVICE_LIMITS_H
#define GPUFFT_LIB_OPENCL_DEVICE_LIMITS_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gpufft::opencl::detail {

/*!
 * The planner's rules that an experiment may change
 * (GPUFFT_OPENCL_PLANNER, docs/backend-opencl.md); the defaults are the
 * rules as tuned.
 */
struct planner_knobs {
    //! 0: no composite radices and no unpadded one-kernel plans (the plans
    //! before those); 1: both; 2: also the register mode for sizes with odd
    //! factors in a few stages (fft_plan rules in planner.cc).
    int odd_shapes = 1;
    //! 0: never Rader; 1: where its convolution is one pass; 2: also
    //! wherever p - 1 has stages and moves no more points than Bluestein's.
    int rader = 1;
    //! Sizes of at least this many points take the register mode wherever
    //! it fits.
    std::size_t register_from = SIZE_MAX;
    //! Elements a register-mode exchange round aims at.
    std::size_t register_exchange = 4096;
    //! Local memory a one-kernel work-group is shaped for, in bytes.
    std::size_t group_local = 8192;
    //! 0: sizes that local memory cannot hold take the register mode only
    //! where the rules before it did (powers of two to 16384); 1: also every
    //! size to 32768 whose stages the work-items' registers hold (planner.cc,
    //! shape_rounds_pass).
    int register_rounds = 1;

    bool operator==(const planner_knobs& o) const
    {
        return odd_shapes == o.odd_shapes && rader == o.rader && register_from == o.register_from &&
               register_exchange == o.register_exchange && group_local == o.group_local &&
               register_rounds == o.register_rounds;
    }
};

//! A device as the planner sees it.
struct device_limits {
    //! What plans and messages call the device ("platform: name", or a preset's name).
    std::string name;
    std::size_t local_memory = 0;   //!< bytes a work-group
    std::size_t max_work_group = 1; //!< work-items a work-group
    //! 32-bit registers a work-item may hold without spilling at a full
    //! work-group (OpenCL does not say; device.cc estimates it): below four
    //! times the largest direct-DFT prime (47), primes above 31 go through
    //! Bluestein instead.
    std::size_t registers = 255;
    unsigned compute_units = 1;
    bool gpu = false;
    //! Host and device share memory (no copies over a bus).
    bool unified_memory = false;
    //! Driver quirk: the most work-items the driver reads a compiled kernel
    //! as allowing (CL_KERNEL_WORK_GROUP_SIZE), where it reads it lower than
    //! the device's limit (NVIDIA's OpenCL: 256); SIZE_MAX where it does not.
    //! fft_chain launches register-mode kernels within it.
    std::size_t kernel_work_group = SIZE_MAX;
    planner_knobs knobs;
};

/*!
 * Named devices to plan for without them: "nvidia-h100" and "nvidia-h200"
 * (NVIDIA's OpenCL: 48 KiB a work-group, 1024 work-items, kernels read as
 * allowing 256), "mali-g" (a Mali G-series: 32 KiB, 256 work-items, about 64
 * registers a work-item at full occupancy, unified memory), "intel-igpu" (an
 * Intel Xe iGPU: 64 KiB, 512 work-items, unified memory) and "pocl" (PoCL's
 * CPU device, what CI runs the kernels on: 512 KiB, 4096 work-items).
 */
const std::vector<device_limits>& limit_presets();

//! The preset of that name; throws gpufft::error naming the presets if none.
const device_limits& limit_preset(const std::string& name);

} // namespace gpufft::opencl::detail

#endif
