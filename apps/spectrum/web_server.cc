// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-spectrum: --serve, the web view. One page (apps/spectrum/web/
 * index.html, embedded at build time) and a WebSocket that sends it the
 * metadata as JSON text, each spectrum's waterfall row, average and
 * max-hold traces as binary frames, and a few times a second the
 * persistence histogram (docs/receiver.md, "Web view"; docs/web-view.md). Boost.Beast on
 * a thread of its own; every client has a short queue of its own where the
 * newest row wins, so a slow or stalled browser only loses frames itself
 * (and is told how many); a client that acknowledges what it has read (the
 * page does) has at most a few messages in flight, so that what it shows is
 * never more than those behind.
 * A client may ask for a frequency window (its page's zoom): its rows and
 * its persistence histogram are then that window's bins in up to 2048
 * columns, not the band's columns stretched.
 * Whom it serves (docs/web-view.md): requests whose Host names this server
 * (no DNS rebinding), WebSockets from its own page or an allowed origin (no
 * other page the user visits), a bounded number of clients and connections,
 * and nothing but control frames from a client. */
#include "live.h"
#include "persistence.h"
#include "plot.h"

#include <gpufft/display.h>
#include <boost/asio.hpp>
#include <boost/beast.hpp>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstring>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sys/resource.h>
#include <thread>
#include <tuple>
#include <unistd.h>

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
// Messages sent to a client that acknowledges ({"ack":N}) and not yet
// acknowledged: the socket's and the browser's buffers then hold at most
// these, so a row shown is at most these and the queue behind the newest.
constexpr std::uint64_t max_unacked = 4;
// While rows wait, a histogram or a count of rows lost goes only after this
// many rows: a client that falls behind gets mostly rows.
constexpr std::size_t rows_before_other = 4;
// The binary frame: "GFSP", columns, traces, spectrum index (uint32 each), time (float64), then the traces.
constexpr char frame_magic[4] = { 'G', 'F', 'S', 'P' };
// A client's window: "GFSV", the same header and its edges (float64 f_lo_hz, f_hi_hz), then the traces.
constexpr char view_magic[4] = { 'G', 'F', 'S', 'V' };
constexpr std::uint32_t traces = 3; // waterfall row (the newest spectrum), average, max-hold
// The histogram frame: "GFPH", columns, rows, spectrum index (uint32 each), time (float64), then a byte per cell.
constexpr char histogram_magic[4] = { 'G', 'F', 'P', 'H' };
// A client's window's histogram: "GFVH", the same header and its edges (float64 f_lo_hz, f_hi_hz), then the cells.
constexpr char view_histogram_magic[4] = { 'G', 'F', 'V', 'H' };
// Rows a client has lost so far (its queue was full): "GFDR", uint32 count (low 32 bits).
constexpr char dropped_magic[4] = { 'G', 'F', 'D', 'R' };
// Windows with a histogram of their own (each costs the capture thread its
// bins every spectrum); a client's window beyond them gets the band's.
constexpr std::size_t max_view_histograms = 4;
// Histogram rows (0.7 dB each over a 70 dB range) and frames a second: W x H bytes
// each (at most 200 kB), so they come at a lower rate than the rows.
constexpr std::size_t histogram_rows = 100;
constexpr double max_histograms_per_second = 5;
// A live view forgets: a cell's count decays by this per spectrum (about 50 spectra of memory).
constexpr double histogram_decay = 0.98;
// The average trace: exponential, this weight of the newest spectrum.
constexpr float average_alpha = 0.1f;
// The page sends no message; a client's data message beyond this many bytes
// closes it (1009, too big). Pings and closes are control frames of at most 125 bytes.
constexpr std::size_t max_client_message = 64;
// A request's header (a browser's is under 2 kB); a longer one ends the connection.
constexpr std::size_t max_request_header = 8192;
// WebSockets at once (each holds up to max_queued_rows rows and a histogram); one more gets 503.
constexpr std::size_t max_clients = 32;
// Connections of any kind at once, and the descriptors kept free for the rest
// of the run (its output files, the input, libraries) beyond those open when
// the server starts; a connection beyond the cap is answered 503 and closed at once.
constexpr std::size_t max_connections = 256, reserved_descriptors = 32;
// When no descriptor is left (EMFILE, ENFILE): the pause before the next accept.
constexpr std::chrono::milliseconds accept_backoff{ 100 };

//! What a message is to a client's queue.
enum class frame_kind {
    meta,      //!< the metadata (text)
    row,       //!< the traces, the band's or a window's
    histogram, //!< the persistence histogram, the band's or a window's
    dropped    //!< the client's count of rows lost
};

struct frame {
    std::shared_ptr<const std::string> bytes;
    frame_kind kind = frame_kind::row;
};

//! A client's frequency window, [lo, hi] Hz, as its page asked.
using view = std::pair<double, double>;

//! A client's message: a window, or how many messages it has read.
struct client_message {
    enum {
        none,   //!< anything else
        window, //!< {"view":...}
        ack     //!< {"ack":N}
    } kind = none;
    std::optional<view> window_asked; //!< none: the band
    std::uint64_t read = 0;           //!< messages read, for an ack
};

/*!
 * {"view":[LO,HI]} (Hz, finite, LO < HI) asks for that window,
 * {"view":null} for the band; {"ack":N} says the client has read N messages
 * (N a whole number). Anything else is none (ignored: the page sends nothing else).
 */
client_message parse_client_message(const std::string& text)
{
    client_message m;
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object() || j.size() != 1)
        return m;
    if (j.contains("ack")) {
        if (j["ack"].is_number_unsigned()) {
            m.kind = client_message::ack;
            m.read = j["ack"].get<std::uint64_t>();
        }
        return m;
    }
    if (!j.contains("view"))
        return m;
    const nlohmann::json& v = j["view"];
    if (v.is_null()) {
        m.kind = client_message::window;
        return m;
    }
    if (!v.is_array() || v.size() != 2 || !v[0].is_number() || !v[1].is_number())
        return m;
    const double lo = v[0].get<double>(), hi = v[1].get<double>();
    if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi))
        return m;
    m.kind = client_message::window;
    m.window_asked = view{ lo, hi };
    return m;
}

//! What the clients want now: the band's rows (a client without a window) and the windows asked for.
struct wanted_rows {
    bool band = false;
    std::vector<view> views;
};

//! One message of a kind for every client: the band's frame and each window's.
struct rows_batch {
    frame band;
    std::vector<std::pair<view, frame>> views;
};

class hub;

//! Counts the objects alive that hold one of something (a connection, a WebSocket); server thread only.
class counted
{
public:
    explicit counted(std::size_t& count) : d_count(count) { ++d_count; }
    ~counted() { --d_count; }
    counted(const counted&) = delete;
    counted& operator=(const counted&) = delete;

private:
    std::size_t& d_count;
};

//! One browser's WebSocket: its queue and the write in flight.
class ws_session : public std::enable_shared_from_this<ws_session>
{
public:
    ws_session(tcp::socket&& socket, hub& h);
    void start(http::request<http::string_body> request);
    /*!
     * On the server's thread: queues a frame. A row beyond max_queued_rows
     * drops the oldest waiting row, and the client is told its count of rows
     * lost before the next row; a histogram replaces one waiting; new
     * metadata drops everything waiting (rows of the old metadata, older
     * metadata), so the queue stays bounded.
     */
    void send(const frame& f)
    {
        // The front, if being written, stays.
        const auto waiting = [this] { return d_queue.begin() + (d_writing ? 1 : 0); };
        const auto drop = [&](frame_kind k) {
            const auto first = std::find_if(waiting(), d_queue.end(), [k](const frame& q) { return q.kind == k; });
            if (first != d_queue.end())
                d_queue.erase(first);
            return first != d_queue.end();
        };
        const auto rows_waiting = [&] {
            return std::size_t(std::count_if(waiting(), d_queue.end(), [](const frame& q) { return q.kind == frame_kind::row; }));
        };
        if (f.kind == frame_kind::meta) {
            d_dropped += rows_waiting();
            d_queue.erase(waiting(), d_queue.end());
        } else if (f.kind == frame_kind::histogram) {
            drop(frame_kind::histogram);
        } else if (f.kind == frame_kind::row) {
            if (rows_waiting() >= max_queued_rows && drop(frame_kind::row))
                ++d_dropped;
            if (d_dropped != d_reported) { // the rows lost so far: a count waiting is updated where it waits
                auto bytes = std::make_shared<std::string>(8, '\0');
                const std::uint32_t count = std::uint32_t(d_dropped);
                std::memcpy(bytes->data(), dropped_magic, 4);
                std::memcpy(bytes->data() + 4, &count, 4);
                const auto waiting_count = std::find_if(
                    waiting(), d_queue.end(), [](const frame& q) { return q.kind == frame_kind::dropped; });
                if (waiting_count != d_queue.end())
                    waiting_count->bytes = std::move(bytes);
                else
                    d_queue.push_back({ std::move(bytes), frame_kind::dropped });
                d_reported = d_dropped;
            }
        }
        d_queue.push_back(f);
        write_next();
    }
    //! The window this client asked for; none: the band.
    const std::optional<view>& window() const { return d_view; }
    void set_window(const std::optional<view>& v) { d_view = v; }
    //! The client has read `read` messages (a page acknowledges each): from now on at most max_unacked in flight.
    void acknowledge(std::uint64_t read)
    {
        d_acknowledging = true;
        d_acked = std::clamp(read, d_acked, d_started); // more than was sent: all of it
        write_next();
    }

private:
    /*!
     * The front of the queue (a row waiting instead, if the front is a
     * histogram or a count and fewer than rows_before_other rows went since
     * the last of those), unless a write is in flight or an acknowledging
     * client has max_unacked unread.
     */
    void write_next()
    {
        if (d_writing || d_queue.empty() || (d_acknowledging && d_started - d_acked >= max_unacked))
            return;
        const auto is_row = [](const frame& q) { return q.kind == frame_kind::row; };
        if ((d_queue.front().kind == frame_kind::histogram || d_queue.front().kind == frame_kind::dropped) &&
            d_rows_in_turn < rows_before_other) {
            const auto row = std::find_if(d_queue.begin(), d_queue.end(), is_row);
            if (row != d_queue.end())
                std::rotate(d_queue.begin(), row, row + 1);
        }
        d_rows_in_turn = is_row(d_queue.front()) ? d_rows_in_turn + 1 : 0;
        d_writing = true;
        ++d_started;
        d_ws.text(d_queue.front().kind == frame_kind::meta);
        d_ws.async_write(net::buffer(*d_queue.front().bytes),
                         [self = shared_from_this()](beast::error_code ec, std::size_t) {
                             self->d_queue.pop_front();
                             self->d_writing = false;
                             if (!ec)
                                 self->write_next();
                         });
    }
    void read();

    websocket::stream<beast::tcp_stream> d_ws;
    hub& d_hub;
    counted d_connection, d_websocket;
    beast::flat_buffer d_in{ max_client_message };
    std::deque<frame> d_queue;
    bool d_writing = false;
    std::optional<view> d_view;
    std::size_t d_dropped = 0, d_reported = 0; // rows lost, and the count the client was last sent
    bool d_acknowledging = false;              // it has sent an ack
    std::uint64_t d_started = 0, d_acked = 0;  // messages whose write began, and those it says it read
    std::size_t d_rows_in_turn = 0;            // rows written since the last other message
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
        update_wanted();
    }
    void leave(const std::shared_ptr<ws_session>& s)
    {
        clients -= d_sessions.erase(s) ? 1 : 0;
        update_wanted();
    }
    void set_window(const std::shared_ptr<ws_session>& s, const std::optional<view>& v)
    {
        s->set_window(v);
        update_wanted();
    }
    void broadcast(const frame& f)
    {
        if (f.kind == frame_kind::meta)
            d_meta = f;
        for (const auto& s : d_sessions)
            s->send(f);
    }
    /*!
     * Each client its frame: the band's, or its window's (none if it asked for
     * another one since the batch was made); rows and histograms alike.
     */
    void send_rows(const rows_batch& b)
    {
        for (const auto& s : d_sessions) {
            if (!s->window()) {
                if (b.band.bytes)
                    s->send(b.band);
                continue;
            }
            for (const auto& [v, f] : b.views)
                if (v == *s->window()) {
                    if (f.bytes)
                        s->send(f);
                    break;
                }
        }
    }
    void clear() { d_sessions.clear(); }
    //! For the capture thread: the rows to make, and the count of changes they reflect.
    std::pair<wanted_rows, std::uint64_t> wanted() const
    {
        const std::lock_guard<std::mutex> lock(d_wanted_mutex);
        return { d_wanted, d_wanted_changes.load() };
    }
    //! For the capture thread: changes to what the clients want (read every spectrum, without a lock).
    std::uint64_t wanted_changes() const { return d_wanted_changes.load(); }

    std::atomic<int> clients{ 0 }; //!< joined: read by the capture thread
    std::size_t connections = 0;   //!< open sockets, HTTP and WebSocket
    std::size_t websockets = 0;    //!< WebSocket sessions alive, joined or not

private:
    void update_wanted()
    {
        std::set<view> views;
        bool band = false;
        for (const auto& s : d_sessions) {
            if (s->window())
                views.insert(*s->window());
            else
                band = true;
        }
        const std::lock_guard<std::mutex> lock(d_wanted_mutex);
        d_wanted.band = band;
        d_wanted.views.assign(views.begin(), views.end());
        ++d_wanted_changes;
    }

    std::set<std::shared_ptr<ws_session>> d_sessions;
    frame d_meta;
    mutable std::mutex d_wanted_mutex;
    wanted_rows d_wanted;
    std::atomic<std::uint64_t> d_wanted_changes{ 0 };
};

ws_session::ws_session(tcp::socket&& socket, hub& h)
    : d_ws(std::move(socket)), d_hub(h), d_connection(h.connections), d_websocket(h.websockets)
{
}

void ws_session::start(http::request<http::string_body> request)
{
    d_ws.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
    d_ws.auto_fragment(false); // a frame is one message, whatever its size
    d_ws.read_message_max(max_client_message);
    d_ws.async_accept(request, [self = shared_from_this()](beast::error_code ec) {
        if (ec)
            return;
        self->d_hub.join(self);
        self->read();
    });
}

// The page sends its window, if zoomed, and acknowledges what it read; reading also
// answers pings and notices a close; a message beyond max_client_message ends the
// session (Beast closes with 1009).
void ws_session::read()
{
    d_ws.async_read(d_in, [self = shared_from_this()](beast::error_code ec, std::size_t) {
        if (ec) {
            self->d_hub.leave(self);
            return;
        }
        if (self->d_ws.got_text()) {
            const client_message m = parse_client_message(beast::buffers_to_string(self->d_in.data()));
            if (m.kind == client_message::window)
                self->d_hub.set_window(self, m.window_asked);
            else if (m.kind == client_message::ack)
                self->acknowledge(m.read);
        }
        self->d_in.clear();
        self->read();
    });
}

std::string lower(std::string s)
{
    for (char& c : s)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

//! The host of a Host header value or an origin's authority ("name:port", "[v6]:port", "name"), lower case.
std::string host_name(const std::string& authority)
{
    std::string host = authority;
    if (!host.empty() && host.front() == '[')
        host = host.substr(1, host.find(']') - 1);
    else if (host.find(':') == host.rfind(':')) // one colon: a port; more: a bare IPv6 address
        host = host.substr(0, host.find(':'));
    if (!host.empty() && host.back() == '.')
        host.pop_back();
    return lower(host);
}

//! Who may use the server: the Host names it answers to and the origins whose pages may open the WebSocket.
struct admission {
    std::set<std::string> hosts;   //!< besides IP literals, which no DNS rebinding can send
    std::set<std::string> origins; //!< "scheme://host[:port]", lower case, besides the page's own

    bool host_allowed(const std::string& host_header) const
    {
        const std::string host = host_name(host_header);
        beast::error_code ec;
        net::ip::make_address(host, ec);
        return !ec || hosts.count(host);
    }
    //! A browser always sends Origin; a client without one is no page the user visits.
    bool origin_allowed(const std::string& origin, const std::string& host_header) const
    {
        const std::string o = lower(origin);
        return origins.count(o) || o == "http://" + lower(host_header) || o == "https://" + lower(host_header);
    }
};

//! One HTTP request: the page, or the WebSocket upgrade at /ws.
class http_session : public std::enable_shared_from_this<http_session>
{
public:
    http_session(tcp::socket&& socket, hub& h, const admission& a)
        : d_stream(std::move(socket)), d_hub(h), d_admission(a), d_connection(h.connections)
    {
    }
    void start()
    {
        d_stream.expires_after(std::chrono::seconds(30));
        d_parser.header_limit(max_request_header);
        d_parser.body_limit(0); // the page's requests have none
        http::async_read(d_stream, d_in, d_parser, [self = shared_from_this()](beast::error_code ec, std::size_t) {
            if (ec)
                return;
            self->d_request = self->d_parser.release();
            self->answer();
        });
    }

private:
    void answer()
    {
        const std::string target(d_request.target());
        const std::string path = target.substr(0, target.find('?')); // the page's options are the page's
        const auto host = d_request.find(http::field::host);
        const auto origin = d_request.find(http::field::origin);
        const std::string host_header = host == d_request.end() ? "" : std::string(host->value());
        d_response.set(http::field::content_type, "text/plain");
        if (host == d_request.end() || !d_admission.host_allowed(host_header)) {
            text_reply(http::status::forbidden, "this server does not answer to the host \"" + host_header +
                                                "\" (--serve-origin allows one)\n");
        } else if (websocket::is_upgrade(d_request) && path == "/ws") {
            if (origin != d_request.end() && !d_admission.origin_allowed(std::string(origin->value()), host_header)) {
                text_reply(http::status::forbidden, "WebSocket from origin " + std::string(origin->value()) +
                                                    " refused (--serve-origin allows one)\n");
            } else if (d_hub.websockets >= max_clients) {
                text_reply(http::status::service_unavailable,
                       "too many clients (" + std::to_string(max_clients) + "); try again later\n");
            } else {
                d_stream.expires_never(); // the WebSocket's own timeouts take over
                std::make_shared<ws_session>(d_stream.release_socket(), d_hub)->start(std::move(d_request));
                return;
            }
        } else if (d_request.method() == http::verb::get && (path == "/" || path == "/index.html")) {
            d_response.result(http::status::ok);
            d_response.set(http::field::content_type, "text/html; charset=utf-8");
            d_response.body().assign(web_page, web_page_size);
        } else {
            text_reply(http::status::not_found, "not found\n");
        }
        d_response.version(d_request.version());
        d_response.keep_alive(false);
        d_response.set(http::field::server, "gpufft-spectrum");
        d_response.set(http::field::cache_control, "no-store");
        d_response.prepare_payload();
        http::async_write(d_stream, d_response, [self = shared_from_this()](beast::error_code, std::size_t) {
            beast::error_code ignored;
            self->d_stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
        });
    }

    void text_reply(http::status status, const std::string& text)
    {
        d_response.result(status);
        d_response.body() = text;
    }

    beast::tcp_stream d_stream;
    hub& d_hub;
    const admission& d_admission;
    counted d_connection;
    beast::flat_buffer d_in{ max_request_header };
    http::request_parser<http::string_body> d_parser;
    http::request<http::string_body> d_request;
    http::response<http::string_body> d_response;
};

//! "HOST:PORT", "[V6]:PORT", "PORT" or ":PORT" (the last two on 127.0.0.1); `host` is set to HOST.
tcp::endpoint parse_address(const std::string& address, std::string& host)
{
    const auto colon = address.rfind(':');
    host = colon == std::string::npos ? "127.0.0.1" : address.substr(0, colon);
    const std::string port = colon == std::string::npos ? address : address.substr(colon + 1);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    if (host.empty()) // ":8073"
        host = "127.0.0.1";
    if (!check_number(port, 0, 65535, true).empty())
        throw usage_error("--serve " + address + ": expected HOST:PORT with a port 0 to 65535");
    net::io_context io;
    tcp::resolver resolver(io);
    beast::error_code ec;
    const auto found = resolver.resolve(host, port, tcp::resolver::numeric_service, ec);
    if (ec || found.empty())
        throw usage_error("--serve " + address + ": cannot resolve " + host + ": " + ec.message());
    return found.begin()->endpoint();
}

//! A --serve-origin value as a browser sends its Origin: "http://HOST[:PORT]" or "https://...", lower case.
std::string parse_origin(const std::string& text)
{
    std::string origin = lower(text);
    if (!origin.empty() && origin.back() == '/')
        origin.pop_back();
    const auto scheme_end = origin.find("://");
    const std::string scheme = origin.substr(0, scheme_end);
    const std::string authority = scheme_end == std::string::npos ? "" : origin.substr(scheme_end + 3);
    if ((scheme != "http" && scheme != "https") || authority.find_first_of("/?#@ ") != std::string::npos ||
        host_name(authority).empty())
        throw usage_error("--serve-origin " + text + ": expected an origin, http://HOST[:PORT] or https://HOST[:PORT]");
    return origin;
}

/*!
 * The names a request's Host may give besides IP literals: localhost, the
 * --serve HOST if it is a name, this machine's name (and NAME.local, as mDNS
 * gives it), and the hosts of the allowed origins (a proxy passes them on).
 */
admission admit(const std::string& serve_host, const std::vector<std::string>& origins)
{
    admission a;
    a.hosts = { "localhost", host_name(serve_host) };
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) == 0 && name[0]) {
        const std::string full = lower(name), first = full.substr(0, full.find('.'));
        a.hosts.insert({ full, first, first + ".local" });
    }
    for (const auto& text : origins) {
        const std::string origin = parse_origin(text);
        a.origins.insert(origin);
        a.hosts.insert(host_name(origin.substr(origin.find("://") + 3)));
    }
    return a;
}

/*!
 * Connections the server may hold: max_connections, or fewer where the
 * descriptor limit leaves less beside the descriptors open now and
 * reserved_descriptors, so that a crowd of clients never takes the
 * descriptors the run's outputs need.
 */
std::size_t connection_cap()
{
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
        return max_connections;
    std::size_t open = 0;
    std::error_code ec;
    for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end; it.increment(ec))
        ++open;
    const std::size_t have = std::size_t(limit.rlim_cur), keep = open + reserved_descriptors;
    return std::clamp<std::size_t>(have > keep ? have - keep : 0, 1, max_connections);
}

//! A connection beyond the cap: a 503 if the socket takes it at once, then closed (its descriptor back now).
void refuse_connection(tcp::socket& socket)
{
    static constexpr char busy[] = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n"
                                   "Content-Length: 18\r\nConnection: close\r\n\r\ntoo many clients.\n";
    beast::error_code ignored;
    socket.non_blocking(true, ignored);
    socket.write_some(net::buffer(busy, sizeof busy - 1), ignored);
    socket.shutdown(tcp::socket::shutdown_both, ignored);
    socket.close(ignored);
}

class web_server final : public live_output
{
public:
    web_server(const std::string& address, const std::string& name, const std::vector<std::string>& origins)
        : d_name(name)
    {
        std::string serve_host;
        const tcp::endpoint at = parse_address(address, serve_host);
        d_admission = admit(serve_host, origins);
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
        d_max_connections = connection_cap();
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
        if (!d_bins || s.bins != d_bins || s.f0_hz != d_f0 || s.bin_hz != d_bin_hz || s.center_hz != d_center ||
            s.sample_rate != d_rate)
            restart(s);
        else if (s.overflows != d_overflows || s.nonfinite_samples != d_nonfinite) // the page shows the counts
            post_meta(s);
        // The average and max-hold of every bin, so that a client's window has them at its own columns.
        if (d_spectra++ == 0) {
            d_average.assign(s.db, s.db + s.bins);
            d_max_hold.assign(s.db, s.db + s.bins);
        } else {
            for (std::size_t i = 0; i < s.bins; ++i) {
                d_average[i] += average_alpha * (s.db[i] - d_average[i]);
                d_max_hold[i] = std::max(d_max_hold[i], s.db[i]);
            }
        }
        // The histograms follow the clients' windows at the histograms' rate, so that a
        // client changing its window at every message costs the capture no more.
        const auto now = std::chrono::steady_clock::now();
        const std::chrono::duration<double> histogram_interval(1 / max_histograms_per_second);
        if (now - d_last_follow >= histogram_interval) {
            d_last_follow = now;
            follow_clients(s);
        }
        for (auto& [bins, histogram] : d_histograms)
            histogram.push(s.db, 1);
        if (d_hub.clients.load() == 0 || now - d_last_frame < std::chrono::duration<double>(1 / max_frames_per_second))
            return;
        d_last_frame = now;
        const auto row = [&](const bin_range& r) { return row_frame(s, r); };
        net::post(d_io, [this, batch = batch_of(s, d_hub.wanted().first, row)] { d_hub.send_rows(batch); });
        if (now - d_last_histogram >= histogram_interval) {
            d_last_histogram = now;
            const auto histogram = [&](const bin_range& r) {
                auto h = d_histograms.find(r); // else the band's (follow_clients() keeps it then)
                if (h == d_histograms.end())
                    h = d_histograms.find({ 0, s.bins });
                return h != d_histograms.end() ? histogram_frame(s, h) : frame{};
            };
            net::post(d_io, [this, batch = batch_of(s, d_followed, histogram)] { d_hub.send_rows(batch); });
        }
    }

private:
    //! Bins [first, second) of the spectrum.
    using bin_range = std::pair<std::size_t, std::size_t>;

    //! The bins a window touches, at least one; {0, bins}: the whole band.
    static bin_range bins_of(const view& v, const live_spectrum& s)
    {
        const double f_lo = s.f0_hz - s.bin_hz / 2; // the left edge of bin 0
        const double first = std::floor((v.first - f_lo) / s.bin_hz), end = std::ceil((v.second - f_lo) / s.bin_hz);
        const std::size_t b0 = std::size_t(std::clamp(first, 0.0, double(s.bins - 1)));
        return { b0, std::size_t(std::clamp(end, double(b0 + 1), double(s.bins))) };
    }

    /*!
     * One frame for every client `wanted` has: `make` of the band's bins for
     * those without a window, of its window's bins for each other (once for
     * each range).
     */
    template <class Make>
    static rows_batch batch_of(const live_spectrum& s, const wanted_rows& wanted, Make make)
    {
        std::map<bin_range, frame> made;
        const auto of = [&](const bin_range& r) {
            auto it = made.find(r);
            if (it == made.end())
                it = made.emplace(r, make(r)).first;
            return it->second;
        };
        rows_batch batch;
        if (wanted.band)
            batch.band = of({ 0, s.bins });
        for (const view& v : wanted.views)
            batch.views.emplace_back(v, of(bins_of(v, s)));
        return batch;
    }

    /*!
     * When the clients' windows changed: a histogram for the band if a client
     * has none, one for each window's bins (up to max_view_histograms; a window
     * beyond them gets the band's), none that no client wants. A new one starts empty.
     */
    void follow_clients(const live_spectrum& s)
    {
        if (d_hub.wanted_changes() == d_followed_changes && !d_histograms_stale)
            return;
        std::tie(d_followed, d_followed_changes) = d_hub.wanted();
        d_histograms_stale = false;
        const bin_range band{ 0, s.bins };
        std::set<bin_range> keep;
        if (d_followed.band)
            keep.insert(band);
        std::size_t windows = 0;
        for (const view& v : d_followed.views) {
            const bin_range r = bins_of(v, s);
            if (r == band || keep.count(r))
                keep.insert(r);
            else if (windows < max_view_histograms)
                keep.insert(r), ++windows;
            else
                keep.insert(band);
        }
        for (auto it = d_histograms.begin(); it != d_histograms.end();)
            it = keep.count(it->first) ? std::next(it) : d_histograms.erase(it);
        for (const bin_range& r : keep) {
            if (d_histograms.count(r))
                continue;
            gpufft::display_config c;
            c.n = s.bins;
            c.bin_begin = r.first;
            c.bin_end = r.second;
            c.width = std::min(r.second - r.first, max_columns);
            c.height = histogram_rows;
            c.db_min = d_db_min;
            c.db_max = d_db_max;
            c.decay = histogram_decay;
            c.waterfall_rows = 1;
            c.max_hold = false; // the traces are the bins' own (publish())
            d_histograms.emplace(r, gpufft::display(c));
        }
    }

    /*!
     * A frame's bytes: its header (magic, columns, `count`, spectrum index,
     * time; a window's, not the whole band, with its edges and `window_magic`)
     * and `payload` bytes after it, zero; `at` is set to them.
     */
    static std::shared_ptr<std::string> frame_bytes(const char* magic, const char* window_magic, std::size_t columns,
                                                    std::uint32_t count, const live_spectrum& s, const bin_range& r,
                                                    std::size_t payload, char*& at)
    {
        const bool window = r != bin_range{ 0, s.bins };
        const std::size_t head_bytes = window ? 40 : 24;
        auto bytes = std::make_shared<std::string>(head_bytes + payload, '\0');
        char* p = bytes->data();
        const std::uint32_t head[3] = { std::uint32_t(columns), count, std::uint32_t(s.index) };
        std::memcpy(p, window ? window_magic : magic, 4);
        std::memcpy(p + 4, head, sizeof head);
        std::memcpy(p + 16, &s.unix_time, 8);
        if (window) { // the left edge of the first bin, the right edge of the last
            const double edges[2] = { s.f0_hz + (double(r.first) - 0.5) * s.bin_hz,
                                      s.f0_hz + (double(r.second) - 0.5) * s.bin_hz };
            std::memcpy(p + 24, edges, sizeof edges);
        }
        at = p + head_bytes;
        return bytes;
    }

    /*!
     * A row of the bins `r` in min(their count, max_columns) columns, each the
     * highest of its bins (gpufft::display's columns), for the newest
     * spectrum, the average and the max-hold; a window's carries its edges.
     */
    frame row_frame(const live_spectrum& s, const bin_range& r)
    {
        const std::size_t m = r.second - r.first, columns = std::min(m, max_columns);
        char* at = nullptr;
        auto bytes = frame_bytes(frame_magic, view_magic, columns, traces, s, r, traces * columns * sizeof(float), at);
        float* out = reinterpret_cast<float*>(at);
        const float* sources[traces] = { s.db, d_average.data(), d_max_hold.data() };
        for (const float* from : sources) {
            for (std::size_t c = 0; c < columns; ++c) {
                const auto [c0, c1] = column_bins(c, m, columns);
                out[c] = *std::max_element(from + r.first + c0, from + r.first + c1);
            }
            out += columns;
        }
        return { std::move(bytes), frame_kind::row };
    }

    void accept()
    {
        d_acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
            if (ec == net::error::operation_aborted || !d_acceptor.is_open())
                return;
            if (ec == net::error::no_descriptors || ec == beast::errc::too_many_files_open_in_system ||
                ec == net::error::no_buffer_space || ec == net::error::no_memory) {
                // Accepting again at once would fail again at once (a thread at 100%): wait for a connection to end.
                d_backoff.expires_after(accept_backoff);
                d_backoff.async_wait([this](beast::error_code e) {
                    if (!e)
                        accept();
                });
                return;
            }
            if (!ec && d_hub.connections >= d_max_connections)
                refuse_connection(socket);
            else if (!ec)
                std::make_shared<http_session>(std::move(socket), d_hub, d_admission)->start();
            accept();
        });
    }

    /*!
     * A histogram (of the band, or of a window's bins: then with its edges)
     * as bytes: cell (r, c) at r W + c, row 0 the lowest dB; 0 where the
     * column never reached that row, else 1 + 254 (1 + log10(share) / 3)
     * clamped to 1..255, share being the cell's part of its column's count
     * (the persistence PNG's scale, 0.1% to 100%).
     */
    frame histogram_frame(const live_spectrum& s, std::map<bin_range, gpufft::display>::const_iterator of)
    {
        const std::size_t columns = of->second.config().width, cells = columns * histogram_rows;
        d_histogram.resize(cells);
        of->second.read_histogram(d_histogram.data());
        char* at = nullptr;
        auto bytes = frame_bytes(histogram_magic, view_histogram_magic, columns, std::uint32_t(histogram_rows), s,
                                 of->first, cells, at);
        unsigned char* out = reinterpret_cast<unsigned char*>(at);
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
        return { std::move(bytes), frame_kind::histogram };
    }

    void post(frame f)
    {
        net::post(d_io, [this, f = std::move(f)] { d_hub.broadcast(f); });
    }

    //! New metadata: new traces and histograms, and every client gets the JSON first.
    void restart(const live_spectrum& s)
    {
        d_bins = s.bins, d_f0 = s.f0_hz, d_bin_hz = s.bin_hz, d_center = s.center_hz, d_rate = s.sample_rate;
        std::tie(d_db_min, d_db_max) = db_range_from(s.db, s.bins);
        d_histograms.clear();
        d_histograms_stale = true;
        d_last_follow = {}; // at once
        d_spectra = 0;
        post_meta(s);
    }

    //! The metadata, with the device overflows and non-finite samples so far.
    void post_meta(const live_spectrum& s)
    {
        d_overflows = s.overflows;
        d_nonfinite = s.nonfinite_samples;
        const nlohmann::json histogram = {
            { "rows", histogram_rows },
            { "db_min", d_db_min },
            { "db_max", d_db_max },
            { "decay", histogram_decay },
            { "share_decades", persistence::share_decades },
            { "max_fps", max_histograms_per_second },
        };
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
            { "columns", std::min(s.bins, max_columns) },
            { "traces", { "waterfall", "average", "max_hold" } },
            { "histogram", histogram },
            { "average_alpha", average_alpha },
            { "db_scale", "tone dBFS" },
            { "max_fps", max_frames_per_second },
            { "overflows", s.overflows },
            { "lost_s", s.lost_s },
            { "nonfinite_samples", s.nonfinite_samples }, // taken as 0 by the engine
            // The gain in force as the radio read it back (null: no radio).
            { "gain_db", s.radio ? nlohmann::json(s.radio->gain_db) : nlohmann::json() },
            { "agc", s.radio ? nlohmann::json(s.radio->agc) : nlohmann::json() },
        };
        nlohmann::json message = meta; // and a sweep's band edges (none for one capture)
        message["hop_edges_hz"] = s.hop_edges_hz ? nlohmann::json(*s.hop_edges_hz) : nlohmann::json::array();
        if (s.dc_replaced_hz) { // --dc replace: the runs of bins it replaced, [first, last] bin's Hz
            nlohmann::json runs = nlohmann::json::array();
            for (const auto& [lo, hi] : *s.dc_replaced_hz)
                runs.push_back({ lo, hi });
            message["dc_replaced_hz"] = runs;
        }
        post({ std::make_shared<const std::string>(message.dump()), frame_kind::meta });
    }

    std::string d_name;
    // Before d_io: the sessions its pending handlers hold, destroyed with it, count themselves out of d_hub.
    admission d_admission;
    hub d_hub;
    std::size_t d_max_connections = max_connections;
    net::io_context d_io;
    tcp::acceptor d_acceptor{ d_io };
    net::steady_timer d_backoff{ d_io };
    std::thread d_thread;
    // The capture thread's own: the metadata, the histograms of the bins the clients want.
    std::size_t d_bins = 0, d_overflows = 0;
    std::uint64_t d_nonfinite = 0;
    double d_f0 = 0, d_bin_hz = 0, d_center = 0, d_rate = 0, d_db_min = 0, d_db_max = 0;
    wanted_rows d_followed; // what the clients wanted at follow_clients(), as of d_followed_changes
    std::uint64_t d_followed_changes = 0;
    bool d_histograms_stale = true;                    // new metadata: d_histograms follow the clients again
    std::map<bin_range, gpufft::display> d_histograms; // the band's and the windows' (follow_clients())
    std::vector<float> d_histogram;
    std::vector<float> d_average, d_max_hold; // of every bin, tone dBFS
    std::size_t d_spectra = 0;                // since the metadata (restart())
    std::chrono::steady_clock::time_point d_last_frame{}, d_last_histogram{}, d_last_follow{};
};

} // namespace

std::unique_ptr<live_output> make_web_server(const std::string& address, const std::string& name,
                                             const std::vector<std::string>& origins)
{
    return std::make_unique<web_server>(address, name, origins);
}

} // namespace gpufft_app
