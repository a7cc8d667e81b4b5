// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-spectrum: the live outputs the options ask for, fed every spectrum. */
#include "live.h"

#include <chrono>
#include <csignal>
#include <pthread.h>

namespace gpufft_app {

namespace {

/* While it lives, the stop signals are blocked in this thread, and so in every
 * thread started meanwhile (the web server's, libzmq's): a process-directed
 * signal then always reaches the capture thread, whose wait for input it must
 * end (pump(), input.cc), not a thread that ignores it (signal(7)). */
class stop_signals_blocked
{
public:
    stop_signals_blocked()
    {
        sigset_t stops;
        sigemptyset(&stops);
        for (int sig : { SIGINT, SIGTERM, SIGHUP })
            sigaddset(&stops, sig);
        pthread_sigmask(SIG_BLOCK, &stops, &d_before);
    }
    ~stop_signals_blocked() { pthread_sigmask(SIG_SETMASK, &d_before, nullptr); }
    stop_signals_blocked(const stop_signals_blocked&) = delete;
    stop_signals_blocked& operator=(const stop_signals_blocked&) = delete;

private:
    sigset_t d_before;
};

} // namespace

live_outputs::live_outputs(const options& o)
    : d_start_unix(std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count())
{
    const stop_signals_blocked in_their_threads;
    if (!o.serve.empty())
        d_outputs.push_back(make_web_server(o.serve, o.name, o.serve_origins));
    if (!o.zmq_pub.empty())
        d_outputs.push_back(make_zmq_publisher(o.zmq_pub, o.name));
}

live_spectrum capture_spectrum(double center_hz, const gpufft::spectrum& engine)
{
    live_spectrum s;
    s.bins = engine.fft_size();
    s.f0_hz = center_hz + engine.bin_hz(0);
    s.bin_hz = engine.config().sample_rate / double(engine.fft_size());
    s.center_hz = center_hz;
    s.sample_rate = engine.config().sample_rate;
    s.fft_size = engine.fft_size();
    return s;
}

void live_outputs::publish(live_spectrum s, double seconds)
{
    if (d_outputs.empty())
        return;
    s.unix_time = d_start_unix + seconds;
    s.index = d_count++;
    for (auto& out : d_outputs)
        out->publish(s);
}

} // namespace gpufft_app
