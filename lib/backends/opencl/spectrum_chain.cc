/* gr-gpufft OpenCL backend: the spectrum engine's chain on one device.
 *
 * Only raw samples go to the device and only finished spectra come back.
 * The FFT's first pass converts the raw frames (hop samples apart in the
 * uploaded span) and applies the window as it loads them, its last pass
 * stores |X|^2, and one kernel (spectrum_average, kernels/spectrum.cl) folds
 * the frames into the average kept on the device between calls and writes
 * each finished output scaled, in dB if asked, shifted if asked.
 *
 * Unified-memory devices map the upload and output buffers (no copy beyond
 * the one into and out of the mapping); discrete devices copy through
 * pinned staging buffers. One call is in flight at a time: run() returns
 * its outputs, as the chain interface asks.
 *
 * With a display (setup.display, gpufft::spectrum_display), the outputs
 * (one dB, shifted frame each) stay in their device buffer and go straight
 * into the display stage (display_stage.h); nothing but the raw samples
 * crosses per call, and the read-outs bring back display-sized images. */
#include "../../spectrum/chain.h"
#include "display_stage.h"
#include "fft_plan.h"
#include "kernel_sources.h"
#include "program_cache.h"
#include <gpufft/error.h>
#include <algorithm>
#include <cstring>
#include <utility>

namespace gpufft::opencl::detail {

namespace {

using gpufft::detail::chain_setup;

// Work-items a group of the averaging kernel, one per bin: any size does.
constexpr std::size_t average_group = 64;

mem_handle device_buffer(device_context& ctx, cl_mem_flags flags, std::size_t bytes)
{
    cl_int err = CL_SUCCESS;
    mem_handle m(api()->clCreateBuffer(ctx.context.get(), flags, bytes, nullptr, &err));
    check(err, "clCreateBuffer");
    return m;
}

//! A buffer's first `bytes` mapped into host memory while it lives.
class mapping
{
public:
    mapping() = default;
    mapping(cl_command_queue q, cl_mem m, cl_map_flags flags, std::size_t bytes) : d_q(q), d_m(m)
    {
        cl_int err = CL_SUCCESS;
        d_p = api()->clEnqueueMapBuffer(q, m, CL_TRUE, flags, 0, bytes, 0, nullptr, nullptr, &err);
        check(err, "clEnqueueMapBuffer");
    }
    ~mapping() { unmap(); }
    mapping(const mapping&) = delete;
    mapping& operator=(const mapping&) = delete;
    mapping& operator=(mapping&& o) noexcept
    {
        unmap();
        d_q = o.d_q;
        d_m = o.d_m;
        d_p = std::exchange(o.d_p, nullptr);
        return *this;
    }
    void* get() const { return d_p; }

private:
    void unmap()
    {
        if (d_p)
            api()->clEnqueueUnmapMemObject(d_q, d_m, std::exchange(d_p, nullptr), 0, nullptr,
                                           nullptr);
    }
    cl_command_queue d_q = nullptr;
    cl_mem d_m = nullptr;
    void* d_p = nullptr;
};

class spectrum_chain final : public gpufft::detail::chain
{
public:
    spectrum_chain(const chain_setup& s, const std::string& selector)
        : d_s(s),
          d_ctx(context_for(select(selector))),
          d_queue(make_queue(d_ctx)),
          d_unified(d_ctx.device.info.unified_memory),
          d_raw_bytes(((s.batch - 1) * s.hop + s.n) * sample_bytes(s.format)),
          d_out_bytes(s.batch * s.n * sizeof(float))
    {
        const device_entry& dev = d_ctx.device;
        d_backend = "opencl:" + (selector.empty() ? std::to_string(dev.info.index) : selector);
        const chain_shape shape =
            with_spectrum_hooks(plan_chain(dev, s.n, direction::forward));
        // sample_format's order is SAMPLE_FORMAT's (kernels/spectrum.cl).
        const raw_load raw{ spectrum_cl, " -DSAMPLE_FORMAT=" + std::to_string(int(s.format)),
                            s.window };
        d_fft = std::make_unique<fft_chain>(d_ctx, shape, s.batch, s.hop, s.n, raw);

        const std::size_t state_bytes = s.n * sizeof(float);
        const std::size_t need =
            d_raw_bytes + 2 * d_out_bytes + 2 * state_bytes + d_fft->device_bytes();
        if (need > dev.info.global_memory || std::max(d_raw_bytes, d_out_bytes) > dev.max_alloc)
            throw error("gpufft: opencl: the spectrum chain for " + std::to_string(s.batch) +
                        " frames of " + std::to_string(s.n) + " points needs " +
                        std::to_string(need >> 20) + " MiB on " + dev.label() + ", which has " +
                        std::to_string(dev.info.global_memory >> 20) + " MiB (largest buffer " +
                        std::to_string(dev.max_alloc >> 20) + " MiB)");
        const cl_mem_flags host = d_unified ? CL_MEM_ALLOC_HOST_PTR : 0;
        d_raw = device_buffer(d_ctx, CL_MEM_READ_ONLY | host, d_raw_bytes);
        d_power = device_buffer(d_ctx, CL_MEM_READ_WRITE, d_out_bytes);
        for (mem_handle& m : d_state)
            m = device_buffer(d_ctx, CL_MEM_READ_WRITE, state_bytes);
        if (s.display) {
            d_out = device_buffer(d_ctx, CL_MEM_READ_WRITE, d_out_bytes);
            d_display = std::make_unique<device_display>(d_ctx, d_queue.get(), *s.display, s.batch);
        } else {
            d_out = device_buffer(d_ctx, CL_MEM_WRITE_ONLY | host, d_out_bytes);
        }
        if (!d_unified) {
            // Pinned staging, mapped for the chain's life.
            d_raw_staging = device_buffer(d_ctx, CL_MEM_ALLOC_HOST_PTR, d_raw_bytes);
            d_raw_host = mapping(d_queue.get(), d_raw_staging.get(), CL_MAP_WRITE, d_raw_bytes);
            if (!d_display) {
                d_out_staging = device_buffer(d_ctx, CL_MEM_ALLOC_HOST_PTR, d_out_bytes);
                d_out_host = mapping(d_queue.get(), d_out_staging.get(), CL_MAP_READ, d_out_bytes);
            }
        }

        program_handle prog =
            build_program(d_ctx, spectrum_cl, "-cl-std=CL1.2 -DSPECTRUM_AVERAGE");
        d_average = make_kernel(prog.get(), "spectrum_average");
        std::size_t allowed = 0;
        check(api()->clGetKernelWorkGroupInfo(d_average.get(), dev.id, CL_KERNEL_WORK_GROUP_SIZE,
                                              sizeof allowed, &allowed, nullptr),
              "clGetKernelWorkGroupInfo");
        d_group = std::max<std::size_t>(1, std::min(average_group, allowed));
        const cl_mem power = d_power.get(), out = d_out.get();
        set_arg(0, sizeof power, &power);
        set_arg(3, sizeof out, &out);
        // kernels/spectrum.cl numbers the averaging modes in gpufft::averaging's order.
        const cl_uint n = cl_uint(s.n), per_output = cl_uint(s.per_output),
                      mode = cl_uint(s.average), db = s.db, shift = s.shift;
        set_arg(4, sizeof n, &n);
        set_arg(8, sizeof per_output, &per_output);
        set_arg(9, sizeof mode, &mode);
        set_arg(10, sizeof db, &db);
        set_arg(11, sizeof shift, &shift);
        set_arg(12, sizeof s.alpha, &s.alpha);
        set_arg(13, sizeof s.scale, &s.scale);
    }

    ~spectrum_chain() override
    {
        d_raw_host = {};
        d_out_host = {};
        api()->clFinish(d_queue.get());
    }

    std::size_t run(const unsigned char* raw, std::size_t frames, float* out) override
    {
        if (frames == 0)
            return 0;
        try {
            return run_frames(raw, frames, out);
        } catch (...) {
            // Leave no work in flight on buffers the caller may free.
            api()->clFinish(d_queue.get());
            throw;
        }
    }

    void reset() override
    {
        d_count = 0;
        d_started = false;
    }

    const std::string& backend() const override { return d_backend; }
    gpufft::detail::display_stage* display() override { return d_display.get(); }

private:
    void set_arg(cl_uint i, std::size_t size, const void* value)
    {
        check(api()->clSetKernelArg(d_average.get(), i, size, value), "clSetKernelArg");
    }

    std::size_t run_frames(const unsigned char* raw, std::size_t frames, float* out)
    {
        const cl_api& a = *api();
        const cl_command_queue q = d_queue.get();
        const std::size_t bytes = ((frames - 1) * d_s.hop + d_s.n) * sample_bytes(d_s.format);
        if (d_unified) {
            mapping m(q, d_raw.get(), CL_MAP_WRITE_INVALIDATE_REGION, bytes);
            std::memcpy(m.get(), raw, bytes);
        } else {
            std::memcpy(d_raw_host.get(), raw, bytes);
            check(a.clEnqueueWriteBuffer(q, d_raw.get(), CL_FALSE, 0, bytes, d_raw_host.get(), 0,
                                         nullptr, nullptr),
                  "clEnqueueWriteBuffer");
        }
        d_fft->enqueue(q, d_raw.get(), d_power.get(), frames);

        // Each output's frames are a segment of their own, but the
        // exponential average runs through all frames in one. The average
        // moves between the two state buffers: segments run concurrently.
        const std::size_t outputs = (d_count + frames) / d_s.per_output;
        const std::size_t segments = d_s.average == averaging::exponential
                                         ? 1
                                         : (d_count + frames + d_s.per_output - 1) / d_s.per_output;
        const cl_mem state_in = d_state[d_flip].get(), state_out = d_state[!d_flip].get();
        const cl_uint nframes = cl_uint(frames), count0 = cl_uint(d_count),
                      started = d_started ? 1 : 0;
        set_arg(1, sizeof state_in, &state_in);
        set_arg(2, sizeof state_out, &state_out);
        set_arg(5, sizeof nframes, &nframes);
        set_arg(6, sizeof count0, &count0);
        set_arg(7, sizeof started, &started);
        const std::size_t global[] = { (d_s.n + d_group - 1) / d_group * d_group, segments };
        const std::size_t local[] = { d_group, 1 };
        check(a.clEnqueueNDRangeKernel(q, d_average.get(), 2, nullptr, global, local, 0, nullptr,
                                       nullptr),
              "clEnqueueNDRangeKernel");
        d_flip = !d_flip;

        const std::size_t out_bytes = outputs * d_s.n * sizeof(float);
        if (d_display) {
            d_display->enqueue(d_out.get(), frames); // per_output is 1: every frame is an output
        } else if (outputs && d_unified) {
            mapping m(q, d_out.get(), CL_MAP_READ, out_bytes);
            std::memcpy(out, m.get(), out_bytes);
        } else if (outputs) {
            check(a.clEnqueueReadBuffer(q, d_out.get(), CL_TRUE, 0, out_bytes, d_out_host.get(), 0,
                                        nullptr, nullptr),
                  "clEnqueueReadBuffer");
            std::memcpy(out, d_out_host.get(), out_bytes);
        }
        // Also the staging buffer is free again, and a device fault shows here.
        check(a.clFinish(q), "clFinish (the spectrum chain)");
        d_count = (d_count + frames) % d_s.per_output;
        d_started = true;
        return outputs;
    }

    const chain_setup d_s;
    device_context& d_ctx;
    queue_handle d_queue;
    bool d_unified;
    std::size_t d_raw_bytes, d_out_bytes;
    std::string d_backend;
    std::unique_ptr<fft_chain> d_fft;
    mem_handle d_raw, d_power, d_out;          //!< raw frames, |X|^2, outputs
    mem_handle d_state[2];                     //!< the average, in and out of a call
    bool d_flip = false;                       //!< which state buffer holds it
    mem_handle d_raw_staging, d_out_staging;   //!< pinned (discrete devices)
    mapping d_raw_host, d_out_host; //!< the staging buffers, mapped
    std::unique_ptr<device_display> d_display; //!< with setup.display: takes the outputs
    kernel_handle d_average;
    std::size_t d_group = 1;
    std::size_t d_count = 0; //!< frames in the current output
    bool d_started = false;  //!< exponential: the average holds a frame
};

} // namespace

} // namespace gpufft::opencl::detail

namespace gpufft::detail {

/* The chain on the OpenCL device that setup.plan.backend names ("opencl" or
 * "opencl:<selector>"); the spectrum engine declares it (make_chain.cc). */
std::unique_ptr<chain> make_opencl_chain(const chain_setup& setup)
{
    const std::string& b = setup.plan.backend;
    const auto colon = b.find(':');
    return std::make_unique<opencl::detail::spectrum_chain>(
        setup, colon == std::string::npos ? "" : b.substr(colon + 1));
}

} // namespace gpufft::detail
