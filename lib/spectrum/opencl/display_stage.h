// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft spectrum layer: the display stages (gpufft::display's
 * definition) on the spectrum chain's device (kernels/display.cl). */
#ifndef GPUFFT_LIB_SPECTRUM_OPENCL_DISPLAY_STAGE_H
#define GPUFFT_LIB_SPECTRUM_OPENCL_DISPLAY_STAGE_H

#include "../chain.h"
#include <gpufft/opencl.h>
#include <cstddef>
#include <vector>

namespace gpufft::detail {

/*!
 * The histogram, traces and waterfall ring in device buffers, fed by
 * enqueue() with dB frames that stay on the device; the read-outs copy the
 * display-sized images back. Every buffer is made and every kernel built
 * in the constructor. Runs in the spectrum chain's in-order queue, its
 * FFT's, on that plan's device and in its context.
 */
class opencl_display final : public display_stage
{
public:
    //! Up to max_frames frames a call; throws gpufft::error naming what does not fit.
    opencl_display(const opencl::device_plan& fft, const display_config& c, std::size_t max_frames);

    //! Enqueues `frames` (1 to max_frames) frames of n dB values at `db`; does not wait.
    void enqueue(cl_mem db, std::size_t frames);

    void reset() override;
    void reset_max_hold() override;
    void set_db_range(double db_min, double db_max) override;
    void set_decay(double decay) override;
    void set_resample(display_resample mode) override;
    void set_average(display_average mode, double alpha) override;
    void set_max_hold(bool on) override;
    void set_bin_range(std::size_t begin, std::size_t end) override;
    void read_histogram(float* out) const override;
    void read_histogram_levels(std::uint16_t* out, float scale, std::uint16_t top,
                               std::uint8_t* lit_rows) const override;
    void read_average(float* out) const override;
    void read_max_hold(float* out) const override;
    void read_waterfall(float* out, std::size_t rows) const override;
    void read_waterfall_max(float* out, std::size_t rows) const override;
    bool newest_peak_bin(std::size_t begin, std::size_t end, std::size_t& bin) const override;
    std::size_t frames() const override { return d_count; }
    const display_config& config() const override { return d_c; }

    //! Device bytes the stage holds.
    std::size_t device_bytes() const { return d_device_bytes; }

private:
    void set_arg(cl_kernel k, cl_uint i, std::size_t size, const void* value);
    void fill(const opencl::mem_handle& m, float value, std::size_t count);
    void read(const opencl::mem_handle& m, std::size_t offset, std::size_t count, float* out) const;
    void upload_weights();
    void upload_columns();
    void set_settings();

    cl_command_queue d_queue;
    display_config d_c;
    std::size_t d_device_bytes = 0;
    std::vector<float> d_weights;                   //!< decay^k, k = 0..max_frames
    mutable std::vector<float> d_levels_cells;      //!< the histogram read back for its levels
    mutable std::vector<float> d_max_rows;          //!< waterfall rows read back for their max
    mutable std::vector<float> d_newest_bins;       //!< bins of the newest frame read back (newest_peak_bin)
    cl_mem d_newest = nullptr;                      //!< the last enqueue()'s frames (null: none since reset)
    std::size_t d_newest_frame = 0;                 //!< the newest frame's index in them
    opencl::mem_handle d_first, d_hist, d_avg, d_peak, d_ring, d_weights_dev;
    opencl::kernel_handle d_decay, d_frames;
    std::size_t d_group = 1;
    std::size_t d_ring_next = 0;  //!< the ring row the next frame writes
    std::size_t d_count = 0;      //!< frames since reset
    std::size_t d_avg_count = 0;  //!< frames in the average
    bool d_peak_started = false;
};

} // namespace gpufft::detail

#endif
