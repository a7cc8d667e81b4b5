// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-bench: cuFFT on its own CUDA buffers, timed with CUDA events.
 * Compiled only when CMake finds the CUDA toolkit. */
#include "engines.h"

#include <cuda_runtime.h>
#include <cufft.h>
#include <limits>
#include <stdexcept>
#include <string>

namespace gpufft::bench {
namespace {

void cuda_check(cudaError_t e, const char* what)
{
    if (e != cudaSuccess)
        throw std::runtime_error(std::string("CUDA: ") + what + " failed: " +
                                 cudaGetErrorString(e));
}

void cufft_check(cufftResult r, const char* what)
{
    if (r != CUFFT_SUCCESS)
        throw std::runtime_error(std::string("cuFFT: ") + what + " failed (cufftResult " +
                                 std::to_string(int(r)) + ")");
}

struct cuda_buffer {
    void* p = nullptr;
    explicit cuda_buffer(std::size_t bytes) { cuda_check(cudaMalloc(&p, bytes), "cudaMalloc"); }
    ~cuda_buffer() { cudaFree(p); }
    cuda_buffer(const cuda_buffer&) = delete;
    cuda_buffer& operator=(const cuda_buffer&) = delete;
};

struct cuda_event {
    cudaEvent_t e = nullptr;
    cuda_event() { cuda_check(cudaEventCreate(&e), "cudaEventCreate"); }
    ~cuda_event() { cudaEventDestroy(e); }
    cuda_event(const cuda_event&) = delete;
    cuda_event& operator=(const cuda_event&) = delete;
};

struct plan_handle {
    cufftHandle h = 0;
    bool made = false;
    ~plan_handle()
    {
        if (made)
            cufftDestroy(h);
    }
};

class cufft_engine final : public device_engine
{
public:
    cufft_engine(std::size_t n, std::size_t batch, std::size_t inputs)
        : d_bytes(n * batch * sizeof(cf))
    {
        constexpr std::size_t int_max = std::numeric_limits<int>::max();
        if (n > int_max || batch > int_max)
            throw std::runtime_error("cuFFT: n and batch must fit in an int");
        for (std::size_t i = 0; i < inputs; ++i)
            d_in.push_back(std::make_unique<cuda_buffer>(d_bytes));
        d_out = std::make_unique<cuda_buffer>(d_bytes);
        int len = int(n);
        cufft_check(
            cufftPlanMany(&d_plan.h, 1, &len, nullptr, 1, len, nullptr, 1, len, CUFFT_C2C, int(batch)),
            "cufftPlanMany");
        d_plan.made = true;
        int version = 0, runtime = 0, device = 0;
        cufftGetVersion(&version);
        cudaRuntimeGetVersion(&runtime);
        cudaGetDevice(&device);
        cudaDeviceProp prop{};
        cudaGetDeviceProperties(&prop, device);
        d_describe = "cuFFT " + std::to_string(version) + ", CUDA runtime " +
                     std::to_string(runtime) + ", " + prop.name;
    }
    std::string name() const override { return "cuFFT"; }
    std::string describe() const override { return d_describe; }
    void upload(std::size_t slot, const cf* host) override
    {
        cuda_check(cudaMemcpy(d_in.at(slot)->p, host, d_bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    }
    void poison_output() override
    {
        // All bits set is a NaN in every float.
        cuda_check(cudaMemset(d_out->p, 0xff, d_bytes), "cudaMemset");
        finish();
    }
    void download(cf* host) override
    {
        cuda_check(cudaMemcpy(host, d_out->p, d_bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
    }
    void run(std::size_t slot) override
    {
        cufft_check(cufftExecC2C(d_plan.h,
                                 static_cast<cufftComplex*>(d_in[slot]->p),
                                 static_cast<cufftComplex*>(d_out->p),
                                 CUFFT_FORWARD),
                    "cufftExecC2C");
    }
    void finish() override { cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }
    double time_calls(std::size_t calls, std::size_t inputs) override
    {
        cuda_check(cudaEventRecord(d_start.e), "cudaEventRecord");
        for (std::size_t c = 0; c < calls; ++c)
            run(c % inputs);
        cuda_check(cudaEventRecord(d_stop.e), "cudaEventRecord");
        cuda_check(cudaEventSynchronize(d_stop.e), "cudaEventSynchronize");
        cuda_check(cudaGetLastError(), "cufftExecC2C's kernels");
        float ms = 0;
        cuda_check(cudaEventElapsedTime(&ms, d_start.e, d_stop.e), "cudaEventElapsedTime");
        return double(ms) * 1e6;
    }

private:
    std::size_t d_bytes;
    std::vector<std::unique_ptr<cuda_buffer>> d_in;
    std::unique_ptr<cuda_buffer> d_out;
    plan_handle d_plan;
    cuda_event d_start, d_stop;
    std::string d_describe;
};

} // namespace

std::unique_ptr<device_engine> make_cufft_engine(std::size_t n, std::size_t batch, std::size_t inputs)
{
    return std::make_unique<cufft_engine>(n, batch, inputs);
}

} // namespace gpufft::bench
