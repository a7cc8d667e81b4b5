// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-bench: clFFT (Debian's libclfft) on the shared OpenCL buffers. */
#include "engines.h"

#include <clFFT.h>
#include <stdexcept>
#include <string>

namespace gpufft::bench {
namespace {

void clfft_check(clfftStatus s, const char* what)
{
    if (s != CLFFT_SUCCESS)
        throw std::runtime_error(std::string("clFFT: ") + what + " failed (status " +
                                 std::to_string(int(s)) + ")");
}

//! clfftSetup once per process, clfftTeardown at exit.
struct clfft_library {
    clfft_library()
    {
        clfftSetupData setup;
        clfft_check(clfftInitSetupData(&setup), "clfftInitSetupData");
        clfft_check(clfftSetup(&setup), "clfftSetup");
    }
    ~clfft_library() { clfftTeardown(); }
    static void ensure() { static clfft_library library; }
};

struct plan_handle {
    clfftPlanHandle h = 0;
    bool made = false;
    ~plan_handle()
    {
        if (made)
            clfftDestroyPlan(&h);
    }
};

class clfft_engine final : public cl_engine
{
public:
    clfft_engine(cl_buffers& b, std::size_t n, std::size_t batch) : cl_engine(b)
    {
        clfft_library::ensure();
        size_t length[1] = { n };
        clfft_check(clfftCreateDefaultPlan(&d_plan.h, b.context, CLFFT_1D, length),
                    "clfftCreateDefaultPlan");
        d_plan.made = true;
        clfft_check(clfftSetPlanPrecision(d_plan.h, CLFFT_SINGLE), "clfftSetPlanPrecision");
        clfft_check(clfftSetLayout(d_plan.h, CLFFT_COMPLEX_INTERLEAVED, CLFFT_COMPLEX_INTERLEAVED),
                    "clfftSetLayout");
        clfft_check(clfftSetResultLocation(d_plan.h, CLFFT_OUTOFPLACE), "clfftSetResultLocation");
        clfft_check(clfftSetPlanBatchSize(d_plan.h, batch), "clfftSetPlanBatchSize");
        clfft_check(clfftSetPlanDistance(d_plan.h, n, n), "clfftSetPlanDistance");
        clfft_check(clfftBakePlan(d_plan.h, 1, &b.queue, nullptr, nullptr), "clfftBakePlan");
        size_t tmp_bytes = 0;
        clfft_check(clfftGetTmpBufSize(d_plan.h, &tmp_bytes), "clfftGetTmpBufSize");
        if (tmp_bytes) { // made here, so no call allocates
            cl_int err = CL_SUCCESS;
            d_tmp.reset(clCreateBuffer(b.context, CL_MEM_READ_WRITE, tmp_bytes, nullptr, &err));
            cl_check(err, "clCreateBuffer (clFFT scratch)");
        }
        cl_uint major = 0, minor = 0, patch = 0;
        clfftGetVersion(&major, &minor, &patch);
        d_describe = "clFFT " + std::to_string(major) + "." + std::to_string(minor) + "." +
                     std::to_string(patch) + ", scratch " + std::to_string(tmp_bytes) + " B";
    }
    std::string name() const override { return "clFFT"; }
    std::string describe() const override { return d_describe; }
    void run(std::size_t slot) override
    {
        clfft_check(clfftEnqueueTransform(d_plan.h,
                                          CLFFT_FORWARD,
                                          1,
                                          &d_buffers.queue,
                                          0,
                                          nullptr,
                                          nullptr,
                                          &d_buffers.in[slot],
                                          &d_buffers.out,
                                          d_tmp.get()),
                    "clfftEnqueueTransform");
    }

private:
    plan_handle d_plan;
    cl_ptr<cl_mem> d_tmp;
    std::string d_describe;
};

} // namespace

std::unique_ptr<device_engine> make_clfft_engine(cl_buffers& buffers, std::size_t n, std::size_t batch)
{
    return std::make_unique<clfft_engine>(buffers, n, batch);
}

} // namespace gpufft::bench
