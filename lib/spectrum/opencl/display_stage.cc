// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft spectrum layer: the display stages on an OpenCL device
 * (display_stage.h, kernels/display.cl). */
#include "display_stage.h"
#include "../display_checks.h"
#include "pipeline_kernels.h"
#include <gpufft/error.h>
#include <algorithm>
#include <limits>

namespace gpufft::detail {

namespace {

using opencl::check;
using opencl::mem_handle;
using opencl::runtime;

// Work-items a group, one per column or cell; the kernels use no local
// memory, so any size runs. 64 is a wavefront on AMD, two warps on NVIDIA,
// and within the 256 of Mali Midgard/Bifrost (a Mali may prefer 128 or
// 256 for occupancy: the one number to tune there).
constexpr std::size_t display_group = 64;
// Weights below this would make cells below it (display.h step 3: read 0).
constexpr double weight_floor = 1e-30;

constexpr float nan_value = std::numeric_limits<float>::quiet_NaN();

mem_handle buffer(cl_context ctx, std::size_t bytes, std::size_t& total)
{
    cl_int err = CL_SUCCESS;
    mem_handle m(runtime().clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, nullptr, &err));
    check(err, "clCreateBuffer (display)");
    total += bytes;
    return m;
}

std::size_t rounded_up(std::size_t n, std::size_t group) { return (n + group - 1) / group * group; }

} // namespace

opencl_display::opencl_display(const opencl::device_plan& fft, const display_config& c, std::size_t max_frames)
    : d_queue(fft.queue()), d_c(checked_display_config(c)), d_weights(max_frames + 1)
{
    const opencl::device_info& dev = fft.device();
    const cl_context ctx = fft.context();
    const std::size_t w = c.width, cells = w * c.height, ring = w * c.waterfall_rows;
    display_require(c.n < (std::size_t(1) << 32) && cells < (std::size_t(1) << 32),
                    "n and width x height must be below 2^32 on the opencl backend");
    const std::size_t need = 4 * ((w + 1) + cells + 2 * w + ring + max_frames + 1);
    const std::size_t largest = 4 * std::max(cells, ring);
    if (need > dev.global_memory || largest > dev.max_buffer)
        throw error("gpufft: opencl: the display (" + std::to_string(w) + " x " + std::to_string(c.height) +
                    ", " + std::to_string(c.waterfall_rows) + " waterfall rows) needs " +
                    std::to_string(need >> 20) + " MiB on " + dev.label() + ", which has " +
                    std::to_string(dev.global_memory >> 20) + " MiB (largest buffer " +
                    std::to_string(dev.max_buffer >> 20) + " MiB)");

    d_first = buffer(ctx, 4 * (w + 1), d_device_bytes);
    d_hist = buffer(ctx, 4 * cells, d_device_bytes);
    d_avg = buffer(ctx, 4 * w, d_device_bytes);
    d_peak = buffer(ctx, 4 * w, d_device_bytes);
    d_ring = buffer(ctx, 4 * ring, d_device_bytes);
    d_weights_dev = buffer(ctx, 4 * (max_frames + 1), d_device_bytes);

    upload_columns();

    const opencl::program_handle prog = opencl::build_program(dev, display_cl, "-cl-std=CL1.2");
    d_decay = opencl::make_kernel(prog.get(), "display_decay");
    d_frames = opencl::make_kernel(prog.get(), "display_frames");
    std::size_t allowed = display_group;
    for (cl_kernel k : { d_decay.get(), d_frames.get() }) {
        std::size_t a = 0;
        check(runtime().clGetKernelWorkGroupInfo(k, dev.id, CL_KERNEL_WORK_GROUP_SIZE, sizeof a, &a, nullptr),
              "clGetKernelWorkGroupInfo");
        allowed = std::min(allowed, a);
    }
    d_group = std::max<std::size_t>(1, allowed);

    const cl_mem first_m = d_first.get(), hist = d_hist.get(), avg = d_avg.get(), peak = d_peak.get(),
                 ring_m = d_ring.get(), weights = d_weights_dev.get();
    const cl_uint cells_u = cl_uint(cells), n = cl_uint(c.n), width = cl_uint(w), height = cl_uint(c.height),
                  rows = cl_uint(c.waterfall_rows);
    set_arg(d_decay.get(), 0, sizeof hist, &hist);
    set_arg(d_decay.get(), 1, sizeof cells_u, &cells_u);
    set_arg(d_decay.get(), 2, sizeof weights, &weights);
    set_arg(d_frames.get(), 1, sizeof first_m, &first_m);
    set_arg(d_frames.get(), 2, sizeof hist, &hist);
    set_arg(d_frames.get(), 3, sizeof avg, &avg);
    set_arg(d_frames.get(), 4, sizeof peak, &peak);
    set_arg(d_frames.get(), 5, sizeof ring_m, &ring_m);
    set_arg(d_frames.get(), 6, sizeof weights, &weights);
    set_arg(d_frames.get(), 7, sizeof n, &n);
    set_arg(d_frames.get(), 8, sizeof width, &width);
    set_arg(d_frames.get(), 9, sizeof height, &height);
    set_arg(d_frames.get(), 20, sizeof rows, &rows);
    set_settings();
    upload_weights();
    reset();
    check(runtime().clFinish(d_queue), "clFinish (display setup)");
}

void opencl_display::set_arg(cl_kernel k, cl_uint i, std::size_t size, const void* value)
{
    check(runtime().clSetKernelArg(k, i, size, value), "clSetKernelArg (display)");
}

// The arguments the setters change.
void opencl_display::set_settings()
{
    const cl_kernel k = d_frames.get();
    const float low = float(d_c.db_min), rows_per_db = float(double(d_c.height) / (d_c.db_max - d_c.db_min)),
                alpha = float(d_c.alpha), keep = float(1.0 - d_c.alpha);
    const cl_uint resample = cl_uint(d_c.resample), average = cl_uint(d_c.average), max_hold = d_c.max_hold;
    set_arg(k, 11, sizeof low, &low);
    set_arg(k, 12, sizeof rows_per_db, &rows_per_db);
    set_arg(k, 13, sizeof resample, &resample);
    set_arg(k, 14, sizeof average, &average);
    set_arg(k, 15, sizeof alpha, &alpha);
    set_arg(k, 16, sizeof keep, &keep);
    set_arg(k, 18, sizeof max_hold, &max_hold);
}

// The W + 1 column edges display_frames reads: the columns' first bins, then bin_end.
void opencl_display::upload_columns()
{
    const std::size_t w = d_c.width;
    std::vector<cl_uint> first(w + 1);
    for (std::size_t col = 0; col < w; ++col)
        first[col] = cl_uint(display_column_bins(d_c, col).first);
    first[w] = cl_uint(d_c.bin_end);
    check(runtime().clEnqueueWriteBuffer(d_queue, d_first.get(), CL_TRUE, 0, 4 * (w + 1), first.data(), 0, nullptr,
                                         nullptr),
          "clEnqueueWriteBuffer (display columns)");
}

void opencl_display::upload_weights()
{
    double w = 1.0;
    for (float& v : d_weights) {
        v = w < weight_floor ? 0.0f : float(w);
        w *= d_c.decay;
    }
    check(runtime().clEnqueueWriteBuffer(d_queue, d_weights_dev.get(), CL_TRUE, 0, 4 * d_weights.size(),
                                         d_weights.data(), 0, nullptr, nullptr),
          "clEnqueueWriteBuffer (display decay)");
}

void opencl_display::fill(const mem_handle& m, float value, std::size_t count)
{
    check(runtime().clEnqueueFillBuffer(d_queue, m.get(), &value, sizeof value, 0, 4 * count, 0, nullptr, nullptr),
          "clEnqueueFillBuffer (display)");
}

void opencl_display::read(const mem_handle& m, std::size_t offset, std::size_t count, float* out) const
{
    check(runtime().clEnqueueReadBuffer(d_queue, m.get(), CL_TRUE, 4 * offset, 4 * count, out, 0, nullptr, nullptr),
          "clEnqueueReadBuffer (display)");
}

void opencl_display::enqueue(cl_mem db, std::size_t frames)
{
    const opencl::functions& a = runtime();
    // The average's frame count stops at 2^30 (so that it never wraps a
    // cl_uint): the linear mean's weight 1 / k is then below float's step.
    const cl_uint count = cl_uint(frames), avg_count = cl_uint(std::min<std::size_t>(d_avg_count, 1u << 30)),
                  started = d_peak_started, ring_next = cl_uint(d_ring_next);
    set_arg(d_decay.get(), 3, sizeof count, &count);
    set_arg(d_frames.get(), 0, sizeof db, &db);
    set_arg(d_frames.get(), 10, sizeof count, &count);
    set_arg(d_frames.get(), 17, sizeof avg_count, &avg_count);
    set_arg(d_frames.get(), 19, sizeof started, &started);
    set_arg(d_frames.get(), 21, sizeof ring_next, &ring_next);
    const std::size_t cells = d_c.width * d_c.height;
    const std::size_t decay_global = rounded_up(cells, d_group), frames_global = rounded_up(d_c.width, d_group);
    check(a.clEnqueueNDRangeKernel(d_queue, d_decay.get(), 1, nullptr, &decay_global, &d_group, 0, nullptr,
                                   nullptr),
          "clEnqueueNDRangeKernel (display_decay)");
    check(a.clEnqueueNDRangeKernel(d_queue, d_frames.get(), 1, nullptr, &frames_global, &d_group, 0, nullptr,
                                   nullptr),
          "clEnqueueNDRangeKernel (display_frames)");
    d_newest = db; // the chain keeps it until its next run, which comes after any read in this queue
    d_newest_frame = frames - 1;
    d_count += frames;
    d_avg_count += frames;
    d_peak_started = d_c.max_hold;
    d_ring_next = (d_ring_next + frames) % d_c.waterfall_rows;
}

void opencl_display::reset()
{
    fill(d_hist, 0.0f, d_c.width * d_c.height);
    fill(d_avg, nan_value, d_c.width);
    fill(d_peak, nan_value, d_c.width);
    fill(d_ring, nan_value, d_c.width * d_c.waterfall_rows);
    d_ring_next = 0;
    d_newest = nullptr;
    d_count = 0;
    d_avg_count = 0;
    d_peak_started = false;
}

void opencl_display::reset_max_hold()
{
    fill(d_peak, nan_value, d_c.width);
    d_peak_started = false;
}

void opencl_display::set_db_range(double db_min, double db_max)
{
    check_db_range(db_min, db_max, d_c.height);
    d_c.db_min = db_min;
    d_c.db_max = db_max;
    set_settings();
    fill(d_hist, 0.0f, d_c.width * d_c.height);
}

void opencl_display::set_decay(double decay)
{
    check_decay(decay);
    d_c.decay = decay;
    upload_weights();
}

void opencl_display::set_resample(display_resample mode)
{
    check_resample(mode);
    d_c.resample = mode;
    set_settings();
}

void opencl_display::set_average(display_average mode, double alpha)
{
    check_average(mode, alpha);
    d_c.average = mode;
    d_c.alpha = alpha;
    d_avg_count = 0;
    set_settings();
}

void opencl_display::set_max_hold(bool on)
{
    d_c.max_hold = on;
    set_settings();
    reset_max_hold();
}

void opencl_display::set_bin_range(std::size_t begin, std::size_t end)
{
    check_bin_range(begin, end, d_c.n);
    d_c.bin_begin = begin;
    d_c.bin_end = end;
    upload_columns(); // blocking: no frame in flight reads the old edges after it
    const std::size_t frames = d_count;
    reset();
    d_count = frames;
}

bool opencl_display::newest_peak_bin(std::size_t begin, std::size_t end, std::size_t& bin) const
{
    check_bin_range(begin, end, d_c.n);
    // Only the bins shown hold a number, as on the CPU.
    const std::size_t lo = std::max(begin, d_c.bin_begin), hi = std::min(end, d_c.bin_end);
    if (!d_newest || lo >= hi)
        return false;
    d_newest_bins.resize(hi - lo);
    check(runtime().clEnqueueReadBuffer(d_queue, d_newest, CL_TRUE, 4 * (d_newest_frame * d_c.n + lo), 4 * (hi - lo),
                                        d_newest_bins.data(), 0, nullptr, nullptr),
          "clEnqueueReadBuffer (display, newest frame)");
    return newest_peak_bin_of(d_newest_bins.data(), lo, hi, bin);
}

void opencl_display::read_histogram(float* out) const
{
    display_require(out != nullptr, "read_histogram: null output");
    read(d_hist, 0, d_c.width * d_c.height, out);
}

void opencl_display::read_histogram_levels(std::uint16_t* out, float scale, std::uint16_t top,
                                           std::uint8_t* lit_rows) const
{
    check_levels_read(out, scale);
    const std::size_t w = d_c.width;
    d_levels_cells.resize(w * d_c.height);
    read(d_hist, 0, d_levels_cells.size(), d_levels_cells.data());
    for (std::size_t r = 0; r < d_c.height; ++r) {
        const bool lit = histogram_levels(&d_levels_cells[r * w], w, 1.0f, scale, top, out + r * w);
        if (lit_rows)
            lit_rows[r] = lit ? 1 : 0;
    }
}

void opencl_display::read_average(float* out) const
{
    display_require(out != nullptr, "read_average: null output");
    read(d_avg, 0, d_c.width, out);
}

void opencl_display::read_max_hold(float* out) const
{
    display_require(out != nullptr, "read_max_hold: null output");
    read(d_peak, 0, d_c.width, out);
}

void opencl_display::read_waterfall_max(float* out, std::size_t rows) const
{
    const std::size_t w = d_c.width;
    check_waterfall_read(out, rows, d_c.waterfall_rows);
    d_max_rows.resize(rows * w);
    read_waterfall(d_max_rows.data(), rows);
    std::copy(d_max_rows.begin(), d_max_rows.begin() + std::ptrdiff_t(w), out);
    for (std::size_t j = 1; j < rows; ++j)
        max_into(out, &d_max_rows[j * w], w);
}

void opencl_display::read_waterfall(float* out, std::size_t rows) const
{
    const std::size_t total = d_c.waterfall_rows, w = d_c.width;
    check_waterfall_read(out, rows, total);
    // The newest `rows` ring rows, oldest first: at most two runs of the ring.
    const std::size_t start = (d_ring_next + total - rows) % total, head = std::min(rows, total - start);
    read(d_ring, start * w, head * w, out);
    if (head < rows)
        read(d_ring, 0, (rows - head) * w, out + head * w);
}

} // namespace gpufft::detail
