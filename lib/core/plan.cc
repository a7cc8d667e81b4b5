/* gr-gpufft: choosing a backend for a problem and running it. */
#include "log.h"
#include "registry.h"
#include <gpufft/error.h>
#include <gpufft/plan.h>
#include <gpufft/registry.h>
#include <algorithm>
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

// "auto": the usable backend with the lowest modelled cost; a backend that
// fails to start is logged and the next cheapest is tried.
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
                detail::log_line(log_level::debug,
                                 "backend " + r.impl->name() + " not used: " + r.probed.reason);
    });
    std::vector<std::pair<double, const registered_backend*>> ranked;
    for (const auto& r : detail::registered_backends())
        if (r.probed.usable)
            ranked.emplace_back(r.impl->estimate_ns(prob), &r);
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
                detail::log_line(log_level::warning,
                                 "backend " + r.impl->name() + " failed for " +
                                 prob.describe() + " (" + e.what() + "), falling back to " +
                                 ranked[i + 1].second->impl->name());
            failures += "; " + r.impl->name() + ": " + e.what();
        }
    }
    throw error("gpufft: no backend could plan " + prob.describe() + failures);
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
    d_impl->prob = p;
    if (options.backend == "auto") {
        chosen c = choose_automatically(p, options);
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
        d_impl->exec = r.impl->make_executor(p, variant, options);
        d_impl->backend_name = name;
    }
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

void plan::execute(const complex* in, complex* out) { d_impl->exec->execute(in, out); }

void plan::execute(const complex* in, std::size_t in_len, complex* out, std::size_t out_len)
{
    const std::size_t need = d_impl->prob.span();
    if (!in || !out)
        throw error(std::string("gpufft: ") + (!in ? "input" : "output") +
                    " buffer is null");
    if (in_len < need || out_len < need) {
        std::ostringstream msg;
        msg << "gpufft: " << (in_len < need ? "input" : "output") << " buffer holds "
            << (in_len < need ? in_len : out_len) << " elements but " << d_impl->prob.describe()
            << " needs " << need;
        throw error(msg.str());
    }
    // Partly overlapping buffers would be read after being written.
    if (in != out && in < out + need && out < in + need)
        throw error("gpufft: input and output buffers overlap without being the same buffer");
    d_impl->exec->execute(in, out);
}

const gpufft::problem& plan::problem() const { return d_impl->prob; }
const std::string& plan::backend() const { return d_impl->backend_name; }
std::string plan::describe() const { return d_impl->exec->describe(); }

} // namespace gpufft
