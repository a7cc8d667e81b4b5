// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: gpufft::plan's executor, on host buffers.
 *
 * Unified-memory devices (integrated GPUs, Mali, PoCL) get one host-visible
 * buffer that is mapped for the copy in and the copy out: those two copies
 * are the only ones. Discrete GPUs get two slots, each a device buffer and
 * a pinned staging buffer mapped once at plan time; the batch is split into
 * chunks, and while chunk i computes in one slot's queue, chunk i+1 is
 * copied into the other slot and uploaded, and chunk i-1's result is
 * downloaded and copied out: at most one chunk in flight beyond the one
 * being filled. The chunk size bounds the device memory a plan takes.
 *
 * Each slot runs a device_transform (device_transform.h) of a chunk in
 * place; slot 0's is planned (the 1-D shape searched where the plan tunes,
 * the multi-dimensional layouts timed and the faster kept) and slot 1's is
 * its twin, so the choice is made once. */
#ifndef GPUFFT_LIB_OPENCL_HOST_EXECUTOR_H
#define GPUFFT_LIB_OPENCL_HOST_EXECUTOR_H

#include "device_transform.h"
#include <gpufft/backend.h>
#include <memory>

namespace gpufft::opencl::detail {

class host_executor final : public executor
{
public:
    //! tune: a 1-D plan times the search's candidates (shape_search.h).
    host_executor(const problem& p, const std::string& selector, bool tune);
    ~host_executor() override;
    void execute(const complex* in, complex* out) override;
    std::string variant() const override { return d_variant; }
    std::string describe() const override;

private:
    struct slot {
        queue_handle queue;
        std::unique_ptr<device_transform> transform;
        mem_handle data;    //!< device buffer, transformed in place
        mem_handle staging; //!< pinned host buffer (discrete devices)
        complex* host = nullptr; //!< staging, mapped for the plan's life
        event_handle done;       //!< the download into staging
        std::size_t first = 0, count = 0;
        bool busy = false;
    };
    void copy_in(const complex* in, const slot& s, complex* dst) const;
    void copy_out(const slot& s, const complex* src, complex* out) const;
    void start(slot& s, const complex* in, std::size_t first, std::size_t count);
    void drain(slot& s, complex* out);
    void run_unified(const complex* in, complex* out);
    void run_double_buffered(const complex* in, complex* out);

    problem d_problem;
    std::string d_variant;
    device_context& d_ctx;
    bool d_unified;
    std::size_t d_chunk; //!< transforms a chunk
    slot d_slots[2];
};

} // namespace gpufft::opencl::detail

#endif
