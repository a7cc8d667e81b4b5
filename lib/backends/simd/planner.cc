// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft simd backend: factoring sizes into codelet passes. */
#include "planner.h"
#include "../../core/exact_dft.h"
#include <algorithm>
#include <cstdlib>
#include <gpufft/error.h>
#include <optional>
#include <string>

namespace gpufft::simd {

namespace {

// Smallest length >= min_len that is a multiple of 64 (every lane count) with
// only the prime factors 2, 3, 5, 7: the Bluestein convolution size.
std::size_t bluestein_length(std::size_t min_len)
{
    for (std::size_t len = (min_len + 63) / 64 * 64;; len += 64) {
        std::size_t m = len;
        for (std::size_t p : { 2, 3, 5, 7 })
            while (m % p == 0)
                m /= p;
        if (m == 1)
            return len;
    }
}

// Odd factors without a codelet run as direct-DFT passes (generic_pass) up to
// this size, costing about p/4 multiply-adds per point; beyond it Bluestein is
// faster, though less accurate by about one float FFT's rounding.
constexpr std::size_t max_generic_radix = 64;

/*
 * Whether the prime n takes Rader's algorithm (rader.h) rather than
 * Bluestein's: where every prime factor of n - 1 has a codelet on isa. Its
 * convolution is then half as long, and it leaves x[0] out: an impulse is
 * exact and a dominant first element loses no digits, where Bluestein's
 * round trip of an impulse at 97 points was off by 1.5e-7, FFTW float's
 * (Rader's too) by 4.8e-8. A factor of n - 1 in a direct-DFT pass makes
 * Rader slower, and there FFTW float is no more accurate than Bluestein.
 * AVX-512, gpufft-bench --regimes l2, median of 31, Bluestein -> Rader (ns):
 * 97 270 -> 170, 257 778 -> 425, 1009 2890 -> 2320, 65537 858000 ->
 * 388000; where p - 1 is twice an odd number its FFTs get two lanes, 8191
 * 45500 -> 56300 to 63300, a price the accuracy is worth (163 = 2 x 81 + 1
 * missed the bound by Bluestein); with direct-DFT passes 233 (232 = 8 x
 * 29) 612 -> 740, 83 (82 = 2 x 41) 268 -> 978, 431 (2 x 5 x 43) 1270 ->
 * 5790.
 */
bool rader_suits(std::size_t n, const isa_kernels& isa)
{
    if (!exact::is_prime(n))
        return false;
    std::size_t m = n - 1;
    for (std::size_t p = 2; p <= m; ++p)
        if (m % p == 0) {
            if (!isa.has_codelet(int(p)))
                return false;
            while (m % p == 0)
                m /= p;
        }
    return true;
}

// Columns larger than this (a quarter of a 1 MiB L2) get radix-8 passes.
constexpr std::size_t large_columns_bytes = 256 * 1024;

// Plain Stockham streams the whole transform through memory once per pass;
// above this many points (512 KiB, half a typical L2) four-step is cheaper.
constexpr std::size_t cache_points = 65536;

// The lane count the column scheme (mixed_radix) gets for n: that of the
// widest instruction set whose lanes divide n with n >= lanes^2.
std::size_t column_lanes(const std::vector<const isa_kernels*>& isas, std::size_t n)
{
    for (const isa_kernels* isa : isas) {
        const std::size_t lanes = std::size_t(isa->lanes);
        if (n % lanes == 0 && n >= lanes * lanes)
            return lanes;
    }
    return 1;
}

// Lane batching keeps two scratch buffers of n vectors: beyond this many
// bytes each, they leave L1 and L2 for the next level.
constexpr std::size_t lane_batch_scratch_bytes = 128 * 1024;

/*
 * Whether batches of n points run one transform per lane of isa (lane_batch.h)
 * rather than on the column scheme of the widest instruction set that takes n
 * (column_lanes). Lane batching pays two tile transposes (in and out, each
 * about 3 shuffles a vector on AVX-512) where the column scheme pays one lane
 * stage; measured on an AVX-512 Xeon (gpufft-bench, 256 KB a call), it wins
 * where it has more lanes than the column scheme:
 *   - 4 or more times as many (n = 8, 12, 15, 24, 250, 2205): 1.1-4x faster,
 *     and 2 lanes against scalar columns (SSE2 2205: 2.2x);
 *   - twice as many, for n <= 64 (20, 32, 36, 48, 60: 1.3-2.7x), but not at
 *     n = lanes^2 of the column scheme (16 on AVX2: one fused codelet) nor
 *     beyond (100 even, 500 and 1500 1.1-1.3x slower), except 4 lanes
 *     against 2 (AVX2, n = 2 mod 4) at every size measured (90 147 -> 94
 *     ns, 1050 2438 -> 1488, 4410 11140 -> 8580, 6930 18700 -> 11900, 8190
 *     22950 -> 12070);
 * and at the same width with 4 or 8 lanes for columns shorter than 16 (n <
 * 16 lanes; AVX2 20 to 44, 52 to 60: 1.2-2.4x; AVX-512 72, 104 to 120:
 * 1.25-1.7x, 80 even, 88 12% slower), where the column scheme's padded lane
 * groups cost most, except where its columns are one fast codelet: lanes
 * long (n = lanes^2) or 12 (AVX-512 96: 1.5x slower batched; AVX2 48 even).
 * Longer columns: 1.1-2x slower (128 to 4096). Not with 2 lanes (SSE2,
 * NEON): their 2-point lane stage is cheap.
 * AVX2's 4 lanes against columns of 1 or 2 (odd n, n = 2 mod 4) get twice
 * the scratch budget: they win past it (4410, 6930, 8190 above; odd 4725,
 * 6075, 7875 against SSE2's lanes: 1.2-2x), and where AVX-512's 8 lanes
 * would exceed it, AVX2's 4 do as well (4410, l3 regime: 6932, 6912 ns).
 */
bool lane_batch_wins(const isa_kernels& isa, std::size_t n, std::size_t batch,
                     std::size_t columns)
{
    const std::size_t lanes = std::size_t(isa.lanes);
    if (lanes == 1 || batch < lanes || n < lanes)
        return false;
    const std::size_t budget = lanes == 4 && columns <= 2 ? 2 * lane_batch_scratch_bytes
                                                          : lane_batch_scratch_bytes;
    if (n * lanes * sizeof(complex) > budget)
        return false;
    if (columns == lanes)
        return lanes >= 4 && n < 16 * lanes && n / lanes != lanes && n / lanes != 12;
    return columns * 4 <= lanes || columns == 1 ||
           (columns * 2 == lanes && (n <= 64 || columns == 2) && n != columns * columns);
}

const pass_cost* find_cost(const isa_kernels& isa, int radix)
{
    for (const pass_cost* c = isa.pass_costs; c->radix; ++c)
        if (c->radix == radix && isa.has_codelet(radix))
            return c;
    return nullptr;
}

/*
 * The passes for m that isa.pass_costs rates cheapest: one codelet for all
 * of m where there is one (mixed_radix keeps it in registers with the lane
 * stage); else, of the products of passes the model has, the one of least
 * total cost per vector, its cheapest pass as the first one (no twiddles),
 * the others largest first. Odd primes without a codelet are generic
 * passes of their own, first. Empty if m has a prime factor too large for
 * a pass.
 */
std::vector<int> modelled_passes(std::size_t m, const isa_kernels& isa)
{
    const auto prime = [](std::size_t p) {
        for (std::size_t d = 2; d * d <= p; ++d)
            if (p % d == 0)
                return false;
        return true;
    };
    std::vector<int> generic; // largest first
    for (std::size_t p = 3; p <= max_generic_radix; p += 2)
        if (!isa.has_codelet(int(p)) && prime(p))
            for (; m % p == 0; m /= p)
                generic.insert(generic.begin(), int(p));
    if (generic.empty() && m > 1 && m <= max_generic_radix && find_cost(isa, int(m)))
        return { int(m) };
    std::vector<int> radices, best;
    float best_cost = 0;
    // Non-increasing radices whose product is m, each scored as it completes.
    const auto search = [&](const auto& self, std::size_t rest, int largest) -> void {
        if (rest == 1) {
            float twiddled = 0, saving = 0; // the first pass saves its twiddles
            std::size_t first = 0;
            for (std::size_t i = 0; i < radices.size(); ++i) {
                const pass_cost* c = find_cost(isa, radices[i]);
                twiddled += c->twiddled;
                if (generic.empty() && c->twiddled - c->first > saving) {
                    saving = c->twiddled - c->first;
                    first = i;
                }
            }
            if (best.empty() || twiddled - saving < best_cost) {
                best_cost = twiddled - saving;
                best = radices;
                std::rotate(best.begin(), best.begin() + first, best.begin() + first + 1);
            }
            return;
        }
        for (const pass_cost* c = isa.pass_costs; c->radix; ++c)
            if (c->radix <= largest && rest % std::size_t(c->radix) == 0 && find_cost(isa, c->radix)) {
                radices.push_back(c->radix);
                self(self, rest / std::size_t(c->radix), c->radix);
                radices.pop_back();
            }
    };
    if (m > 1)
        search(search, m, max_generic_radix);
    if (m > 1 && best.empty())
        return {};
    if (best.size() > 1)
        std::sort(best.begin() + 1, best.end(), std::greater<int>());
    generic.insert(generic.end(), best.begin(), best.end());
    return generic;
}

/*
 * GPUFFT_SIMD_RADICES=16x8x8 (as describe() writes them): the passes of the
 * mixed-radix plans whose columns are that product long (here n = lanes x
 * 1024), for comparing plans (scripts/insn-count/pass_costs.py); plans of
 * other sizes ignore it. Each radix needs a codelet or must be an odd
 * number up to max_generic_radix.
 */
std::optional<std::vector<int>> forced_radices(std::size_t m, const isa_kernels& isa)
{
    const char* env = std::getenv("GPUFFT_SIMD_RADICES");
    if (!env || !*env)
        return std::nullopt;
    const std::string value = env;
    const auto bad = [&](const std::string& why) {
        return error("gpufft: GPUFFT_SIMD_RADICES=\"" + value + "\": " + why);
    };
    std::vector<int> radices;
    std::size_t product = 1;
    for (std::size_t at = 0; at <= value.size();) {
        const std::size_t end = std::min(value.find('x', at), value.size());
        const std::string item = value.substr(at, end - at);
        if (item.empty() || item.size() > 9 || item.find_first_not_of("0123456789") != std::string::npos)
            throw bad("not radices separated by x (16x8x8)");
        const int radix = std::stoi(item);
        if (radix < 2 || (!isa.has_codelet(radix) && (radix % 2 == 0 || radix > int(max_generic_radix))))
            throw bad("no pass of radix " + item + " on " + isa.name +
                      " (a codelet's, or an odd radix up to " + std::to_string(max_generic_radix) + ")");
        radices.push_back(radix);
        product *= std::size_t(radix);
        at = end + 1;
    }
    if (product != m)
        return std::nullopt;
    return radices;
}

} // namespace

std::vector<int> factor_passes(std::size_t m, const isa_kernels& isa, pass_style style)
{
    if (style == pass_style::modelled && isa.pass_costs->radix)
        return modelled_passes(m, isa);
    std::vector<int> radices;
    int twos = 0;
    while (m % 2 == 0) {
        m /= 2;
        ++twos;
    }
    if (style == pass_style::radix8) {
        for (; twos >= 3; twos -= 3)
            radices.push_back(8);
        if (twos > 0)
            radices.push_back(1 << twos);
    } else if (style == pass_style::radix8_16 && twos % 3 <= twos / 3) {
        // Radix 8 passes, a leftover 2 or 4 doubling one or two of them.
        for (int i = 0; i < twos / 3; ++i)
            radices.push_back(i < twos % 3 ? 16 : 8);
    } else {
        // Radix-16 passes, with a 32 absorbing a lone leftover 2: fewest passes
        // through memory without codelets too large for the register file.
        // With 32 registers a leftover 4 turns two 16s into 32s (8192 points
        // on an AVX-512 Xeon: 16x16x4 -> 32x32 rows, 4% faster, 256 KB a
        // call), except with 8 lanes, where it goes with one 16 into two 8s:
        // a twiddled radix-32 pass was the slower one on AVX-512 Zen 4
        // (8192: 32x32 -> 16x8x8 rows, 2-18% faster, median 14%, in each of
        // ten runs of gpufft-bench timing both plans in one process, 256 KB
        // a call).
        for (; twos >= 4; twos -= 4)
            radices.push_back(16);
        if (twos == 1 && !radices.empty()) {
            radices.front() = 32;
        } else if (twos == 2 && radices.size() >= 2 && !isa.few_registers && isa.lanes >= 8) {
            radices.back() = 8;
            radices.push_back(8);
        } else if (twos == 2 && radices.size() >= 2 && !isa.few_registers) {
            radices[0] = radices[1] = 32;
        } else if (twos > 0) {
            radices.push_back(1 << twos);
        }
    }
    for (std::size_t p = 3; p <= max_generic_radix && m > 1; p += 2)
        while (m % p == 0) {
            m /= p;
            if (p == 3 && m % 3 == 0) {
                m /= 3;
                radices.push_back(9);
            } else {
                radices.push_back(int(p));
            }
        }
    if (m != 1)
        return {};
    // Merge two small passes into one codelet where one exists (4 x 3 = 12,
    // 2 x 8 = 16); with 32 vector registers also 3 x 5 and 5 x 5 (15 and 25
    // points): one pass through memory fewer, on AVX-512 (gpufft-bench, 256 KB
    // a call, both plans in one run) 200 25%, 250 15%, 2400 9%, 3000 8% (25x15
    // against 15x5x5) and 6000 10% faster, 1000 even.
    const auto merges = [&](int product) {
        return isa.has_codelet(product) &&
               (isa.few_registers ? product <= 16 && product != 15 : product <= 25);
    };
    std::sort(radices.begin(), radices.end());
    for (bool merged = true; merged && radices.size() > 1;) {
        merged = false;
        const int product = radices[0] * radices[1];
        if (merges(product)) {
            radices.erase(radices.begin());
            radices[0] = product;
            std::sort(radices.begin(), radices.end());
            merged = true;
        }
    }
    // The first pass needs no twiddles: give it the largest radix (or, as an
    // alternative for tuning, keep the largest for the last pass).
    if (style == pass_style::ascending)
        std::sort(radices.begin(), radices.end());
    else
        std::sort(radices.rbegin(), radices.rend());
    return radices;
}

std::size_t four_step_split(std::size_t n, const isa_kernels& isa)
{
    // The largest column length a <= sqrt(n) such that a and n / a are
    // multiples of the lane count and a has codelets for every factor.
    const std::size_t lanes = std::size_t(isa.lanes);
    std::size_t best = 0;
    for (std::size_t a = lanes; a * a <= n; a += lanes)
        if (n % a == 0 && (n / a) % lanes == 0 && !factor_passes(a, isa, pass_style::largest).empty())
            best = a;
    return best;
}

std::unique_ptr<transform> make_transform(const std::vector<const isa_kernels*>& isas,
                                          std::size_t n,
                                          bool forward,
                                          pass_style style,
                                          std::size_t batch,
                                          const std::vector<float>& weights)
{
    for (auto it = isas.begin(); it != isas.end(); ++it) {
        const isa_kernels* isa = *it;
        const std::vector<const isa_kernels*> from_here(it, isas.end());
        if (lane_batch_wins(*isa, n, batch, column_lanes(from_here, n))) {
            const std::vector<int> radices = factor_passes(n, *isa, pass_style::largest);
            // The batch mod lanes left over: the best plan for a batch that
            // small (too small for this set's lanes, so no recursion).
            if (!radices.empty())
                return isa->make_lane_batch(
                    n, forward, radices,
                    make_transform(from_here, n, forward, style, batch % std::size_t(isa->lanes),
                                   weights),
                    weights);
        }
        const std::size_t lanes = std::size_t(isa->lanes);
        if (n % lanes)
            continue;
        // Below lanes^2 points the lane stage would be mostly padding.
        if (lanes > 1 && n < lanes * lanes)
            continue;
        const std::size_t m = n / lanes;
        // A pass reads its R inputs a multiple of 4 KiB apart, all in one L1
        // set (12 ways here); once the columns spill from L2, radix 16 and 32
        // passes thrash it: radix 8 measured 35-45% faster at 65536 points.
        // In cache, sets with 16 vector registers spill in radix 16 and 32
        // codelets: radix 8 passes measured faster on AVX2 (2048: 32x16 1982
        // -> 8x8x8 1732 ns, 4096 -5%, 16384 and 32768 -11 to -15%) and SSE2
        // (8192 to 32768: -17 to -25%), a leftover 2 or 4 going into radix
        // 16 passes (AVX2 8192: 16x16x8 9410, 8x8x8x4 10080 ns).
        const pass_style resolved = style != pass_style::automatic ? style
                                    : n * sizeof(complex) > large_columns_bytes
                                        ? pass_style::radix8
                                    : isa->pass_costs->radix ? pass_style::modelled
                                    : isa->few_registers     ? pass_style::radix8_16
                                                             : pass_style::largest;
        const std::vector<int> radices = factor_passes(m, *isa, resolved);
        if (m > 1 && radices.empty())
            break; // a large prime factor: no lane count helps
        if (n > cache_points)
            if (const std::size_t a = four_step_split(n, *isa))
                return isa->make_four_step(n, forward, a, factor_passes(a, *isa, style),
                                           make_transform({ isa }, n / a, forward, style), weights);
        if (const auto forced = forced_radices(m, *isa))
            return isa->make_mixed_radix({ n, forward, *forced, weights });
        return isa->make_mixed_radix({ n, forward, radices, weights });
    }
    const isa_kernels* widest = isas.front();
    if (rader_suits(n, *widest))
        return widest->make_rader(n, forward, make_transform(isas, n - 1, true, style),
                                  make_transform(isas, n - 1, false, style), weights);
    const std::size_t len = bluestein_length(2 * n - 1);
    return widest->make_bluestein(n, forward, len, make_transform({ widest }, len, true, style),
                                  make_transform({ widest }, len, false, style), weights);
}

} // namespace gpufft::simd
