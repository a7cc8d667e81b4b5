// SPDX-License-Identifier: GPL-3.0-or-later
#include "opencl_plan_table.h"
#include <algorithm>
#include <sstream>

namespace qa {

namespace ocl = gpufft::opencl::detail;

std::vector<plan_target> plan_targets()
{
    std::vector<plan_target> out;
    for (const ocl::device_limits& d : ocl::limit_presets()) {
        out.push_back({ d.name, d });
        ocl::device_limits rader = d;
        rader.knobs.rader = 2;
        out.push_back({ d.name + " rader=2", rader });
    }
    ocl::device_limits registers = ocl::limit_preset("nvidia-h100");
    registers.knobs.register_from = 4097;
    registers.knobs.odd_shapes = 2;
    out.push_back({ "nvidia-h100 register_from=4097,odd_shapes=2", registers });
    return out;
}

const std::vector<std::size_t>& rule_sizes()
{
    static const std::vector<std::size_t> sizes = {
        // The register mode, and Bluestein through it and in three passes;
        // one pass in rounds (radices 21 and 12 in registers).
        6000,
        8192,
        9152,
        10000,
        11025,
        12000,
        12288,
        15625,
        16384,
        6521,
        4099,
        65539,
        // One transform a work-group.
        1296,
        2520,
        4410,
        // Composite radices in one kernel and both passes of two.
        90,
        175,
        245,
        263,
        729,
        1800,
        6561,
        6912,
        9720,
        13500,
        16807,
        18900,
        59049,
        78125,
        390625,
        823543,
        // Grouped columns.
        65536,
        131072,
        262144,
        // Direct-DFT primes 37 to 47.
        37,
        41,
        43,
        47,
        1681,
        2021,
        37888,
        96256,
        // Rader in one pass, two and three.
        3,
        5,
        97,
        257,
        1009,
        2053,
        4093,
        8191,
        16381,
        65537,
    };
    return sizes;
}

const std::vector<std::size_t>& candidate_sizes()
{
    static const std::vector<std::size_t> sizes = { 1, 2, 12, 64, 90, 1000, 1296, 6000, 8192, 12000, 65536 };
    return sizes;
}

std::vector<planned> plan_table()
{
    std::vector<planned> out;
    for (const plan_target& t : plan_targets())
        for (std::size_t n : rule_sizes()) {
            out.push_back({ t.name, t.limits, ocl::plan_chain(t.limits, n, gpufft::direction::forward), 0 });
            // The inverse's passes are the forward's with the other sign,
            // but for a convolution's chirps, spectrum and permutations.
            const ocl::chain_shape inverse = ocl::plan_chain(t.limits, n, gpufft::direction::inverse);
            if (inverse.convolution_m)
                out.push_back({ t.name, t.limits, inverse, 0 });
        }
    for (const ocl::device_limits& d : ocl::limit_presets())
        for (std::size_t n : candidate_sizes()) {
            const auto list = ocl::shape_candidates(d, n, gpufft::direction::forward);
            for (std::size_t k = 0; k < list.size(); ++k)
                out.push_back({ d.name, d, list[k], k });
        }
    return out;
}

std::string shape_key(const ocl::chain_shape& c)
{
    std::ostringstream k;
    k << c.n << ' ' << int(c.dir) << ' ' << c.scratch_points[0] << ' ' << c.scratch_points[1] << ' '
      << c.convolution_m << ' ' << c.rader_generator;
    for (const ocl::pass_spec& p : c.passes) {
        k << " |" << p.n << ' ' << p.sign << ' ' << ocl::radices_text(p.radices) << ' ' << p.tt << ' '
          << p.g << ' ' << p.tpb << ' ' << p.xchg << ' ' << p.lds_pad << p.convolve << ' '
          << int(p.from) << int(p.to) << ' ' << p.from_dist << ' ' << p.to_dist << ' ' << p.in_cstr
          << ' ' << p.in_estr << ' ' << p.out_cstr << ' ' << p.out_estr << ' ' << p.map_cols
          << p.store_cols << ' ' << p.twiddle_n << ' ' << int(p.load) << int(p.store)
          << p.load_callback << p.store_callback << int(p.rader) << ' ' << p.in_jc << ' ' << p.in_je
          << ' ' << p.out_jc << ' ' << p.out_je;
    }
    return k.str();
}

std::vector<std::string> shape_traits(const ocl::chain_shape& c)
{
    std::vector<std::string> out;
    out.push_back("chain " + std::to_string(c.convolution_m != 0) + std::to_string(c.rader_generator != 0) +
                  std::to_string(c.passes.size()));
    for (const ocl::pass_spec& p : c.passes) {
        const bool even = std::all_of(p.radices.begin(), p.radices.end(),
                                      [&](std::size_t r) { return (p.n / r) % p.tt == 0; });
        std::ostringstream k;
        k << "pass " << (p.xchg != 0) << p.lds_pad << p.convolve << p.map_cols << p.store_cols
          << (p.twiddle_n != 0) << int(p.load) << int(p.store) << int(p.rader) << even << (p.g > 1)
          << (p.tpb > 1) << p.sign;
        out.push_back(k.str());
        for (std::size_t r : p.radices)
            out.push_back("radix " + std::to_string(r) + (p.xchg ? " in registers" : ""));
    }
    return out;
}

} // namespace qa
