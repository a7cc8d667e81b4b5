// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: the planner's chains (planner.h) built and run. */
#include "fft_plan.h"
#include "codelets.h"
#include "kernel_sources.h"
#include "program_cache.h"
#include "../../core/exact_dft.h"
#include <gpufft/error.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <sstream>
#include <tuple>

namespace gpufft::opencl::detail {

namespace {

using exact::bluestein_spectrum;
using exact::chirp;
using exact::rader_spectrum;
using exact::roots;

//! Where each stage's twiddles and (prime radices above 7) roots start in
//! the stage table, and its size.
struct stage_layout {
    std::vector<std::size_t> twiddles, roots;
    std::size_t size = 0;
};

//! The twiddle rows a stage of radix r loads (fft_pass.cl, APPLY_TWIDDLES):
//! w^1, then w^4, w^8, ... below w^r.
std::size_t twiddle_rows(std::size_t r) { return 1 + (r - 1) / 4; }

stage_layout stage_layout_for(const std::vector<std::size_t>& radices)
{
    stage_layout at;
    std::size_t span = 1;
    for (std::size_t i = 0; i < radices.size(); ++i) {
        at.twiddles.push_back(at.size);
        if (i > 0)
            at.size += twiddle_rows(radices[i]) * span;
        span *= radices[i];
    }
    for (std::size_t r : radices) {
        at.roots.push_back(has_dft_radix(r) ? at.size : 0);
        if (has_dft_radix(r))
            at.size += r;
    }
    return at;
}

std::string build_options(const pass_spec& s)
{
    std::ostringstream o;
    o << "-cl-std=CL1.2 -DSIGN=" << s.sign << " -DN=" << s.n << " -DNSTAGES=" << s.radices.size();
    // One macro without spaces, so the option string keeps it whole.
    o << " -DSTAGES=";
    const stage_layout at = stage_layout_for(s.radices);
    // CONVOLVE: the stages twice, handing over through local memory (FIRST
    // and LAST 2).
    const std::size_t stages = s.radices.size(), listed = s.convolve ? 2 * stages : stages;
    std::size_t span = 1;
    for (std::size_t l = 0; l < listed; ++l) {
        const std::size_t i = l % stages;
        if (i == 0)
            span = 1;
        const int first = i == 0 ? (l == 0 ? 1 : 2) : 0;
        const int last = i + 1 == stages ? (l + 1 == listed ? 1 : 2) : 0;
        o << (s.xchg ? "XSTAGE(" + std::to_string(i) + "," : "STAGE(") << s.radices[i] << ","
          << span << "," << first << "," << last << "," << at.twiddles[i] << "," << at.roots[i];
        // The stage before (the first names itself): its register array, radix, span.
        if (s.xchg)
            o << "," << (i ? i - 1 : 0) << "," << s.radices[i ? i - 1 : 0] << ","
              << (i ? span / s.radices[i - 1] : span);
        o << ")";
        span *= s.radices[i];
    }
    if (s.xchg)
        o << " -DXCHG=" << s.xchg;
    if (!s.lds_pad)
        o << " -DLDS_PAD=0";
    if (s.convolve)
        o << " -DCONVOLVE=1";
    if (s.rader != rader_slot::none)
        o << " -DRADER=" << int(s.rader);
    o << " -DTT=" << s.tt << " -DG=" << s.g << " -DTPB=" << s.tpb << " -DIN_CSTR=" << s.in_cstr
      << " -DIN_ESTR=" << s.in_estr << " -DOUT_CSTR=" << s.out_cstr << " -DOUT_ESTR=" << s.out_estr
      << " -DMAP_COLS=" << int(s.map_cols) << " -DSTORE_COLS=" << int(s.store_cols)
      << " -DTWIDDLE_N=" << s.twiddle_n << " -DLOAD_HOOK=" << int(s.load)
      << " -DSTORE_HOOK=" << int(s.store) << " -DIN_JC=" << s.in_jc << " -DIN_JE=" << s.in_je
      << " -DOUT_JC=" << s.out_jc << " -DOUT_JE=" << s.out_je;
    if (s.load_callback)
        o << " -DLOAD_CALLBACK=1";
    if (s.store_callback)
        o << " -DSTORE_CALLBACK=1";
    return o.str();
}

std::vector<float> interleaved(const std::vector<std::complex<double>>& v)
{
    std::vector<float> out(2 * v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
        out[2 * i] = float(v[i].real());
        out[2 * i + 1] = float(v[i].imag());
    }
    return out;
}

//! The stages' twiddles as fft_pass.cl reads them: for each stage after the
//! first (radix R, span S), w = exp(sign 2 pi i k / (S R)) at twiddles[s] + k
//! and w^(4m) at twiddles[s] + m S + k (twiddle_rows); then for each prime
//! radix above 7, its R unsigned roots.
std::vector<std::complex<double>> stage_twiddles(const std::vector<std::size_t>& radices, int sign)
{
    const stage_layout at = stage_layout_for(radices);
    std::vector<std::complex<double>> w(std::max<std::size_t>(1, at.size));
    std::size_t span = 1;
    for (std::size_t i = 0; i < radices.size(); ++i) {
        const std::size_t r = radices[i];
        if (i > 0) {
            const auto base = roots(span * r, sign);
            for (std::size_t m = 0; m < twiddle_rows(r); ++m)
                for (std::size_t k = 0; k < span; ++k)
                    w[at.twiddles[i] + m * span + k] = base[(m ? 4 * m : 1) * k];
        }
        if (has_dft_radix(r)) {
            const auto unsigned_roots = roots(r, 1);
            std::copy(unsigned_roots.begin(), unsigned_roots.end(), w.begin() + at.roots[i]);
        }
        span *= r;
    }
    return w;
}

//! The four-step twiddles exp(sign 2 pi i c e / n) at e * columns + c.
std::vector<std::complex<double>> four_step_twiddles(std::size_t n, std::size_t columns, int sign)
{
    const auto base = roots(n, sign);
    std::vector<std::complex<double>> w(n);
    for (std::size_t e = 0; e < n / columns; ++e)
        for (std::size_t c = 0; c < columns; ++c)
            w[e * columns + c] = base[(e * c) % n];
    return w;
}

//! Rader's permutation (exact_dft.h) as indices in float2 tables' x (exact
//! below 2^24).
std::vector<std::complex<double>> rader_indices(std::size_t p, std::size_t g, int s)
{
    const auto at = exact::rader_indices(p, g, s);
    return { at.begin(), at.end() };
}

} // namespace

chain_shape with_callbacks(chain_shape c, const device_callbacks& callbacks)
{
    // Rader's first load and last store are its permutations.
    if (c.rader_generator)
        throw error("gpufft: opencl: load/store callbacks cannot go on Rader's chain for " +
                    std::to_string(c.n) + " points (plan it with rader false)");
    pass_spec& first = c.passes.front();
    first.load_callback = callbacks.load;
    c.passes.back().store_callback = callbacks.store;
    // Bluestein's first load multiplies by its chirp, which then takes the
    // weights too (fft_chain); any other first load has no table.
    if (!callbacks.input_weights.empty() && first.load == load_hook::none)
        first.load = load_hook::weights;
    return c;
}

fft_chain::fft_chain(device_context& ctx,
                     const chain_shape& shape,
                     std::size_t max_batch,
                     std::size_t in_dist,
                     std::size_t out_dist,
                     const device_callbacks& callbacks)
    : d_ctx(ctx), d_shape(shape), d_max_batch(max_batch), d_in_dist(in_dist), d_out_dist(out_dist)
{
    const device_entry& dev = ctx.device;
    const std::vector<float>& weights = callbacks.input_weights;
    if (!weights.empty() && weights.size() != shape.n)
        throw error("gpufft: opencl: " + std::to_string(weights.size()) + " input weights for a " +
                    std::to_string(shape.n) + "-point chain");
    // A shape the kernels cannot run is refused before any is built.
    if (const std::string why = shape_fault(dev.limits, shape); !why.empty())
        throw error("gpufft: opencl: no kernels for " + why);
    // Kernels index with 32-bit integers.
    const std::size_t biggest =
        std::max({ (max_batch - 1) * std::max(in_dist, out_dist) + shape.n,
                   max_batch * shape.scratch_points[0],
                   max_batch * shape.scratch_points[1] });
    if (biggest >= (std::size_t(1) << 32))
        throw error("gpufft: opencl: " + std::to_string(biggest) +
                    " elements in one buffer are beyond the kernels' 32-bit indexing");

    const int user_sign = shape.dir == direction::forward ? -1 : 1;
    for (const pass_spec& spec : shape.passes) {
        pass p;
        p.spec = spec;
        const std::string sign = std::to_string(spec.sign);
        p.tw = table("stages " + radices_text(spec.radices) + " " + sign,
                     interleaved(stage_twiddles(spec.radices, spec.sign)));
        if (spec.twiddle_n)
            p.tw4 = table("four-step " + std::to_string(spec.n) + " " + sign,
                          interleaved(four_step_twiddles(spec.twiddle_n, spec.tpb, spec.sign)));
        const bool first = d_passes.empty();
        if (spec.load == load_hook::chirp && first && !weights.empty()) {
            // The input weights times the chirp, in double: one rounding.
            std::vector<std::complex<double>> taps = chirp(shape.n, user_sign);
            for (std::size_t j = 0; j < taps.size(); ++j)
                taps[j] *= weights[j];
            p.hook_in = table("chirp times weights", interleaved(taps));
        } else if (spec.load == load_hook::chirp) {
            p.hook_in = table("chirp", interleaved(chirp(shape.n, user_sign)));
        }
        if (spec.store == store_hook::chirp)
            p.hook_out = table("chirp", interleaved(chirp(shape.n, user_sign)));
        if (spec.load == load_hook::weights)
            p.hook_in = table("weights", interleaved(std::vector<std::complex<double>>(weights.begin(),
                                                                                      weights.end())));
        // The kernel spectrum; a pass that is the whole convolution takes it
        // in tw4 (fft_pass.cl's SPECTRUM), its first load's table in hook_in.
        cl_mem& spectrum = spec.convolve && spec.load != load_hook::none ? p.tw4 : p.hook_in;
        if ((spec.load == load_hook::spectrum || spec.convolve) && shape.rader_generator)
            spectrum = table("spectrum", interleaved(rader_spectrum(
                                             shape.n, shape.rader_generator, user_sign)));
        else if (spec.load == load_hook::spectrum || spec.convolve)
            spectrum = table("spectrum", interleaved(bluestein_spectrum(
                                             chirp(shape.n, user_sign), shape.convolution_m)));
        if (spec.load == load_hook::gather)
            p.hook_in = table("gather", interleaved(rader_indices(shape.n, shape.rader_generator, 1)));
        if (spec.store == store_hook::scatter)
            p.hook_out = table("scatter", interleaved(rader_indices(shape.n, shape.rader_generator, -1)));
        const bool calls = spec.load_callback || spec.store_callback;
        for (;;) {
            const std::string source = fft_butterflies_cl +
                                       composite_butterflies_source(p.spec.radices) +
                                       (calls ? callbacks.source : std::string()) + fft_pass_cl;
            program_handle prog = build_program(
                ctx, source, build_options(p.spec) + (calls ? callbacks.options : std::string()));
            p.kernel = make_kernel(prog.get(), "fft_pass");
            std::size_t allowed = 0;
            check(api()->clGetKernelWorkGroupInfo(p.kernel.get(), dev.id, CL_KERNEL_WORK_GROUP_SIZE,
                                                  sizeof allowed, &allowed, nullptr),
                  "clGetKernelWorkGroupInfo");
            allowed = std::min(allowed, dev.limits.kernel_work_group);
            if (p.spec.g * p.spec.tt <= allowed ||
                (allowed < p.spec.tt && !p.spec.xchg && launches(p)))
                break;
            // The compiled kernel allows fewer work-items (registers): fewer
            // transforms a group, else, where it will not launch with one
            // transform's work-items or is in the register mode
            // (register_group_cap), more elements a work-item.
            if (allowed >= p.spec.tt) {
                p.spec.g = allowed / p.spec.tt;
            } else if (p.spec.tt > 1) {
                p.spec.tt = (p.spec.tt + 1) / 2;
                p.spec.g = 1;
            } else {
                throw error("gpufft: opencl: the " + std::to_string(p.spec.n) +
                            "-point kernel cannot run on " + dev.label() +
                            " (it allows " + std::to_string(allowed) + " work-items a group)");
            }
        }
        d_shape.passes[d_passes.size()] = p.spec;
        d_passes.push_back(std::move(p));
    }
    for (int i = 0; i < 2; ++i) {
        const std::size_t bytes = max_batch * shape.scratch_points[i] * 8;
        if (!bytes)
            continue;
        if (bytes > dev.max_alloc)
            throw error("gpufft: opencl: " + std::to_string(bytes >> 20) + " MiB of scratch for " +
                        std::to_string(max_batch) + " transforms of " + std::to_string(shape.n) +
                        " points is beyond " + dev.label() + "'s largest buffer of " +
                        std::to_string(dev.max_alloc >> 20) + " MiB");
        cl_int err = CL_SUCCESS;
        d_scratch[i].reset(
            api()->clCreateBuffer(ctx.context.get(), CL_MEM_READ_WRITE, bytes, nullptr, &err));
        check(err, "clCreateBuffer");
        d_device_bytes += bytes;
    }
}

cl_mem fft_chain::table(const std::string& key, const std::vector<float>& values)
{
    auto it = d_tables.find(key);
    if (it != d_tables.end())
        return it->second.get();
    cl_int err = CL_SUCCESS;
    const std::size_t bytes = values.size() * sizeof(float);
    mem_handle m(api()->clCreateBuffer(d_ctx.context.get(),
                                       CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                       bytes,
                                       const_cast<float*>(values.data()),
                                       &err));
    check(err, "clCreateBuffer");
    d_device_bytes += bytes;
    return d_tables.emplace(key, std::move(m)).first->second.get();
}

void fft_chain::bind(const pass& p, cl_mem from, cl_mem to, cl_uint nt, cl_uint in_dist,
                     cl_uint out_dist, cl_uint n)
{
    const cl_kernel k = p.kernel.get();
    auto arg = [&](cl_uint i, std::size_t size, const void* value) {
        check(api()->clSetKernelArg(k, i, size, value), "clSetKernelArg");
    };
    arg(0, sizeof from, &from);
    arg(1, sizeof to, &to);
    arg(2, sizeof p.tw, &p.tw);
    arg(3, sizeof p.tw4, &p.tw4);
    arg(4, sizeof p.hook_in, &p.hook_in);
    arg(5, sizeof p.hook_out, &p.hook_out);
    arg(6, sizeof nt, &nt);
    arg(7, sizeof in_dist, &in_dist);
    arg(8, sizeof out_dist, &out_dist);
    arg(9, sizeof n, &n);
    arg(10, sizeof n, &n);
}

/*
 * NVIDIA's OpenCL reads CL_KERNEL_WORK_GROUP_SIZE lower than a kernel runs
 * at: on the H200 (driver 580) 256 for kernels built for 343 to 1024
 * work-items (reqd_work_group_size, which its compiler fits the registers
 * to), VkFFT's among them, which it launches at 512 or 600. Halving the
 * work-items of a transform in local memory lost 2401 (0.90 -> 0.82 of
 * cuFFT) and 4410 (0.90 -> 0.83); taking fewer transforms a group, as the
 * reading has it, won (262144 1.04 against 0.74 in groups of 704
 * work-items), and so did the register mode's halving (register_group_cap)
 * (scripts/device/results/h200-2026-11-29c-work-groups.md). So where one
 * transform's work-items in local memory are more than the driver reads,
 * one work-group with no transform active (nothing is loaded or stored,
 * the tables are read) tells whether the kernel launches.
 */
bool fft_chain::launches(const pass& p)
{
    cl_int err = CL_SUCCESS;
    mem_handle dummy(api()->clCreateBuffer(d_ctx.context.get(), CL_MEM_READ_WRITE, sizeof(cl_float2),
                                           nullptr, &err));
    check(err, "clCreateBuffer");
    const queue_handle q = make_queue(d_ctx);
    const cl_mem m = dummy.get();
    bind(p, m, m, 0, 0, 0, cl_uint(d_shape.n));
    const std::size_t local = p.spec.g * p.spec.tt;
    return api()->clEnqueueNDRangeKernel(q.get(), p.kernel.get(), 1, nullptr, &local, &local, 0,
                                         nullptr, nullptr) == CL_SUCCESS &&
           api()->clFinish(q.get()) == CL_SUCCESS;
}

void fft_chain::enqueue(cl_command_queue q, cl_mem in, cl_mem out, std::size_t batch)
{
    const cl_api& a = *api();
    auto mem = [&](buffer_slot s) {
        switch (s) {
        case buffer_slot::in:
            return in;
        case buffer_slot::out:
            return out;
        case buffer_slot::scratch0:
            return d_scratch[0].get();
        case buffer_slot::scratch1:
            return d_scratch[1].get();
        }
        return cl_mem(nullptr);
    };
    auto dist = [&](buffer_slot s, std::size_t scratch_dist) {
        return cl_uint(s == buffer_slot::in ? d_in_dist : s == buffer_slot::out ? d_out_dist : scratch_dist);
    };
    const cl_uint n = cl_uint(d_shape.n);
    for (pass& p : d_passes) {
        const pass_spec& s = p.spec;
        const cl_mem from = mem(s.from), to = mem(s.to);
        const cl_uint nt = cl_uint(batch * s.tpb);
        const cl_uint in_dist = dist(s.from, s.from_dist), out_dist = dist(s.to, s.to_dist);
        bind(p, from, to, nt, in_dist, out_dist, n);
        const std::size_t local = s.g * s.tt;
        const std::size_t global = (nt + s.g - 1) / s.g * local;
        check(a.clEnqueueNDRangeKernel(q, p.kernel.get(), 1, nullptr, &global, &local, 0, nullptr,
                                       nullptr),
              "clEnqueueNDRangeKernel");
    }
}

} // namespace gpufft::opencl::detail
