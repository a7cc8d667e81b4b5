// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: r2c and c2r on host buffers (any rank).
 *
 * The rows along the last axis run as a complex FFT of half the size (even
 * N) or as pairs of rows (odd N) on a "real" device buffer, with a pass of
 * kernels/real_pass.cl between it and the complex-side buffer; the other
 * axes are strided column passes (planner.h) on the complex side: r2c
 * rows then columns, c2r columns then rows. Chunks run one after the
 * other with blocking copies: unlike host_executor, no copy overlaps the
 * device's work. */
#ifndef GPUFFT_LIB_OPENCL_REAL_EXECUTOR_H
#define GPUFFT_LIB_OPENCL_REAL_EXECUTOR_H

#include "fft_plan.h"
#include <gpufft/backend.h>
#include <memory>
#include <vector>

namespace gpufft::opencl::detail {

class real_executor final : public executor
{
public:
    real_executor(const problem& p, const std::string& selector);
    ~real_executor() override;
    //! Unreachable through a plan (it checks the kind).
    void execute(const complex* in, complex* out) override;
    void execute_r2c(const float* in, complex* out) override;
    void execute_c2r(const complex* in, float* out) override;
    std::string variant() const override { return d_variant; }
    std::string describe() const override;

private:
    void columns(std::size_t count);
    void launch_pass(std::size_t rows);

    problem d_problem;
    std::string d_variant;
    device_context& d_ctx;
    queue_handle d_queue;
    std::size_t d_n;          //!< the last dimension, in reals
    bool d_odd;
    std::size_t d_rows;       //!< rows a transform
    std::size_t d_complex;    //!< complex elements a transform
    std::size_t d_chunk;      //!< transforms a chunk
    std::unique_ptr<fft_chain> d_row_chain;
    std::vector<std::pair<std::unique_ptr<fft_chain>, std::size_t>> d_columns; //!< chain, entries
    kernel_handle d_pass;
    mem_handle d_real, d_data, d_twiddles;
    std::vector<float> d_staging; //!< odd N: rows interleaved in pairs
};

} // namespace gpufft::opencl::detail

#endif
