/* gpufft-spectrum: --serve, the web view. One page (apps/spectrum/web/
 * index.html, embedded at build time) and a WebSocket that sends it the
 * metadata as JSON text, each spectrum's waterfall row, average and
 * max-hold traces as binary frames, and a few times a second the
 * persistence histogram (README.md, "Web view"). Boost.Beast on
 * a thread of its own; every client has a short queue of its own where the
 * newest row wins, so a slow or stalled browser only loses frames itself. */
#include "live.h"
#include "persistence.h"

#include <gpufft/display.h>
#include <boost/asio.hpp>
#include <boost/beast.hpp>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <deque>
#include <set>
#include <thread>
#include <tuple>

namespace gpufft_app {

// The page, generated from apps/spectrum/web/index.html by apps/spectrum/web/embed.cmake.
extern const char web_page[];
extern const std::size_t web_page_size;

namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace net = boost::asio;
using tcp = net::ip::tcp;

// A browser draws at most its refresh rate; frames beyond it would only be dropped.
constexpr double max_frames_per_second = 60;
// Columns sent per row: enough for a wide screen, bounded for any FFT size.
constexpr std::size_t max_columns = 2048;
// Rows a client may have waiting; beyond it the oldest waiting row is dropped.
constexpr std::size_t max_queued_rows = 4;
// The binary frame: "GFSP", columns, traces, spectrum index (uint32 each), time (float64), then the traces.
constexpr char frame_magic[4] = { 'G', 'F', 'S', 'P' };
constexpr std::uint32_t traces = 3; // waterfall row (the newest spectrum), average, max-hold
// The histogram frame: "GFPH", columns, rows, spectrum index (uint32 each), time (float64), then a byte per cell.
constexpr char histogram_magic[4] = { 'G', 'F', 'P', 'H' };
// Histogram rows (0.7 dB each over a 70 dB range) and frames a second: W x H bytes
// each (at most 200 kB), so they come at a lower rate than the rows.
constexpr std::size_t histogram_rows = 100;
constexpr double max_histograms_per_second = 5;
// A live view forgets: a cell's count decays by this per spectrum (about 50 spectra of memory).
constexpr double histogram_decay = 0.98;

struct frame {
    std::shared_ptr<const std::string> bytes;
    bool text;
};

class hub;

//! One browser's WebSocket: its queue and the write in flight.
class ws_session : public std::enable_shared_from_this<ws_session>
{
public:
    ws_session(tcp::socket&& socket, hub& h) : d_ws(std::move(socket)), d_hub(h) {}
    void start(http::request<http::string_body> request);
    /*!
     * On the server's thread: queues a frame. A row beyond max_queued_rows
     * drops the oldest waiting row; new metadata drops everything waiting
     * (rows of the old metadata, older metadata), so the queue stays bounded.
     */
    void send(const frame& f)
    {
        if (f.text) {
            d_queue.erase(d_queue.begin() + (d_writing ? 1 : 0), d_queue.end());
        } else {
            std::size_t rows = 0;
            for (const auto& q : d_queue)
                rows += !q.text;
            if (rows >= max_queued_rows) {
                // The front is being written; drop the oldest row behind it.
                const auto oldest = std::find_if(d_queue.begin() + (d_writing ? 1 : 0), d_queue.end(),
                                                 [](const frame& q) { return !q.text; });
                if (oldest != d_queue.end())
                    d_queue.erase(oldest);
            }
        }
        d_queue.push_back(f);
        if (!d_writing)
            write_next();
    }

private:
    void write_next()
    {
        d_writing = true;
        d_ws.text(d_queue.front().text);
        d_ws.async_write(net::buffer(*d_queue.front().bytes),
                         [self = shared_from_this()](beast::error_code ec, std::size_t) {
                             self->d_queue.pop_front();
                             self->d_writing = false;
                             if (!ec && !self->d_queue.empty())
                                 self->write_next();
                         });
    }
    void read();

    websocket::stream<beast::tcp_stream> d_ws;
    hub& d_hub;
    beast::flat_buffer d_in;
    std::deque<frame> d_queue;
    bool d_writing = false;
};

//! The clients, touched only on the server's thread, and the metadata a new one gets first.
class hub
{
public:
    void join(const std::shared_ptr<ws_session>& s)
    {
        if (d_meta.bytes)
            s->send(d_meta);
        d_sessions.insert(s);
        ++clients;
    }
    void leave(const std::shared_ptr<ws_session>& s)
    {
        clients -= d_sessions.erase(s) ? 1 : 0;
    }
    void broadcast(const frame& f)
    {
        if (f.text)
            d_meta = f;
        for (const auto& s : d_sessions)
            s->send(f);
    }
    void clear() { d_sessions.clear(); }

    std::atomic<int> clients{ 0 };

private:
    std::set<std::shared_ptr<ws_session>> d_sessions;
    frame d_meta;
};

void ws_session::start(http::request<http::string_body> request)
{
    d_ws.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
    d_ws.auto_fragment(false); // a frame is one message, whatever its size
    d_ws.async_accept(request, [self = shared_from_this()](beast::error_code ec) {
        if (ec)
            return;
        self->d_hub.join(self);
        self->read();
    });
}

// The page sends nothing, but reading answers pings and notices a close.
void ws_session::read()
{
    d_ws.async_read(d_in, [self = shared_from_this()](beast::error_code ec, std::size_t) {
        if (ec) {
            self->d_hub.leave(self);
            return;
        }
        self->d_in.clear();
        self->read();
    });
}

//! One HTTP request: the page, or the WebSocket upgrade at /ws.
class http_session : public std::enable_shared_from_this<http_session>
{
public:
    http_session(tcp::socket&& socket, hub& h) : d_stream(std::move(socket)), d_hub(h) {}
    void start()
    {
        d_stream.expires_after(std::chrono::seconds(30));
        http::async_read(d_stream, d_in, d_request, [self = shared_from_this()](beast::error_code ec, std::size_t) {
            if (!ec)
                self->answer();
        });
    }

private:
    void answer()
    {
        const std::string target(d_request.target());
        const std::string path = target.substr(0, target.find('?')); // the page's options are the page's
        if (websocket::is_upgrade(d_request) && path == "/ws") {
            d_stream.expires_never(); // the WebSocket's own timeouts take over
            std::make_shared<ws_session>(d_stream.release_socket(), d_hub)->start(std::move(d_request));
            return;
        }
        const bool page = d_request.method() == http::verb::get && (path == "/" || path == "/index.html");
        d_response.version(d_request.version());
        d_response.keep_alive(false);
        d_response.set(http::field::server, "gpufft-spectrum");
        d_response.set(http::field::cache_control, "no-store");
        if (page) {
            d_response.result(http::status::ok);
            d_response.set(http::field::content_type, "text/html; charset=utf-8");
            d_response.body().assign(web_page, web_page_size);
        } else {
            d_response.result(http::status::not_found);
            d_response.set(http::field::content_type, "text/plain");
            d_response.body() = "not found\n";
        }
        d_response.prepare_payload();
        http::async_write(d_stream, d_response, [self = shared_from_this()](beast::error_code, std::size_t) {
            beast::error_code ignored;
            self->d_stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
        });
    }

    beast::tcp_stream d_stream;
    hub& d_hub;
    beast::flat_buffer d_in;
    http::request<http::string_body> d_request;
    http::response<http::string_body> d_response;
};

//! "HOST:PORT", "[V6]:PORT", "PORT" or ":PORT" (the last two on 127.0.0.1).
tcp::endpoint parse_address(const std::string& address)
{
    const auto colon = address.rfind(':');
    std::string host = colon == std::string::npos ? "127.0.0.1" : address.substr(0, colon);
    const std::string port = colon == std::string::npos ? address : address.substr(colon + 1);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    if (host.empty()) // ":8073"
        host = "127.0.0.1";
    char* end = nullptr;
    const long number = std::strtol(port.c_str(), &end, 10);
    if (port.empty() || *end || number < 0 || number > 65535)
        throw usage_error("--serve " + address + ": expected HOST:PORT with a port 0 to 65535");
    net::io_context io;
    tcp::resolver resolver(io);
    beast::error_code ec;
    const auto found = resolver.resolve(host, port, tcp::resolver::numeric_service, ec);
    if (ec || found.empty())
        throw usage_error("--serve " + address + ": cannot resolve " + host + ": " + ec.message());
    return found.begin()->endpoint();
}

class web_server final : public live_output
{
public:
    web_server(const std::string& address, const std::string& name) : d_name(name)
    {
        const tcp::endpoint at = parse_address(address);
        beast::error_code ec;
        d_acceptor.open(at.protocol(), ec);
        if (!ec)
            d_acceptor.set_option(net::socket_base::reuse_address(true), ec);
        if (!ec)
            d_acceptor.bind(at, ec);
        if (!ec)
            d_acceptor.listen(net::socket_base::max_listen_connections, ec);
        if (ec)
            throw usage_error("--serve " + address + ": cannot listen: " + ec.message());
        const tcp::endpoint bound = d_acceptor.local_endpoint();
        const std::string host = bound.address().is_v6() ? "[" + bound.address().to_string() + "]"
                                                         : bound.address().to_string();
        if (!bound.address().is_loopback())
            std::fprintf(stderr,
                         "gpufft-spectrum: warning: --serve %s is reachable from the network "
                         "(no password, no TLS)\n",
                         address.c_str());
        std::fprintf(stderr, "gpufft-spectrum: web view on http://%s:%u/\n", host.c_str(), unsigned(bound.port()));
        accept();
        d_thread = std::thread([this] { d_io.run(); });
    }

    ~web_server() override
    {
        d_io.stop();
        d_thread.join();
        d_hub.clear();
    }

    void publish(const live_spectrum& s) override
    {
        if (!d_display || s.bins != d_bins || s.f0_hz != d_f0 || s.bin_hz != d_bin_hz || s.center_hz != d_center ||
            s.sample_rate != d_rate)
            restart(s);
        else if (s.overflows != d_overflows) // the page shows the count: it comes with the metadata
            post_meta(s);
        d_display->push(s.db, 1);
        const auto now = std::chrono::steady_clock::now();
        if (d_hub.clients.load() == 0 || now - d_last_frame < std::chrono::duration<double>(1 / max_frames_per_second))
            return;
        d_last_frame = now;
        const std::size_t columns = d_display->config().width;
        auto bytes = std::make_shared<std::string>(24 + traces * columns * sizeof(float), '\0');
        char* p = bytes->data();
        const std::uint32_t head[3] = { std::uint32_t(columns), traces, std::uint32_t(s.index) };
        std::memcpy(p, frame_magic, 4);
        std::memcpy(p + 4, head, sizeof head);
        std::memcpy(p + 16, &s.unix_time, 8);
        float* rows = reinterpret_cast<float*>(p + 24);
        d_display->read_waterfall(rows, 1);
        d_display->read_average(rows + columns);
        d_display->read_max_hold(rows + 2 * columns);
        post({ std::move(bytes), false });
        if (now - d_last_histogram >= std::chrono::duration<double>(1 / max_histograms_per_second)) {
            d_last_histogram = now;
            post({ histogram_frame(s), false });
        }
    }

private:
    void accept()
    {
        d_acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
            if (!ec)
                std::make_shared<http_session>(std::move(socket), d_hub)->start();
            if (d_acceptor.is_open())
                accept();
        });
    }

    /*!
     * The histogram as bytes: cell (r, c) at r W + c, row 0 the lowest dB;
     * 0 where the column never reached that row, else 1 + 254 (1 + log10(share)
     * / 3) clamped to 1..255, share being the cell's part of its column's
     * count (the persistence PNG's scale, 0.1% to 100%).
     */
    std::shared_ptr<const std::string> histogram_frame(const live_spectrum& s)
    {
        const std::size_t columns = d_display->config().width, cells = columns * histogram_rows;
        d_histogram.resize(cells);
        d_display->read_histogram(d_histogram.data());
        auto bytes = std::make_shared<std::string>(24 + cells, '\0');
        char* p = bytes->data();
        const std::uint32_t head[3] = { std::uint32_t(columns), std::uint32_t(histogram_rows), std::uint32_t(s.index) };
        std::memcpy(p, histogram_magic, 4);
        std::memcpy(p + 4, head, sizeof head);
        std::memcpy(p + 16, &s.unix_time, 8);
        unsigned char* out = reinterpret_cast<unsigned char*>(p + 24);
        for (std::size_t c = 0; c < columns; ++c) {
            double total = 0;
            for (std::size_t r = 0; r < histogram_rows; ++r)
                total += d_histogram[r * columns + c];
            for (std::size_t r = 0; r < histogram_rows && total > 0; ++r) {
                const float h = d_histogram[r * columns + c];
                if (h > 0) {
                    const double level = 1 + std::log10(h / total) / persistence::share_decades;
                    out[r * columns + c] = (unsigned char)(1 + std::lround(254 * std::clamp(level, 0.0, 1.0)));
                }
            }
        }
        return bytes;
    }

    void post(frame f)
    {
        net::post(d_io, [this, f = std::move(f)] { d_hub.broadcast(f); });
    }

    //! New metadata: a new display, and every client gets the JSON first.
    void restart(const live_spectrum& s)
    {
        d_bins = s.bins, d_f0 = s.f0_hz, d_bin_hz = s.bin_hz, d_center = s.center_hz, d_rate = s.sample_rate;
        gpufft::display_config c;
        c.n = s.bins;
        c.width = std::min(s.bins, max_columns);
        c.height = histogram_rows;
        std::tie(c.db_min, c.db_max) = db_range_from(s.db, s.bins);
        c.decay = histogram_decay;
        c.waterfall_rows = 1;
        c.average = gpufft::display_average::exponential;
        c.alpha = 0.1;
        d_display = std::make_unique<gpufft::display>(c);
        post_meta(s);
    }

    //! The current display's metadata, with the device overflows so far.
    void post_meta(const live_spectrum& s)
    {
        d_overflows = s.overflows;
        const gpufft::display_config& c = d_display->config();
        const nlohmann::json meta = {
            { "type", "meta" },
            { "name", d_name },
            { "center_hz", s.center_hz },
            { "sample_rate", s.sample_rate },
            { "fft_size", s.fft_size },
            { "bins", s.bins },
            { "bin_hz", s.bin_hz },
            { "f0_hz", s.f0_hz },
            { "f_lo_hz", s.f0_hz - s.bin_hz / 2 }, // the left edge of column 0
            { "f_hi_hz", s.f0_hz + (double(s.bins) - 0.5) * s.bin_hz },
            { "columns", c.width },
            { "traces", { "waterfall", "average", "max_hold" } },
            { "histogram",
              { { "rows", c.height }, { "db_min", c.db_min }, { "db_max", c.db_max }, { "decay", c.decay },
                { "share_decades", persistence::share_decades }, { "max_fps", max_histograms_per_second } } },
            { "average_alpha", c.alpha },
            { "db_scale", "tone dBFS" },
            { "max_fps", max_frames_per_second },
            { "overflows", s.overflows },
            { "lost_s", s.lost_s },
        };
        post({ std::make_shared<const std::string>(meta.dump()), true });
    }

    std::string d_name;
    net::io_context d_io;
    tcp::acceptor d_acceptor{ d_io };
    hub d_hub;
    std::thread d_thread;
    // The capture thread's own: the display and the metadata it was made for.
    std::unique_ptr<gpufft::display> d_display;
    std::size_t d_bins = 0, d_overflows = 0;
    double d_f0 = 0, d_bin_hz = 0, d_center = 0, d_rate = 0;
    std::vector<float> d_histogram;
    std::chrono::steady_clock::time_point d_last_frame{}, d_last_histogram{};
};

} // namespace

std::unique_ptr<live_output> make_web_server(const std::string& address, const std::string& name)
{
    return std::make_unique<web_server>(address, name);
}

} // namespace gpufft_app
