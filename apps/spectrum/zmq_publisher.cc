// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-spectrum: --zmq-pub, every spectrum as one ZeroMQ PUB message in
 * gr-zeromq's tagged format, so that GNU Radio's ZMQ SUB Source with
 * pass_tags gets the bins as a float vector and the metadata as stream tags
 * (docs/receiver.md, "ZeroMQ feed"). */
#include "live.h"

#include <boost/asio/ip/address.hpp>
#include <zmq.hpp>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace gpufft_app {

namespace {

/* gr-zeromq's message header (gr-zeromq/lib/tag_headers.cc in GNU Radio
 * 3.8 to 3.10): magic, version, the first item's offset, the tag count, then
 * per tag its offset and key, value and source id, each a serialized PMT;
 * numbers in host order (little-endian here), the items follow. */
constexpr std::uint16_t gr_header_magic = 0x5FF0;
constexpr std::uint8_t gr_header_version = 0x01;

// PMT serialization type codes and big-endian numbers (gnuradio-runtime/lib/pmt/pmt_serialize.cc).
constexpr unsigned char pst_false = 0x01, pst_symbol = 0x02, pst_double = 0x04, pst_uniform_vector = 0x0a,
                        pst_uint64 = 0x0b, pst_tuple = 0x0c, uvi_f64 = 0x09;

template <typename T>
void put_host(std::string& out, T v)
{
    out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

void put_big_endian(std::string& out, std::uint64_t v, int bytes)
{
    for (int i = bytes - 1; i >= 0; --i)
        out.push_back(char((v >> (8 * i)) & 0xff));
}

void pmt_symbol(std::string& out, const std::string& s)
{
    out.push_back(char(pst_symbol));
    put_big_endian(out, std::min<std::size_t>(s.size(), 0xffff), 2);
    out.append(s, 0, 0xffff);
}

void pmt_double(std::string& out, double d)
{
    std::uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    out.push_back(char(pst_double));
    put_big_endian(out, bits, 8);
}

void pmt_uint64(std::string& out, std::uint64_t v)
{
    out.push_back(char(pst_uint64));
    put_big_endian(out, v, 8);
}

//! An f64vector: its element type, length, one byte of padding length and the padding (1), then the doubles.
void pmt_f64vector(std::string& out, const std::vector<double>& v)
{
    out.push_back(char(pst_uniform_vector));
    out.push_back(char(uvi_f64));
    put_big_endian(out, v.size(), 4);
    out.push_back(char(1));
    out.push_back(char(0));
    for (double d : v) {
        std::uint64_t bits;
        std::memcpy(&bits, &d, sizeof bits);
        put_big_endian(out, bits, 8);
    }
}

//! gr-uhd's rx_time: (whole seconds as uint64, fraction as double).
void pmt_time(std::string& out, double unix_time)
{
    const double whole = std::floor(unix_time);
    out.push_back(char(pst_tuple));
    put_big_endian(out, 2, 4);
    pmt_uint64(out, std::uint64_t(whole));
    pmt_double(out, unix_time - whole);
}

/*!
 * Refuses a TCP endpoint whose port is not 1 to 65535 in decimal: libzmq
 * takes the port modulo 65536 (99999 listens on 34463) and "*" or 0 for any,
 * which no subscriber could be told.
 */
void check_endpoint(const std::string& endpoint)
{
    // Without a transport libzmq says only "Invalid argument".
    if (endpoint.find("://") == std::string::npos)
        throw usage_error("--zmq-pub " + endpoint + ": expected an endpoint such as tcp://HOST:PORT (or ipc://PATH)");
    if (endpoint.rfind("tcp://", 0) != 0)
        return;
    const std::string port = endpoint.substr(endpoint.rfind(':') + 1);
    char* end = nullptr;
    const long number = std::strtol(port.c_str(), &end, 10);
    if (endpoint.rfind(':') < 6 || port.empty() || !std::isdigit(static_cast<unsigned char>(port[0])) || *end ||
        number < 1 || number > 65535)
        throw usage_error("--zmq-pub " + endpoint + ": expected tcp://HOST:PORT with a port 1 to 65535");
}

//! True unless the bound endpoint (ZMQ_LAST_ENDPOINT) is loopback TCP, IPC or in-process.
bool reachable_from_network(const std::string& bound)
{
    if (bound.rfind("ipc://", 0) == 0 || bound.rfind("inproc://", 0) == 0)
        return false;
    if (bound.rfind("tcp://", 0) != 0)
        return true; // multicast (pgm, epgm, norm), UDP, ...: the network
    std::string host = bound.substr(6, bound.rfind(':') - 6);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    boost::system::error_code ec;
    const auto address = boost::asio::ip::make_address(host, ec);
    return ec || !address.is_loopback();
}

class zmq_publisher final : public live_output
{
public:
    zmq_publisher(const std::string& endpoint, const std::string& name) : d_name(name)
    {
        try {
            // A slow subscriber loses whole messages beyond this many, never stalls publish().
            d_socket.set(zmq::sockopt::sndhwm, 64);
            // At exit, at most this long to hand the last spectra to the subscribers.
            d_socket.set(zmq::sockopt::linger, 500);
            check_endpoint(endpoint);
            d_socket.bind(endpoint);
        } catch (const zmq::error_t& e) {
            throw usage_error("--zmq-pub " + endpoint + ": " + e.what() + " (expected tcp://HOST:PORT or ipc://PATH)");
        }
        if (reachable_from_network(d_socket.get(zmq::sockopt::last_endpoint)))
            std::fprintf(stderr,
                         "gpufft-spectrum: warning: --zmq-pub %s is reachable from the network "
                         "(no authentication, no encryption)\n",
                         endpoint.c_str());
    }

    void publish(const live_spectrum& s) override
    {
        d_message.clear();
        put_host(d_message, gr_header_magic);
        put_host(d_message, gr_header_version);
        put_host(d_message, std::uint64_t(s.index)); // this message's item (vector) offset
        put_host(d_message, std::uint64_t(8 + (s.radio ? 1 : 0) + (s.dc_replaced_hz ? 1 : 0))); // tags, all on this vector
        const auto tag = [&](const char* key) {
            put_host(d_message, std::uint64_t(s.index));
            pmt_symbol(d_message, key);
        };
        const auto source = [&] { d_message.push_back(char(pst_false)); };
        tag("rx_time"), pmt_time(d_message, s.unix_time), source();
        tag("rx_freq"), pmt_double(d_message, s.center_hz), source();
        tag("rx_rate"), pmt_double(d_message, s.sample_rate), source();
        tag("bin_hz"), pmt_double(d_message, s.bin_hz), source();
        tag("f0_hz"), pmt_double(d_message, s.f0_hz), source();
        tag("fft_size"), pmt_uint64(d_message, s.fft_size), source();
        tag("name"), pmt_symbol(d_message, d_name), source();
        tag("db_scale"), pmt_symbol(d_message, "tone dBFS"), source(); // what the floats are
        if (s.radio) // the gain in force as the radio read it back, dB
            tag("rx_gain"), pmt_double(d_message, s.radio->gain_db), source();
        if (s.dc_replaced_hz) { // --dc replace: each run of replaced bins as its first and last bin's Hz
            d_replaced.clear();
            for (const auto& [lo, hi] : *s.dc_replaced_hz)
                d_replaced.insert(d_replaced.end(), { lo, hi });
            tag("dc_replaced_hz"), pmt_f64vector(d_message, d_replaced), source();
        }
        d_message.append(reinterpret_cast<const char*>(s.db), s.bins * sizeof(float));
        // PUB drops a message rather than block when a subscriber's queue is full.
        (void)d_socket.send(zmq::buffer(d_message), zmq::send_flags::dontwait);
    }

private:
    std::string d_name;
    zmq::context_t d_context{ 1 };
    zmq::socket_t d_socket{ d_context, zmq::socket_type::pub };
    std::string d_message;
    std::vector<double> d_replaced;
};

} // namespace

std::unique_ptr<live_output> make_zmq_publisher(const std::string& endpoint, const std::string& name)
{
    return std::make_unique<zmq_publisher>(endpoint, name);
}

} // namespace gpufft_app
