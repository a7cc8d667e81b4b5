// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft, GNU Radio side: gpufft.iq_replay_source, IQ without a radio. */
#ifndef GPUFFT_GNURADIO_IQ_REPLAY_SOURCE_H
#define GPUFFT_GNURADIO_IQ_REPLAY_SOURCE_H

#include <gnuradio/sync_block.h>
#include <gpufft/api.h>
#include <string>

namespace gr::gpufft {

/*!
 * \brief Complex samples from an IQ recording replayed in a loop, or, without
 * a file, the demo signal of `gpufft-spectrum --demo` (gpufft::demo_signal:
 * four tones of known power, an FM carrier, noise).
 * \ingroup gpufft
 *
 * The file is read as it plays (it may be larger than memory) and converted
 * to complex float: "cf32" (complex64), "cs16" (interleaved int16, x / 32768),
 * "cs8" (int8, x / 128) or "cu8" (uint8 as rtl_sdr writes it,
 * (x - 127.5) / 127.5); "auto" takes the format from the extension (.cu8,
 * .cs8, .cs16; anything else is cf32). A partial sample at the end of the
 * file is ignored.
 *
 * A FIFO or a character device (e.g. `mkfifo f; rtl_sdr -s 2.4e6 f`) is read
 * as it comes, in chunks of up to 16384 samples, once: \p repeat does not
 * apply (it cannot be rewound), and the flowgraph's input ends when the
 * writer closes it. A FIFO is opened when the flowgraph starts, which waits
 * for a writer. A directory is refused.
 *
 * With \p throttle the samples come at \p sample_rate per second (as a
 * blocks.throttle behind the source would pace them); without it, as fast as
 * the flowgraph takes them.
 */
class GPUFFT_API iq_replay_source : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<iq_replay_source> sptr;

    /*!
     * \param filename the recording; empty: the demo signal.
     * \param format "auto", "cf32", "cs16", "cs8" or "cu8".
     * \param sample_rate samples per second, > 0 (the pace, and the demo signal's rate).
     * \param throttle pace the output at sample_rate.
     * \param repeat loop the file; false: the flowgraph's input ends with the file.
     *        Regular files only.
     *
     * Throws std::invalid_argument (gpufft::error) naming the bad parameter:
     * an unknown format, sample_rate <= 0, a file that cannot be opened or holds
     * no whole sample, a directory.
     */
    static sptr make(const std::string& filename = "",
                     const std::string& format = "auto",
                     double sample_rate = 2.4e6,
                     bool throttle = true,
                     bool repeat = true);

    //! The format in use (never "auto").
    virtual std::string format() const = 0;
    virtual double sample_rate() const = 0;
    virtual bool throttle() const = 0;
};

} // namespace gr::gpufft

#endif
