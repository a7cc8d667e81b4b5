// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: r2c and c2r on host buffers (see real_executor.h). */
#include "real_executor.h"
#include "kernel_sources.h"
#include "program_cache.h"
#include <gpufft/error.h>
#include <cmath>
#include <cstring>

namespace gpufft::opencl::detail {

namespace {

// Points a chunk aims for, as in host_executor.
constexpr std::size_t chunk_points = std::size_t(1) << 22;

mem_handle make_buffer(device_context& ctx, std::size_t bytes, const void* init = nullptr)
{
    cl_int err = CL_SUCCESS;
    const cl_mem_flags flags = init ? CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR : CL_MEM_READ_WRITE;
    mem_handle m(api()->clCreateBuffer(ctx.context.get(), flags, std::max<std::size_t>(bytes, 8),
                                       const_cast<void*>(init), &err));
    check(err, "clCreateBuffer");
    return m;
}

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
    const auto dims = p.shape();
    d_n = dims.back();
    d_odd = d_n % 2 == 1;
    d_rows = p.points() / d_n;
    d_complex = d_rows * (d_n / 2 + 1);
    d_chunk = std::min(p.batch, std::max<std::size_t>(1, chunk_points / p.points()));
    const std::size_t rows = d_chunk * d_rows, pairs = (rows + 1) / 2;
    // The real buffer: n/2 complex points a row (even), n a pair of rows (odd).
    const std::size_t real_points = d_odd ? pairs * d_n : rows * (d_n / 2);
    const std::size_t fft_n = d_odd ? d_n : d_n / 2;
    d_row_chain = std::make_unique<fft_chain>(d_ctx, plan_chain(planning_limits(dev), fft_n, p.dir),
                                              d_odd ? pairs : rows, fft_n, fft_n);
    if (dims.size() > 1) {
        std::vector<std::size_t> complex_dims = dims;
        complex_dims.back() = d_n / 2 + 1;
        for (const axis_chain& c : plan_strided(planning_limits(dev), complex_dims, p.dir, false))
            d_columns.emplace_back(
                std::make_unique<fft_chain>(d_ctx, c.shape, d_chunk * c.entries, c.dist, c.dist),
                c.entries);
    }
    const std::size_t bytes = 8 * (real_points + d_chunk * d_complex);
    if (bytes > dev.info.global_memory || 8 * real_points > dev.max_alloc)
        throw error("gpufft: opencl: " + p.describe() + " needs " + std::to_string(bytes >> 20) +
                    " MiB on " + dev.label());
    d_real = make_buffer(d_ctx, 8 * real_points);
    d_data = make_buffer(d_ctx, 8 * d_chunk * d_complex);
    const bool forward = p.kind == transform_kind::r2c;
    const char* name = forward ? (d_odd ? "r2c_post_odd" : "r2c_post_even")
                               : (d_odd ? "c2r_pre_odd" : "c2r_pre_even");
    program_handle prog = build_program(d_ctx, real_pass_cl, "-cl-std=CL1.2");
    d_pass = make_kernel(prog.get(), name);
    if (!d_odd) {
        // w^k = exp(-2 pi i k / n) for k <= n/4, in double then rounded.
        std::vector<float> w;
        for (std::size_t k = 0; k <= d_n / 4; ++k) {
            const double a = 2.0 * M_PI * double(k) / double(d_n);
            w.push_back(float(std::cos(a)));
            w.push_back(float(-std::sin(a)));
        }
        d_twiddles = make_buffer(d_ctx, w.size() * sizeof(float), w.data());
    } else {
        d_staging.resize(2 * real_points);
    }
}

real_executor::~real_executor()
{
    if (d_queue.get())
        api()->clFinish(d_queue.get());
}

std::string real_executor::describe() const
{
    std::string s = d_odd ? "rows in pairs, " + std::to_string(d_n) + " points ("
                          : "rows as half-size " + std::to_string(d_n / 2) + " (";
    s += d_row_chain->shape().describe() + ") with a real pass";
    for (const auto& c : d_columns)
        s += ", then strided columns (" + c.first->shape().describe() + ")";
    return s + "; blocking chunks of " + std::to_string(d_chunk) + " on " + d_ctx.device.label();
}

void real_executor::execute(const complex*, complex*)
{
    throw error("gpufft: opencl: a real plan has no c2c execute");
}

void real_executor::launch_pass(std::size_t rows)
{
    const cl_api& a = *api();
    const cl_kernel k = d_pass.get();
    const bool forward = d_problem.kind == transform_kind::r2c;
    const cl_mem from = forward ? d_real.get() : d_data.get();
    const cl_mem to = forward ? d_data.get() : d_real.get();
    const cl_uint r = cl_uint(rows);
    cl_uint arg = 0;
    auto set = [&](std::size_t size, const void* value) {
        check(a.clSetKernelArg(k, arg++, size, value), "clSetKernelArg");
    };
    set(sizeof from, &from);
    set(sizeof to, &to);
    std::size_t items;
    if (d_odd) {
        const cl_uint n = cl_uint(d_n);
        set(sizeof r, &r);
        set(sizeof n, &n);
        items = (rows + 1) / 2 * ((d_n + 1) / 2);
    } else {
        const cl_mem w = d_twiddles.get();
        const cl_uint m = cl_uint(d_n / 2);
        set(sizeof w, &w);
        set(sizeof r, &r);
        set(sizeof m, &m);
        items = rows * (d_n / 4 + 1);
    }
    const std::size_t global = (items + 63) / 64 * 64;
    check(a.clEnqueueNDRangeKernel(d_queue.get(), k, 1, nullptr, &global, nullptr, 0, nullptr,
                                   nullptr),
          "clEnqueueNDRangeKernel");
}

void real_executor::columns(std::size_t count)
{
    for (auto& c : d_columns)
        c.first->enqueue(d_queue.get(), d_data.get(), d_data.get(), count * c.second);
}

void real_executor::execute_r2c(const float* in, complex* out)
{
    const cl_api& a = *api();
    const cl_command_queue q = d_queue.get();
    const std::size_t points = d_problem.points(), rstride = d_problem.real_stride();
    const std::size_t cstride = d_problem.stride();
    for (std::size_t first = 0; first < d_problem.batch; first += d_chunk) {
        const std::size_t count = std::min(d_chunk, d_problem.batch - first), rows = count * d_rows;
        if (d_odd) {
            // Rows 2p and 2p + 1 as the real and imaginary parts of pair p.
            std::fill(d_staging.begin(), d_staging.end(), 0.0f);
            for (std::size_t r = 0; r < rows; ++r) {
                const float* row = in + (first + r / d_rows) * rstride + (r % d_rows) * d_n;
                float* z = d_staging.data() + (r / 2) * 2 * d_n + r % 2;
                for (std::size_t j = 0; j < d_n; ++j)
                    z[2 * j] = row[j];
            }
            check(a.clEnqueueWriteBuffer(q, d_real.get(), CL_FALSE, 0,
                                         (rows + 1) / 2 * d_n * 8, d_staging.data(), 0, nullptr,
                                         nullptr),
                  "clEnqueueWriteBuffer");
        } else {
            write_blocks(q, d_real.get(), in + first * rstride, count, points * 4, rstride * 4);
        }
        d_row_chain->enqueue(q, d_real.get(), d_real.get(), d_odd ? (rows + 1) / 2 : rows);
        launch_pass(rows);
        columns(count);
        read_blocks(q, d_data.get(), out + first * cstride, count, d_complex * 8, cstride * 8);
        check(a.clFinish(q), "clFinish");
    }
}

void real_executor::execute_c2r(const complex* in, float* out)
{
    const cl_api& a = *api();
    const cl_command_queue q = d_queue.get();
    const std::size_t points = d_problem.points(), rstride = d_problem.real_stride();
    const std::size_t cstride = d_problem.stride();
    for (std::size_t first = 0; first < d_problem.batch; first += d_chunk) {
        const std::size_t count = std::min(d_chunk, d_problem.batch - first), rows = count * d_rows;
        write_blocks(q, d_data.get(), in + first * cstride, count, d_complex * 8, cstride * 8);
        columns(count);
        launch_pass(rows);
        d_row_chain->enqueue(q, d_real.get(), d_real.get(), d_odd ? (rows + 1) / 2 : rows);
        if (d_odd) {
            check(a.clEnqueueReadBuffer(q, d_real.get(), CL_TRUE, 0, (rows + 1) / 2 * d_n * 8,
                                        d_staging.data(), 0, nullptr, nullptr),
                  "clEnqueueReadBuffer");
            for (std::size_t r = 0; r < rows; ++r) {
                float* row = out + (first + r / d_rows) * rstride + (r % d_rows) * d_n;
                const float* z = d_staging.data() + (r / 2) * 2 * d_n + r % 2;
                for (std::size_t j = 0; j < d_n; ++j)
                    row[j] = z[2 * j];
            }
        } else {
            read_blocks(q, d_real.get(), out + first * rstride, count, points * 4, rstride * 4);
        }
        check(a.clFinish(q), "clFinish");
    }
}

} // namespace gpufft::opencl::detail
