// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: gpufft::plan's executor, on host buffers. */
#include "host_executor.h"
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
    // A chunk's transforms lie back to back on the device (copy_in packs them).
    problem chunk = p;
    chunk.batch = d_chunk;
    chunk.distance = 0;
    const std::size_t slots = d_unified ? 1 : 2;
    const std::size_t bytes = d_chunk * p.n * sizeof(complex);
    d_slots[0].queue = make_queue(d_ctx);
    // tune searches a 1-D shape; other problems have none to search.
    d_slots[0].transform =
        std::make_unique<device_transform>(d_ctx, chunk, d_slots[0].queue.get(), device_callbacks{},
                                           tune && p.rank() == 1);

    // Device memory: per slot the data and what the transform holds.
    const std::size_t need = slots * (bytes + d_slots[0].transform->device_bytes());
    if (need > dev.info.global_memory || bytes > dev.max_alloc)
        throw error("gpufft: opencl: " + p.describe() + " needs " + mib(need) + " on " +
                    dev.label() + ", which has " + mib(dev.info.global_memory) +
                    " (largest buffer " + mib(dev.max_alloc) + ")");

    for (std::size_t i = 0; i < slots; ++i) {
        slot& s = d_slots[i];
        if (i > 0) {
            s.queue = make_queue(d_ctx);
            s.transform = d_slots[0].transform->twin();
        }
        if (d_unified) {
            s.data = make_buffer(d_ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes);
        } else {
            s.data = make_buffer(d_ctx, CL_MEM_READ_WRITE, bytes);
            s.staging = make_buffer(d_ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes);
            s.host = static_cast<complex*>(
                map(s.queue.get(), s.staging.get(), CL_MAP_READ | CL_MAP_WRITE, bytes));
        }
    }
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
    return d_slots[0].transform->describe() + "; " + io + " on " + d_ctx.device.label();
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
        s.transform->enqueue(q, s.data.get(), s.data.get(), s.count);
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
    s.transform->enqueue(q, s.data.get(), s.data.get(), count);
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
