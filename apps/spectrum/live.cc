/* gpufft-spectrum: the live outputs the options ask for, fed every spectrum. */
#include "live.h"

#include <chrono>

namespace gpufft_app {

live_outputs::live_outputs(const options& o)
    : d_start_unix(std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count())
{
    if (!o.serve.empty())
        d_outputs.push_back(make_web_server(o.serve, o.name));
    if (!o.zmq_pub.empty())
        d_outputs.push_back(make_zmq_publisher(o.zmq_pub, o.name));
}

void live_outputs::publish(const float* db, std::size_t bins, double seconds, const iq_source& src,
                           const gpufft::spectrum& engine)
{
    if (d_outputs.empty())
        return;
    live_spectrum s;
    s.db = db;
    s.bins = bins;
    s.f0_hz = src.center_hz + engine.bin_hz(0);
    s.bin_hz = engine.config().sample_rate / double(engine.fft_size());
    s.center_hz = src.center_hz;
    s.sample_rate = engine.config().sample_rate;
    s.fft_size = engine.fft_size();
    s.unix_time = d_start_unix + seconds;
    s.index = d_count++;
    for (auto& out : d_outputs)
        out->publish(s);
}

} // namespace gpufft_app
