// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft simd backend: generated codelets on the CPU's widest vectors. */
#include <gpufft/registry.h>
#include "../../core/wisdom.h"
#include "isa_table.h"
#include "planner.h"
#include "shaped.h"
#include "worker_pool.h"
#include <gpufft/backend.h>
#include <gpufft/error.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <optional>

namespace gpufft {

namespace simd {
namespace {

std::vector<const isa_kernels*> usable_isas()
{
    std::vector<const isa_kernels*> out;
    for (const isa_entry& e : compiled_isas())
        if (e.cpu_has())
            out.push_back(&e.kernels);
    return out;
}

std::string isa_names(const std::vector<const isa_kernels*>& isas)
{
    std::string s;
    for (const isa_kernels* k : isas)
        s += (s.empty() ? "" : ", ") + std::string(k->name);
    return s;
}

// The instruction set a plan asks for: its variant, else GPUFFT_SIMD_ISA;
// empty if none.
std::string forced_isa(const std::string& variant)
{
    if (variant.empty())
        if (const char* env = std::getenv("GPUFFT_SIMD_ISA"))
            return env;
    return variant;
}

// The forced instruction set and every narrower one (for sizes its lanes do
// not divide); by default, all the CPU has.
std::vector<const isa_kernels*> allowed_isas(const std::string& forced)
{
    const auto usable = usable_isas();
    if (forced.empty())
        return usable;
    for (std::size_t i = 0; i < usable.size(); ++i)
        if (forced == usable[i]->name)
            return { usable.begin() + i, usable.end() };
    throw error("gpufft: simd instruction set '" + forced +
                "' is not available on this CPU; available: " + isa_names(usable));
}

// An algorithm choice: the widest instruction set to use and how to split
// sizes into passes. Plans make the default; tuning measures the others.
struct choice {
    std::vector<const isa_kernels*> isas;
    pass_style style = pass_style::automatic;
};

const char* style_name(pass_style s)
{
    switch (s) {
    case pass_style::automatic:
        return "automatic";
    case pass_style::largest:
        return "largest";
    case pass_style::radix8:
        return "radix8";
    case pass_style::radix8_16:
        return "radix8_16";
    case pass_style::ascending:
        return "ascending";
    case pass_style::modelled:
        return "modelled";
    }
    return "";
}

std::string wisdom_key(const problem& p, const std::vector<const isa_kernels*>& allowed)
{
    return "simd " + std::string(allowed.front()->name) + " " + std::to_string(p.n) +
           (p.dir == direction::forward ? " forward" : " inverse");
}

std::string wisdom_value(const choice& c)
{
    return std::string(c.isas.front()->name) + " " + style_name(c.style);
}

// The choice a wisdom value names, if its instruction set is one of the
// first `widest` allowed ones.
std::optional<choice> parse_wisdom(const std::string& value,
                                   const std::vector<const isa_kernels*>& allowed,
                                   std::size_t widest)
{
    for (std::size_t i = 0; i < widest; ++i)
        for (pass_style style : all_pass_styles)
            if (value == std::string(allowed[i]->name) + " " + style_name(style))
                return choice{ { allowed.begin() + i, allowed.end() }, style };
    return std::nullopt;
}

// The best of five runs after a warm-up, on about 64k points: for ranking
// candidates the minimum is the least disturbed by other work.
double time_transform(transform& t, std::size_t n)
{
    const std::size_t batch = std::max<std::size_t>(1, 65536 / n);
    std::vector<complex> in(n * batch), out(n * batch);
    for (std::size_t i = 0; i < in.size(); ++i)
        in[i] = complex(float(i % 7) - 3.0f, float(i % 5) - 2.0f);
    double best = 1e300;
    for (int r = 0; r < 6; ++r) {
        const auto start = std::chrono::steady_clock::now();
        t.run(in.data(), out.data(), batch, n);
        const std::chrono::duration<double> d = std::chrono::steady_clock::now() - start;
        if (r > 0)
            best = std::min(best, d.count());
    }
    return best;
}

// Measures every pass style with each of the first `widest` allowed
// instruction sets as the widest.
choice tune(const problem& p, const std::vector<const isa_kernels*>& allowed, std::size_t widest)
{
    const bool forward = p.dir == direction::forward;
    choice best{ allowed, pass_style::automatic };
    double best_time = 1e300;
    std::vector<std::string> seen;
    for (std::size_t i = 0; i < widest; ++i)
        for (pass_style style : all_pass_styles) {
            const choice c{ { allowed.begin() + i, allowed.end() }, style };
            auto t = make_transform(c.isas, p.n, forward, style, p.batch);
            // Styles that give the same algorithm need one measurement.
            const std::string what = std::string(c.isas.front()->name) + t->describe();
            if (std::find(seen.begin(), seen.end(), what) != seen.end())
                continue;
            seen.push_back(what);
            const double seconds = time_transform(*t, p.n);
            if (seconds < best_time) {
                best_time = seconds;
                best = c;
            }
        }
    log_line(log_level::info, "tuned " + p.describe() + ": " + wisdom_value(best));
    return best;
}

class simd_executor final : public executor
{
public:
    simd_executor(const problem& p, const choice& c, unsigned threads, const std::vector<float>& weights)
        : d_batch(p.batch),
          d_dist(p.stride()),
          d_isa(c.isas.front()->name),
          d_pool(unsigned(std::min<std::size_t>(threads, p.batch)))
    {
        // Every worker plans for the whole batch, as one thread would, so the
        // results do not depend on the number of threads.
        for (unsigned w = 0; w < d_pool.size(); ++w)
            d_transforms.push_back(
                make_transform(c.isas, p.n, p.dir == direction::forward, c.style, p.batch, weights));
        d_job = [this](unsigned worker) { run_share(worker); };
    }

    void execute(const complex* in, complex* out) override
    {
        // One thread: the whole batch, without the pool's job dispatch.
        if (d_pool.size() == 1)
            return d_transforms.front()->run(in, out, d_batch, d_dist);
        d_in = in;
        d_out = out;
        d_pool.run(d_job);
    }

    // Each transform's first pass multiplies by them (planner.h).
    bool applies_input_weights() const override { return true; }
    std::string variant() const override { return d_isa; }

    std::string describe() const override
    {
        return d_transforms.front()->describe() +
               (d_pool.size() > 1 ? ", " + std::to_string(d_pool.size()) + " threads" : "");
    }

private:
    // Worker w takes a contiguous share of the batch in whole granules (the
    // last one also the rest), so each transform takes the path it would
    // take in one thread.
    void run_share(unsigned worker)
    {
        const std::size_t workers = d_pool.size();
        const std::size_t granule = d_transforms[worker]->batch_granule();
        const std::size_t granules = d_batch / granule;
        const std::size_t first = granule * (granules * worker / workers);
        const std::size_t last =
            worker + 1 == workers ? d_batch : granule * (granules * (worker + 1) / workers);
        d_transforms[worker]->run(d_in + first * d_dist, d_out + first * d_dist, last - first, d_dist);
    }

    // Read at plan time: problem::stride() builds the shape, a heap allocation.
    std::size_t d_batch, d_dist;
    std::string d_isa;
    worker_pool d_pool;
    std::vector<std::unique_ptr<transform>> d_transforms;
    std::function<void(unsigned)> d_job;
    const complex* d_in = nullptr;
    complex* d_out = nullptr;
};

class simd_backend final : public backend
{
public:
    std::string name() const override { return "simd"; }
    std::string description() const override
    {
        return "generated codelets on CPU vectors (scalar, SSE2, AVX2+FMA, AVX-512, NEON)";
    }

    availability probe() override
    {
        availability a;
        a.usable = true;
        for (const isa_kernels* k : usable_isas())
            a.variants.push_back(k->name);
        return a;
    }

    // Real kinds, any rank: see shaped.h.
    std::string unsupported(const problem&) const override { return ""; }

    // About 5 n log2 n flops (half for real data) at a rate that grows with
    // vector width; only the ranking against other backends matters.
    double estimate_ns(const problem& p) const override
    {
        const double lanes = usable_isas().front()->lanes;
        const double n = double(p.points());
        const double real = p.kind == transform_kind::c2c ? 1.0 : 0.5;
        return real * 5.0 * n * std::log2(std::max(2.0, n)) * double(p.batch) / (4.0 * lanes);
    }

    std::unique_ptr<executor> make_executor(const problem& p,
                                            const std::string& variant,
                                            const plan_options& options) override
    {
        // Bluestein needs about 4n points of tables and work space.
        for (std::size_t n : p.shape())
            if (n > max_size)
                throw error("gpufft: FFT size " + std::to_string(n) +
                            " is larger than the simd backend's limit of " +
                            std::to_string(max_size));
        try {
            const std::string forced = forced_isa(variant);
            const auto allowed = allowed_isas(forced);
            // Real and multi-dimensional problems take each 1-D transform's
            // default algorithm (no tuning or wisdom yet).
            if (!p.is_1d_c2c())
                return make_shaped_executor(p, allowed, options.threads);
            // A plan that names its instruction set gets that one: tuning
            // and wisdom choose only how it splits the size into passes.
            const std::size_t widest = forced.empty() ? allowed.size() : 1;
            const std::string key = wisdom_key(p, allowed);
            std::optional<choice> c;
            if (options.tune) {
                c = tune(p, allowed, widest);
                detail::wisdom_store(key, wisdom_value(*c));
            } else if (const auto value = detail::wisdom_lookup(key)) {
                c = parse_wisdom(*value, allowed, widest);
            }
            return std::make_unique<simd_executor>(
                p, c.value_or(choice{ allowed, pass_style::automatic }), options.threads,
                options.input_weights);
        } catch (const std::bad_alloc&) {
            throw error("gpufft: not enough memory to plan " + p.describe() + " on simd");
        }
    }

private:
    // 32-bit targets (armhf): 2^26, so that the largest buffer (about 4n
    // points) still has a byte count that fits a 32-bit size_t.
    static constexpr std::size_t max_size = std::size_t(1) << (sizeof(std::size_t) >= 8 ? 32 : 26);
};

} // namespace
} // namespace simd

std::unique_ptr<backend> make_simd_backend() { return std::make_unique<simd::simd_backend>(); }

} // namespace gpufft
