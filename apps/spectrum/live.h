// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-spectrum: the live outputs, which get every spectrum as it is made
 * (--serve: a web page over WebSocket; --zmq-pub: ZeroMQ for GNU Radio and
 * collectors). Formats: docs/receiver.md, "Web view" and "ZeroMQ feed". */
#ifndef GPUFFT_APPS_SPECTRUM_LIVE_H
#define GPUFFT_APPS_SPECTRUM_LIVE_H

#include "app.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gpufft_app {

//! One spectrum and what it means.
struct live_spectrum {
    const float* db = nullptr; //!< tone dBFS, lowest frequency first
    std::size_t bins = 0;
    double f0_hz = 0;       //!< frequency of bin 0
    double bin_hz = 0;      //!< bin spacing
    double center_hz = 0;   //!< the tuner's centre
    double sample_rate = 0; //!< Hz
    std::size_t fft_size = 0;
    double unix_time = 0;   //!< end of the spectrum's last frame, seconds since 1970-01-01 UTC
    std::uint64_t index = 0; //!< spectra before this one
    std::size_t overflows = 0; //!< device overflows (gaps) so far
    double lost_s = 0;         //!< signal they lost, seconds (the host's clock's estimate)
    std::uint64_t nonfinite_samples = 0; //!< NaN or infinite input samples so far (taken as 0)
    const radio_settings* radio = nullptr; //!< a radio's gain as read back; none for a file or the demo
    //! A sweep's band edges: where one hop's kept bins end and the next's begin, Hz; none for one capture.
    const std::vector<double>* hop_edges_hz = nullptr;
    /*!
     * --dc replace: the bins it replaced, each run [lo, hi] by the
     * frequencies of its first and last bin (one for a capture, one a hop
     * whose replaced bins are kept in a sweep); none without --dc replace.
     */
    const std::vector<std::pair<double, double>>* dc_replaced_hz = nullptr;
};

//! A spectrum of `engine` tuned to `center_hz`: all but db, unix_time and index.
live_spectrum capture_spectrum(double center_hz, const gpufft::spectrum& engine);

//! A live output: publish() never waits on a reader.
class live_output
{
public:
    virtual ~live_output() = default;
    //! Called from the capture thread for every spectrum; `s.db` is valid only during the call.
    virtual void publish(const live_spectrum& s) = 0;
};

/*!
 * The web view on HOST:PORT (or PORT, on 127.0.0.1): the page and its
 * WebSocket, served on a thread of its own. Binds now: a bad address or a
 * port in use is a usage_error naming --serve, a malformed origin one naming
 * --serve-origin. Warns on standard error when the address is not a loopback
 * one. Its WebSocket takes pages of its own origin and of `origins`
 * (http://HOST[:PORT], https://...) only (docs/web-view.md).
 */
std::unique_ptr<live_output> make_web_server(const std::string& address, const std::string& name,
                                             const std::vector<std::string>& origins);

/*!
 * A ZeroMQ PUB socket bound to `endpoint` (tcp://HOST:PORT, ipc://PATH...):
 * each spectrum is one message in gr-zeromq's tagged format. Binds now; a
 * bad endpoint (a TCP port outside 1 to 65535 among them) or one in use is a
 * usage_error naming --zmq-pub. Warns on standard error, as --serve does, when
 * the socket is reachable from the network (not loopback TCP, IPC or in-process).
 */
std::unique_ptr<live_output> make_zmq_publisher(const std::string& endpoint, const std::string& name);

//! The live outputs the options ask for, with the run's wall-clock start.
class live_outputs
{
public:
    //! Binds every server (before any output file exists, so that a failure leaves none).
    explicit live_outputs(const options& o);
    /*!
     * One spectrum, `seconds` after the start, with its own frequencies (a
     * capture's or a whole sweep's); its unix_time and index are set here.
     */
    void publish(live_spectrum s, double seconds);

private:
    std::vector<std::unique_ptr<live_output>> d_outputs;
    double d_start_unix;
    std::uint64_t d_count = 0;
};

} // namespace gpufft_app

#endif
