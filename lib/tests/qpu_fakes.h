// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft qpu host-driver tests: fakes for the OS interfaces of
 * lib/backends/qpu/host.h, the GPU side backed by the QPU emulator. */
#ifndef GPUFFT_QPU_FAKES_H
#define GPUFFT_QPU_FAKES_H

#include "host.h"
#include "emu/emulator.h"
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>

namespace qa::qpu_fakes {

using namespace gpufft::qpu;

//! A file tree in memory: contents by path, open errors by path.
class fake_files final : public host_files
{
public:
    std::map<std::string, std::string> contents;
    std::map<std::string, int> open_errors; //!< paths not listed open fine

    std::optional<std::string> read(const std::string& path) const override;
    std::vector<std::string> list(const std::string& dir) const override;
    int open_error(const std::string& path) const override;
};

//! A Raspberry Pi's files with the legacy firmware driver: "pi1" (bcm2835),
//! "pi3" (bcm2837, 32-bit ranges) or "pi3-64" (bcm2837, 64-bit kernel ranges).
fake_files pi_files(const std::string& which);

/*!
 * The firmware's side of the mailbox over an emulator: checks every request
 * buffer is well formed (a malformed one is recorded in `protocol_errors`
 * and answered with the error code), allocates GPU memory from the
 * emulator's, and runs execute_qpu on it. Fixed-size state and no
 * allocation, so it can answer from a signal handler. Each call can also be
 * written as a line ("alloc 0x1", "release 0x1", ...) to a file descriptor.
 */
class fake_mailbox final : public mailbox
{
public:
    explicit fake_mailbox(qpu::emu::emulator* gpu, int record_fd = -1);
    int transfer(std::uint32_t* buffer) noexcept override;

    //! Handles allocated and not released.
    unsigned live_handles() const;
    unsigned locked_handles() const;
    std::atomic<unsigned> protocol_errors{ 0 };
    std::atomic<unsigned> calls{ 0 };
    std::atomic<bool> qpus_enabled{ false };
    std::atomic<unsigned> execute_calls{ 0 };
    std::atomic<unsigned> unknown_handles{ 0 }; //!< lock/unlock/release of no live handle
    std::uint32_t board_revision = 0xa02082;    //!< a Pi 3 Model B 1.2
    //! Emulator cycles execute_qpu may run before it reports a timeout.
    std::uint64_t execute_cycle_budget = 50'000'000;
    std::string last_run_message; //!< the emulator's fault or deadlock message, if any

private:
    struct block {
        std::uint32_t handle = 0, offset = 0, bytes = 0, flags = 0;
        bool locked = false;
    };
    block* find(std::uint32_t handle);
    void record(const char* what, std::uint32_t value) noexcept;
    std::uint32_t execute(const std::uint32_t* args);

    qpu::emu::emulator* d_gpu;
    int d_record_fd;
    block d_blocks[64];
    std::uint32_t d_next_handle = 1;
    std::uint32_t d_next_offset = 0x10000;
};

/*!
 * The V3D registers of the emulator. Reading SRQCS first lets the emulator
 * run `cycles_per_poll` cycles, so a driver polling it makes progress.
 */
class fake_v3d final : public register_window
{
public:
    explicit fake_v3d(qpu::emu::emulator& gpu) : d_gpu(gpu) {}
    std::uint32_t read(std::uint32_t offset) override;
    void write(std::uint32_t offset, std::uint32_t value) override;

    std::uint64_t cycles_per_poll = 20000;
    std::map<std::uint32_t, unsigned> writes; //!< count by offset
    std::string last_run_message;

private:
    qpu::emu::emulator& d_gpu;
};

//! GPU memory is the emulator's: bus addresses map to its array.
class emulator_mapper final : public memory_mapper
{
public:
    explicit emulator_mapper(qpu::emu::emulator& gpu) : d_gpu(gpu) {}
    void* map(std::uint32_t bus, std::size_t bytes) override;
    void unmap(void*, std::size_t) noexcept override { ++unmapped; }
    unsigned unmapped = 0;

private:
    qpu::emu::emulator& d_gpu;
};

//! An emulated Pi: the emulator and the fakes over it; open() opens it.
//! The mailbox outlives the host, so a test can check what the host's
//! destruction left behind; v3d and mapper die with the host.
struct fake_pi {
    qpu::emu::emulator gpu;
    std::shared_ptr<fake_mailbox> mb; //!< shared with the host
    fake_v3d* v3d = nullptr;          //!< owned by the host
    emulator_mapper* mapper = nullptr; //!< owned by the host

    fake_pi();
    //! A host as open_system_host would make for `b`, over the fakes.
    std::shared_ptr<host> open(const board& b);
};

//! The board probe_board finds on pi_files("pi3").
board pi3_board();

} // namespace qa::qpu_fakes

#endif
