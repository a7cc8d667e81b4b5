// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: r2c and c2r on host buffers (see real_executor.h). */
#include "real_executor.h"
#include <gpufft/error.h>
#include <algorithm>

namespace gpufft::opencl::detail {

namespace {

// Points a chunk aims for, as in host_executor.
constexpr std::size_t chunk_points = std::size_t(1) << 22;

/* Copies `count` blocks of `block` bytes between a device buffer, where they
 * lie back to back from offset 0, and host memory, where they start `pitch`
 * bytes apart, with `enqueue` (clEnqueueWriteBuffer or clEnqueueReadBuffer);
 * without blocking. One command when the host's are back to back too: a
 * command per transform costs each its own launch and, from pageable memory,
 * its own staging. */
template <typename Enqueue, typename Host>
void copy_blocks(Enqueue enqueue, const char* what, cl_command_queue q, cl_mem dev, Host* host,
                 std::size_t count, std::size_t block, std::size_t pitch)
{
    const bool packed = pitch == block;
    const std::size_t commands = packed ? 1 : count, bytes = packed ? count * block : block;
    for (std::size_t t = 0; t < commands; ++t)
        check(enqueue(q, dev, CL_FALSE, t * block, bytes, host + t * pitch, 0, nullptr, nullptr), what);
}

void write_blocks(cl_command_queue q, cl_mem dev, const void* host, std::size_t count,
                  std::size_t block, std::size_t pitch)
{
    copy_blocks(api()->clEnqueueWriteBuffer, "clEnqueueWriteBuffer", q, dev,
                static_cast<const unsigned char*>(host), count, block, pitch);
}

void read_blocks(cl_command_queue q, cl_mem dev, void* host, std::size_t count, std::size_t block,
                 std::size_t pitch)
{
    copy_blocks(api()->clEnqueueReadBuffer, "clEnqueueReadBuffer", q, dev, static_cast<unsigned char*>(host),
                count, block, pitch);
}

} // namespace

real_executor::real_executor(const problem& p, const std::string& selector)
    : d_problem(p),
      d_variant(selector),
      d_ctx(context_for(select(selector))),
      d_queue(make_queue(d_ctx))
{
    const device_entry& dev = d_ctx.device;
    if (d_variant.empty())
        d_variant = std::to_string(dev.info.index);
    d_chunk = std::min(p.batch, std::max<std::size_t>(1, chunk_points / p.points()));
    problem chunk = p;
    chunk.batch = d_chunk;
    chunk.distance = chunk.real_distance = 0;
    const std::size_t reals = d_chunk * p.points();
    const std::size_t bytes = 4 * reals + 8 * d_chunk * p.complex_extent();
    if (bytes > dev.info.global_memory || 4 * reals > dev.max_alloc)
        throw error("gpufft: opencl: " + p.describe() + " needs " + std::to_string(bytes >> 20) +
                    " MiB on " + dev.label());
    d_transform = std::make_unique<device_transform>(d_ctx, chunk, d_queue.get());
    d_real = make_buffer(d_ctx, 4 * reals);
    d_complex = make_buffer(d_ctx, 8 * d_chunk * p.complex_extent());
}

real_executor::~real_executor()
{
    if (d_queue.get())
        api()->clFinish(d_queue.get());
}

std::string real_executor::describe() const
{
    return d_transform->describe() + "; blocking chunks of " + std::to_string(d_chunk) + " on " +
           d_ctx.device.label();
}

void real_executor::execute(const complex*, complex*)
{
    throw error("gpufft: opencl: a real plan has no c2c execute");
}

void real_executor::execute_r2c(const float* in, complex* out)
{
    const cl_command_queue q = d_queue.get();
    const std::size_t points = d_problem.points(), rstride = d_problem.real_stride();
    const std::size_t cstride = d_problem.stride(), extent = d_problem.complex_extent();
    for (std::size_t first = 0; first < d_problem.batch; first += d_chunk) {
        const std::size_t count = std::min(d_chunk, d_problem.batch - first);
        write_blocks(q, d_real.get(), in + first * rstride, count, points * 4, rstride * 4);
        d_transform->enqueue(q, d_real.get(), d_complex.get(), count);
        read_blocks(q, d_complex.get(), out + first * cstride, count, extent * 8, cstride * 8);
        check(api()->clFinish(q), "clFinish");
    }
}

void real_executor::execute_c2r(const complex* in, float* out)
{
    const cl_command_queue q = d_queue.get();
    const std::size_t points = d_problem.points(), rstride = d_problem.real_stride();
    const std::size_t cstride = d_problem.stride(), extent = d_problem.complex_extent();
    for (std::size_t first = 0; first < d_problem.batch; first += d_chunk) {
        const std::size_t count = std::min(d_chunk, d_problem.batch - first);
        write_blocks(q, d_complex.get(), in + first * cstride, count, extent * 8, cstride * 8);
        d_transform->enqueue(q, d_complex.get(), d_real.get(), count);
        read_blocks(q, d_real.get(), out + first * rstride, count, points * 4, rstride * 4);
        check(api()->clFinish(q), "clFinish");
    }
}

} // namespace gpufft::opencl::detail
