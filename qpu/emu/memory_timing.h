// SPDX-License-Identifier: GPL-3.0-or-later
/* Timing of the memory behind the QPUs: V3D's L2 cache and the SDRAM it
 * fills from. It holds no data (the emulator's memory does); it answers
 * "when are these bytes in hand" for TMU loads and VDR reads and "when has
 * SDRAM taken them" for VDW writes, so a buffer that outgrows the L2, or an
 * access pattern that thrashes it, costs SDRAM time as it would on a Pi.
 *
 * The model (qpu/README.md, "Memory model", gives the sources):
 * - The L2 is set-associative with LRU replacement. A read that misses
 *   allocates its line and fills it from SDRAM; a later read of a line still
 *   being filled waits for that fill. Bus addresses 0xC0000000 and up are
 *   the uncached alias (BCM2835 ARM Peripherals, section 1.2.3): they go
 *   straight to SDRAM in whole bursts.
 * - Writes (VDW) go through to SDRAM in whole bursts; with write_allocate
 *   they also make the lines they touch valid in the L2 (no fill).
 * - SDRAM is one channel shared by every requester, served in the order
 *   requests are made: each occupies it for bytes / bytes_per_clock clocks;
 *   read data arrives `latency` clocks after its transfer ends. */
#ifndef QPU_EMU_MEMORY_TIMING_H
#define QPU_EMU_MEMORY_TIMING_H

#include <cstdint>
#include <vector>

namespace qpu::emu {

struct memory_timing_config {
    uint32_t l2_bytes = 128u << 10;      //!< 0 turns the L2 off (every access to SDRAM)
    uint32_t l2_line_bytes = 64;         //!< power of two
    uint32_t l2_ways = 4;
    bool l2_write_allocate = false;
    double sdram_bytes_per_clock = 8.0;  //!< sustained, in QPU clocks
    uint32_t sdram_latency = 60;         //!< clocks from a read's transfer to its data in hand
    uint32_t sdram_burst_bytes = 32;     //!< smallest SDRAM transfer
};

/*! What the memory did since construction (or clear_counts()). */
struct memory_counts {
    uint64_t l2_hits = 0, l2_misses = 0;             //!< lines looked up by reads
    uint64_t sdram_read_bytes = 0, sdram_write_bytes = 0;
    uint64_t sdram_busy = 0;                         //!< clocks the SDRAM channel was transferring
};

class memory_timing {
public:
    /*! Throws std::invalid_argument for a geometry that cannot be built. */
    explicit memory_timing(const memory_timing_config& cfg = memory_timing_config{});

    /*! A read of `bytes` at bus address `bus` issued at clock `now`: the
     * clock its data is in hand (now when every line hits and is filled). */
    uint64_t read(uint32_t bus, uint32_t bytes, uint64_t now);
    /*! A write issued at `now`: the clock SDRAM has taken its last byte. */
    uint64_t write(uint32_t bus, uint32_t bytes, uint64_t now);
    /*! Invalidates every L2 line (L2CACTL's clear bit). */
    void clear_l2();

    const memory_counts& counts() const { return d_counts; }
    const memory_timing_config& configuration() const { return d_cfg; }

private:
    struct line {
        uint32_t tag = 0;
        bool valid = false;
        uint64_t ready = 0, last_use = 0;
    };
    /*! Occupies the SDRAM channel for `bytes` (rounded up to bursts) from
     * `now` or when it frees; returns the clock the transfer ends. */
    double transfer(uint32_t bytes, uint64_t now);
    line* lookup(uint32_t line_address);
    line& victim(uint32_t line_address);

    memory_timing_config d_cfg;
    uint32_t d_sets = 0;
    std::vector<line> d_lines; // d_sets x ways
    uint64_t d_uses = 0;
    double d_sdram_free = 0;
    memory_counts d_counts;
};

} // namespace qpu::emu

#endif
