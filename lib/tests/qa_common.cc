// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft correctness suite: shared helpers. */
#include "qa_common.h"

#include <fftw3.h>
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <random>
#include <sstream>

namespace qa {

namespace {

const auto process_start = std::chrono::steady_clock::now();

// FNV-1a: a tag hash that is the same in every build, unlike std::hash.
std::uint64_t hash_tag(const std::string& s)
{
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

} // namespace

bool emulated()
{
    static const bool on = [] {
        const char* env = std::getenv("GPUFFT_TEST_EMULATED");
        return env && *env && std::string(env) != "0";
    }();
    return on;
}

double elapsed_s()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - process_start)
        .count();
}

std::uint64_t run_seed()
{
    static const std::uint64_t seed = [] {
        if (const char* env = std::getenv("GPUFFT_TEST_SEED"))
            return std::uint64_t(std::strtoull(env, nullptr, 0));
        std::random_device rd;
        return (std::uint64_t(rd()) << 32) ^ rd();
    }();
    return seed;
}

std::mt19937_64 rng_for(const std::string& tag)
{
    std::seed_seq seq(tag.begin(), tag.end());
    std::mt19937_64 g(seq);
    g.seed(g() ^ run_seed());
    return g;
}

void fill_random(cf* x, std::size_t count, const std::string& tag)
{
    const std::uint64_t s = run_seed(), t = hash_tag(tag);
    std::seed_seq seq{ std::uint32_t(s), std::uint32_t(s >> 32), std::uint32_t(t),
                       std::uint32_t(t >> 32) };
    std::mt19937 gen(seq);
    // 24 random bits per component, uniform in [-1, 1).
    for (std::size_t i = 0; i < count; ++i) {
        const float re = float(std::int32_t(gen() >> 8) - (1 << 23)) * 0x1p-23f;
        const float im = float(std::int32_t(gen() >> 8) - (1 << 23)) * 0x1p-23f;
        x[i] = cf(re, im);
    }
}

void fill_signal(cf* x, std::size_t n, signal s, const std::string& tag)
{
    fill_random(x, n, tag);
    switch (s) {
    case signal::noise:
        return;
    case signal::impulse:
        std::fill(x, x + n, cf(0, 0));
        x[0] = cf(0.75f, -0.5f);
        return;
    case signal::spike:
        x[0] += cf(4 * std::sqrt(float(n)), 0);
        return;
    case signal::constant:
        std::fill(x, x + n, cf(0.75f, -0.5f));
        return;
    case signal::dc:
        for (std::size_t i = 0; i < n; ++i)
            x[i] = cf(1, 0) + 0.01f * x[i];
        return;
    case signal::tone:
        for (std::size_t i = 0; i < n; ++i) {
            const double a = 2 * M_PI * double(i * (n / 3) % n) / double(n);
            x[i] = cf(float(std::cos(a)), float(std::sin(a)));
        }
        return;
    }
}

void poison(cf* x, std::size_t count)
{
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::fill(x, x + count, cf(nan, nan));
}

cf sentinel(std::size_t index) { return cf(1234.5f + float(index % 97), -777.25f); }

double l2_error::add(const cf* out, const cd* ref, std::size_t n)
{
    double e = 0, r = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (!std::isfinite(out[i].real()) || !std::isfinite(out[i].imag()))
            e = std::numeric_limits<double>::infinity();
        e += std::norm(cd(out[i]) - ref[i]);
        r += std::norm(ref[i]);
    }
    err2 += e;
    ref2 += r;
    return r > 0 ? std::sqrt(e / r) : std::sqrt(e);
}

double l2_error::rel() const { return ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2); }

std::size_t first_nonfinite(const cf* x, std::size_t n)
{
    for (std::size_t i = 0; i < n; ++i)
        if (!std::isfinite(x[i].real()) || !std::isfinite(x[i].imag()))
            return i;
    return n;
}

// ---------------------------------------------------------------- reference

reference::reference(std::size_t n, gpufft::direction dir) : d_n(n)
{
    const int sign = dir == gpufft::direction::forward ? FFTW_FORWARD : FFTW_BACKWARD;
    d_din = reinterpret_cast<cd*>(fftw_malloc(sizeof(cd) * n));
    d_dout = reinterpret_cast<cd*>(fftw_malloc(sizeof(cd) * n));
    d_fin = reinterpret_cast<cf*>(fftwf_malloc(sizeof(cf) * n));
    d_fout = reinterpret_cast<cf*>(fftwf_malloc(sizeof(cf) * n));
    d_dplan = fftw_plan_dft_1d(int(n),
                               reinterpret_cast<fftw_complex*>(d_din),
                               reinterpret_cast<fftw_complex*>(d_dout),
                               sign,
                               FFTW_ESTIMATE);
    d_fplan = fftwf_plan_dft_1d(int(n),
                                reinterpret_cast<fftwf_complex*>(d_fin),
                                reinterpret_cast<fftwf_complex*>(d_fout),
                                sign,
                                FFTW_ESTIMATE);
}

reference::~reference()
{
    fftw_destroy_plan(static_cast<fftw_plan>(d_dplan));
    fftwf_destroy_plan(static_cast<fftwf_plan>(d_fplan));
    fftw_free(d_din);
    fftw_free(d_dout);
    fftwf_free(d_fin);
    fftwf_free(d_fout);
}

void reference::exact(const cf* x, cd* out)
{
    for (std::size_t i = 0; i < d_n; ++i)
        d_din[i] = cd(x[i]);
    fftw_execute(static_cast<fftw_plan>(d_dplan));
    std::copy(d_dout, d_dout + d_n, out);
}

void reference::fftwf(const cf* x, cf* out)
{
    std::copy(x, x + d_n, d_fin);
    fftwf_execute(static_cast<fftwf_plan>(d_fplan));
    std::copy(d_fout, d_fout + d_n, out);
}

reference& ref_for(std::size_t n, gpufft::direction dir)
{
    static std::map<std::pair<std::size_t, int>, std::unique_ptr<reference>> cache;
    static std::size_t cached_points = 0;
    const auto key = std::make_pair(n, int(dir));
    auto it = cache.find(key);
    if (it != cache.end())
        return *it->second;
    // Bounded memory: the big sizes need 24 bytes a point.
    if (cache.size() >= 64 || cached_points + n > (std::size_t(1) << 23)) {
        cache.clear();
        cached_points = 0;
    }
    cached_points += n;
    return *(cache[key] = std::make_unique<reference>(n, dir));
}

// ------------------------------------------------------------------ targets

std::vector<std::string> simd_variants()
{
    for (const auto& b : gpufft::backends())
        if (b.name == "simd" && b.usable)
            return b.variants;
    return {};
}

std::vector<std::string> targets()
{
    static const std::vector<std::string> list = [] {
        std::vector<std::string> out;
        const char* env = std::getenv("GPUFFT_TEST_BACKENDS");
        std::stringstream wanted(env ? env : "");
        bool add_all = false;
        for (std::string w; std::getline(wanted, w, ',');) {
            if (w == "all")
                add_all = true;
            else if (!w.empty())
                out.push_back(w);
        }
        if (out.empty())
            for (const auto& v : simd_variants())
                out.push_back("simd:" + v);
        if (add_all)
            for (const auto& b : gpufft::backends())
                if (b.usable && b.name != "simd")
                    out.push_back(b.name);
        return out;
    }();
    return list;
}

std::vector<std::string> big_size_targets()
{
    const auto t = targets();
    if (t.size() <= 1)
        return t;
    return { t.front(), t.back() };
}

std::string dir_name(gpufft::direction d)
{
    return d == gpufft::direction::forward ? "forward" : "inverse";
}

std::string case_name(const std::string& backend,
                      std::size_t n,
                      gpufft::direction dir,
                      std::size_t batch,
                      std::size_t distance,
                      bool in_place)
{
    std::ostringstream s;
    s << backend << " n=" << n << " " << dir_name(dir);
    if (batch != 1)
        s << " batch=" << batch;
    if (distance)
        s << " distance=" << distance;
    if (in_place)
        s << " in-place";
    return s.str();
}

// ----------------------------------------------------------------- failures

failures::failures() : d_start_s(elapsed_s()) {}

void failures::add(const std::string& what)
{
    if (d_count < 100)
        std::fprintf(stderr, "FAIL: %s\n", what.c_str());
    if (d_lines.size() < 30)
        d_lines.push_back(what);
    ++d_count;
}

void failures::note(const std::string& name, double err, double bound)
{
    ++d_checks;
    const double r = err / bound;
    if (r > d_worst || d_worst_case.empty()) {
        d_worst = r;
        std::ostringstream s;
        s << name << " (err " << err << ", bound " << bound << ")";
        d_worst_case = s.str();
    }
}

std::string failures::summary() const
{
    std::ostringstream s;
    s << d_count << " failing case(s); seed " << run_seed()
      << " (rerun with GPUFFT_TEST_SEED=" << run_seed() << ")";
    for (const auto& l : d_lines)
        s << "\n  " << l;
    if (d_count > d_lines.size())
        s << "\n  ... and " << d_count - d_lines.size() << " more";
    return s.str();
}

void failures::report(const std::string& label) const
{
    std::ostringstream worst;
    if (!d_worst_case.empty()) {
        worst.precision(2);
        worst << std::fixed << "; worst err/bound " << d_worst << ": " << d_worst_case;
    }
    std::printf("  %-36s %6zu checks, %zu failed, %.1f s%s\n",
                label.c_str(),
                d_checks,
                d_count,
                elapsed_s() - d_start_s,
                worst.str().c_str());
    std::fflush(stdout);
}

// ------------------------------------------------------------------- checks


namespace {

//! Calls needed to reach min_points points (at most 256).
std::size_t rounds_for(std::size_t points)
{
    const std::size_t wanted = emulated() ? emulated_min_points : min_points;
    return std::min<std::size_t>(256, std::max<std::size_t>(1, (wanted + points - 1) / points));
}

//! Checks one transform against its cap; adds it to the totals.
bool check_one(failures& f,
               const std::string& where,
               const cf* y,
               const cf* yf,
               const cd* exact,
               std::size_t n,
               l2_error& ours,
               l2_error& fftwf)
{
    const double err_f = fftwf.add(yf, exact, n);
    const double err = ours.add(y, exact, n);
    const double cap = transform_cap * std::max(err_f, error_floor);
    if (!(err <= cap)) {
        std::ostringstream s;
        s.precision(3);
        s << where << ": rel L2 error " << err << " > " << transform_cap
          << " x max(FFTW float's " << err_f << ", floor)";
        f.add(s.str());
        return false;
    }
    return true;
}

} // namespace

namespace {
// Buffers on 64-byte boundaries (plus the caller's offset), as gpufft-bench
// and most callers allocate them: large ones from plain std::vector start 16
// bytes past a page, which the simd backend's streaming stores do not take.
template <class T>
struct line_aligned {
    using value_type = T;
    line_aligned() = default;
    template <class U>
    line_aligned(const line_aligned<U>&) {}
    T* allocate(std::size_t count)
    {
        void* p = std::aligned_alloc(64, (count * sizeof(T) + 63) / 64 * 64);
        if (!p)
            throw std::bad_alloc();
        return static_cast<T*>(p);
    }
    void deallocate(T* p, std::size_t) { std::free(p); }
    template <class U>
    bool operator==(const line_aligned<U>&) const { return true; }
    template <class U>
    bool operator!=(const line_aligned<U>&) const { return false; }
};
} // namespace

namespace {


//! Calls a case takes: one where the input has no noise (each is alike).
std::size_t rounds_of(signal s, std::size_t points)
{
    return s == signal::impulse || s == signal::constant || s == signal::tone ? 1 : rounds_for(points);
}

void check_transform_of(failures& f,
                        signal sig,
                        const std::string& backend,
                        std::size_t n,
                        gpufft::direction dir,
                        std::size_t batch = 1,
                        std::size_t distance = 0,
                        bool in_place = false,
                        unsigned threads = 1,
                        std::size_t offset = 0,
                        const std::vector<float>& weights = {})
{
    std::string name = case_name(backend, n, dir, batch, distance, in_place) +
                       (sig == signal::noise ? "" : std::string(" ") + signal_name(sig));
    if (threads != 1)
        name += " threads=" + std::to_string(threads);
    if (offset)
        name += " offset=" + std::to_string(offset);
    if (!weights.empty())
        name += " weighted";
    try {
        const gpufft::problem p{ n, dir, batch, distance };
        gpufft::plan_options o;
        o.backend = backend;
        o.threads = threads;
        o.input_weights = weights;
        gpufft::plan pl(p, o);
        if (backend.find(':') != std::string::npos && pl.backend() != backend)
            f.add(name + ": plan.backend() reports \"" + pl.backend() + "\"");

        const std::size_t stride = p.stride(), span = p.span();
        std::vector<cf, line_aligned<cf>> in_buf(span + offset),
            out_buf(in_place ? 0 : span + offset);
        cf* in = in_buf.data() + offset;
        cf* out = in_place ? in : out_buf.data() + offset;
        std::vector<cf> x(span), weighted(weights.empty() ? 0 : span), yf(n);
        std::vector<cd> exact(n);
        reference& ref = ref_for(n, dir);
        l2_error ours, fftwf;
        auto is_gap = [&](std::size_t i) { return i % stride >= n; };

        const std::size_t rounds = rounds_of(sig, n * batch);
        for (std::size_t r = 0; r < rounds; ++r) {
            const std::string call = rounds > 1 ? name + " call " + std::to_string(r) : name;
            fill_random(in, span, call);
            for (std::size_t b = 0; sig != signal::noise && b < batch; ++b)
                fill_signal(in + b * stride, n, sig, call + " " + std::to_string(b));
            for (std::size_t i = 0; i < span; ++i)
                if (is_gap(i))
                    in[i] = sentinel(i);
            std::copy(in, in + span, x.begin());
            for (std::size_t i = 0; i < weighted.size(); ++i)
                weighted[i] = is_gap(i) ? x[i] : x[i] * weights[i % stride];
            const cf* transformed = weighted.empty() ? x.data() : weighted.data();
            if (!in_place) {
                poison(out, span);
                for (std::size_t i = 0; i < span; ++i)
                    if (is_gap(i))
                        out[i] = sentinel(i + 1);
            }

            pl.execute(in, out);

            if (!in_place && std::memcmp(x.data(), in, span * sizeof(cf)) != 0) {
                f.add(call + ": out-of-place execute changed its input");
                return;
            }
            for (std::size_t i = 0; i < span; ++i) {
                const cf want = sentinel(in_place ? i : i + 1);
                if (is_gap(i) && std::memcmp(&out[i], &want, sizeof(cf)) != 0) {
                    f.add(call + ": wrote into the gap between transforms at element " +
                          std::to_string(i));
                    return;
                }
            }
            for (std::size_t b = 0; b < batch; ++b) {
                const cf* y = out + b * stride;
                const std::size_t bad = first_nonfinite(y, n);
                const std::string where = call + ": transform " + std::to_string(b);
                if (bad < n) {
                    f.add(where + " left element " + std::to_string(bad) +
                          " unwritten or not finite");
                    return;
                }
                ref.exact(transformed + b * stride, exact.data());
                ref.fftwf(transformed + b * stride, yf.data());
                if (!check_one(f, where, y, yf.data(), exact.data(), n, ours, fftwf))
                    return;
            }
        }
        check_total(f, name, ours, fftwf);
    } catch (const std::exception& e) {
        f.add(name + ": threw: " + e.what());
    }
}

void check_round_trip_of(failures& f, signal sig, const std::string& backend, std::size_t n)
{
    const std::string name = backend + " n=" + std::to_string(n) + " round trip" +
                             (sig == signal::noise ? "" : std::string(" ") + signal_name(sig));
    try {
        gpufft::plan_options o;
        o.backend = backend;
        gpufft::plan fwd(gpufft::problem{ n, gpufft::direction::forward }, o);
        gpufft::plan inv(gpufft::problem{ n, gpufft::direction::inverse }, o);
        reference& rf = ref_for(n, gpufft::direction::forward);
        reference& ri = ref_for(n, gpufft::direction::inverse);

        std::vector<cf> x(n), y(n), z(n), fy(n), fz(n);
        std::vector<cd> nx(n);
        l2_error ours, fftwf;
        const std::size_t rounds = rounds_of(sig, n);
        for (std::size_t r = 0; r < rounds; ++r) {
            const std::string call = rounds > 1 ? name + " call " + std::to_string(r) : name;
            fill_signal(x.data(), n, sig, call);
            poison(y.data(), n);
            poison(z.data(), n);
            fwd.execute(x.data(), y.data());
            inv.execute(y.data(), z.data());
            for (std::size_t i = 0; i < n; ++i)
                nx[i] = cd(x[i]) * double(n);
            rf.fftwf(x.data(), fy.data());
            ri.fftwf(fy.data(), fz.data());
            if (!check_one(f, call, z.data(), fz.data(), nx.data(), n, ours, fftwf))
                return;
        }
        check_total(f, name, ours, fftwf);
    } catch (const std::exception& e) {
        f.add(name + ": threw: " + e.what());
    }
}

} // namespace

void check_transform(failures& f,
                     const std::string& backend,
                     std::size_t n,
                     gpufft::direction dir,
                     std::size_t batch,
                     std::size_t distance,
                     bool in_place,
                     unsigned threads,
                     std::size_t offset,
                     const std::vector<float>& weights)
{
    check_transform_of(f, signal::noise, backend, n, dir, batch, distance, in_place, threads, offset,
                       weights);
}

void check_round_trip(failures& f, const std::string& backend, std::size_t n)
{
    check_round_trip_of(f, signal::noise, backend, n);
}

const char* signal_name(signal s)
{
    switch (s) {
    case signal::noise:
        return "noise";
    case signal::impulse:
        return "impulse";
    case signal::spike:
        return "spike";
    case signal::constant:
        return "constant";
    case signal::dc:
        return "dc";
    case signal::tone:
        return "tone";
    }
    return "?";
}

void check_total(failures& f, const std::string& name, const l2_error& ours, const l2_error& fftwf)
{
    const double err = ours.rel(), err_f = fftwf.rel(), bound = bound_for(err_f);
    f.note(name, err, bound);
    if (!(err <= bound)) {
        std::ostringstream s;
        s.precision(3);
        s << name << ": rel L2 error " << err << " > bound " << bound << " (FFTW float " << err_f
          << ")";
        f.add(s.str());
    }
}


// Rader's primes among them: 53, 83, 97, 109, 163, 233, 431 (in one OpenCL
// kernel; 109 and 163 where Bluestein's would take fewer stages).
const std::vector<std::size_t> signal_sizes = { 1, 2, 3, 4, 5, 8, 12, 16, 53, 64, 83,
                                                97, 100, 109, 163, 233, 431, 1000, 1024, 4096, 4099 };

void check_signals(failures& f, const std::string& backend, std::size_t n)
{
    for (signal s : { signal::impulse, signal::spike, signal::constant, signal::dc, signal::tone }) {
        check_transform_of(f, s, backend, n, gpufft::direction::forward);
        check_transform_of(f, s, backend, n, gpufft::direction::inverse);
        check_round_trip_of(f, s, backend, n);
    }
}


namespace {

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

} // namespace

void expect_words(const std::string& what, const std::string& text, const std::vector<std::string>& words)
{
    for (const auto& w : words)
        CPPUNIT_ASSERT_MESSAGE(what + ": \"" + text + "\" does not name \"" + w + "\"",
                               lower(text).find(lower(w)) != std::string::npos);
}

void expect_error(const std::string& what,
                  const std::function<void()>& fn,
                  const std::vector<std::string>& words)
{
    try {
        fn();
    } catch (const gpufft::error& e) {
        expect_words(what, e.what(), words);
        return;
    } catch (const std::exception& e) {
        CPPUNIT_FAIL(what + ": threw an exception that is not gpufft::error: " + e.what());
    }
    CPPUNIT_FAIL(what + ": did not throw");
}

} // namespace qa
