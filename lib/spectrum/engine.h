// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft spectrum engine: the part gpufft::spectrum and
 * gpufft::spectrum_display share (internal): the checked settings, the
 * framing of raw samples into batches of frames, and the chain that runs
 * them. */
#ifndef GPUFFT_LIB_SPECTRUM_ENGINE_H
#define GPUFFT_LIB_SPECTRUM_ENGINE_H

#include "chain.h"
#include <gpufft/spectrum.h>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

namespace gpufft::detail {

class engine
{
public:
    /*!
     * Throws gpufft::error naming the bad parameter. With `display` (n =
     * fft_size, checked by the caller), a chain that can runs the display
     * stages on its outputs (chain::display()).
     */
    explicit engine(const spectrum_config& config, const display_config* display = nullptr);

    /*!
     * As gpufft::spectrum's; `out` may be empty (outputs are then dropped).
     * Every output the pushed frames complete is delivered before the call
     * returns, unless config.deferred_delivery.
     */
    std::size_t push_bytes(const void* data, std::size_t bytes, const spectrum::sink& out);
    //! As gpufft::spectrum's.
    input_span acquire(std::size_t max_bytes);
    std::size_t commit(std::size_t bytes, const spectrum::sink& out);
    std::size_t push(const complex* samples, std::size_t count, const spectrum::sink& out);
    std::size_t flush(const spectrum::sink& out);
    void reset();

    const chain_setup& setup() const { return d_setup; }
    const spectrum_config& config() const { return d_config; }
    chain& stages() { return *d_chain; }
    const chain& stages() const { return *d_chain; }
    //! Frames transformed since construction or reset().
    std::size_t frames() const { return d_frames; }
    //! As gpufft::spectrum's.
    std::uint64_t nonfinite_samples() const { return d_nonfinite; }
    std::size_t output_nonfinite_samples() const { return d_output_nonfinite; }
    double bin_hz(std::size_t i) const;

private:
    std::size_t run(std::size_t count, const spectrum::sink& deliver);
    // Takes `bytes` written at the acquired span into the batch, running it
    // when full; outputs still in flight stay there (commit drains them).
    std::size_t take(std::size_t bytes, const spectrum::sink& deliver);
    // What a push or commit delivers at its end: everything in flight,
    // unless the config defers it.
    std::size_t delivered_now(const spectrum::sink& out);
    // Delivers every output in flight through deliver().
    std::size_t drain(const spectrum::sink& out);
    // cf32: zeroes the whole samples held in the input but not yet checked
    // that have a NaN or infinite component, counting them.
    void zero_nonfinite();
    // Counts the non-finite sample at stream index `i` for each output whose frames hold it.
    void note_nonfinite(std::uint64_t i);
    // The chain's sink: the user's (d_out), with output_nonfinite_samples() set during the call.
    void deliver(const float* spectrum, std::size_t n);

    spectrum_config d_config;
    chain_setup d_setup;
    std::unique_ptr<chain> d_chain;
    std::size_t d_bps = 0;  // bytes per sample
    std::size_t d_span = 0; // bytes of one batch of frames: (batch - 1) * hop + n samples
    std::size_t d_fill = 0; // bytes held in the chain's input()
    std::size_t d_acquired = 0; // bytes of the span acquire() last handed out
    std::size_t d_frames = 0;
    // Non-finite input (cf32): counted since construction; per output since reset().
    std::uint64_t d_nonfinite = 0;
    std::size_t d_checked = 0;   // bytes at the start of input() already checked
    std::uint64_t d_base = 0;    // stream index of the sample at input()'s start
    std::uint64_t d_delivered = 0; // outputs delivered
    std::deque<std::size_t> d_pending_nonfinite; // per output from d_delivered on
    std::size_t d_output_nonfinite = 0;
    const spectrum::sink* d_out = nullptr; // the user's sink during a call
    spectrum::sink d_deliver;              // deliver() for the chain
};

} // namespace gpufft::detail

#endif
