// SPDX-License-Identifier: GPL-3.0-or-later
/* Plans one transform (batch 1, one thread) and executes it a given number
 * of times, for scripts/arm-insn-count.sh: the difference between two call
 * counts' instruction totals is the cost of the calls alone.
 *
 *   execute_loop BACKEND N forward|inverse CALLS [WISDOM]
 *
 * BACKEND is a gpufft backend (simd:neon, ...) or FFTW single precision,
 * fftw:estimate or fftw:measure, planned out of place on buffers from
 * fftwf_malloc, as gpufft-bench gives both (so the same alignment). An
 * FFTW_MEASURE plan times candidate plans as it runs them, so two processes
 * may choose differently: with WISDOM, a plan made in this process is
 * saved there, and a later process with the same file must find its plan
 * there (FFTW_WISDOM_ONLY) rather than measure again. Prints the plan;
 * with GPUFFT_INSN_BASE=1 in the environment also, on stderr, the address
 * libgpufft is loaded at (for scripts/insn-count/pass_costs.py). */
#include <gpufft/gpufft.h>
#include <dlfcn.h>
#include <fftw3.h>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

namespace {

struct fftwf_deleter {
    void operator()(void* p) const { fftwf_free(p); }
};
using fftwf_buffer = std::unique_ptr<gpufft::complex, fftwf_deleter>;

fftwf_buffer allocate(std::size_t count)
{
    auto* p = static_cast<gpufft::complex*>(fftwf_malloc(sizeof(gpufft::complex) * count));
    if (!p)
        throw gpufft::error("fftwf_malloc failed");
    return fftwf_buffer(p);
}

// The plan's own description: FFTW's solver and codelet names.
std::string fftw_plan_text(fftwf_plan plan)
{
    char* text = fftwf_sprint_plan(plan);
    std::string s = text ? text : "";
    std::free(text);
    for (char& c : s)
        if (c == '\n')
            c = ' ';
    return s;
}

void run_fftw(const std::string& kind, gpufft::problem p, gpufft::complex* in,
              gpufft::complex* out, long calls, const char* wisdom)
{
    unsigned flags;
    if (kind == "estimate")
        flags = FFTW_ESTIMATE;
    else if (kind == "measure")
        flags = FFTW_MEASURE;
    else
        throw gpufft::error("FFTW plans are fftw:estimate or fftw:measure, not fftw:" + kind);
    const bool reuse = wisdom && std::ifstream(wisdom).good();
    if (reuse) {
        if (!fftwf_import_wisdom_from_filename(wisdom))
            throw gpufft::error(std::string("cannot read FFTW wisdom from ") + wisdom);
        flags |= FFTW_WISDOM_ONLY;
    }
    // The plan is made before the input is written: FFTW_MEASURE overwrites both arrays.
    fftwf_plan plan = fftwf_plan_dft_1d(int(p.n), reinterpret_cast<fftwf_complex*>(in),
                                        reinterpret_cast<fftwf_complex*>(out),
                                        p.dir == gpufft::direction::forward ? FFTW_FORWARD
                                                                            : FFTW_BACKWARD,
                                        flags);
    if (!plan)
        throw gpufft::error(reuse ? std::string("no plan for this size in the wisdom of ") + wisdom
                                  : std::string("FFTW made no plan"));
    if (wisdom && !reuse && !fftwf_export_wisdom_to_filename(wisdom))
        throw gpufft::error(std::string("cannot write FFTW wisdom to ") + wisdom);
    for (std::size_t i = 0; i < p.n; ++i) // the count depends on no value
        in[i] = gpufft::complex(float(i % 7) - 3, float(i % 5) - 2);
    for (long c = 0; c < calls; ++c)
        fftwf_execute(plan);
    std::printf("fftw:%s n=%zu: %s\n", kind.c_str(), p.n, fftw_plan_text(plan).c_str());
    fftwf_destroy_plan(plan);
}

void run_gpufft(const std::string& backend, gpufft::problem p, gpufft::complex* in,
                gpufft::complex* out, long calls)
{
    gpufft::plan_options o;
    o.backend = backend;
    gpufft::plan plan(p, o);
    for (std::size_t i = 0; i < p.n; ++i) // the count depends on no value
        in[i] = gpufft::complex(float(i % 7) - 3, float(i % 5) - 2);
    for (long c = 0; c < calls; ++c)
        plan.execute(in, out);
    std::printf("%s n=%zu: %s\n", plan.backend().c_str(), p.n, plan.describe().c_str());
    Dl_info library;
    if (std::getenv("GPUFFT_INSN_BASE") && dladdr(reinterpret_cast<void*>(&gpufft::kind_name), &library))
        std::fprintf(stderr, "libgpufft base %p\n", library.dli_fbase);
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 5 && argc != 6) {
        std::fprintf(stderr, "usage: %s BACKEND N forward|inverse CALLS [WISDOM]\n", argv[0]);
        return 2;
    }
    try {
        const std::string backend = argv[1], dir = argv[3];
        if (dir != "forward" && dir != "inverse")
            throw gpufft::error("direction must be forward or inverse, not \"" + dir + "\"");
        gpufft::problem p;
        p.n = std::strtoull(argv[2], nullptr, 10);
        p.dir = dir == "forward" ? gpufft::direction::forward : gpufft::direction::inverse;
        const long calls = std::strtol(argv[4], nullptr, 10);
        const fftwf_buffer in = allocate(p.n), out = allocate(p.n);
        if (backend.rfind("fftw:", 0) == 0)
            run_fftw(backend.substr(5), p, in.get(), out.get(), calls, argc == 6 ? argv[5] : nullptr);
        else
            run_gpufft(backend, p, in.get(), out.get(), calls);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "execute_loop: %s\n", e.what());
        return 1;
    }
    return 0;
}
