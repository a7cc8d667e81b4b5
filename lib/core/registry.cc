// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft: backend registration, discovery and logging. */
#include "registry.h"
#include <gpufft/error.h>
#include <gpufft/registry.h>
#include <iostream>
#include <memory>
#include <mutex>

namespace gpufft {

// Each backend's folder provides one factory; adding a backend adds a line here.
std::unique_ptr<backend> make_simd_backend();
std::unique_ptr<backend> make_opencl_backend();
std::unique_ptr<backend> make_qpu_backend();

namespace {

using factory = std::unique_ptr<backend> (*)();
const factory backend_factories[] = {
    make_simd_backend,
#ifdef GPUFFT_WITH_OPENCL
    make_opencl_backend,
#endif
#ifdef GPUFFT_WITH_QPU
    make_qpu_backend,
#endif
};

std::mutex log_mutex;
std::function<void(log_level, const std::string&)> log_handler = [](log_level level,
                                                                    const std::string& line) {
    if (level != log_level::debug)
        std::cerr << "gpufft: " << line << std::endl;
};

} // namespace

namespace detail {

const std::vector<registered_backend>& registered_backends()
{
    // Probing can load drivers, so it happens once, on first use, thread-safely.
    static const std::vector<registered_backend> table = [] {
        static std::vector<std::unique_ptr<backend>> owned;
        std::vector<registered_backend> t;
        for (factory make : backend_factories) {
            owned.push_back(make());
            backend* b = owned.back().get();
            availability a;
            try {
                a = b->probe();
            } catch (const std::exception& e) {
                a.usable = false;
                a.reason = e.what();
            }
            t.push_back({ b, a });
        }
        return t;
    }();
    return table;
}

} // namespace detail

backend::~backend() = default;
executor::~executor() = default;

// Unreachable through a plan, which checks the kind: a backend's executor
// for a real problem overrides these.
void executor::execute_r2c(const float*, complex*)
{
    throw error("gpufft: this executor does not compute r2c transforms");
}

void executor::execute_c2r(const complex*, float*)
{
    throw error("gpufft: this executor does not compute c2r transforms");
}

std::string backend::unsupported(const problem& p) const
{
    if (p.is_1d_c2c())
        return "";
    return "the " + name() + " backend computes 1-D complex (c2c) transforms only, not " +
           kind_name(p.kind) + " of rank " + std::to_string(p.rank());
}

std::vector<backend_info> backends()
{
    std::vector<backend_info> out;
    for (const auto& r : detail::registered_backends())
        out.push_back({ r.impl->name(),
                        r.impl->description(),
                        r.probed.usable,
                        r.probed.reason,
                        r.probed.variants,
                        r.impl->device_api(),
                        r.probed.variant_notes });
    return out;
}

std::string usable_backend_names()
{
    std::string names;
    for (const auto& r : detail::registered_backends()) {
        if (!r.probed.usable)
            continue;
        if (!names.empty())
            names += ", ";
        names += r.impl->name();
    }
    return names;
}

void set_log_handler(std::function<void(log_level, const std::string&)> handler)
{
    std::lock_guard<std::mutex> lock(log_mutex);
    log_handler = std::move(handler);
}

void log_line(log_level level, const std::string& line)
{
    std::lock_guard<std::mutex> lock(log_mutex);
    if (log_handler)
        log_handler(level, line);
}

} // namespace gpufft
