/* gpufft-spectrum: reading IQ from files, standard input and SigMF
 * recordings, and stopping on a signal. */
#include "app.h"

#include <nlohmann/json.hpp>
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <poll.h>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace gpufft_app {

namespace {

bool ends_with(const std::string& s, const std::string& tail)
{
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool file_exists(const std::string& path)
{
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The recording's name without .sigmf-meta / .sigmf-data.
std::string sigmf_base(const std::string& path)
{
    for (const char* ext : { ".sigmf-meta", ".sigmf-data" })
        if (ends_with(path, ext))
            return path.substr(0, path.size() - std::strlen(ext));
    return path;
}

// The member `key` of an object as a number in [lo, hi], or `absent`.
double number_at(const nlohmann::json& obj, const std::string& key, double lo, double hi, double absent,
                 const std::string& where)
{
    const auto v = obj.find(key);
    if (v == obj.end())
        return absent;
    if (!v->is_number())
        throw app_error(where + ": " + key + " is not a number");
    const double d = v->get<double>();
    if (!(d >= lo && d <= hi)) {
        std::ostringstream m;
        m << where << ": " << key << " " << d << " is out of range [" << lo << ", " << hi << "]";
        throw app_error(m.str());
    }
    return d;
}

// Metadata larger than this is not SigMF a person wrote (annotations included).
constexpr std::size_t max_meta_bytes = 64 << 20;

volatile std::sig_atomic_t stop_requested = 0;

extern "C" void on_stop_signal(int signal) { stop_requested = signal; }

} // namespace

bool is_sigmf(const std::string& path)
{
    return ends_with(path, ".sigmf-meta") || ends_with(path, ".sigmf-data") ||
           file_exists(path + ".sigmf-meta");
}

iq_source open_sigmf(const std::string& path)
{
    const std::string base = sigmf_base(path), meta = base + ".sigmf-meta";
    std::ifstream f(meta, std::ios::binary);
    if (!f)
        throw app_error(meta + ": cannot open the SigMF metadata: " + std::strerror(errno));
    std::ostringstream text;
    text << f.rdbuf();
    if (text.str().size() > max_meta_bytes)
        throw app_error(meta + ": larger than " + std::to_string(max_meta_bytes >> 20) + " MiB (not SigMF metadata)");
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(text.str()); // skips a UTF-8 byte order mark
    } catch (const nlohmann::json::exception& e) {
        throw app_error(meta + ": malformed JSON: " + e.what());
    }
    if (!doc.is_object() || !doc.contains("global") || !doc["global"].is_object())
        throw app_error(meta + ": no \"global\" object (not SigMF metadata)");
    const auto& global = doc["global"];
    const auto dt = global.find("core:datatype");
    if (dt == global.end() || !dt->is_string())
        throw app_error(meta + ": global has no core:datatype string");

    iq_source src;
    const std::pair<const char*, gpufft::sample_format> types[] = {
        { "cf32_le", gpufft::sample_format::cf32 },
        { "ci16_le", gpufft::sample_format::cs16 },
        { "ci8", gpufft::sample_format::cs8 },
        { "cu8", gpufft::sample_format::cu8 },
    };
    bool known = false;
    for (const auto& t : types)
        if (dt->get<std::string>() == t.first)
            src.format = t.second, known = true;
    if (!known)
        throw app_error(meta + ": unsupported core:datatype \"" + dt->get<std::string>() +
                        "\" (supported: cf32_le, ci16_le, ci8, cu8)");
    // Optional in SigMF (0: unknown); when given it must be a rate.
    src.sample_rate = number_at(global, "core:sample_rate", 1e-3, max_sample_rate_hz, 0, meta);
    if (const auto caps = doc.find("captures");
        caps != doc.end() && caps->is_array() && !caps->empty() && caps->front().is_object())
        src.center_hz = number_at(caps->front(), "core:frequency", -max_frequency_hz, max_frequency_hz, 0, meta);
    src.meta_path = meta;
    src.data_path = base + ".sigmf-data";
    if (!file_exists(src.data_path))
        throw app_error(src.data_path + ": the SigMF data file is missing");
    return src;
}

void install_stop_handlers()
{
    stop_requested = 0;
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    // SA_RESTART keeps writes from failing with EINTR; the wait for input is
    // a ppoll(), which a signal ends regardless (signal(7), "Interruption of
    // system calls"). SA_RESETHAND: a second signal acts as usual.
    sa.sa_flags = SA_RESTART | SA_RESETHAND;
    for (int s : { SIGINT, SIGTERM, SIGHUP }) {
        struct sigaction old {};
        sigaction(s, nullptr, &old);
        if (old.sa_handler != SIG_IGN) // under nohup SIGHUP stays ignored
            sigaction(s, &sa, nullptr);
    }
    std::signal(SIGPIPE, SIG_IGN);
}

int stop_signal() { return stop_requested; }

void request_stop(int signal) { stop_requested = signal; }

std::size_t pump(int fd,
                 gpufft::spectrum& s,
                 const gpufft::spectrum::sink& out,
                 const std::function<void(std::size_t)>& progress,
                 std::size_t max_bytes)
{
    std::vector<unsigned char> buf(1 << 20);
    std::size_t total = 0;
    sigset_t stops, before;
    sigemptyset(&stops);
    for (int sig : { SIGINT, SIGTERM, SIGHUP })
        sigaddset(&stops, sig);
    while (!stop_signal() && (max_bytes == 0 || total < max_bytes)) {
        // Wait for data with the stop signals blocked except inside ppoll(),
        // so that one arriving just before the wait still ends it.
        pollfd p{ fd, POLLIN, 0 };
        pthread_sigmask(SIG_BLOCK, &stops, &before);
        const int ready = stop_signal() ? 0 : ::ppoll(&p, 1, nullptr, &before);
        const int poll_errno = errno;
        pthread_sigmask(SIG_SETMASK, &before, nullptr);
        if (ready < 0 && poll_errno != EINTR)
            throw app_error(std::string("cannot wait for input: ") + std::strerror(poll_errno));
        if (ready <= 0)
            continue;
        const std::size_t want = max_bytes ? std::min(buf.size(), max_bytes - total) : buf.size();
        const ssize_t got = ::read(fd, buf.data(), want);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            throw app_error(std::string("read error: ") + std::strerror(errno));
        if (got == 0)
            break;
        total += std::size_t(got);
        s.push_bytes(buf.data(), std::size_t(got), out);
        if (progress)
            progress(total);
    }
    s.flush(out);
    return total;
}

} // namespace gpufft_app
