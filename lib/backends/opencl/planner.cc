// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: the planner, a pure function of the device's
 * limits (device_limits.h) and the problem: no OpenCL call here. */
#include "planner.h"
#include "codelets.h"
#include "../../core/exact_dft.h"
#include <gpufft/error.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <map>
#include <sstream>
#include <tuple>

namespace gpufft::opencl::detail {

namespace {

// The planner's tuning knobs, all here (scripts/device/sweep-sizes.txt is
// the sweep that tunes them on a GPU).

// Beyond this a one-kernel transform's register and local arrays grow
// unwieldy even where local memory would hold it (CPU devices).
constexpr std::size_t one_kernel_cap = 8192;
// The register mode (fft_pass.cl's XCHG): the largest transform, the most
// points a work-item holds in one stage, and the most work-items a group.
// A Mali (32 KiB local memory, 256-384 work-items, 64 registers a thread at
// full occupancy) would want register_points_cap 16, which leaves 8192 and
// above to two passes there. NVIDIA's OpenCL reads its kernels as allowing
// 256 work-items, and fft_chain takes the reading for this mode: on the H200
// 8192 ran at 0.84 of cuFFT in those 256 (32 points each) against 0.58 in
// the 512 it asks for, 16384 at 0.71 against 0.69 in 512 and 0.17 in 1024
// (64 registers, spilling 1.1 KiB a work-item)
// (scripts/device/results/h200-2026-11-29c-work-groups.md).
constexpr std::size_t register_kernel_cap = 16384;
constexpr std::size_t register_points_cap = 32;
constexpr std::size_t register_group_cap = 1024;
// The register mode with the knobs' register_rounds (shape_rounds_pass):
// sizes up to this many points, in at most this many stages (three
// exchanges, as the powers of two's 8192 and 16384 above).
constexpr std::size_t register_rounds_cap = 32768;
constexpr std::size_t rounds_max_stages = 4;
// Where it is taken: one exchange round (local memory holds a component of
// the whole transform) and at most this many points a work-item. On the H100
// (docs/benchmarks/h100.md, "One pass in rounds") such plans ran 1.7-2.5x
// faster than two passes (6561, 7680, 10000: 27-40 points a work-item); more
// rounds or more points a work-item (register spills) ran 0.2-0.7x as fast
// (11025 planned at 525 work-items, run at 132 of 84 points each within
// NVIDIA's kernel_work_group; 15625, 19683, 20480, 32768 in 2-4 rounds), and
// inside a Bluestein convolution 0.9x (4099 via 8640).
constexpr std::size_t rounds_item_points_cap = 48;
// The defaults of planner_knobs' register_exchange (elements a register-mode
// exchange round aims at) and group_local (the local memory a one-kernel
// work-group is shaped for): on the H100 (scripts/device/results/
// h100-2026-11-25b-groups.md) small groups, so that several share a compute
// unit, took 8192 points from 0.67 to 0.96 of cuFFT and 1296 from 0.68 to
// 0.91, and rounds that do not divide n were up to 4x slower.
// Sizes other than powers of two take the register mode (where local memory
// cannot hold them) in at most this many stages: two exchanges.
constexpr std::size_t register_odd_stages = 3;
// Composite radix stages (codelets.h) replace the hand-written ones in a
// one-kernel plan where they save at least this many stages, with radices
// up to this cap: on the H100 saving one or two lost at 11 of 14 sizes (125
// 0.99 -> 0.59 of cuFFT, 2520 0.94 -> 0.71), saving three or more won or
// tied (729 0.80 -> 0.93, 4410 0.76 -> 0.88; 945, 1296 level), and 1800 as
// 45x40 fell to 0.56. A pass of two-pass plans takes them wherever they
// save a stage: there they won at 7 of 8 sizes (390625 0.47 -> 0.88,
// 823543 0.50 -> 0.82, 48000 1.38 -> 1.26 the loss);
// scripts/device/results/h100-2026-11-25c-odd.md.
constexpr std::size_t composite_min_saving = 3;
constexpr std::size_t one_kernel_composite_cap = 36;
// A convolution (Bluestein's or Rader's) of at most this many points that
// local memory holds takes one pass, both its FFTs and the spectrum
// multiply in one kernel (fft_pass.cl's CONVOLVE with the first load's and
// last store's hooks): on the H200 (scripts/device/results/
// h200-2026-11-28c-convolution.md) 257 by Rader went from 1.04 to 1.58 of
// cuFFT, 97 to 1.77, 2053 by Rader via 2052 to 0.82 (Bluestein in two
// passes: 0.60), but Bluestein via 4320 fell to 0.29 and Rader via 4092 to
// 0.32 of cuFFT.
constexpr std::size_t whole_convolution_cap = 3072;
// Bluestein's length: the smallest product of these primes at least 2n - 1
// where it is at most bluestein_smooth_share of the power of two there (the
// mixed radices' stages cost more than the power of two's), else that power.
constexpr std::size_t bluestein_primes[] = { 2, 3, 5 };
constexpr double bluestein_smooth_share = 0.8;
// The largest prime a stage does as a direct DFT (bf_dft in
// fft_butterflies.cl), which holds about 4R floats a work-item (its R
// points, the (R - 1) / 2 sums and differences, the outputs): 47 (188) within
// the 255 registers a work-item of NVIDIA's and AMD's desktop GPUs, where
// 37888 = 1024 x 37 and 1681 = 41 x 41 then take two passes instead of
// Bluestein's three of twice the length; 31 on devices of fewer than 1024
// work-items a group (a Mali: 64 registers a thread at full occupancy),
// as before, where larger primes go through Bluestein rather than spill.
constexpr std::size_t dft_radix_cap = 47;
constexpr std::size_t small_device_dft_radix_cap = 31;
const std::size_t dft_radices[] = { 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47 };

std::vector<std::size_t> hand_written_radices(std::size_t n);
std::vector<std::size_t> fewest_stages(std::size_t n, std::size_t cap);
std::vector<std::size_t> composed_stages(const std::vector<std::size_t>& hand_written, std::size_t cap);

//! The largest direct-DFT prime on d: a work-item of bf_dft holds about 4R
//! floats.
std::size_t dft_radix_cap_on(const device_limits& d)
{
    return d.registers >= 4 * dft_radix_cap ? dft_radix_cap : small_device_dft_radix_cap;
}
// Work-items a work-group aims for: enough to hide latency on GPUs.
constexpr std::size_t work_group_target = 256;
// The plan-time search (shape_candidates): at most this many shapes a size,
// and above this size (or where local memory cannot hold the transform)
// two passes compete, and the register mode where shape_candidates allows.
constexpr std::size_t max_shape_candidates = 8;
constexpr std::size_t search_split_from = 4096;
// Neighbouring columns a column pass wants in a work-group, so each access
// of a warp covers whole memory segments.
constexpr std::size_t column_group_target = 16;
// The longest row pass a power of two's split takes to keep whole column
// groups (four_step_split).
constexpr std::size_t grouped_row_cap = 1024;

// Why planner_knobs' defaults (device_limits.h) are what they are:
// odd_shapes 1: on the H100 the register mode for odd sizes lost to two
// passes at 9720 to 15625 (0.10 to 0.52 of cuFFT against 0.38 to 1.46) and
// won only at 6561 (scripts/device/results/h100-2026-11-25c-odd.md).
// rader 1: on the H100 in two passes or more
// (scripts/device/results/h100-2026-11-25g-primes.md) Rader won at 257
// (0.83 of cuFFT against 0.76) and 2053 (0.65 against 0.59) and lost at
// 97, 1009, 4093, 8191, 16381 and 65537 (4093: 0.37 against 0.76), its
// gathered loads and scattered stores coalescing worse than Bluestein's
// chirps; in one pass on the H200 it won at 97, 257 and 2053.

//! Local memory for g transforms, padded or not (fft_pass.cl's LDS_TS).
std::size_t lds_bytes(std::size_t n, std::size_t g, bool pad)
{
    return g * (pad ? (n + n / 16) | 1 : n) * 8;
}

bool is_power_of_two(std::size_t n) { return (n & (n - 1)) == 0; }

/*!
 * Whether an n-point pass pads its local memory (fft_pass.cl's LDS_PAD):
 * always, except where only the unpadded transform fits and n has an odd
 * factor (6000 points, 48000 bytes, in the H100's 48 KiB: one kernel, not
 * two passes). The pad spreads power-of-two strides over the banks; a
 * size with an odd factor has fewer such strides to spread.
 */
bool pads_lds(const device_limits& d, std::size_t n)
{
    return is_power_of_two(n) || lds_bytes(n, 1, true) <= d.local_memory || d.knobs.odd_shapes == 0;
}

/*!
 * The local memory a work-group of s is shaped for (transforms a group):
 * all of d's for a column pass, which wants column_group_target columns a
 * group; else the knobs' group_local bytes (a
 * tuning override). A transform that needs more still gets a work-group of
 * its own (fits_one_kernel counts all of d's local memory).
 */
std::size_t group_local_bytes(const device_limits& d, const pass_spec& s)
{
    if (s.map_cols || s.store_cols)
        return d.local_memory;
    return std::min(d.local_memory, d.knobs.group_local);
}

bool needs_lds(const pass_spec& s)
{
    return s.radices.size() > 1 || s.map_cols != s.store_cols || s.convolve;
}

//! Whether n's stages exist on d: no direct-DFT prime above d's cap.
bool has_stages_on(const device_limits& d, std::size_t n)
{
    const auto r = radices_for(d, n);
    const std::size_t cap = dft_radix_cap_on(d);
    return !r.empty() && std::none_of(r.begin(), r.end(), [&](std::size_t x) {
        return has_dft_radix(x) && x > cap;
    });
}

//! Whether one kernel can do n points on d (with local memory if `staged`).
bool fits_one_kernel(const device_limits& d, std::size_t n, bool staged)
{
    const auto r = radices_for(d, n);
    if (!has_stages_on(d, n) || n > one_kernel_cap)
        return false;
    return (!staged && r.size() == 1) || lds_bytes(n, 1, pads_lds(d, n)) <= d.local_memory;
}

/*!
 * Work-items per transform: each stage's butterflies are spread over them,
 * ceil(n / R / tt) each, so a transform takes sum_s ceil(n / R_s / tt) tt R_s
 * slots, and its work-group (about work_group_target work-items, at most
 * max_group transforms) is rounded up to whole warps of 32. The fewest slots
 * so counted between half and all of the largest radix's butterflies (at
 * most max_work_items), the most work-items on a tie.
 */
std::size_t work_items_per_transform(std::size_t n,
                                     const std::vector<std::size_t>& radices,
                                     std::size_t max_work_items,
                                     std::size_t max_group)
{
    const std::size_t most = *std::max_element(radices.begin(), radices.end());
    const std::size_t widest = n / most;
    const std::size_t hi = std::min(widest, max_work_items);
    std::size_t lo = std::max<std::size_t>(1, hi / 2);
    // A composite radix above 16 (codelets.h): no stage holds more points
    // a work-item than that radix or register_points_cap, or registers spill.
    const auto points = [&](std::size_t tt) {
        std::size_t p = 0;
        for (std::size_t r : radices)
            p = std::max(p, (n / r + tt - 1) / tt * r);
        return p;
    };
    if (most > 16)
        while (lo < hi && points(lo) > std::max(register_points_cap, most))
            ++lo;
    std::size_t best = hi;
    double best_slots = 1e300;
    for (std::size_t tt = hi; tt >= lo; --tt) {
        double slots = 0;
        for (std::size_t r : radices)
            slots += double((n / r + tt - 1) / tt * tt * r);
        const std::size_t group =
            std::clamp<std::size_t>(work_group_target / tt, 1, max_group) * tt;
        slots *= double((group + 31) / 32 * 32) / double(group);
        if (slots < best_slots) {
            best = tt;
            best_slots = slots;
        }
    }
    return best;
}

//! Transforms per work-group for s.tt work-items each: about `group`
//! work-items, as many as d's work-group and `local_bytes` allow.
void fit_group(const device_limits& d, pass_spec& s, std::size_t group, std::size_t local_bytes)
{
    s.lds_pad = pads_lds(d, s.n);
    std::size_t g = std::max<std::size_t>(1, group / s.tt);
    if (s.map_cols || s.store_cols)
        g = std::max(g, column_group_target);
    while (g > 1 && (g * s.tt > d.max_work_group ||
                     (needs_lds(s) && lds_bytes(s.n, g, s.lds_pad) > local_bytes)))
        --g;
    s.g = g;
}

//! Work-items per transform and transforms per work-group for s.radices.
void shape_work_items(const device_limits& d, pass_spec& s)
{
    const std::size_t lds_groups =
        needs_lds(s) ? std::max<std::size_t>(1, group_local_bytes(d, s) /
                                                    lds_bytes(s.n, 1, pads_lds(d, s.n)))
                     : 1024;
    s.tt = work_items_per_transform(
        s.n, s.radices, std::min(work_group_target, d.max_work_group), lds_groups);
    fit_group(d, s, work_group_target, group_local_bytes(d, s));
}

//! A pass's radices, work-items per transform and transforms per work-group.
void shape_pass(const device_limits& d, pass_spec& s)
{
    // A convolution's one-kernel FFTs (a chirp, spectrum or gather hook)
    // keep the hand-written radices: on the H100 Bluestein's 257 (via 540)
    // ran at 0.49 of cuFFT in 27x20 against 0.76 in 4x5x3x3x3, 2053 (via
    // 4320) at 0.53 against 0.59
    // (scripts/device/results/h100-2026-11-25e-bluestein.md).
    const bool column = s.map_cols || s.store_cols;
    const bool convolution_whole = !column && (s.load == load_hook::chirp ||
                                               s.load == load_hook::spectrum ||
                                               s.load == load_hook::gather);
    s.radices = radices_for(d, s.n, column ? composites::two_pass : convolution_whole ? composites::none
                                                                                      : composites::one_kernel);
    shape_work_items(d, s);
}

//! The most elements an exchange round of the register mode takes in d's
//! local memory (float slots, one pad every 16, fft_pass.cl's XIDX).
std::size_t exchange_capacity(const device_limits& d)
{
    const std::size_t slots = d.local_memory / sizeof(float);
    return slots < 2 ? 0 : (slots - 1) * 16 / 17;
}

/*!
 * The register mode's exchange rounds and work-items for s.radices on d, if
 * they fit: one transform a work-group, its exchanges in rounds of about
 * `chunk` elements (at most exchange_capacity), and enough work-items (at
 * most register_group_cap) that no stage holds more than `points` points a
 * work-item.
 */
bool fit_register_pass(const device_limits& d, pass_spec& s, std::size_t points, std::size_t chunk)
{
    chunk = std::min(chunk, exchange_capacity(d));
    if (s.radices.size() < 2 || chunk == 0)
        return false;
    // Rounds of at most chunk elements, as few as divide n evenly.
    std::size_t rounds = (s.n + chunk - 1) / chunk;
    for (std::size_t r = rounds; r < 4 * rounds; ++r)
        if (s.n % r == 0) {
            rounds = r;
            break;
        }
    s.xchg = (s.n + rounds - 1) / rounds;
    const std::size_t max_items = std::min(register_group_cap, d.max_work_group);
    // At least enough work-items that no stage holds more than the cap.
    std::size_t fewest = 1;
    for (std::size_t r : s.radices) {
        if (r > points)
            return false;
        const std::size_t butterflies = s.n / r, each = points / r;
        fewest = std::max(fewest, (butterflies + each - 1) / each);
    }
    s.tt = std::max(fewest, work_items_per_transform(s.n, s.radices, max_items, 1));
    s.g = 1;
    return s.tt <= max_items;
}

//! The register mode for s.n points on d in radices_for's stages, if it
//! fits (fit_register_pass: register_points_cap points a work-item, rounds
//! of the knobs' register_exchange elements).
bool shape_register_pass(const device_limits& d, pass_spec& s)
{
    s.radices = radices_for(d, s.n);
    return s.n <= register_kernel_cap &&
           fit_register_pass(d, s, register_points_cap, d.knobs.register_exchange);
}

//! The points a work-item holds in a register_rounds pass on d: about four
//! registers a point (its two floats and a butterfly's temporaries), at
//! most register_points_cap.
std::size_t rounds_points(const device_limits& d)
{
    return std::min(register_points_cap, d.registers / 4);
}

//! The work-items fft_chain launches a register-mode pass of tt at: halved
//! until within the driver's kernel_work_group (fft_plan.cc).
std::size_t launched_items(const device_limits& d, std::size_t tt)
{
    while (tt > 1 && tt > d.kernel_work_group)
        tt = (tt + 1) / 2;
    return tt;
}

/*!
 * The knobs' register_rounds (one pass, several rounds of exchange) for
 * s.n points on d, if it fits: at most register_rounds_cap points, in the
 * fewest stages of radices up to rounds_points(d) (composite ones too,
 * codelets.h: each stage saved is an exchange saved), at most
 * rounds_max_stages of them, in at most register_group_cap work-items of
 * rounds_points(d) points each, exchanged in rounds of as much as local
 * memory holds (fit_register_pass; each round is two barriers a component,
 * and such a work-group has a compute unit's registers to itself anyway).
 * So the work-group's registers hold the transform and local memory a
 * round of it. On NVIDIA's 48 KiB: up to 32768 points (4 stages of 16, 16,
 * 16 and 8, 4 rounds of 8192), 7680 as 24x20x16 in one round; on a Mali (64
 * registers: 16 points a work-item, 256 work-items) nothing local memory
 * cannot hold, so its plans stay as they were.
 */
bool shape_rounds_pass(const device_limits& d, pass_spec& s)
{
    if (!d.knobs.register_rounds || s.n > register_rounds_cap)
        return false;
    const std::size_t points = rounds_points(d);
    const std::vector<std::size_t> r = hand_written_radices(s.n);
    if (r.empty())
        return false;
    s.radices = composed_stages(r, points);
    if (s.radices.empty() || s.radices.size() > rounds_max_stages || !has_stages_on(d, s.n) ||
        !fit_register_pass(d, s, points, exchange_capacity(d)) || s.xchg < s.n)
        return false;
    const std::size_t items = launched_items(d, s.tt);
    return (s.n + items - 1) / items <= rounds_item_points_cap;
}

/*!
 * Whether an n-point pass takes the register mode: where local memory cannot
 * hold it whole, at powers of two, and with the knobs' odd_shapes 2 at
 * other sizes whose radices make at most register_odd_stages stages;
 * anywhere it fits from the knobs' register_from on. On the H100
 * (scripts/device/results/h100-2026-11-25-sweep.md) the mode beat two
 * passes at 8192 and 16384, and lost to them at 10000 to 15625 in five and
 * six stages of radix 3 and 5 (0.08-0.39 of cuFFT); two passes cost a
 * second read and write of device memory, which held those sizes at 0.36 to
 * 0.46 of cuFFT (about 1000 GB/s against its one-pass 2300-2800). With the
 * knobs' register_rounds, also every other size local memory cannot hold
 * that shape_rounds_pass fits, in at most four stages (three exchanges) of
 * as large rounds as local memory holds: half the device-memory traffic of
 * two passes, not yet timed against them on a GPU.
 */
bool wants_register_pass(const device_limits& d, std::size_t n, pass_spec& s)
{
    if (fits_one_kernel(d, n, false))
        return n >= d.knobs.register_from && shape_register_pass(d, s);
    const bool few_stages = d.knobs.odd_shapes == 2 && radices_for(d, n).size() <= register_odd_stages;
    return ((n >= d.knobs.register_from || is_power_of_two(n) || few_stages) &&
            shape_register_pass(d, s)) ||
           shape_rounds_pass(d, s);
}

//! limits without one pass in rounds, as convolutions are planned
//! (rounds_item_points_cap).
device_limits without_rounds(const device_limits& limits)
{
    device_limits d = limits;
    d.knobs.register_rounds = 0;
    return d;
}

//! Whether a convolution of m points on d takes one pass (whole_convolution_cap).
bool whole_convolution(const device_limits& limits, std::size_t m)
{
    const device_limits d = without_rounds(limits);
    pass_spec probe;
    probe.n = m;
    return m <= whole_convolution_cap && fits_one_kernel(d, m, true) &&
           !wants_register_pass(d, m, probe);
}

std::size_t one_kernel_limit(const device_limits& d)
{
    std::size_t n = one_kernel_cap;
    while (n > 1 && !fits_one_kernel(d, n, true))
        n /= 2;
    return n;
}

//! Every n1 for two passes of n = n1 * n2 points on d, both factors fitting
//! one kernel, ascending.
std::vector<std::size_t> four_step_factors(const device_limits& d, std::size_t n)
{
    // Both factors fit one kernel, and no size that fits reaches twice the
    // largest power of two that does: a huge n has no split, and must not cost
    // a trial division up to its square root.
    const std::size_t bound = 2 * one_kernel_limit(d);
    std::vector<std::size_t> out;
    if (n / bound > bound)
        return out;
    for (std::size_t a = 2; a <= bound && a < n; ++a)
        if (n % a == 0 && n / a <= bound && fits_one_kernel(d, a, true) &&
            fits_one_kernel(d, n / a, true))
            out.push_back(a);
    return out;
}

//! Whether a column pass of n1 points holds column_group_target columns a
//! work-group in d's local memory (whole 128-byte segments a row's access).
bool holds_column_group(const device_limits& d, std::size_t n1)
{
    return lds_bytes(n1, column_group_target, pads_lds(d, n1)) <= d.local_memory;
}

/*!
 * n = n1 * n2 for two passes, n1 <= n2 and as close to sqrt(n) as fits; a
 * power of two takes the largest n1 whose column pass holds a whole column
 * group instead, where n2 stays within grouped_row_cap. Measured on the H100
 * (scripts/device/results/h100-2026-11-25f-splits.md): 2^18 at 1.03 of cuFFT
 * as 256 x 1024 against 0.81 as 512 x 512 (11 columns a group); 256 x 2048
 * and 256 x 4096 at 0.45 and 0.34 against 0.82 and 0.80 for 512 x 1024 and
 * 1024 x 1024 (their row passes store transposed from one or two
 * transforms a group); sizes with odd factors lost with it (196830: 1.24
 * against 1.52), their columns never whole segments anyway.
 */
bool four_step_split(const device_limits& d, std::size_t n, std::size_t& n1, std::size_t& n2)
{
    std::size_t squarest = 0, grouped = 0;
    for (std::size_t a : four_step_factors(d, n))
        if (a * a <= n) {
            squarest = a;
            if (is_power_of_two(n) && n / a <= grouped_row_cap && holds_column_group(d, a))
                grouped = a;
        }
    n1 = grouped ? grouped : squarest;
    n2 = n1 ? n / n1 : 0;
    return n1 != 0;
}

//! The column pass of a four-step split n1 * n2: n2 columns of n1 points,
//! element e of column c at c + e * n2, twiddled by the whole transform's
//! roots on store.
void set_columns(pass_spec& p, std::size_t n1, std::size_t n2)
{
    p.n = n1;
    p.tpb = n2;
    p.in_cstr = p.out_cstr = 1;
    p.in_estr = p.out_estr = n2;
    p.map_cols = p.store_cols = true;
    p.twiddle_n = n1 * n2;
    p.in_jc = 1;
    p.in_je = n2;
}

//! Appends the two passes of s.n = n1 * n2 points (s: the one-pass spec),
//! through `mid`.
void append_two_passes(chain_shape& c,
                       const device_limits& d,
                       const pass_spec& s,
                       buffer_slot mid,
                       std::size_t n1,
                       std::size_t n2)
{
    const std::size_t n = s.n;
    pass_spec p1 = s;
    set_columns(p1, n1, n2);
    p1.to = mid;
    p1.to_dist = n;
    p1.store = store_hook::none;
    shape_pass(d, p1);
    // Rows, stored transposed: output k + m * n1.
    pass_spec p2 = s;
    p2.n = n2;
    p2.tpb = n1;
    p2.from = mid;
    p2.from_dist = n;
    p2.in_cstr = n2;
    p2.in_estr = 1;
    p2.out_cstr = 1;
    p2.out_estr = n1;
    p2.store_cols = true;
    p2.load = load_hook::none;
    p2.out_jc = 1;
    p2.out_je = n1;
    shape_pass(d, p2);
    c.passes.push_back(p1);
    c.passes.push_back(p2);
    c.scratch_points[mid == buffer_slot::scratch0 ? 0 : 1] = n;
}

//! Appends the passes of an n-point FFT from `from` to `to`, through `mid`
//! when it takes two passes. Returns false if n is beyond two passes.
bool append_fft(chain_shape& c,
                const device_limits& d,
                std::size_t n,
                int sign,
                buffer_slot from,
                std::size_t from_dist,
                buffer_slot to,
                std::size_t to_dist,
                buffer_slot mid,
                load_hook lh,
                store_hook sh)
{
    pass_spec s;
    s.sign = sign;
    s.from = from;
    s.from_dist = from_dist;
    s.to = to;
    s.to_dist = to_dist;
    s.load = lh;
    s.store = sh;
    s.n = n;
    const bool whole = fits_one_kernel(d, n, false);
    if (wants_register_pass(d, n, s)) {
        c.passes.push_back(s);
        return true;
    }
    s.xchg = 0;
    if (whole) {
        shape_pass(d, s);
        c.passes.push_back(s);
        return true;
    }
    std::size_t n1 = 0, n2 = 0;
    if (!four_step_split(d, n, n1, n2))
        return false;
    append_two_passes(c, d, s, mid, n1, n2);
    return true;
}

/*!
 * A cyclic convolution of m points with a kernel spectrum, the user's input
 * in, the result out: in one pass where local memory holds m points, up to
 * whole_convolution_cap (CONVOLVE with the first load's and last store's
 * hooks); else a forward and an inverse FFT where m fits one pass; else
 * three passes on a four-step split m = n1 n2 (element c + e n2 is
 * column c's e-th): the forward columns; each row forward, times the kernel
 * spectrum at its natural index, inverse and times the inverse's twiddle, in
 * one kernel (CONVOLVE), stored in place of the row (no transpose); the
 * inverse columns.
 *
 * Bluestein's (m >= 2n - 1): the input times the chirp fused into the first
 * load, the result times the chirp into the last store. Rader's (`rader`,
 * m = n - 1, n prime; Rader, "Discrete Fourier transforms when the number
 * of data samples is prime", Proc. IEEE 56(6), 1968): with g a generator
 * mod n, X[g^-k] = x0 + sum_q x[g^q] w^(g^(q-k)), a convolution of
 * a[q] = x[g^q] with w^(g^-q); the first load gathers a[q], the last store
 * scatters to g^-k, and X[0] = A[0] + x0 (A the gathered sequence's
 * spectrum) goes through a slot after each scratch entry (rader_slot) to
 * the output's element 0. x0 joins the convolution where A[0] is known, as
 * A[0] - (n - 1) x0 (the kernel spectrum's B[0] is -1 / (n - 1)): gathered
 * as a[q] - x0 instead it went through the forward FFT, and an impulse's
 * transform was off by up to 2e-6 at 431 points (fft_pass.cl, rader_dc).
 */
bool append_convolution(chain_shape& c, const device_limits& limits, std::size_t m, bool rader)
{
    const device_limits d = without_rounds(limits);
    const load_hook first_load = rader ? load_hook::gather : load_hook::chirp;
    const store_hook last_store = rader ? store_hook::scatter : store_hook::chirp;
    const std::size_t dist = rader ? m + 1 : m;
    if (whole_convolution(d, m)) {
        // One read and one write of device memory.
        pass_spec whole;
        whole.n = m;
        whole.load = first_load;
        whole.store = last_store;
        whole.convolve = true;
        whole.rader = rader ? rader_slot::whole : rader_slot::none;
        shape_pass(d, whole);
        c.passes.push_back(whole);
        return true;
    }
    pass_spec probe;
    probe.n = m;
    std::size_t n1 = 0, n2 = 0;
    if (fits_one_kernel(d, m, false) || wants_register_pass(d, m, probe) ||
        !four_step_split(d, m, n1, n2)) {
        const std::size_t first = c.passes.size();
        if (!append_fft(c, d, m, -1, buffer_slot::in, 0, buffer_slot::scratch1, dist,
                        buffer_slot::scratch0, first_load, store_hook::none))
            return false;
        const std::size_t second = c.passes.size();
        if (!append_fft(c, d, m, 1, buffer_slot::scratch1, dist, buffer_slot::out, 0,
                        buffer_slot::scratch0, load_hook::spectrum, last_store))
            return false;
        c.scratch_points[1] = dist;
        if (rader) {
            c.passes[first].rader = rader_slot::sum;
            c.passes[second].rader = rader_slot::emit;
        }
        return true;
    }
    pass_spec cols;
    cols.sign = -1;
    set_columns(cols, n1, n2);
    cols.from = buffer_slot::in;
    cols.to = buffer_slot::scratch0;
    cols.to_dist = dist;
    cols.load = first_load;
    cols.rader = rader ? rader_slot::keep_x0 : rader_slot::none;
    shape_pass(d, cols);
    pass_spec rows;
    rows.sign = -1;
    rows.n = n2;
    rows.tpb = n1;
    rows.from = buffer_slot::scratch0;
    rows.from_dist = dist;
    rows.to = buffer_slot::scratch1;
    rows.to_dist = dist;
    rows.in_cstr = rows.out_cstr = n2;
    rows.twiddle_n = m;
    rows.convolve = true;
    rows.rader = rader ? rader_slot::sum : rader_slot::none;
    shape_pass(d, rows);
    pass_spec inverse = cols;
    inverse.sign = 1;
    inverse.from = buffer_slot::scratch1;
    inverse.from_dist = dist;
    inverse.to = buffer_slot::out;
    inverse.to_dist = 0;
    inverse.twiddle_n = 0;
    inverse.load = load_hook::none;
    inverse.store = last_store;
    inverse.rader = rader ? rader_slot::emit : rader_slot::none;
    inverse.in_jc = 0;
    inverse.in_je = 1;
    inverse.out_jc = 1;
    inverse.out_je = n2;
    shape_pass(d, inverse);
    c.passes.insert(c.passes.end(), { cols, rows, inverse });
    c.scratch_points[0] = c.scratch_points[1] = dist;
    return true;
}

//! The convolution lengths of Bluestein's algorithm for n points, best
//! first (see bluestein_primes): the power of two comes last, as a product
//! of other primes may have no two-pass split on a device.
std::vector<std::size_t> bluestein_lengths(std::size_t n)
{
    const std::size_t least = 2 * n - 1;
    std::size_t power = 1;
    while (power < least)
        power *= 2;
    std::size_t best = power;
    // Every product of bluestein_primes in [least, power), smallest kept.
    std::vector<std::size_t> products = { 1 };
    for (std::size_t p : bluestein_primes)
        for (std::size_t i = 0; i < products.size(); ++i)
            if (products[i] * p < power)
                products.push_back(products[i] * p);
    for (std::size_t x : products)
        if (x >= least)
            best = std::min(best, x);
    if (double(best) <= bluestein_smooth_share * double(power))
        return { best, power };
    return { power };
}


/*!
 * n's stages of the hand-written butterflies: the powers of two in as few
 * stages of at most 16 as there can be, evened out, then 7, 5, 3, then the
 * primes 11 to dft_radix_cap; empty if n has a larger prime factor.
 */
std::vector<std::size_t> hand_written_radices(std::size_t n)
{
    std::vector<std::size_t> r;
    unsigned twos = 0;
    for (; n % 2 == 0; n /= 2)
        ++twos;
    const unsigned stages = (twos + 3) / 4;
    for (unsigned s = 0; s < stages; ++s)
        r.push_back(std::size_t(1) << (twos / stages + (s < twos % stages ? 1 : 0)));
    for (std::size_t p : { 7, 5, 3 })
        for (; n % p == 0; n /= p)
            r.push_back(p);
    for (std::size_t p : dft_radices)
        for (; n % p == 0; n /= p)
            r.push_back(p);
    if (n != 1)
        return {};
    return r;
}

/*!
 * n = 2^a 3^b 5^c 7^d in the fewest stages of stage_radices() up to cap
 * (2, 3, 4, 5, 7, 8, 16 are always there); among those
 * the smallest largest radix (registers, and work-items evenly busy), then
 * the smallest sum; largest radix first. Their product is n: { 1 } for one
 * point (as radices_for), empty where n has another prime factor.
 */
std::vector<std::size_t> fewest_stages(std::size_t n, std::size_t cap)
{
    if (n == 1)
        return { 1 };
    // Empty: no stages reach m (m = 1 needs none). Each m's answer holds
    // for every n it divides, so it is kept across calls (a search's
    // candidates and a table of sizes ask again and again); per thread, as
    // plans are made on several at once.
    thread_local std::map<std::size_t, std::map<std::size_t, std::vector<std::size_t>>> memo;
    auto& best = memo[cap];
    best.emplace(1, std::vector<std::size_t>{});
    const auto rank = [](const std::vector<std::size_t>& r) {
        std::size_t sum = 0;
        for (std::size_t x : r)
            sum += x;
        return std::make_tuple(r.size(), r.empty() ? 0 : r.front(), sum);
    };
    const auto solve = [&](const auto& self, std::size_t m) -> const std::vector<std::size_t>& {
        auto it = best.find(m);
        if (it != best.end())
            return it->second;
        std::vector<std::size_t> choice;
        bool found = false;
        for (std::size_t r : stage_radices()) {
            if (m % r || r > cap)
                continue;
            std::vector<std::size_t> c = self(self, m / r);
            if (c.empty() && m != r)
                continue;
            c.push_back(r);
            std::sort(c.rbegin(), c.rend());
            if (!found || rank(c) < rank(choice)) {
                choice = c;
                found = true;
            }
        }
        return best.emplace(m, choice).first->second;
    };
    return solve(solve, n);
}

/*!
 * hand_written's stages with their 2^a 3^b 5^c 7^d part in fewest_stages of
 * at most cap points (composite ones too), the larger primes after it.
 */
std::vector<std::size_t> composed_stages(const std::vector<std::size_t>& hand_written, std::size_t cap)
{
    std::size_t smooth = 1;
    for (std::size_t x : hand_written)
        if (!has_dft_radix(x))
            smooth *= x;
    std::vector<std::size_t> out = smooth > 1 ? fewest_stages(smooth, cap) : std::vector<std::size_t>{};
    for (std::size_t x : hand_written)
        if (has_dft_radix(x))
            out.push_back(x);
    return out;
}

} // namespace

bool has_dft_radix(std::size_t r)
{
    return std::find(std::begin(dft_radices), std::end(dft_radices), r) != std::end(dft_radices);
}

std::string radices_text(const std::vector<std::size_t>& r)
{
    std::string s;
    for (std::size_t x : r)
        s += (s.empty() ? "" : "x") + std::to_string(x);
    return s;
}

std::vector<std::size_t> radices_for(const device_limits& d, std::size_t n, composites use)
{
    if (n == 1)
        return { 1 };
    std::vector<std::size_t> r = hand_written_radices(n);
    if (r.empty() || is_power_of_two(n) || d.knobs.odd_shapes == 0 || use == composites::none)
        return r;
    const bool two_pass = use == composites::two_pass;
    // The 2^a 3^b 5^c 7^d part in composite stages where that saves enough
    // stages (each is a local-memory round trip and a barrier: 3^6 in two
    // stages of 27, not six of 3; composite_min_saving); else as it was.
    const std::vector<std::size_t> out = composed_stages(r, two_pass ? SIZE_MAX : one_kernel_composite_cap);
    return out.size() + (two_pass ? 1 : composite_min_saving) > r.size() ? r : out;
}

std::string chain_shape::describe() const
{
    std::ostringstream s;
    if (rader_generator)
        s << "rader via " << convolution_m << " (generator " << rader_generator << "): ";
    else if (convolution_m)
        s << "bluestein via " << convolution_m << ": ";
    else if (passes.size() == 1)
        s << "one kernel: ";
    else if (static const char* const count[] = { "two", "three", "four" }; passes.size() <= 4)
        s << count[passes.size() - 2] << " passes: ";
    else
        s << passes.size() << " passes: ";
    for (std::size_t i = 0; i < passes.size(); ++i) {
        const pass_spec& p = passes[i];
        s << (i ? " | " : "") << radices_text(p.radices) << ", " << p.g << " transform"
          << (p.g == 1 ? "" : "s") << " of " << p.tt << " work-items a group";
        if (p.xchg)
            s << ", in registers, exchanged " << p.xchg << " elements a round";
        if (p.convolve)
            s << ", forward, times the spectrum and inverse";
    }
    if (!search_note.empty())
        s << " (" << search_note << ")";
    return s.str();
}

chain_shape plan_chain(const device_limits& d, std::size_t n, direction dir, bool rader)
{
    // A 0-point transform has no stages: refused, never planned (the radix
    // splitting below would not end).
    if (n == 0)
        throw error("gpufft: opencl: cannot plan a 0-point transform");
    chain_shape c;
    c.n = n;
    c.dir = dir;
    const int sign = dir == direction::forward ? -1 : 1;
    const std::size_t limit = one_kernel_limit(d);
    const auto beyond_reach = [&] {
        return error("gpufft: opencl: size " + std::to_string(n) + " is beyond the " +
                     std::to_string(limit * limit) + " points two passes reach on " + d.name);
    };
    // No size that fits one kernel reaches twice the power-of-two limit, so
    // this rejects nothing two passes could do; checked first so that the
    // Bluestein length below cannot overflow.
    if (n / (2 * limit) > 2 * limit)
        throw beyond_reach();
    bool ok = false;
    if (has_stages_on(d, n)) {
        ok = append_fft(c, d, n, sign, buffer_slot::in, 0, buffer_slot::out, 0,
                        buffer_slot::scratch0, load_hook::none, store_hook::none);
    } else {
        for (std::size_t m : bluestein_lengths(n)) {
            c.passes.clear();
            c.scratch_points[0] = 0;
            c.convolution_m = m;
            if (append_convolution(c, d, m, false))
                break;
        }
        ok = !c.passes.empty();
        // Rader (rader_level): at level 2 where n - 1 has stages here and
        // its passes move no more points through device memory than
        // Bluestein's (passes times length; n - 1 is under half of
        // Bluestein's m, so the same number of passes or one more at most
        // half as long); at either level wherever its convolution is one
        // pass (whole_convolution). Accuracy decides level 1: x[0] stays out of
        // Rader's convolution and its kernel is exact (exact_dft.h), so an
        // impulse or a constant comes out exact, where Bluestein's chirp
        // leaves about 1e-7 on them (109 by Bluestein via 256 missed twice
        // scipy float32's error on a constant). Speed mostly agrees (on the
        // H200 97 by Rader 1.77 of cuFFT against 1.37) but not always (1009
        // 0.81 in 16x7x3x3 against 0.90 in 16x16x8).
        const int level = rader ? d.knobs.rader : 0;
        const bool whole = level > 0 && whole_convolution(d, n - 1);
        if (level > 0 && exact::is_prime(n) && has_stages_on(d, n - 1) && (level == 2 || whole)) {
            chain_shape r = c;
            r.passes.clear();
            r.scratch_points[0] = r.scratch_points[1] = 0;
            r.convolution_m = n - 1;
            r.rader_generator = exact::generator(n);
            if (append_convolution(r, d, n - 1, true) &&
                (!ok || whole || r.passes.size() * (n - 1) <= c.passes.size() * c.convolution_m)) {
                c = r;
                ok = true;
            }
        }
    }
    if (!ok)
        throw beyond_reach();
    return c;
}

std::string shape_fault(const device_limits& d, const chain_shape& c)
{
    const auto fault = [&](const std::string& why) {
        return std::to_string(c.n) + " points as \"" + c.describe() + "\": " + why;
    };
    if (c.n == 0 || c.passes.empty())
        return fault("no points or no passes");
    if (c.passes.front().from != buffer_slot::in || c.passes.back().to != buffer_slot::out)
        return fault("the chain does not read the input first and write the output last");
    if (c.rader_generator ? c.convolution_m != c.n - 1
                          : c.convolution_m && c.convolution_m < 2 * c.n - 1)
        return fault("a convolution of " + std::to_string(c.convolution_m) + " points");
    // Every pass covers the transform (or the convolution): its points times
    // its transforms a batch entry.
    const std::size_t covered = c.convolution_m ? c.convolution_m : c.n;
    const std::size_t cap = dft_radix_cap_on(d);
    for (std::size_t i = 0; i < c.passes.size(); ++i) {
        const pass_spec& p = c.passes[i];
        const std::string pass = "pass " + std::to_string(i) + ": ";
        if (p.n == 0 || p.tpb == 0 || p.n * p.tpb != covered)
            return fault(pass + std::to_string(p.n) + " points times " + std::to_string(p.tpb) +
                         " transforms an entry are not " + std::to_string(covered));
        std::size_t product = 1;
        for (std::size_t r : p.radices) {
            const auto& staged = stage_radices();
            if (r == 1 ? p.n != 1
                       : std::find(staged.begin(), staged.end(), r) == staged.end() &&
                             !(has_dft_radix(r) && r <= cap))
                return fault(pass + "no butterfly of radix " + std::to_string(r) + " here");
            product *= r;
        }
        if (p.radices.empty() || product != p.n)
            return fault(pass + "radices " + radices_text(p.radices) + " do not make " +
                         std::to_string(p.n) + " points");
        if (p.tt == 0 || p.g == 0 || p.g * p.tt > d.max_work_group)
            return fault(pass + std::to_string(p.g) + " transforms of " + std::to_string(p.tt) +
                         " work-items a group, beyond " + std::to_string(d.max_work_group));
        for (const buffer_slot b : { p.from, p.to })
            if ((b == buffer_slot::scratch0 && !c.scratch_points[0]) ||
                (b == buffer_slot::scratch1 && !c.scratch_points[1]))
                return fault(pass + "a scratch buffer the chain does not have");
        // Local memory: fft_pass.cl's lds (LDS_TS), or the register mode's
        // exchange slots (XIDX).
        const std::size_t local = p.xchg         ? (p.xchg + p.xchg / 16 + 1) * sizeof(float)
                                  : needs_lds(p) ? lds_bytes(p.n, p.g, p.lds_pad)
                                                 : 0;
        if (local > d.local_memory)
            return fault(pass + std::to_string(local) + " bytes of local memory, beyond " +
                         std::to_string(d.local_memory));
        if (p.xchg && (p.g != 1 || p.radices.size() < 2 || p.map_cols || p.store_cols))
            return fault(pass + "the register mode takes one row transform a group in two "
                                "stages or more");
    }
    return "";
}

std::vector<chain_shape> shape_candidates(const device_limits& d, std::size_t n, direction dir)
{
    std::vector<chain_shape> out = { plan_chain(d, n, dir) };
    if (out.front().convolution_m)
        return out;
    auto add = [&](const chain_shape& c) {
        const std::string text = c.describe();
        if (out.size() < max_shape_candidates &&
            std::none_of(out.begin(), out.end(),
                         [&](const chain_shape& o) { return o.describe() == text; }))
            out.push_back(c);
    };
    chain_shape base;
    base.n = n;
    base.dir = dir;
    pass_spec s;
    s.n = n;
    s.sign = dir == direction::forward ? -1 : 1;
    s.radices = radices_for(d, n);
    // One kernel, whole in local memory: work-items a transform from those
    // of the widest stage (the fewest that leave none idle in it) to those of
    // the narrowest (every butterfly its own work-item), groups of half to
    // twice work_group_target.
    if (fits_one_kernel(d, n, false)) {
        pass_spec today = s;
        shape_pass(d, today);
        const std::size_t widest = n / *std::max_element(s.radices.begin(), s.radices.end());
        const std::size_t narrowest = n / *std::min_element(s.radices.begin(), s.radices.end());
        const std::pair<std::size_t, std::size_t> shapes[] = {
            { today.tt, work_group_target / 2 },
            { today.tt, work_group_target * 2 },
            { widest, work_group_target },
            { narrowest, work_group_target },
            { (today.tt + 1) / 2, work_group_target },
        };
        // The hand-written radices where the rules took composite ones
        // (composite_min_saving's trade-off, measured on the H100).
        pass_spec hand = s;
        hand.radices = radices_for(d, n, composites::none);
        if (hand.radices != today.radices) {
            shape_work_items(d, hand);
            chain_shape c = base;
            c.passes = { hand };
            add(c);
        }
        // As many transforms a group as the whole local memory holds, not
        // the knobs' group_local share: fewer, fuller groups a compute unit.
        pass_spec full = today;
        fit_group(d, full, work_group_target, d.local_memory);
        chain_shape fuller = base;
        fuller.passes = { full };
        add(fuller);
        // Few points a work-item, all of them busy: the fewest stages of
        // radices up to 16, a butterfly of the largest a work-item (VkFFT's
        // shape of 6000 on NVIDIA's OpenCL: 10x12x10x5 in 600 work-items).
        pass_spec narrow = s;
        narrow.radices = fewest_stages(n, 16);
        narrow.tt = narrow.radices.empty() ? 0 : n / narrow.radices.front();
        if (narrow.tt && narrow.tt <= d.max_work_group) {
            fit_group(d, narrow, work_group_target, group_local_bytes(d, narrow));
            chain_shape c = base;
            c.passes = { narrow };
            add(c);
        }
        for (const auto& [tt, group] : shapes) {
            pass_spec p = s;
            p.tt = tt;
            if (tt > d.max_work_group)
                continue;
            fit_group(d, p, group, group_local_bytes(d, p));
            chain_shape c = base;
            c.passes = { p };
            add(c);
        }
    }
    // Two passes, and the register mode, compete above search_split_from.
    if (n > search_split_from || !fits_one_kernel(d, n, false)) {
        // The register mode at powers of two, and up to one_kernel_cap where
        // local memory cannot hold the transform (6561 on the H200: 0.48 of
        // cuFFT against 0.37 in two passes). At the other sizes tried it
        // lost, and its kernel is the slowest of a search to build: on the
        // H200 5000 at 0.31 of cuFFT against 0.78 in local memory, 10000 at
        // 0.13 against 0.60 in two passes (9.3 of the first plan's 12.9 s),
        // 9720 to 15625 at 0.10 to 0.39
        // (scripts/device/results/h200-2026-11-29a-registers.md, -28b-chunks.md).
        const bool registers = is_power_of_two(n) ||
                               (!fits_one_kernel(d, n, false) && n <= one_kernel_cap);
        pass_spec r = s;
        if (registers && shape_register_pass(d, r)) {
            chain_shape c = base;
            c.passes = { r };
            add(c);
        }
        // The three most square splits (both ways round), and the most
        // square with n1 or n2 a multiple of column_group_target (whole
        // segments a column group's access).
        std::vector<std::size_t> factors = four_step_factors(d, n);
        const auto squareness = [&](std::size_t a) {
            return std::abs(std::log(double(a) * double(a) / double(n)));
        };
        std::stable_sort(factors.begin(), factors.end(), [&](std::size_t a, std::size_t b) {
            return squareness(a) < squareness(b);
        });
        std::vector<std::size_t> chosen(factors.begin(),
                                        factors.begin() + std::min<std::size_t>(3, factors.size()));
        for (bool columns : { true, false })
            for (std::size_t a : factors)
                if ((columns ? a : n / a) % column_group_target == 0) {
                    chosen.push_back(a);
                    break;
                }
        for (std::size_t a : chosen) {
            chain_shape c = base;
            append_two_passes(c, d, s, buffer_slot::scratch0, a, n / a);
            add(c);
        }
    }
    return out;
}

std::string multi_dim_unsupported(const device_limits& d, const std::vector<std::size_t>& dims)
{
    for (std::size_t n : dims)
        if (!fits_one_kernel(d, n, true))
            return "opencl: multi-dimensional transforms take dimensions that fit one kernel "
                   "(at most " +
                   std::to_string(one_kernel_limit(d)) +
                   " points without a prime factor above " + std::to_string(dft_radix_cap_on(d)) + " on " + d.name + "), not " +
                   std::to_string(n);
    return "";
}

std::vector<axis_chain> plan_strided(const device_limits& d, const std::vector<std::size_t>& dims,
                                     direction dir, bool rows)
{
    std::vector<axis_chain> out;
    std::size_t inner = 1;
    for (std::size_t a = dims.size(); a-- > 0;) {
        const std::size_t n = dims[a];
        std::size_t outer = 1;
        for (std::size_t b = 0; b < a; ++b)
            outer *= dims[b];
        const bool last = a + 1 == dims.size();
        if ((n > 1 || dims.size() == 1) && (rows || !last)) {
            axis_chain step;
            step.shape.n = n * inner;
            step.shape.dir = dir;
            step.entries = outer;
            step.dist = n * inner;
            pass_spec s;
            s.n = n;
            s.sign = dir == direction::forward ? -1 : 1;
            s.tpb = inner;
            s.in_cstr = s.out_cstr = 1;
            s.in_estr = s.out_estr = inner;
            s.map_cols = s.store_cols = inner > 1;
            shape_pass(d, s);
            step.shape.passes.push_back(s);
            out.push_back(step);
        }
        inner *= n;
    }
    return out;
}

std::vector<axis_chain> plan_transposed(const device_limits& d,
                                        const std::vector<std::size_t>& dims,
                                        direction dir)
{
    std::size_t points = 1;
    for (std::size_t n : dims)
        points *= n;
    axis_chain step;
    step.shape.n = points;
    step.shape.dir = dir;
    step.dist = points;
    const std::size_t rank = dims.size();
    const buffer_slot scratch[] = { buffer_slot::scratch0, buffer_slot::scratch1 };
    for (std::size_t k = 0; k < rank; ++k) {
        // Pass k transforms the axis that the k rotations before it made last.
        const std::size_t n = dims[rank - 1 - k], rows = points / n;
        pass_spec s;
        s.n = n;
        s.sign = dir == direction::forward ? -1 : 1;
        s.tpb = rows;
        s.from = k == 0 ? buffer_slot::in : scratch[(k - 1) % 2];
        s.to = k + 1 == rank ? buffer_slot::out : scratch[k % 2];
        s.from_dist = s.to_dist = points;
        s.in_cstr = n;
        s.in_estr = 1;
        s.out_cstr = 1;
        s.out_estr = rows;
        s.store_cols = true;
        shape_pass(d, s);
        step.shape.passes.push_back(s);
        if (k + 1 < rank)
            step.shape.scratch_points[k % 2] = points;
    }
    return { step };
}

} // namespace gpufft::opencl::detail
