// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: the backend behind gpufft::plan
 * (device_transform.cc has the device-side plans of <gpufft/opencl.h>). */
#include "host_executor.h"
#include "real_executor.h"
#include <gpufft/backend.h>
#include <gpufft/error.h>
#include <algorithm>

namespace gpufft {

namespace {

using namespace opencl::detail;

// Host memory copies (into and out of mapped or staging buffers) and the
// host link, bytes a second; modelled, not measured.
constexpr double host_copy_bps = 20e9;
constexpr double host_link_bps = 24e9; // PCIe 4 x16, both directions at once
// Fixed cost of a call: launches, a map or a wait.
constexpr double call_ns = 20000;

class opencl_backend final : public backend
{
public:
    std::string name() const override { return "opencl"; }
    std::string device_api() const override { return "opencl"; }

    std::string description() const override
    {
        return "OpenCL devices (GPUs first): one-kernel, four-step and Bluestein FFTs in "
               "local memory";
    }

    availability probe() override
    {
        availability a;
        try {
            for (std::size_t i : ranked_devices()) {
                a.variants.push_back(std::to_string(i));
                const auto& d = all_devices()[i].info;
                a.variant_notes.push_back(d.platform + ": " + d.name + ", driver " + d.driver);
            }
            a.usable = true;
        } catch (const std::exception& e) {
            a.reason = e.what();
            const std::string prefix = "gpufft: opencl: ";
            if (a.reason.compare(0, prefix.size(), prefix) == 0)
                a.reason.erase(0, prefix.size());
        }
        return a;
    }

    // Any kind and rank, where every dimension but the last fits one kernel
    // (the last runs as whole chains, with four-step and Bluestein); for
    // c2c the last too (planner.h). Checked on the default device.
    std::string unsupported(const problem& p) const override
    {
        if (p.rank() == 1)
            return "";
        auto dims = p.dims;
        if (p.kind != transform_kind::c2c)
            dims.pop_back();
        try {
            return multi_dim_unsupported(planning_limits(select("")), dims);
        } catch (const std::exception& e) {
            return e.what();
        }
    }

    /* Pipelined: the slowest of the device's passes through its memory, the
     * host copies and (discrete devices) the link, plus a fixed cost. A CPU
     * device is modelled as never cheaper than the simd backend. */
    double estimate_ns(const problem& p) const override
    {
        try {
            const device_entry& d = select("");
            if (d.is_cpu())
                return 1e300;
            const double points = double(p.n) * double(p.batch);
            const double passes =
                p.rank() > 1 ? double(p.rank()) : double(plan_chain(planning_limits(d), p.n, p.dir).passes.size());
            // About 10 GB/s of memory bandwidth per compute unit and GHz
            // (H100: 132 x 1.98 GHz, 3 TB/s), at most 20 GB/s for memory
            // shared with the host.
            double bandwidth = 10e9 * d.info.compute_units * d.clock_mhz / 1000.0;
            if (d.info.unified_memory)
                bandwidth = std::min(bandwidth, 20e9);
            const double device_ns = passes * 16.0 * points / bandwidth * 1e9;
            const double copy_ns = 16.0 * points / host_copy_bps * 1e9;
            const double link_ns = d.info.unified_memory ? 0 : 16.0 * points / host_link_bps * 1e9;
            return call_ns + std::max({ device_ns, copy_ns, link_ns });
        } catch (const std::exception&) {
            return 1e300;
        }
    }

    std::unique_ptr<executor> make_executor(const problem& p,
                                            const std::string& variant,
                                            const plan_options& options) override
    {
        if (const std::string why = unsupported(p); !why.empty())
            throw error("gpufft: " + why);
        if (p.kind != transform_kind::c2c)
            return std::make_unique<real_executor>(p, variant);
        return std::make_unique<host_executor>(p, variant, options.tune);
    }
};

} // namespace

std::unique_ptr<backend> make_opencl_backend() { return std::make_unique<opencl_backend>(); }

} // namespace gpufft
