// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft spectrum layer: the spectrum engine's chain on one OpenCL device.
 *
 * Only raw samples go to the device and only finished spectra come back.
 * The FFT's first pass converts the raw frames (hop samples apart in the
 * uploaded span) and applies the window as it loads them, its last pass
 * stores |X|^2 (a gpufft::opencl::device_plan's load/store callbacks and
 * input weights, <gpufft/opencl.h>), and one kernel (spectrum_average, kernels/spectrum.cl) folds
 * the frames into the average kept on the device between calls and writes
 * each finished output scaled, in dB if asked, shifted if asked.
 *
 * The engine assembles each batch's raw samples straight into one of a
 * ring of staging buffers (the caller writes there itself through
 * gpufft::spectrum::acquire(), or push_bytes() copies into it). Discrete
 * devices upload from pinned staging buffers (CL_MEM_ALLOC_HOST_PTR, mapped
 * for the chain's life) into a device buffer per slot, with non-blocking
 * writes on a queue of their own, so that a batch's upload runs on the copy
 * engine while the previous batch's kernels run (one in-order queue would
 * serialize them); the kernels wait for their upload by an event, and an
 * upload waits for the kernels that last read its slot's device buffer.
 * Unified-memory devices run the kernels on the staging buffer itself,
 * unmapped for the run and mapped again (non-blocking) behind it.
 * GPUFFT_OPENCL_SPECTRUM_UPLOAD=1 takes the discrete path on any device
 * (for testing it on PoCL's CPU device).
 * Finished outputs come back by a non-blocking read into pinned memory, only
 * when a run completes one; the host waits on a run only when its staging
 * buffer comes round again (three runs later) or when the engine drains at
 * the end of a push or flush. The OpenCL 1.2 specification (section 5.4.3,
 * "Accessing mapped regions of a memory object") is what the unified path
 * keeps to: no kernel touches a region while it is mapped.
 *
 * With a display (setup.display, gpufft::spectrum_display), the outputs
 * (one dB, shifted frame each) stay in their device buffer and go straight
 * into the display stage (display_stage.h); nothing but the raw samples
 * crosses per call, and the read-outs bring back display-sized images. */
#include "spectrum_chain.h"
#include "display_stage.h"
#include "pipeline_kernels.h"
#include <gpufft/error.h>
#include <gpufft/opencl.h>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace gpufft::detail {

namespace {

using opencl::callbacks;
using opencl::check;
using opencl::device_plan;
using opencl::event_handle;
using opencl::mem_handle;
using opencl::queue_handle;
using opencl::runtime;

// Work-items a group of the averaging kernel, one per bin: any size does.
constexpr std::size_t average_group = 64;

mem_handle device_buffer(cl_context ctx, cl_mem_flags flags, std::size_t bytes)
{
    cl_int err = CL_SUCCESS;
    mem_handle m(runtime().clCreateBuffer(ctx, flags, bytes, nullptr, &err));
    check(err, "clCreateBuffer");
    return m;
}

// Staging buffers in the ring: the host fills one while the device works on
// the other two's uploads and transforms.
constexpr std::size_t ring_slots = 3;

// Whether the chain runs the kernels on mapped staging (unified memory)
// rather than uploading from it.
bool runs_on_staging(const opencl::device_info& dev)
{
    const char* upload = std::getenv("GPUFFT_OPENCL_SPECTRUM_UPLOAD");
    return dev.unified_memory && !(upload && std::string(upload) == "1");
}

class opencl_chain final : public chain
{
public:
    opencl_chain(const chain_setup& s, const std::string& selector)
        : d_s(s),
          d_fft(make_fft(s, selector)),
          d_ctx(d_fft->context()),
          d_queue(d_fft->queue()),
          d_unified(runs_on_staging(d_fft->device())),
          d_raw_bytes(((s.batch - 1) * s.hop + s.n) * sample_bytes(s.format)),
          d_out_bytes(s.batch * s.n * sizeof(float))
    {
        const opencl::device_info& dev = d_fft->device();
        d_backend = "opencl:" + (selector.empty() ? std::to_string(dev.index) : selector);

        const std::size_t state_bytes = s.n * sizeof(float);
        const std::size_t need = ring_slots * d_raw_bytes + 2 * d_out_bytes + 2 * state_bytes +
                                 d_fft->device_bytes();
        if (need > dev.global_memory || std::max(d_raw_bytes, d_out_bytes) > dev.max_buffer)
            throw error("gpufft: opencl: the spectrum chain for " + std::to_string(s.batch) +
                        " frames of " + std::to_string(s.n) + " points needs " +
                        std::to_string(need >> 20) + " MiB on " + dev.label() + ", which has " +
                        std::to_string(dev.global_memory >> 20) + " MiB (largest buffer " +
                        std::to_string(dev.max_buffer >> 20) + " MiB)");
        if (!d_unified)
            d_upload = opencl::make_queue(dev);
        d_power = device_buffer(d_ctx, CL_MEM_READ_WRITE, d_out_bytes);
        for (mem_handle& m : d_state)
            m = device_buffer(d_ctx, CL_MEM_READ_WRITE, state_bytes);
        d_out = device_buffer(d_ctx, CL_MEM_READ_WRITE, d_out_bytes);
        if (s.display)
            d_display = std::make_unique<opencl_display>(*d_fft, *s.display, s.batch);
        for (slot& sl : d_slots) {
            sl.raw = device_buffer(d_ctx, (d_unified ? CL_MEM_READ_ONLY : CL_MEM_READ_WRITE) |
                                              CL_MEM_ALLOC_HOST_PTR,
                                   d_raw_bytes);
            sl.host = static_cast<unsigned char*>(map(sl.raw.get(), CL_MAP_WRITE, d_raw_bytes));
            if (!d_unified)
                sl.device_raw = device_buffer(d_ctx, CL_MEM_READ_ONLY, d_raw_bytes);
            if (!d_display) {
                sl.out = device_buffer(d_ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, d_out_bytes);
                sl.out_host = static_cast<float*>(map(sl.out.get(), CL_MAP_READ, d_out_bytes));
            }
        }

        const opencl::program_handle prog =
            opencl::build_program(dev, spectrum_cl, "-cl-std=CL1.2 -DSPECTRUM_AVERAGE");
        d_average = opencl::make_kernel(prog.get(), "spectrum_average");
        std::size_t allowed = 0;
        check(runtime().clGetKernelWorkGroupInfo(d_average.get(), dev.id, CL_KERNEL_WORK_GROUP_SIZE,
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

    ~opencl_chain() override
    {
        const cl_command_queue q = d_queue;
        if (d_upload.get())
            runtime().clFinish(d_upload.get());
        runtime().clFinish(q);
        for (slot& sl : d_slots) {
            if (sl.host)
                runtime().clEnqueueUnmapMemObject(q, sl.raw.get(), sl.host, 0, nullptr, nullptr);
            if (sl.out_host)
                runtime().clEnqueueUnmapMemObject(q, sl.out.get(), sl.out_host, 0, nullptr, nullptr);
        }
        runtime().clFinish(q);
    }

    unsigned char* input() override { return d_slots[d_next].host; }

    std::size_t run(std::size_t frames, std::size_t used, std::size_t held,
                    const spectrum::sink& deliver) override
    {
        if (frames == 0)
            return 0;
        try {
            return run_frames(frames, used, held, deliver);
        } catch (...) {
            abandon();
            throw;
        }
    }

    std::size_t drain(const spectrum::sink& deliver) override
    {
        try {
            std::size_t outputs = 0;
            for (std::size_t i = 0; i < ring_slots; ++i) // oldest first
                outputs += collect(d_slots[(d_next + i) % ring_slots], deliver);
            return outputs;
        } catch (...) {
            abandon();
            throw;
        }
    }

    void reset() override
    {
        d_count = 0;
        d_started = false;
    }

    const std::string& backend() const override { return d_backend; }
    display_stage* display() override { return d_display.get(); }

private:
    struct slot {
        //! Unified: what the kernels read; discrete: pinned staging for the upload.
        mem_handle raw;
        //! raw mapped: discrete for the chain's life; unified between runs (null while unmapped).
        unsigned char* host = nullptr;
        //! The host may write `host` once this completes (the upload, or the new mapping).
        event_handle writable;
        mem_handle device_raw;    //!< discrete: what the kernels read, uploaded from raw
        event_handle consumed;    //!< discrete: the kernels that last read device_raw are done
        mem_handle out;           //!< pinned: the outputs read back (none with a display)
        float* out_host = nullptr; //!< out, mapped for the chain's life
        event_handle read;        //!< the read-back of `outputs` outputs into out_host
        std::size_t outputs = 0;  //!< finished outputs not yet delivered
    };

    void set_arg(cl_uint i, std::size_t size, const void* value)
    {
        check(runtime().clSetKernelArg(d_average.get(), i, size, value), "clSetKernelArg");
    }

    //! Maps a whole buffer, waiting for it.
    void* map(cl_mem m, cl_map_flags flags, std::size_t bytes)
    {
        cl_int err = CL_SUCCESS;
        void* p = runtime().clEnqueueMapBuffer(d_queue, m, CL_TRUE, flags, 0, bytes, 0, nullptr,
                                               nullptr, &err);
        check(err, "clEnqueueMapBuffer");
        return p;
    }

    static void wait(const event_handle& e, const char* what)
    {
        const cl_event ev = e.get();
        if (ev)
            check(runtime().clWaitForEvents(1, &ev), what);
    }

    // Waits for a slot's outputs and delivers them; returns how many.
    std::size_t collect(slot& sl, const spectrum::sink& deliver)
    {
        if (!sl.outputs)
            return 0;
        wait(sl.read, "clWaitForEvents (the spectrum chain's outputs)");
        const std::size_t outputs = std::exchange(sl.outputs, 0);
        if (deliver)
            for (std::size_t k = 0; k < outputs; ++k)
                deliver(sl.out_host + k * d_s.n, d_s.n);
        return outputs;
    }

    // After an error: no work left in flight, no outputs pending, every
    // staging buffer mapped.
    void abandon()
    {
        if (d_upload.get())
            runtime().clFinish(d_upload.get());
        runtime().clFinish(d_queue);
        for (slot& sl : d_slots) {
            sl.outputs = 0;
            if (!sl.host)
                sl.host = static_cast<unsigned char*>(map(sl.raw.get(), CL_MAP_WRITE, d_raw_bytes));
        }
    }

    std::size_t run_frames(std::size_t frames, std::size_t used, std::size_t held,
                           const spectrum::sink& deliver)
    {
        const opencl::functions& a = runtime();
        const cl_command_queue q = d_queue;
        slot& cur = d_slots[d_next];
        slot& next = d_slots[(d_next + 1) % ring_slots];

        // The next staging buffer: free once its upload (or mapping) is done,
        // and its outputs, the oldest pending, go out first.
        wait(next.writable, "clWaitForEvents (a spectrum staging buffer)");
        std::size_t delivered = collect(next, deliver);
        std::memcpy(next.host, cur.host + used, held - used);

        const std::size_t bytes = ((frames - 1) * d_s.hop + d_s.n) * sample_bytes(d_s.format);
        cl_mem raw = cur.raw.get();
        if (d_unified) {
            check(a.clEnqueueUnmapMemObject(q, cur.raw.get(), cur.host, 0, nullptr, nullptr),
                  "clEnqueueUnmapMemObject");
            cur.host = nullptr;
        } else {
            // The upload waits for the kernels that read this slot three runs
            // ago, the kernels for the upload.
            raw = cur.device_raw.get();
            const cl_event consumed = cur.consumed.get();
            check(a.clEnqueueWriteBuffer(d_upload.get(), raw, CL_FALSE, 0, bytes, cur.host,
                                         consumed ? 1 : 0, consumed ? &consumed : nullptr,
                                         cur.writable.out()),
                  "clEnqueueWriteBuffer");
            check(a.clFlush(d_upload.get()), "clFlush (the spectrum chain's uploads)");
            const cl_event uploaded = cur.writable.get();
            check(a.clEnqueueBarrierWithWaitList(q, 1, &uploaded, nullptr),
                  "clEnqueueBarrierWithWaitList");
        }
        d_fft->enqueue(raw, d_power.get(), frames);

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
        // In order after the FFT: its end is when device_raw may be overwritten.
        check(a.clEnqueueNDRangeKernel(q, d_average.get(), 2, nullptr, global, local, 0, nullptr,
                                       d_unified ? nullptr : cur.consumed.out()),
              "clEnqueueNDRangeKernel");
        d_flip = !d_flip;
        d_count = (d_count + frames) % d_s.per_output;
        d_started = true;

        if (d_display) {
            d_display->enqueue(d_out.get(), frames); // per_output is 1: every frame is an output
        } else if (outputs) {
            check(a.clEnqueueReadBuffer(q, d_out.get(), CL_FALSE, 0, outputs * d_s.n * sizeof(float),
                                        cur.out_host, 0, nullptr, cur.read.out()),
                  "clEnqueueReadBuffer");
            cur.outputs = outputs;
        }
        if (d_unified) {
            cl_int err = CL_SUCCESS;
            cur.host = static_cast<unsigned char*>(
                a.clEnqueueMapBuffer(q, cur.raw.get(), CL_FALSE, CL_MAP_WRITE_INVALIDATE_REGION, 0,
                                     d_raw_bytes, 0,
                                     nullptr, cur.writable.out(), &err));
            check(err, "clEnqueueMapBuffer");
        }
        check(a.clFlush(q), "clFlush (the spectrum chain)");
        d_next = (d_next + 1) % ring_slots;
        return d_display ? frames : delivered;
    }

    // The FFT: the raw frames in, |X|^2 out; the chain's kernels run in its queue.
    static std::unique_ptr<device_plan> make_fft(const chain_setup& s, const std::string& selector)
    {
        // The load callback converts the raw samples (kernels/spectrum.cl,
        // whose SAMPLE_FORMAT is in sample_format's order) of overlapping
        // frames, the window is its input weights; the store writes |X|^2.
        callbacks cb;
        cb.source = spectrum_cl;
        cb.options = " -DSAMPLE_FORMAT=" + std::to_string(int(s.format)) +
                     " -DFRAME_N=" + std::to_string(s.n) + "u -DFRAME_HOP=" + std::to_string(s.hop) + "u";
        cb.load = cb.store = true;
        cb.input_weights = s.window;
        return std::make_unique<device_plan>(problem{ s.n, direction::forward, s.batch, 0 }, cb, selector);
    }

    const chain_setup d_s;
    std::unique_ptr<device_plan> d_fft;
    cl_context d_ctx;         //!< d_fft's
    cl_command_queue d_queue; //!< d_fft's
    queue_handle d_upload; //!< discrete: the uploads, beside the kernels' queue
    bool d_unified;
    std::size_t d_raw_bytes, d_out_bytes;
    std::string d_backend;
    mem_handle d_power, d_out;                 //!< |X|^2, outputs
    mem_handle d_state[2];                     //!< the average, in and out of a call
    bool d_flip = false;                       //!< which state buffer holds it
    slot d_slots[ring_slots];
    std::size_t d_next = 0;                    //!< the slot input() hands out
    std::unique_ptr<opencl_display> d_display; //!< with setup.display: takes the outputs
    opencl::kernel_handle d_average;
    std::size_t d_group = 1;
    std::size_t d_count = 0; //!< frames in the current output
    bool d_started = false;  //!< exponential: the average holds a frame
};

} // namespace

std::unique_ptr<chain> make_opencl_chain(const chain_setup& setup)
{
    const std::string& b = setup.plan.backend;
    const auto colon = b.find(':');
    return std::make_unique<opencl_chain>(
        setup, colon == std::string::npos ? "" : b.substr(colon + 1));
}

} // namespace gpufft::detail
