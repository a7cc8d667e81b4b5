// SPDX-License-Identifier: GPL-3.0-or-later
#include "memory_timing.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace qpu::emu {

namespace {
// Bus addresses with these top bits bypass the L2 (BCM2835 ARM Peripherals,
// section 1.2.3: the top two bits of a bus address route it via or around
// the L2, and the uncached range starts at 0xC0000000).
constexpr uint32_t UNCACHED_ALIAS = 0xC0000000u;
constexpr uint32_t ALIAS_MASK = 0x3FFFFFFFu;

bool power_of_two(uint32_t v) { return v && !(v & (v - 1)); }
} // namespace

memory_timing::memory_timing(const memory_timing_config& cfg) : d_cfg(cfg)
{
    if (!(cfg.sdram_bytes_per_clock > 0) || !power_of_two(cfg.sdram_burst_bytes))
        throw std::invalid_argument("qpu::emu: sdram_bytes_per_clock must be > 0 and sdram_burst_bytes a power of two");
    if (cfg.l2_bytes) {
        if (!power_of_two(cfg.l2_line_bytes) || cfg.l2_ways == 0 ||
            cfg.l2_bytes % (cfg.l2_line_bytes * cfg.l2_ways) != 0)
            throw std::invalid_argument("qpu::emu: l2_bytes must be a multiple of l2_line_bytes (a power of two) "
                                        "x l2_ways");
        d_sets = cfg.l2_bytes / (cfg.l2_line_bytes * cfg.l2_ways);
        d_lines.resize(std::size_t(d_sets) * cfg.l2_ways);
    }
}

double memory_timing::transfer(uint32_t bytes, uint64_t now)
{
    const uint32_t burst = d_cfg.sdram_burst_bytes;
    const uint32_t rounded = (bytes + burst - 1) / burst * burst;
    const double start = std::max(double(now), d_sdram_free);
    const double clocks = rounded / d_cfg.sdram_bytes_per_clock;
    d_sdram_free = start + clocks;
    d_counts.sdram_busy += uint64_t(std::ceil(clocks));
    return d_sdram_free;
}

memory_timing::line* memory_timing::lookup(uint32_t line_address)
{
    line* set = &d_lines[std::size_t(line_address % d_sets) * d_cfg.l2_ways];
    for (uint32_t w = 0; w < d_cfg.l2_ways; ++w)
        if (set[w].valid && set[w].tag == line_address)
            return &set[w];
    return nullptr;
}

memory_timing::line& memory_timing::victim(uint32_t line_address)
{
    line* set = &d_lines[std::size_t(line_address % d_sets) * d_cfg.l2_ways];
    line* oldest = set;
    for (uint32_t w = 0; w < d_cfg.l2_ways; ++w) {
        if (!set[w].valid)
            return set[w];
        if (set[w].last_use < oldest->last_use)
            oldest = &set[w];
    }
    return *oldest;
}

uint64_t memory_timing::read(uint32_t bus, uint32_t bytes, uint64_t now)
{
    if (bytes == 0)
        return now;
    if (d_lines.empty() || (bus & UNCACHED_ALIAS) == UNCACHED_ALIAS) {
        d_counts.sdram_read_bytes += bytes;
        return uint64_t(std::ceil(transfer(bytes, now))) + d_cfg.sdram_latency;
    }
    const uint32_t address = bus & ALIAS_MASK, size = d_cfg.l2_line_bytes;
    uint64_t ready = now;
    for (uint32_t l = address / size; l <= (address + bytes - 1) / size; ++l) {
        line* hit = lookup(l);
        if (hit) {
            ++d_counts.l2_hits;
        } else {
            ++d_counts.l2_misses;
            d_counts.sdram_read_bytes += size;
            hit = &victim(l);
            *hit = line{l, true, uint64_t(std::ceil(transfer(size, now))) + d_cfg.sdram_latency, 0};
        }
        hit->last_use = ++d_uses;
        ready = std::max(ready, hit->ready);
    }
    return ready;
}

uint64_t memory_timing::write(uint32_t bus, uint32_t bytes, uint64_t now)
{
    if (bytes == 0)
        return now;
    d_counts.sdram_write_bytes += bytes;
    const uint64_t done = uint64_t(std::ceil(transfer(bytes, now)));
    if (d_cfg.l2_write_allocate && !d_lines.empty() && (bus & UNCACHED_ALIAS) != UNCACHED_ALIAS) {
        const uint32_t address = bus & ALIAS_MASK, size = d_cfg.l2_line_bytes;
        for (uint32_t l = address / size; l <= (address + bytes - 1) / size; ++l) {
            line* present = lookup(l);
            if (!present) {
                present = &victim(l);
                *present = line{l, true, now, 0};
            }
            present->last_use = ++d_uses;
        }
    }
    return done;
}

void memory_timing::clear_l2()
{
    for (line& l : d_lines)
        l.valid = false;
}

} // namespace qpu::emu
