// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft qpu backend: GPU memory that is given back to the firmware
 * however the process ends. */
#ifndef GPUFFT_QPU_GPU_MEMORY_H
#define GPUFFT_QPU_GPU_MEMORY_H

#include "host.h"
#include <cstddef>
#include <cstdint>
#include <memory>

namespace gpufft::qpu {

/*!
 * One block of GPU memory: allocated, locked at a bus address and mapped
 * into this process. The firmware keeps what a process does not release
 * until reboot, so every live block is also entered in a process-wide table
 * that is released at exit and by a handler for SIGINT, SIGTERM and SIGHUP,
 * which then passes the signal on to the handler installed before it. A
 * signal that is ignored when the first block is allocated (SIGHUP under
 * nohup) stays ignored and releases nothing.
 */
class gpu_memory
{
public:
    gpu_memory(std::shared_ptr<mailbox> mb, memory_mapper& mapper, std::size_t bytes, std::uint32_t flags);
    ~gpu_memory();
    gpu_memory(const gpu_memory&) = delete;
    gpu_memory& operator=(const gpu_memory&) = delete;

    std::uint32_t bus() const { return d_bus; }
    std::uint8_t* host() const { return d_host; }
    std::size_t size() const { return d_bytes; }
    //! False once a signal handler has released the block.
    bool live() const;

private:
    std::shared_ptr<mailbox> d_mb;
    memory_mapper& d_mapper;
    std::size_t d_bytes;
    std::size_t d_slot;
    std::uint32_t d_bus = 0;
    std::uint8_t* d_host = nullptr;
};

//! Releases every live block now (what the signal handler and exit do).
void release_all_gpu_memory() noexcept;

} // namespace gpufft::qpu

#endif
