// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: composite radix butterflies, generated. */
#include "codelets.h"
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <sstream>

namespace gpufft::opencl::detail {

namespace {

// The largest composite radix. Each work-item holds one butterfly's points
// in registers (up to 49 float2 here, within the H100's 255 registers a
// thread; planner.cc takes fewer in one-kernel plans); a Mali (64 registers
// a thread at full occupancy) would want 16.
constexpr std::size_t composite_radix_cap = 49;

// The butterflies kernels/fft_butterflies.cl writes by hand.
constexpr std::size_t hand_written[] = { 2, 3, 4, 5, 7, 8, 16 };

bool is_hand_written(std::size_t r)
{
    return std::find(std::begin(hand_written), std::end(hand_written), r) != std::end(hand_written);
}

bool is_smooth7(std::size_t r)
{
    for (std::size_t p : { 2, 3, 5, 7 })
        while (r % p == 0)
            r /= p;
    return r == 1;
}

std::vector<composite_radix> make_composites()
{
    std::vector<composite_radix> out;
    const auto known = [&](std::size_t r) {
        return is_hand_written(r) || std::any_of(out.begin(), out.end(),
                                                 [&](const composite_radix& c) { return c.r == r; });
    };
    for (std::size_t r = 6; r <= composite_radix_cap; ++r) {
        if (!is_smooth7(r) || (r & (r - 1)) == 0 || is_hand_written(r))
            continue;
        // The most balanced split into known butterflies, hand-written ones
        // first on a tie (they need no twiddles inside).
        composite_radix best{ 0, 0, 0 };
        std::size_t best_rank = SIZE_MAX;
        for (std::size_t a = 2; a < r; ++a) {
            const std::size_t b = r / a;
            if (r % a || !known(a) || !known(b))
                continue;
            const std::size_t rank = (a > b ? a - b : b - a) * 4 + !is_hand_written(a) +
                                     !is_hand_written(b);
            if (rank < best_rank) {
                best = { r, a, b };
                best_rank = rank;
            }
        }
        if (best.r)
            out.push_back(best);
    }
    return out;
}

std::string float_literal(double x)
{
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.9ef", x);
    return buf;
}

/*
 * bf<r>: x[j], j = b j1 + j2, to X[k1 + a k2] = sum_j2 w_r^(j2 k1) w_b^(j2 k2)
 * sum_j1 x[b j1 + j2] w_a^(j1 k1), w_m = exp(SIGN 2 pi i / m): b butterflies of
 * a points, the twiddles w_r^(j2 k1) (rot() takes SIGN), a butterflies of b.
 */
std::string codelet(const composite_radix& c)
{
    std::ostringstream s;
    s << "inline void bf" << c.r << "(float2* v)\n{\n    float2 y[" << c.r << "], a[" << c.a
      << "], b[" << c.b << "];\n";
    for (std::size_t j2 = 0; j2 < c.b; ++j2) {
        s << "   ";
        for (std::size_t j1 = 0; j1 < c.a; ++j1)
            s << " a[" << j1 << "] = v[" << c.b * j1 + j2 << "];";
        s << " bf" << c.a << "(a);\n   ";
        for (std::size_t k1 = 0; k1 < c.a; ++k1) {
            s << " y[" << j2 * c.a + k1 << "] = ";
            const std::size_t m = j2 * k1 % c.r;
            if (m == 0) {
                s << "a[" << k1 << "];";
            } else {
                const double angle = 2.0 * M_PI * double(m) / double(c.r);
                s << "rot(a[" << k1 << "], " << float_literal(std::cos(angle)) << ", "
                  << float_literal(std::sin(angle)) << ");";
            }
        }
        s << "\n";
    }
    for (std::size_t k1 = 0; k1 < c.a; ++k1) {
        s << "   ";
        for (std::size_t j2 = 0; j2 < c.b; ++j2)
            s << " b[" << j2 << "] = y[" << j2 * c.a + k1 << "];";
        s << " bf" << c.b << "(b);\n   ";
        for (std::size_t k2 = 0; k2 < c.b; ++k2)
            s << " v[" << k1 + c.a * k2 << "] = b[" << k2 << "];";
        s << "\n";
    }
    s << "}\n\n";
    return s.str();
}

//! The composite radix r, if it is one.
const composite_radix* find_composite(std::size_t r)
{
    for (const composite_radix& c : composite_radices())
        if (c.r == r)
            return &c;
    return nullptr;
}

//! Adds r's composite butterflies to `needed`: r's and those it is made of.
void add_needed(std::size_t r, std::vector<const composite_radix*>& needed)
{
    const composite_radix* c = find_composite(r);
    if (!c || std::find(needed.begin(), needed.end(), c) != needed.end())
        return;
    add_needed(c->a, needed);
    add_needed(c->b, needed);
    needed.push_back(c);
}

} // namespace

const std::vector<composite_radix>& composite_radices()
{
    static const std::vector<composite_radix> list = make_composites();
    return list;
}

const std::vector<std::size_t>& stage_radices()
{
    static const std::vector<std::size_t> list = [] {
        std::vector<std::size_t> r(std::begin(hand_written), std::end(hand_written));
        for (const composite_radix& c : composite_radices())
            r.push_back(c.r);
        std::sort(r.begin(), r.end());
        return r;
    }();
    return list;
}

std::string composite_butterflies_source(const std::vector<std::size_t>& radices)
{
    std::vector<const composite_radix*> needed;
    for (std::size_t r : radices)
        add_needed(r, needed);
    std::ostringstream s;
    s << "/* Composite radix butterflies, generated by lib/backends/opencl/codelets.cc. */\n\n";
    for (const composite_radix* c : needed)
        s << codelet(*c);
    s << "#define COMPOSITE_RADIX(R) (0";
    for (const composite_radix* c : needed)
        s << " || (R) == " << c->r;
    s << ")\n\ninline void composite_butterfly(const uint R, float2* v)\n{\n";
    for (const composite_radix* c : needed)
        s << "    " << (c == needed.front() ? "" : "else ") << "if (R == " << c->r
          << ")\n        bf" << c->r << "(v);\n";
    s << "}\n";
    return s.str();
}

} // namespace gpufft::opencl::detail
