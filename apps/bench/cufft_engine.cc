// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-bench: cuFFT on its own CUDA buffers, timed with CUDA events.
 * Compiled only when CMake finds the CUDA toolkit. */
#include "engines.h"

#include <cuda_runtime.h>
#include <cufft.h>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

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

//! Bytes of one side of p's batch: reals or complex floats.
std::size_t side_bytes(const gpufft::problem& p, bool real)
{
    return real ? p.batch * p.points() * sizeof(float) : p.batch * p.complex_extent() * sizeof(cf);
}

class cufft_engine final : public device_engine
{
public:
    cufft_engine(const gpufft::problem& p, std::size_t inputs)
        : d_kind(p.kind),
          d_in_bytes(side_bytes(p, p.kind == gpufft::transform_kind::r2c)),
          d_out_bytes(side_bytes(p, p.kind == gpufft::transform_kind::c2r))
    {
        constexpr std::size_t int_max = std::numeric_limits<int>::max();
        std::vector<int> len;
        for (std::size_t d : p.shape()) {
            if (d > int_max)
                throw std::runtime_error("cuFFT: dimensions must fit in an int");
            len.push_back(int(d));
        }
        if (p.batch > int_max)
            throw std::runtime_error("cuFFT: the batch must fit in an int");
        for (std::size_t i = 0; i < inputs; ++i)
            d_in.push_back(std::make_unique<cuda_buffer>(d_in_bytes));
        d_out = std::make_unique<cuda_buffer>(d_out_bytes);
        const cufftType type = p.kind == gpufft::transform_kind::r2c   ? CUFFT_R2C
                               : p.kind == gpufft::transform_kind::c2r ? CUFFT_C2R
                                                                       : CUFFT_C2C;
        // No embeds: packed transforms back to back, the distances ignored (cuFFT's
        // "Advanced Data Layout").
        cufft_check(cufftPlanMany(&d_plan.h, int(len.size()), len.data(), nullptr, 1, 0, nullptr, 1, 0,
                                  type, int(p.batch)),
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
        cuda_check(cudaMemcpy(d_in.at(slot)->p, host, d_in_bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    }
    void poison_output() override
    {
        // All bits set is a NaN in every float.
        cuda_check(cudaMemset(d_out->p, 0xff, d_out_bytes), "cudaMemset");
        finish();
    }
    void download(cf* host) override
    {
        cuda_check(cudaMemcpy(host, d_out->p, d_out_bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
    }
    void run(std::size_t slot) override
    {
        void* in = d_in[slot]->p;
        switch (d_kind) {
        case gpufft::transform_kind::r2c:
            cufft_check(cufftExecR2C(d_plan.h, static_cast<cufftReal*>(in),
                                     static_cast<cufftComplex*>(d_out->p)),
                        "cufftExecR2C");
            break;
        case gpufft::transform_kind::c2r:
            // cuFFT's c2r may overwrite its input (cuFFT documentation, "Data
            // Layout"); the timing does not depend on the values.
            cufft_check(cufftExecC2R(d_plan.h, static_cast<cufftComplex*>(in),
                                     static_cast<cufftReal*>(d_out->p)),
                        "cufftExecC2R");
            break;
        case gpufft::transform_kind::c2c:
            cufft_check(cufftExecC2C(d_plan.h, static_cast<cufftComplex*>(in),
                                     static_cast<cufftComplex*>(d_out->p), CUFFT_FORWARD),
                        "cufftExecC2C");
            break;
        }
    }
    void finish() override { cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }
    double time_calls(std::size_t calls, std::size_t inputs) override
    {
        cuda_check(cudaEventRecord(d_start.e), "cudaEventRecord");
        for (std::size_t c = 0; c < calls; ++c)
            run(c % inputs);
        cuda_check(cudaEventRecord(d_stop.e), "cudaEventRecord");
        cuda_check(cudaEventSynchronize(d_stop.e), "cudaEventSynchronize");
        cuda_check(cudaGetLastError(), "cuFFT's kernels");
        float ms = 0;
        cuda_check(cudaEventElapsedTime(&ms, d_start.e, d_stop.e), "cudaEventElapsedTime");
        return double(ms) * 1e6;
    }

private:
    gpufft::transform_kind d_kind;
    std::size_t d_in_bytes, d_out_bytes;
    std::vector<std::unique_ptr<cuda_buffer>> d_in;
    std::unique_ptr<cuda_buffer> d_out;
    plan_handle d_plan;
    cuda_event d_start, d_stop;
    std::string d_describe;
};

} // namespace

std::unique_ptr<device_engine> make_cufft_engine(const gpufft::problem& p, std::size_t inputs)
{
    return std::make_unique<cufft_engine>(p, inputs);
}

} // namespace gpufft::bench
