// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: gpufft::plan's executor, on host buffers. */
#include "host_executor.h"
#include "device_transform.h"
#include "shape_search.h"
#include <gpufft/error.h>
#include <algorithm>
#include <cstring>

namespace gpufft::opencl::detail {

namespace {

// Points a chunk aims for: 32 MiB a buffer, enough to reach the device's
// bandwidth and to amortize the per-call cost, small enough to pipeline.
constexpr std::size_t chunk_points = std::size_t(1) << 22;

mem_handle make_buffer(device_context& ctx, cl_mem_flags flags, std::size_t bytes)
{
    cl_int err = CL_SUCCESS;
    mem_handle m(api()->clCreateBuffer(ctx.context.get(), flags, bytes, nullptr, &err));
    check(err, "clCreateBuffer");
    return m;
}

void* map(cl_command_queue q, cl_mem m, cl_map_flags flags, std::size_t bytes)
{
    cl_int err = CL_SUCCESS;
    void* p = api()->clEnqueueMapBuffer(q, m, CL_TRUE, flags, 0, bytes, 0, nullptr, nullptr, &err);
    check(err, "clEnqueueMapBuffer");
    return p;
}

void unmap(cl_command_queue q, cl_mem m, void* p)
{
    check(api()->clEnqueueUnmapMemObject(q, m, p, 0, nullptr, nullptr), "clEnqueueUnmapMemObject");
}

std::string mib(std::size_t bytes) { return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB"; }

} // namespace

host_executor::host_executor(const problem& p, const std::string& selector, bool tune)
    : d_problem(p),
      d_variant(selector),
      d_ctx(context_for(select(selector))),
      d_unified(d_ctx.device.info.unified_memory)
{
    const device_entry& dev = d_ctx.device;
    if (d_variant.empty())
        d_variant = std::to_string(dev.info.index);
    d_chunk = std::min(p.batch, std::max<std::size_t>(1, chunk_points / p.n));
    std::vector<std::vector<axis_chain>> layouts;
    if (p.rank() == 1) {
        axis_chain whole;
        whole.shape = searched_chain(d_ctx, p.n, p.dir, d_chunk, tune);
        whole.dist = p.n;
        layouts.push_back({ whole });
    } else {
        const std::string why = multi_dim_unsupported(planning_limits(dev), p.dims);
        if (!why.empty())
            throw error("gpufft: " + why);
        layouts.push_back(plan_strided(planning_limits(dev), p.dims, p.dir));
        layouts.push_back(plan_transposed(planning_limits(dev), p.dims, p.dir));
    }
    const std::size_t slots = d_unified ? 1 : 2;

    // Device memory: per slot the data and the most scratch a layout needs.
    std::size_t scratch = 0;
    for (const auto& layout : layouts) {
        std::size_t points = 0;
        for (const axis_chain& c : layout)
            points = std::max(points, c.entries * (c.shape.scratch_points[0] + c.shape.scratch_points[1]));
        scratch = std::max(scratch, points);
    }
    const std::size_t per_transform = 8 * (p.n + scratch);
    const std::size_t need = slots * d_chunk * per_transform;
    if (need > dev.info.global_memory || d_chunk * p.n * 8 > dev.max_alloc)
        throw error("gpufft: opencl: " + p.describe() + " needs " + mib(need) + " on " +
                    dev.label() + ", which has " + mib(dev.info.global_memory) +
                    " (largest buffer " + mib(dev.max_alloc) + ")");

    const std::size_t bytes = d_chunk * p.n * sizeof(complex);
    for (std::size_t i = 0; i < slots; ++i) {
        slot& s = d_slots[i];
        s.queue = make_queue(d_ctx);
        if (d_unified) {
            s.data = make_buffer(d_ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes);
        } else {
            s.data = make_buffer(d_ctx, CL_MEM_READ_WRITE, bytes);
            s.staging = make_buffer(d_ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes);
            s.host = static_cast<complex*>(
                map(s.queue.get(), s.staging.get(), CL_MAP_READ | CL_MAP_WRITE, bytes));
        }
    }
    const std::size_t kept = layouts.size() > 1 ? choose_layout(layouts) : 0;
    for (std::size_t i = 0; i < slots; ++i)
        if (d_slots[i].steps.empty())
            d_slots[i].steps = make_steps(layouts[kept]);
}

std::vector<host_executor::step> host_executor::make_steps(const std::vector<axis_chain>& layout) const
{
    std::vector<step> steps;
    for (const axis_chain& c : layout)
        steps.push_back({ std::make_unique<fft_chain>(d_ctx, c.shape, d_chunk * c.entries, c.dist,
                                                      c.dist),
                          c.entries });
    return steps;
}

void host_executor::enqueue(slot& s, std::size_t count)
{
    for (step& st : s.steps)
        st.chain->enqueue(s.queue.get(), s.data.get(), s.data.get(), count * st.entries);
}

// The median of 5 runs of a full chunk after a warm-up, on whatever the
// data buffer holds (timing does not depend on the values).
std::size_t host_executor::choose_layout(const std::vector<std::vector<axis_chain>>& layouts)
{
    slot& s = d_slots[0];
    std::vector<double> times;
    std::vector<std::vector<step>> built;
    for (const auto& layout : layouts) {
        s.steps = make_steps(layout);
        times.push_back(median_run_ms(s.queue.get(), [&] { enqueue(s, d_chunk); }));
        built.push_back(std::move(s.steps));
    }
    const std::size_t best = std::size_t(std::min_element(times.begin(), times.end()) - times.begin());
    s.steps = std::move(built[best]);
    d_layout = layout_note(times, best, d_chunk);
    return best;
}

host_executor::~host_executor()
{
    for (slot& s : d_slots)
        if (s.queue.get()) {
            api()->clFinish(s.queue.get());
            if (s.host) {
                api()->clEnqueueUnmapMemObject(s.queue.get(), s.staging.get(), s.host, 0, nullptr,
                                               nullptr);
                api()->clFinish(s.queue.get());
            }
        }
}

std::string host_executor::describe() const
{
    const std::string io =
        d_unified ? "zero-copy mapped buffers"
                  : "double-buffered chunks of " + std::to_string(d_chunk) + " transforms";
    std::string passes;
    for (const step& st : d_slots[0].steps)
        passes += (passes.empty() ? "" : " then ") + st.chain->shape().describe();
    return (d_layout.empty() ? "" : d_layout + ": ") + passes + "; " + io + " on " +
           d_ctx.device.label();
}

// Device buffers hold the chunk's transforms back to back; the caller's may
// have gaps, which are neither read into the device nor written.
void host_executor::copy_in(const complex* in, const slot& s, complex* dst) const
{
    const std::size_t n = d_problem.n, stride = d_problem.stride();
    if (stride == n)
        std::memcpy(dst, in + s.first * n, s.count * n * sizeof(complex));
    else
        for (std::size_t b = 0; b < s.count; ++b)
            std::memcpy(dst + b * n, in + (s.first + b) * stride, n * sizeof(complex));
}

void host_executor::copy_out(const slot& s, const complex* src, complex* out) const
{
    const std::size_t n = d_problem.n, stride = d_problem.stride();
    if (stride == n)
        std::memcpy(out + s.first * n, src, s.count * n * sizeof(complex));
    else
        for (std::size_t b = 0; b < s.count; ++b)
            std::memcpy(out + (s.first + b) * stride, src + b * n, n * sizeof(complex));
}

void host_executor::run_unified(const complex* in, complex* out)
{
    slot& s = d_slots[0];
    const cl_command_queue q = s.queue.get();
    for (std::size_t first = 0; first < d_problem.batch; first += d_chunk) {
        s.first = first;
        s.count = std::min(d_chunk, d_problem.batch - first);
        const std::size_t bytes = s.count * d_problem.n * sizeof(complex);
        void* p = map(q, s.data.get(), CL_MAP_WRITE_INVALIDATE_REGION, bytes);
        copy_in(in, s, static_cast<complex*>(p));
        unmap(q, s.data.get(), p);
        enqueue(s, s.count);
        p = map(q, s.data.get(), CL_MAP_READ, bytes);
        copy_out(s, static_cast<const complex*>(p), out);
        unmap(q, s.data.get(), p);
    }
    check(api()->clFinish(q), "clFinish");
}

void host_executor::start(slot& s, const complex* in, std::size_t first, std::size_t count)
{
    const cl_api& a = *api();
    const cl_command_queue q = s.queue.get();
    s.first = first;
    s.count = count;
    copy_in(in, s, s.host);
    const std::size_t bytes = count * d_problem.n * sizeof(complex);
    check(a.clEnqueueWriteBuffer(q, s.data.get(), CL_FALSE, 0, bytes, s.host, 0, nullptr, nullptr),
          "clEnqueueWriteBuffer");
    enqueue(s, count);
    check(a.clEnqueueReadBuffer(q, s.data.get(), CL_FALSE, 0, bytes, s.host, 0, nullptr, s.done.out()),
          "clEnqueueReadBuffer");
    check(a.clFlush(q), "clFlush");
    s.busy = true;
}

void host_executor::drain(slot& s, complex* out)
{
    s.busy = false;
    const cl_event e = s.done.get();
    check(api()->clWaitForEvents(1, &e), "clWaitForEvents (a chunk's transforms)");
    copy_out(s, s.host, out);
}

void host_executor::run_double_buffered(const complex* in, complex* out)
{
    std::size_t i = 0;
    for (std::size_t first = 0; first < d_problem.batch; first += d_chunk, ++i) {
        slot& s = d_slots[i % 2];
        if (s.busy)
            drain(s, out);
        start(s, in, first, std::min(d_chunk, d_problem.batch - first));
    }
    for (std::size_t k = 0; k < 2; ++k)
        if (d_slots[(i + k) % 2].busy)
            drain(d_slots[(i + k) % 2], out);
}

void host_executor::execute(const complex* in, complex* out)
{
    try {
        if (d_unified)
            run_unified(in, out);
        else
            run_double_buffered(in, out);
    } catch (...) {
        // Leave no work in flight on buffers the caller may free.
        for (slot& s : d_slots) {
            s.busy = false;
            if (s.queue.get())
                api()->clFinish(s.queue.get());
        }
        throw;
    }
}

} // namespace gpufft::opencl::detail
