// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: the backend behind gpufft::plan and the
 * device-side plans of <gpufft/opencl.h>. */
#include "host_executor.h"
#include "real_executor.h"
#include "shape_search.h"
#include <gpufft/backend.h>
#include <gpufft/error.h>
#include <gpufft/opencl.h>
#include <algorithm>

namespace gpufft {

namespace opencl {

using namespace detail;

struct device_plan::impl {
    gpufft::problem prob;
    device_context& ctx;
    queue_handle queue;
    std::unique_ptr<fft_chain> chain;

    impl(const gpufft::problem& p, const std::string& selector)
        : prob(p), ctx(context_for(select(selector))), queue(make_queue(ctx))
    {
        if (!p.is_1d_c2c())
            throw error("gpufft: opencl: a device_plan computes 1-D c2c transforms only, not " +
                        p.describe());
        chain = std::make_unique<fft_chain>(
            ctx, searched_chain(ctx, p.n, p.dir, p.batch, false), p.batch, p.stride(), p.stride());
    }
};

namespace {
const gpufft::problem& validated(const gpufft::problem& p)
{
    p.validate();
    return p;
}
} // namespace

device_plan::device_plan(const gpufft::problem& p, const std::string& device_selector)
    : d_impl(std::make_unique<impl>(validated(p), device_selector))
{
}

device_plan::~device_plan() = default;

void device_plan::enqueue(cl_mem in, cl_mem out)
{
    if (!in || !out)
        throw error(std::string("gpufft: opencl: ") + (!in ? "input" : "output") +
                    " buffer is null");
    d_impl->chain->enqueue(d_impl->queue.get(), in, out, d_impl->prob.batch);
}

void device_plan::finish() { check(api()->clFinish(d_impl->queue.get()), "clFinish"); }

cl_context device_plan::context() const { return d_impl->ctx.context.get(); }
cl_command_queue device_plan::queue() const { return d_impl->queue.get(); }
const device_info& device_plan::device() const { return d_impl->ctx.device.info; }
const gpufft::problem& device_plan::problem() const { return d_impl->prob; }
std::string device_plan::describe() const { return d_impl->chain->shape().describe(); }

} // namespace opencl

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
            for (std::size_t i : ranked_devices())
                a.variants.push_back(std::to_string(i));
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
