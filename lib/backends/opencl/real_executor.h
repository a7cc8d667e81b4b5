// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: r2c and c2r on host buffers (any rank).
 *
 * Chunks of packed transforms are uploaded, transformed on the device by a
 * device_transform (device_transform.h: the row FFTs, the real pass and
 * the column passes) and read back, one after the other with blocking
 * copies: unlike host_executor, no copy overlaps the device's work. */
#ifndef GPUFFT_LIB_OPENCL_REAL_EXECUTOR_H
#define GPUFFT_LIB_OPENCL_REAL_EXECUTOR_H

#include "device_transform.h"
#include <gpufft/backend.h>
#include <memory>

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
    problem d_problem;
    std::string d_variant;
    device_context& d_ctx;
    queue_handle d_queue;
    std::size_t d_chunk; //!< transforms a chunk
    std::unique_ptr<device_transform> d_transform;
    mem_handle d_real, d_complex; //!< a chunk's real and complex sides, packed
};

} // namespace gpufft::opencl::detail

#endif
