// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: any problem on device buffers (see
 * device_transform.h), and gpufft::opencl::device_plan (<gpufft/opencl.h>),
 * a device_transform in its own queue. Both in one file: the backend is a
 * static library linked into libgpufft, where only the objects its
 * backend table reaches are kept, and this one is reached through
 * real_executor. */
#include "device_transform.h"
#include "kernel_sources.h"
#include "program_cache.h"
#include "shape_search.h"
#include <gpufft/error.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

namespace gpufft::opencl::detail {

namespace {

// Points the layout timing runs on: enough to reach the device's bandwidth.
constexpr std::size_t timing_points = std::size_t(1) << 22;

bool packed(std::size_t distance, std::size_t extent) { return distance == 0 || distance == extent; }

/* The row chain's load (r2c) or store (c2r) callback where the real rows are
 * not float2-packed: element i of the chain's buffer (rows of M = N/2 points
 * for even N, pairs of rows of N points for odd N) is read from or written
 * to the caller's real rows, `per` a transform, transforms `stride` reals
 * apart; for odd N the pair's second row is the imaginary part, absent
 * (zero) past `rows`. */
std::string real_rows_callback(bool load, bool odd, std::size_t n, std::size_t per,
                               std::size_t stride, std::size_t rows)
{
    std::ostringstream s;
    s << "#define GR_N " << n << "u\n#define GR_PER " << per << "u\n#define GR_STRIDE " << stride
      << "ul\n#define GR_ROWS " << rows << "u\n"
      << "inline size_t gr_row(uint r) { return (size_t)(r / GR_PER) * GR_STRIDE + (size_t)(r % GR_PER) * GR_N; }\n";
    if (load) {
        s << "float2 gpufft_load(__global const float2* in, uint i)\n{\n"
             "    __global const float* x = (__global const float*)in;\n";
        if (odd)
            s << "    const uint a = 2u * (i / GR_N), j = i % GR_N;\n"
                 "    return (float2)(x[gr_row(a) + j], a + 1u < GR_ROWS ? x[gr_row(a + 1u) + j] : 0.0f);\n";
        else
            s << "    const size_t o = gr_row(i / (GR_N / 2u)) + 2u * (i % (GR_N / 2u));\n"
                 "    return (float2)(x[o], x[o + 1]);\n";
        s << "}\n";
    } else {
        s << "void gpufft_store(__global float2* out, uint k, float2 v)\n{\n"
             "    __global float* x = (__global float*)out;\n";
        if (odd)
            s << "    const uint a = 2u * (k / GR_N), j = k % GR_N;\n"
                 "    x[gr_row(a) + j] = v.x;\n"
                 "    if (a + 1u < GR_ROWS)\n        x[gr_row(a + 1u) + j] = v.y;\n";
        else
            s << "    const size_t o = gr_row(k / (GR_N / 2u)) + 2u * (k % (GR_N / 2u));\n"
                 "    x[o] = v.x;\n    x[o + 1] = v.y;\n";
        s << "}\n";
    }
    return s.str();
}

} // namespace

mem_handle make_buffer(device_context& ctx, std::size_t bytes, const void* init)
{
    cl_int err = CL_SUCCESS;
    const cl_mem_flags flags = init ? CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR : CL_MEM_READ_WRITE;
    mem_handle m(api()->clCreateBuffer(ctx.context.get(), flags, std::max<std::size_t>(bytes, 8),
                                       const_cast<void*>(init), &err));
    check(err, "clCreateBuffer");
    return m;
}

double median_run_ms(cl_command_queue q, const std::function<void()>& run)
{
    std::vector<double> runs;
    for (int r = 0; r < 6; ++r) {
        const auto start = std::chrono::steady_clock::now();
        run();
        check(api()->clFinish(q), "clFinish");
        if (r > 0)
            runs.push_back(
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(runs.begin(), runs.end());
    return runs[runs.size() / 2];
}

std::string layout_note(const std::vector<double>& ms, std::size_t kept, std::size_t transforms)
{
    static const char* const names[] = { "strided column passes", "transposing passes" };
    std::ostringstream text;
    text.precision(3);
    text << names[kept] << " (kept: ";
    for (std::size_t i = 0; i < ms.size(); ++i)
        text << (i ? ", " : "") << names[i] << " " << ms[i] << " ms";
    text << " for " << transforms << " transforms)";
    return text.str();
}

std::string device_transform::unsupported(const device_entry& d, const problem& p)
{
    if (!p.strides.empty())
        return "opencl: device buffers take packed row-major transforms, not strides";
    if (p.rank() == 1)
        return "";
    if (!packed(p.distance, p.complex_extent()) ||
        (p.kind != transform_kind::c2c && !packed(p.real_distance, p.real_extent())))
        return "opencl: multi-dimensional transforms on device buffers lie back to back "
               "(distance 0), not " +
               p.describe();
    auto dims = p.shape();
    if (p.kind != transform_kind::c2c)
        dims.pop_back();
    return multi_dim_unsupported(planning_limits(d), dims);
}

device_transform::device_transform(device_context& ctx,
                                   const problem& p,
                                   cl_command_queue timing_queue,
                                   const device_callbacks& callbacks,
                                   bool tune)
    : d_ctx(ctx), d_problem(p), d_callbacks(callbacks)
{
    p.validate();
    d_problem.n = p.points(); // a 1-D problem may be given by dims alone
    if (const std::string why = unsupported(ctx.device, p); !why.empty())
        throw error("gpufft: " + why);
    const bool calls = callbacks.load || callbacks.store || !callbacks.input_weights.empty();
    if (calls && !p.is_1d_c2c())
        throw error("gpufft: opencl: load/store callbacks go on 1-D c2c plans only, not " +
                    p.describe());
    // Only a 1-D c2c chain without callbacks has its shape searched; the
    // multi-dimensional layouts are timed whether or not the plan tunes.
    if (tune && (calls || !p.is_1d_c2c()))
        throw error("gpufft: opencl: tune (the plan-time search over kernel shapes) takes 1-D c2c "
                    "plans without callbacks only, not " +
                    p.describe() + (calls ? " with callbacks" : ""));
    if (p.kind != transform_kind::c2c) {
        plan_real();
        return;
    }
    if (p.rank() > 1) {
        plan_c2c_layouts(timing_queue);
        return;
    }
    axis_chain whole;
    whole.shape = calls ? with_callbacks(plan_chain(planning_limits(ctx.device), d_problem.n, p.dir, false), callbacks)
                        : searched_chain(ctx, d_problem.n, p.dir, p.batch, tune);
    whole.dist = p.stride();
    d_chosen = { whole };
    d_steps = make_steps(d_chosen, p.batch);
}

device_transform::device_transform(twin_of t)
    : d_ctx(t.like.d_ctx),
      d_problem(t.like.d_problem),
      d_callbacks(t.like.d_callbacks),
      d_layout(t.like.d_layout),
      d_chosen(t.like.d_chosen)
{
    if (d_problem.kind != transform_kind::c2c)
        plan_real(); // the rules' chains: nothing timed or searched
    else
        d_steps = make_steps(d_chosen, d_problem.batch);
}

std::unique_ptr<device_transform> device_transform::twin() const
{
    return std::unique_ptr<device_transform>(new device_transform(twin_of{ *this }));
}

std::vector<device_transform::step> device_transform::make_steps(const std::vector<axis_chain>& layout,
                                                                 std::size_t batch) const
{
    std::vector<step> steps;
    for (const axis_chain& c : layout)
        steps.push_back({ std::make_unique<fft_chain>(d_ctx, c.shape, batch * c.entries, c.dist, c.dist,
                                                      d_callbacks),
                          c.entries });
    return steps;
}

// Both layouts timed on up to timing_points points in place on one buffer
// (the timing does not depend on the values), the faster built for p.batch.
void device_transform::plan_c2c_layouts(cl_command_queue timing_queue)
{
    const device_limits limits = planning_limits(d_ctx.device);
    const std::vector<std::vector<axis_chain>> layouts = {
        plan_strided(limits, d_problem.dims, d_problem.dir),
        plan_transposed(limits, d_problem.dims, d_problem.dir)
    };
    const std::size_t points = d_problem.points();
    const std::size_t batch = std::min(d_problem.batch, std::max<std::size_t>(1, timing_points / points));
    mem_handle data = make_buffer(d_ctx, batch * points * 8);
    std::vector<double> times;
    for (const auto& layout : layouts) {
        const std::vector<step> steps = make_steps(layout, batch);
        times.push_back(median_run_ms(timing_queue, [&] {
            for (const step& st : steps)
                st.chain->enqueue(timing_queue, data.get(), data.get(), batch * st.entries);
        }));
    }
    const std::size_t best = std::size_t(std::min_element(times.begin(), times.end()) - times.begin());
    d_chosen = layouts[best];
    d_steps = make_steps(d_chosen, d_problem.batch);
    d_layout = layout_note(times, best, batch);
}

void device_transform::plan_real()
{
    const device_entry& dev = d_ctx.device;
    const problem& p = d_problem;
    const auto dims = p.shape();
    const bool forward = p.kind == transform_kind::r2c;
    d_n = dims.back();
    d_odd = d_n % 2 == 1;
    d_per = p.points() / d_n;
    const std::size_t rows = p.batch * d_per, pairs = (rows + 1) / 2;
    const std::size_t fft_n = d_odd ? d_n : d_n / 2;
    const std::size_t real_points = d_odd ? pairs * d_n : rows * fft_n;
    // Even rows packed back to back are already fft_n complex points each.
    const bool direct = !d_odd && p.real_stride() == p.real_extent();
    device_callbacks rows_io;
    if (!direct) {
        rows_io.source = real_rows_callback(forward, d_odd, d_n, d_per, p.real_stride(), rows);
        rows_io.load = forward;
        rows_io.store = !forward;
    }
    const device_limits limits = planning_limits(dev);
    const chain_shape shape = direct ? plan_chain(limits, fft_n, p.dir)
                                     : with_callbacks(plan_chain(limits, fft_n, p.dir, false), rows_io);
    d_rows = std::make_unique<fft_chain>(d_ctx, shape, d_odd ? pairs : rows, fft_n, fft_n, rows_io);
    if (dims.size() > 1) {
        std::vector<std::size_t> complex_dims = dims;
        complex_dims.back() = d_n / 2 + 1;
        d_steps = make_steps(plan_strided(limits, complex_dims, p.dir, false), p.batch);
        if (!forward)
            d_columns = make_buffer(d_ctx, 8 * p.batch * p.complex_extent());
        d_buffer_bytes += forward ? 0 : 8 * p.batch * p.complex_extent();
    }
    if (8 * real_points > dev.max_alloc)
        throw error("gpufft: opencl: " + p.describe() + " needs a buffer of " +
                    std::to_string((8 * real_points) >> 20) + " MiB on " + dev.label());
    d_real = make_buffer(d_ctx, 8 * real_points);
    d_buffer_bytes += 8 * real_points;
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
    }
}

void device_transform::enqueue_real_pass(cl_command_queue q, cl_mem from, cl_mem to, std::size_t batch)
{
    const cl_api& a = *api();
    const cl_kernel k = d_pass.get();
    const std::size_t rows = batch * d_per;
    // The complex side: rank 1 at the problem's distance, else packed.
    const cl_uint r = cl_uint(rows), per = cl_uint(d_per);
    const cl_uint dist = cl_uint(d_problem.rank() == 1 ? d_problem.stride() : d_problem.complex_extent());
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
    set(sizeof per, &per);
    set(sizeof dist, &dist);
    const std::size_t global = (items + 63) / 64 * 64;
    check(a.clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr),
          "clEnqueueNDRangeKernel");
}

void device_transform::enqueue(cl_command_queue q, cl_mem in, cl_mem out, std::size_t batch)
{
    if (!in || !out)
        throw error(std::string("gpufft: opencl: ") + (!in ? "input" : "output") + " buffer is null");
    if (batch > d_problem.batch)
        throw error("gpufft: opencl: " + std::to_string(batch) + " transforms a call, planned for " +
                    std::to_string(d_problem.batch));
    const std::size_t rows = batch * d_per;
    const std::size_t row_entries = d_odd ? (rows + 1) / 2 : rows;
    switch (d_problem.kind) {
    case transform_kind::c2c:
        for (std::size_t i = 0; i < d_steps.size(); ++i)
            d_steps[i].chain->enqueue(q, i == 0 ? in : out, out, batch * d_steps[i].entries);
        break;
    case transform_kind::r2c:
        d_rows->enqueue(q, in, d_real.get(), row_entries);
        enqueue_real_pass(q, d_real.get(), out, batch);
        for (step& st : d_steps)
            st.chain->enqueue(q, out, out, batch * st.entries);
        break;
    case transform_kind::c2r: {
        cl_mem spectrum = in;
        for (std::size_t i = 0; i < d_steps.size(); ++i) {
            d_steps[i].chain->enqueue(q, i == 0 ? in : d_columns.get(), d_columns.get(),
                                      batch * d_steps[i].entries);
            spectrum = d_columns.get();
        }
        enqueue_real_pass(q, spectrum, d_real.get(), batch);
        d_rows->enqueue(q, d_real.get(), out, row_entries);
        break;
    }
    }
}

std::size_t device_transform::device_bytes() const
{
    std::size_t bytes = d_buffer_bytes + (d_rows ? d_rows->device_bytes() : 0);
    for (const step& st : d_steps)
        bytes += st.chain->device_bytes();
    return bytes;
}

std::string device_transform::describe() const
{
    if (d_problem.kind == transform_kind::c2c) {
        std::string passes;
        for (const step& st : d_steps)
            passes += (passes.empty() ? "" : " then ") + st.chain->shape().describe();
        return (d_layout.empty() ? "" : d_layout + ": ") + passes;
    }
    std::string s = d_odd ? "rows in pairs, " + std::to_string(d_n) + " points ("
                          : "rows as half-size " + std::to_string(d_n / 2) + " (";
    s += d_rows->shape().describe() + ") with a real pass";
    for (const step& st : d_steps)
        s += ", then strided columns (" + st.chain->shape().describe() + ")";
    return s;
}

} // namespace gpufft::opencl::detail

namespace gpufft::opencl {

using namespace detail;

struct device_plan::impl {
    device_context& ctx;
    queue_handle queue;
    device_transform transform;

    impl(const gpufft::problem& p, const callbacks& cb, const std::string& selector, bool tune)
        : ctx(context_for(select(selector))), queue(make_queue(ctx)), transform(ctx, p, queue.get(), cb, tune)
    {
    }
};

device_plan::device_plan(const gpufft::problem& p, const std::string& device_selector, bool tune)
    : device_plan(p, callbacks{}, device_selector, tune)
{
}

device_plan::device_plan(const gpufft::problem& p,
                         const callbacks& cb,
                         const std::string& device_selector,
                         bool tune)
    : d_impl(std::make_unique<impl>(p, cb, device_selector, tune))
{
}

device_plan::~device_plan() = default;

void device_plan::enqueue(cl_mem in, cl_mem out)
{
    d_impl->transform.enqueue(d_impl->queue.get(), in, out, d_impl->transform.get_problem().batch);
}

void device_plan::enqueue(cl_mem in, cl_mem out, std::size_t batch)
{
    d_impl->transform.enqueue(d_impl->queue.get(), in, out, batch);
}

void device_plan::finish() { check(api()->clFinish(d_impl->queue.get()), "clFinish"); }

cl_context device_plan::context() const { return d_impl->ctx.context.get(); }
cl_command_queue device_plan::queue() const { return d_impl->queue.get(); }
const device_info& device_plan::device() const { return d_impl->ctx.device.info; }
const gpufft::problem& device_plan::problem() const { return d_impl->transform.get_problem(); }
std::size_t device_plan::device_bytes() const { return d_impl->transform.device_bytes(); }
std::string device_plan::describe() const { return d_impl->transform.describe(); }

} // namespace gpufft::opencl
