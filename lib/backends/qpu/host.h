// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft qpu backend: what the driver needs from the operating system,
 * behind small interfaces so tests can substitute fakes. */
#ifndef GPUFFT_QPU_HOST_H
#define GPUFFT_QPU_HOST_H

#include "isa/v3d_registers.h" // qpu/isa, shared with the emulator
#include "mailbox.h"
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace gpufft::qpu {

namespace v3d = ::qpu::v3d;

//! The files the probe reads: device tree, /proc/modules, device nodes.
class host_files
{
public:
    virtual ~host_files() = default;
    virtual std::optional<std::string> read(const std::string& path) const = 0;
    //! Entry names in a directory; empty if it does not exist.
    virtual std::vector<std::string> list(const std::string& dir) const = 0;
    //! 0 if the file opens read-write, else the errno of the failed open.
    virtual int open_error(const std::string& path) const = 0;
};

//! The running system's files.
std::unique_ptr<host_files> system_files();

//! A VideoCore IV board the driver can use, as the probe found it.
struct board {
    std::string model;                //!< /proc/device-tree/model, e.g. "Raspberry Pi 3 Model B Rev 1.2"
    std::string soc;                  //!< "bcm2835" (Pi 0/1), "bcm2836" (Pi 2), "bcm2837" (Pi 2 v1.2, 3)
    std::uint32_t peripheral_base;    //!< ARM physical address of the peripherals
    std::uint32_t peripheral_size;
    std::uint32_t sdram_bus_base;     //!< bus alias the GPU sees SDRAM through
    std::uint32_t mem_flags;          //!< mem_alloc flags that make that alias uncached for the ARM
};

//! A board, or why there is none.
struct probe_result {
    std::optional<board> found;
    std::string reason; //!< empty when found
};

/*!
 * Decides whether this is a Raspberry Pi with a VideoCore IV that the legacy
 * firmware driver owns and that this process may use, in that order; the
 * reason names the first thing missing and how to fix it.
 */
probe_result probe_board(const host_files& files);

//! 32-bit registers of a peripheral block, by byte offset.
class register_window
{
public:
    virtual ~register_window() = default;
    virtual std::uint32_t read(std::uint32_t offset) = 0;
    virtual void write(std::uint32_t offset, std::uint32_t value) = 0;
};

//! Maps GPU memory, by bus address, into this process.
class memory_mapper
{
public:
    virtual ~memory_mapper() = default;
    virtual void* map(std::uint32_t bus, std::size_t bytes) = 0;
    virtual void unmap(void* host, std::size_t bytes) noexcept = 0;
};

/*!
 * An opened VideoCore IV: the mailbox, the V3D registers and a mapper for
 * GPU memory. The QPUs are enabled while it lives (a `host` enables them
 * once; executors share it).
 */
struct host {
    board info;
    std::shared_ptr<mailbox> mb;
    std::unique_ptr<register_window> v3d;
    std::unique_ptr<memory_mapper> memory;
    //! One launch at a time: plans share the QPUs and the V3D registers.
    std::mutex launch_mutex;
    std::uint32_t firmware_revision = 0; //!< as the firmware reports them when opened
    std::uint32_t board_revision = 0;

    host(board info,
         std::shared_ptr<mailbox> mb,
         std::unique_ptr<register_window> v3d,
         std::unique_ptr<memory_mapper> memory);
    ~host();
    host(const host&) = delete;
    host& operator=(const host&) = delete;
};

/*!
 * Opens the real devices of a board probe_board found: /dev/vcio and the
 * V3D registers and GPU memory through /dev/mem. Throws gpufft::error.
 */
std::shared_ptr<host> open_system_host(const board& b);

} // namespace gpufft::qpu

#endif
