// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft: choosing a backend for a problem and running it. */
#include "registry.h"
#include <gpufft/error.h>
#include <gpufft/plan.h>
#include <gpufft/registry.h>
#include <algorithm>
#include <cmath>
#include <mutex>
#include <sstream>

namespace gpufft {

struct plan::impl {
    gpufft::problem prob;
    std::unique_ptr<executor> exec;
    std::string backend_name;
};

namespace {

using detail::registered_backend;

const registered_backend& find_backend(const std::string& name)
{
    for (const auto& r : detail::registered_backends())
        if (r.impl->name() == name)
            return r;
    throw error("gpufft: unknown backend '" + name +
                "'; usable backends: " + usable_backend_names());
}

std::string joined(const std::string& name, const std::string& variant)
{
    return variant.empty() ? name : name + ":" + variant;
}

// The offset in the strided layout of each element of one transform, in
// row-major (packed) order.
std::vector<std::size_t> strided_offsets(const problem& p)
{
    const auto shape = p.shape();
    const std::size_t last = shape.size() - 1;
    std::vector<std::size_t> index(shape.size(), 0), offsets;
    offsets.reserve(p.points());
    for (;;) {
        std::size_t offset = 0;
        for (std::size_t d = 0; d < last; ++d)
            offset += index[d] * p.strides[d];
        for (std::size_t j = 0; j < shape[last]; ++j)
            offsets.push_back(offset + j * p.strides[last]);
        std::size_t d = last;
        while (d > 0 && ++index[d - 1] == shape[d - 1])
            index[--d] = 0;
        if (d == 0)
            return offsets;
    }
}

// A strided layout, computed by the packed transform in scratch: backends
// see only packed problems, at the cost of a gather and a scatter. The
// offsets are a table made at plan time, so execute() allocates nothing.
// Input weights (plan_options::input_weights) are applied in the gather.
class strided_executor final : public executor
{
public:
    strided_executor(const problem& strided, std::vector<float> weights,
                     std::unique_ptr<executor> packed)
        : d_batch(strided.batch),
          d_stride(strided.stride()),
          d_offsets(strided_offsets(strided)),
          d_weights(std::move(weights)),
          d_packed(std::move(packed)),
          d_scratch(strided.batch * d_offsets.size())
    {
    }

    void execute(const complex* in, complex* out) override
    {
        const std::size_t points = d_offsets.size();
        for (std::size_t b = 0; b < d_batch; ++b) {
            const complex* from = in + b * d_stride;
            complex* to = d_scratch.data() + b * points;
            if (d_weights.empty())
                for (std::size_t i = 0; i < points; ++i)
                    to[i] = from[d_offsets[i]];
            else
                for (std::size_t i = 0; i < points; ++i)
                    to[i] = from[d_offsets[i]] * d_weights[i];
        }
        d_packed->execute(d_scratch.data(), d_scratch.data());
        for (std::size_t b = 0; b < d_batch; ++b) {
            const complex* from = d_scratch.data() + b * points;
            complex* to = out + b * d_stride;
            for (std::size_t i = 0; i < points; ++i)
                to[d_offsets[i]] = from[i];
        }
    }

    bool applies_input_weights() const override { return true; }
    std::string variant() const override { return d_packed->variant(); }
    std::string describe() const override { return "strided gather/scatter around " + d_packed->describe(); }

private:
    std::size_t d_batch, d_stride;
    std::vector<std::size_t> d_offsets;
    std::vector<float> d_weights;
    std::unique_ptr<executor> d_packed;
    std::vector<complex> d_scratch;
};

// Input weights for an executor that does not apply them: a weighted copy
// of the input in scratch (made at plan time) goes to it instead.
class weighted_executor final : public executor
{
public:
    weighted_executor(const problem& packed, std::vector<float> weights,
                      std::unique_ptr<executor> inner)
        : d_batch(packed.batch),
          d_stride(packed.kind == transform_kind::c2c ? packed.stride() : packed.real_stride()),
          d_weights(std::move(weights)),
          d_inner(std::move(inner)),
          d_scratch(packed.kind == transform_kind::c2c ? packed.span() : 0),
          d_real_scratch(packed.kind == transform_kind::r2c ? packed.real_span() : 0)
    {
    }

    void execute(const complex* in, complex* out) override
    {
        weigh(in, d_scratch.data());
        d_inner->execute(d_scratch.data(), out);
    }

    void execute_r2c(const float* in, complex* out) override
    {
        weigh(in, d_real_scratch.data());
        d_inner->execute_r2c(d_real_scratch.data(), out);
    }

    bool applies_input_weights() const override { return true; }
    std::string variant() const override { return d_inner->variant(); }
    std::string describe() const override { return "input weights copied before " + d_inner->describe(); }

private:
    template <class T>
    void weigh(const T* in, T* to) const
    {
        const std::size_t points = d_weights.size();
        for (std::size_t b = 0; b < d_batch; ++b)
            for (std::size_t i = 0; i < points; ++i)
                to[b * d_stride + i] = in[b * d_stride + i] * d_weights[i];
    }

    std::size_t d_batch, d_stride;
    std::vector<float> d_weights;
    std::unique_ptr<executor> d_inner;
    std::vector<complex> d_scratch;
    std::vector<float> d_real_scratch;
};

// Input weights fit the problem: its kind takes them, one per point, finite.
void check_input_weights(const problem& p, const std::vector<float>& w)
{
    if (w.empty())
        return;
    if (p.kind == transform_kind::c2r)
        throw error("gpufft: input_weights apply to c2c and r2c plans, not c2r (" + p.describe() + ")");
    if (w.size() != p.points())
        throw error("gpufft: input_weights has " + std::to_string(w.size()) + " weights but " +
                    p.describe() + " has " + std::to_string(p.points()) +
                    " points a transform (one weight each)");
    for (std::size_t i = 0; i < w.size(); ++i)
        if (!std::isfinite(w[i]))
            throw error("gpufft: input_weights[" + std::to_string(i) + "] is " +
                        (std::isnan(w[i]) ? "NaN" : "infinite") + "; weights must be finite");
}

// "auto": the usable backend with the lowest modelled cost among those that
// support the problem; a backend that fails to start is logged and the next
// cheapest is tried.
struct chosen {
    std::unique_ptr<executor> exec;
    std::string backend_name;
};

chosen choose_automatically(const problem& prob, const plan_options& options)
{
    // Why a backend is unusable does not change within a process: say it once.
    static std::once_flag unusable_logged;
    std::call_once(unusable_logged, [] {
        for (const auto& r : detail::registered_backends())
            if (!r.probed.usable)
                log_line(log_level::debug,
                         "backend " + r.impl->name() + " not used: " + r.probed.reason);
    });
    std::vector<std::pair<double, const registered_backend*>> ranked;
    std::string unsupported;
    for (const auto& r : detail::registered_backends()) {
        if (!r.probed.usable)
            continue;
        const std::string why = r.impl->unsupported(prob);
        if (why.empty())
            ranked.emplace_back(r.impl->estimate_ns(prob), &r);
        else
            unsupported += "; " + r.impl->name() + ": " + why;
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
        return a.first < b.first;
    });
    std::string failures;
    for (std::size_t i = 0; i < ranked.size(); ++i) {
        const registered_backend& r = *ranked[i].second;
        try {
            return { r.impl->make_executor(prob, "", options), r.impl->name() };
        } catch (const std::exception& e) {
            if (i + 1 < ranked.size())
                log_line(log_level::warning,
                         "backend " + r.impl->name() + " failed for " +
                             prob.describe() + " (" + e.what() + "), falling back to " +
                             ranked[i + 1].second->impl->name());
            failures += "; " + r.impl->name() + ": " + e.what();
        }
    }
    throw error("gpufft: no backend could plan " + prob.describe() + failures + unsupported);
}

} // namespace

plan::plan(const gpufft::problem& p, const plan_options& options)
    : d_impl(std::make_unique<impl>())
{
    p.validate();
    if (options.threads == 0)
        throw error("gpufft: threads must be at least 1 (got 0)");
    if (options.threads > plan_options::max_threads)
        throw error("gpufft: threads must be at most " + std::to_string(plan_options::max_threads) +
                    " (got " + std::to_string(options.threads) + ")");
    check_input_weights(p, options.input_weights);
    d_impl->prob = p;
    d_impl->prob.n = p.points(); // backends read n as the 1-D size
    gpufft::problem packed = d_impl->prob;
    // Strided layouts apply the weights in their gather, so the packed
    // transform inside gets none.
    plan_options packed_options = options;
    if (!p.strides.empty()) {
        packed.strides.clear();
        packed.distance = 0;
        packed_options.input_weights.clear();
    }
    if (options.backend == "auto") {
        chosen c = choose_automatically(packed, packed_options);
        d_impl->exec = std::move(c.exec);
        d_impl->backend_name = std::move(c.backend_name);
    } else {
        const auto colon = options.backend.find(':');
        const std::string name = options.backend.substr(0, colon);
        const std::string variant =
            colon == std::string::npos ? "" : options.backend.substr(colon + 1);
        const auto& r = find_backend(name);
        if (!r.probed.usable)
            throw error("gpufft: backend '" + name + "' is not usable here: " +
                        r.probed.reason + "; usable backends: " + usable_backend_names());
        const std::string why = r.impl->unsupported(packed);
        if (!why.empty())
            throw error("gpufft: backend '" + name + "' cannot plan " + p.describe() + ": " + why);
        d_impl->exec = r.impl->make_executor(packed, variant, packed_options);
        d_impl->backend_name = name;
    }
    if (!packed_options.input_weights.empty() && !d_impl->exec->applies_input_weights())
        d_impl->exec = std::make_unique<weighted_executor>(packed, packed_options.input_weights,
                                                           std::move(d_impl->exec));
    if (!p.strides.empty())
        d_impl->exec = std::make_unique<strided_executor>(d_impl->prob, options.input_weights,
                                                          std::move(d_impl->exec));
    d_impl->backend_name = joined(d_impl->backend_name, d_impl->exec->variant());
}

plan::plan(std::size_t n, direction dir, std::size_t batch, std::size_t distance,
           const std::string& backend)
    : plan(gpufft::problem{ n, dir, batch, distance }, [&] {
          plan_options o;
          o.backend = backend;
          return o;
      }())
{
}

plan::~plan() = default;
plan::plan(plan&&) noexcept = default;
plan& plan::operator=(plan&&) noexcept = default;

namespace {

// The execute function of each kind.
std::string execute_name(transform_kind k)
{
    return k == transform_kind::c2c ? "execute()" : std::string("execute_") + kind_name(k) + "()";
}

void require_kind(const problem& p, transform_kind called)
{
    if (p.kind != called)
        throw error(std::string("gpufft: a ") + kind_name(p.kind) + " plan (" + p.describe() +
                    ") runs with " + execute_name(p.kind) + ", not " + execute_name(called));
}

// Null, short and partly overlapping buffers; `what` names each side's element type.
void check_buffers(const problem& p,
                   const void* in,
                   std::size_t in_len,
                   std::size_t in_need,
                   std::size_t in_size,
                   const void* out,
                   std::size_t out_len,
                   std::size_t out_need,
                   std::size_t out_size)
{
    if (!in || !out)
        throw error(std::string("gpufft: ") + (!in ? "input" : "output") + " buffer is null");
    const auto name = [&](std::size_t size) {
        return size == sizeof(float) ? " real elements" : " complex elements";
    };
    if (in_len < in_need || out_len < out_need) {
        const bool input = in_len < in_need;
        std::ostringstream msg;
        msg << "gpufft: " << (input ? "input" : "output") << " buffer holds "
            << (input ? in_len : out_len) << (input ? name(in_size) : name(out_size)) << " but "
            << p.describe() << " needs " << (input ? in_need : out_need);
        if (p.kind != transform_kind::c2c) {
            const auto s = p.shape();
            msg << " (" << s.back() << " reals along the last dimension <-> " << s.back() / 2 + 1
                << " complex)";
        }
        throw error(msg.str());
    }
    const auto* a = static_cast<const char*>(in);
    const auto* b = static_cast<const char*>(out);
    const std::size_t a_bytes = in_need * in_size, b_bytes = out_need * out_size;
    // Partly overlapping buffers would be read after being written; real
    // transforms have no in-place form.
    const bool same = a == b && p.kind == transform_kind::c2c;
    if (!same && a < b + b_bytes && b < a + a_bytes)
        throw error(p.kind == transform_kind::c2c
                        ? "gpufft: input and output buffers overlap without being the same buffer"
                        : "gpufft: input and output buffers overlap; real transforms run out of "
                          "place only");
}

} // namespace

void plan::execute(const complex* in, complex* out)
{
    require_kind(d_impl->prob, transform_kind::c2c);
    d_impl->exec->execute(in, out);
}

void plan::execute(const complex* in, std::size_t in_len, complex* out, std::size_t out_len)
{
    const auto& p = d_impl->prob;
    require_kind(p, transform_kind::c2c);
    check_buffers(p, in, in_len, p.span(), sizeof(complex), out, out_len, p.span(), sizeof(complex));
    d_impl->exec->execute(in, out);
}

void plan::execute_r2c(const float* in, complex* out)
{
    require_kind(d_impl->prob, transform_kind::r2c);
    d_impl->exec->execute_r2c(in, out);
}

void plan::execute_r2c(const float* in, std::size_t in_len, complex* out, std::size_t out_len)
{
    const auto& p = d_impl->prob;
    require_kind(p, transform_kind::r2c);
    check_buffers(p, in, in_len, p.real_span(), sizeof(float), out, out_len, p.span(), sizeof(complex));
    d_impl->exec->execute_r2c(in, out);
}

void plan::execute_c2r(const complex* in, float* out)
{
    require_kind(d_impl->prob, transform_kind::c2r);
    d_impl->exec->execute_c2r(in, out);
}

void plan::execute_c2r(const complex* in, std::size_t in_len, float* out, std::size_t out_len)
{
    const auto& p = d_impl->prob;
    require_kind(p, transform_kind::c2r);
    check_buffers(p, in, in_len, p.span(), sizeof(complex), out, out_len, p.real_span(), sizeof(float));
    d_impl->exec->execute_c2r(in, out);
}

const gpufft::problem& plan::problem() const { return d_impl->prob; }
const std::string& plan::backend() const { return d_impl->backend_name; }
std::string plan::describe() const { return d_impl->exec->describe(); }

} // namespace gpufft
