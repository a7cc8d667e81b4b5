/* gpufft-spectrum: the run itself, step by step (source, engine, outputs,
 * reading, waterfall, peaks), and the exit status. */
#include "app.h"
#include "persistence.h"

#include <gpufft/demo_signal.h>
#include <gpufft/error.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <optional>
#include <unistd.h>

namespace gpufft_app {

namespace {

// The demo's signal lasts this long.
constexpr double demo_seconds = 2.0;
// Spectra per output cannot exceed this (the engine counts frames in size_t).
constexpr double max_frames_per_spectrum = 1e12;

std::string hz(double f)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%14.3f Hz", f);
    return buf;
}

//! The input named by the options: the demo, a SigMF recording or raw IQ.
iq_source resolve_source(const options& o)
{
    iq_source src;
    src.data_path = o.input;
    src.format = gpufft::parse_sample_format(o.format);
    src.sample_rate = o.rate;
    src.center_hz = o.center;
    if (o.demo) {
        src.format = gpufft::sample_format::cf32;
        src.center_hz = o.center_set ? o.center : 100e6;
    } else if (o.input != "-" && is_sigmf(o.input)) {
        src = open_sigmf(o.input);
        if (src.sample_rate <= 0)
            src.sample_rate = o.rate; // optional in SigMF
        if (o.format_set && gpufft::parse_sample_format(o.format) != src.format)
            std::fprintf(stderr, "gpufft-spectrum: --format ignored, the SigMF datatype is %s\n",
                         gpufft::format_name(src.format).c_str());
    }
    return src;
}

//! The engine's configuration; --fps is checked against the frame rate here, naming it.
gpufft::spectrum_config engine_config(const options& o, const iq_source& src)
{
    gpufft::spectrum_config c;
    c.fft_size = o.fft;
    c.sample_rate = src.sample_rate;
    c.format = src.format;
    c.overlap = o.overlap;
    c.window = o.window;
    if (!std::isnan(o.window_param))
        c.window_param = o.window_param;
    c.average = gpufft::parse_averaging(o.average);
    c.alpha = o.alpha;
    c.shift = true;
    c.backend = o.backend;
    if (o.frames) {
        c.frames_per_output = o.frames;
        return c;
    }
    const double hop = double(std::max<std::size_t>(1, o.fft - std::size_t(std::lround(o.overlap * double(o.fft)))));
    const double frame_rate = c.sample_rate / hop;
    if (o.fps_set && o.fps > frame_rate * (1 + 1e-9))
        throw usage_error("--fps " + std::to_string(o.fps) + " is above the frame rate " +
                          std::to_string(frame_rate) + " (sample rate / hop)");
    if (o.fps_set && frame_rate / o.fps > max_frames_per_spectrum)
        throw usage_error("--fps " + std::to_string(o.fps) + " needs more than 1e12 frames per spectrum");
    // The default is capped by fs / N, the lowest frame rate any overlap gives.
    c.output_rate = o.fps_set ? o.fps : std::min(o.demo ? 100.0 : 25.0, c.sample_rate / double(o.fft));
    return c;
}

//! Everything the spectra feed: waterfall rows, the persistence view, the mean for the peaks, CSV and JSON lines.
class collector
{
public:
    collector(const options& o, const iq_source& src, const gpufft::spectrum& engine)
        : d_n(engine.fft_size()),
          d_gain_db(tone_gain_db(engine.window())),
          d_seconds_per_spectrum(double(engine.frames_per_output() * engine.hop()) / src.sample_rate),
          d_waterfall(o.width ? o.width : std::min<std::size_t>(d_n, 1024), 2 * std::max<std::size_t>(o.height, 1024)),
          d_sum(d_n, 0.0),
          d_tone(d_n)
    {
        if (!o.csv.empty())
            d_csv.emplace(o.csv);
        if (!o.jsonl.empty())
            d_jsonl.emplace(o.jsonl);
        if (!o.persistence.empty()) {
            d_persistence_file.emplace(o.persistence);
            d_persistence.emplace(d_waterfall.width, o.height ? o.height : 256, o.db_min, o.db_max);
        }
        if (d_csv) {
            // The first cell says what the values are; the others are each bin's frequency.
            std::fprintf(d_csv->get(), "time_s (values: tone dBFS)");
            for (std::size_t i = 0; i < d_n; ++i)
                std::fprintf(d_csv->get(), ",%.3f", src.center_hz + engine.bin_hz(i));
            std::fprintf(d_csv->get(), "\n");
            d_csv->check();
        }
        d_f0 = src.center_hz + engine.bin_hz(0);
        d_df = src.sample_rate / double(d_n);
    }

    //! One spectrum in the engine's dB.
    void add(const float* db, std::size_t len)
    {
        for (std::size_t i = 0; i < len; ++i)
            d_tone[i] = float(db[i] - d_gain_db);
        const float* v = d_tone.data();
        const double t = double(++d_spectra) * d_seconds_per_spectrum;
        d_waterfall.add(v, len);
        if (d_persistence)
            d_persistence->add(v, len);
        for (std::size_t i = 0; i < len; ++i)
            d_sum[i] += std::pow(10.0, v[i] / 10);
        if (d_csv) {
            std::fprintf(d_csv->get(), "%.6f", t);
            for (std::size_t i = 0; i < len; ++i)
                std::fprintf(d_csv->get(), ",%.2f", v[i]);
            std::fprintf(d_csv->get(), "\n");
            d_csv->check();
        }
        if (d_jsonl) {
            std::fprintf(d_jsonl->get(), "{\"time_s\":%.6f,\"f0_hz\":%.3f,\"df_hz\":%.6f,\"db_scale\":\"tone dBFS\",\"db\":[",
                         t, d_f0, d_df);
            for (std::size_t i = 0; i < len; ++i)
                std::fprintf(d_jsonl->get(), "%s%.2f", i ? "," : "", v[i]);
            std::fprintf(d_jsonl->get(), "]}\n");
            d_jsonl->check();
        }
    }

    void commit()
    {
        if (d_csv)
            d_csv->commit();
        if (d_jsonl)
            d_jsonl->commit();
    }

    std::size_t spectra() const { return d_spectra; }
    double seconds() const { return double(d_spectra) * d_seconds_per_spectrum; }
    const waterfall& rows() const { return d_waterfall; }
    //! Writes the persistence PNG, if asked for; returns its dB range.
    std::optional<std::pair<double, double>> write_persistence(const axes& a)
    {
        if (!d_persistence)
            return std::nullopt;
        d_persistence->write_png(*d_persistence_file, a);
        return std::pair{ d_persistence->db_min(), d_persistence->db_max() };
    }

    //! The mean spectrum (tone dBFS).
    std::vector<float> mean() const
    {
        std::vector<float> out(d_sum.size());
        for (std::size_t i = 0; i < d_sum.size(); ++i)
            out[i] = float(10 * std::log10(std::max(d_sum[i] / double(d_spectra), 1e-30)));
        return out;
    }

private:
    std::size_t d_n;
    double d_gain_db, d_seconds_per_spectrum, d_f0 = 0, d_df = 0;
    waterfall d_waterfall;
    std::vector<double> d_sum; // linear power
    std::vector<float> d_tone;
    std::size_t d_spectra = 0;
    std::optional<output_file> d_csv, d_jsonl, d_persistence_file;
    std::optional<persistence> d_persistence;
};

//! The progress line on standard error, at most twice a second.
class progress_line
{
public:
    progress_line(bool show, const gpufft::spectrum_config& c, const collector& out)
        : d_show(show), d_config(c), d_out(out)
    {
    }
    void operator()(std::size_t bytes)
    {
        const auto now = std::chrono::steady_clock::now();
        if (!d_show || now - d_last < std::chrono::milliseconds(500))
            return;
        d_last = now;
        const double s = std::chrono::duration<double>(now - d_start).count();
        const double ms = double(bytes / gpufft::sample_bytes(d_config.format)) / 1e6;
        std::fprintf(stderr, "\rgpufft-spectrum: %.1f Msamples (%.1f s of signal), %zu spectra, %.1f Msamples/s   ",
                     ms, ms * 1e6 / d_config.sample_rate, d_out.spectra(), ms / s);
    }
    void end() const
    {
        if (d_show)
            std::fprintf(stderr, "\n");
    }

private:
    bool d_show;
    const gpufft::spectrum_config& d_config;
    const collector& d_out;
    std::chrono::steady_clock::time_point d_start = std::chrono::steady_clock::now(), d_last = d_start;
};

//! Reads the input file or standard input; returns the samples used.
std::size_t read_input(const iq_source& src, gpufft::spectrum& engine, const gpufft::spectrum::sink& sink,
                       progress_line& progress)
{
    struct input_fd {
        int fd;
        ~input_fd()
        {
            if (fd > STDIN_FILENO)
                ::close(fd);
        }
    } in{ src.data_path == "-" ? STDIN_FILENO : ::open(src.data_path.c_str(), O_RDONLY | O_CLOEXEC) };
    if (in.fd < 0)
        throw app_error(src.data_path + ": cannot open: " + std::strerror(errno));
    std::size_t bytes = 0;
    try {
        bytes = pump(in.fd, engine, sink, [&](std::size_t b) { progress(b); });
    } catch (const app_error& e) {
        throw app_error((src.data_path == "-" ? "standard input" : src.data_path) + ": " + e.what());
    }
    const std::size_t bps = gpufft::sample_bytes(engine.config().format);
    if (bytes % bps && !stop_signal())
        std::fprintf(stderr, "gpufft-spectrum: ignored %zu trailing bytes (a partial %s sample)\n", bytes % bps,
                     gpufft::format_name(engine.config().format).c_str());
    return bytes / bps;
}

//! Synthesizes the demo signal into the engine; returns the samples used.
std::size_t feed_demo(gpufft::demo_signal& demo, gpufft::spectrum& engine, const gpufft::spectrum::sink& sink,
                      progress_line& progress)
{
    std::vector<gpufft::complex> chunk(1 << 16);
    const auto total = std::size_t(demo_seconds * engine.config().sample_rate);
    std::size_t done = 0;
    for (; done < total && !stop_signal(); done += chunk.size()) {
        const std::size_t len = std::min(chunk.size(), total - done);
        demo.generate(chunk.data(), len);
        engine.push(chunk.data(), len, sink);
        progress((done + len) * sizeof(gpufft::complex));
    }
    engine.flush(sink);
    return std::min(done, total);
}

//! The frequency and time axes of the PNG views (the dB range is each view's).
axes view_axes(const iq_source& src, const gpufft::spectrum& engine, const collector& out)
{
    axes ax;
    const double rate = engine.config().sample_rate;
    ax.f_lo = src.center_hz + engine.bin_hz(0) - rate / double(engine.fft_size()) / 2;
    ax.f_hi = ax.f_lo + rate;
    ax.seconds = out.seconds();
    return ax;
}

//! The waterfall PNG; its colour range comes from the data unless given.
void write_waterfall(const options& o, const iq_source& src, const gpufft::spectrum& engine, const collector& out,
                     std::FILE* report)
{
    const waterfall& wf = out.rows();
    axes ax = view_axes(src, engine, out);
    std::vector<float> v(wf.rows);
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 50), v.end());
    ax.db_min = std::isnan(o.db_min) ? std::floor(v[v.size() / 50]) : o.db_min;
    ax.db_max = std::isnan(o.db_max) ? std::ceil(*std::max_element(wf.rows.begin(), wf.rows.end())) : o.db_max;
    if (ax.db_max <= ax.db_min)
        ax.db_max = ax.db_min + 1;
    write_png(o.png, wf, ax, o.height ? o.height : std::min<std::size_t>(wf.count(), 1000));
    std::fprintf(report, "waterfall: %s (%g to %g dBFS)\n", o.png.c_str(), ax.db_min, ax.db_max);
}

//! The persistence PNG, if asked for; its dB range was fixed by the first spectrum unless given.
void write_persistence(const options& o, const iq_source& src, const gpufft::spectrum& engine, collector& out,
                       std::FILE* report)
{
    if (const auto range = out.write_persistence(view_axes(src, engine, out)))
        std::fprintf(report, "persistence: %s (%g to %g dBFS)\n", o.persistence.c_str(), range->first,
                     range->second);
}

//! Prints the peaks of the mean spectrum; returns them.
std::vector<peak> print_peaks(const options& o, const iq_source& src, const gpufft::spectrum& engine,
                              const collector& out, std::FILE* report)
{
    const std::size_t n = engine.fft_size();
    const auto found = find_peaks(out.mean(), engine, o.peak_threshold, std::max<std::size_t>(8, n / 256), o.peaks);
    std::fprintf(report, "peaks (mean spectrum, tone power in dBFS):\n");
    for (const auto& p : found)
        std::fprintf(report, "  %s  %7.2f dBFS\n", hz(src.center_hz + p.hz).c_str(), p.db);
    return found;
}

//! The demo's check: every synthesized tone among the peaks, within 1 dB.
bool check_demo(const gpufft::demo_signal& demo, const std::vector<peak>& found, const iq_source& src,
                const gpufft::spectrum& engine, std::FILE* report)
{
    bool all = true;
    const double bin = engine.config().sample_rate / double(engine.fft_size());
    std::fprintf(report, "demo: synthesized tones next to the peaks found:\n");
    for (const auto& t : demo.tones()) {
        const peak* best = nullptr;
        for (const auto& p : found)
            if (std::abs(p.hz - t.hz) <= 2 * bin && (!best || std::abs(p.hz - t.hz) < std::abs(best->hz - t.hz)))
                best = &p;
        std::fprintf(report, "  %s  %7.2f dBFS   ->  ", hz(src.center_hz + t.hz).c_str(), t.dbfs);
        if (best)
            std::fprintf(report, "%s  %7.2f dBFS\n", hz(src.center_hz + best->hz).c_str(), best->db);
        else
            std::fprintf(report, "not found\n");
        all = all && best && std::abs(best->db - t.dbfs) < 1.0;
    }
    std::fprintf(report, "  FM carrier at %s, -30 dBFS, +-%g kHz once a second (the wavy trace)\n",
                 hz(src.center_hz + demo.fm_hz()).c_str(), demo.fm_deviation_hz() / 1e3);
    std::fprintf(report, "demo: %s\n", all ? "every tone found at its frequency and power (within 1 dB)"
                                           : "FAILED: a tone was missed or read the wrong power");
    return all;
}

//! Runs the options; returns the exit status (errors are thrown).
int receive(const options& o)
{
    const iq_source src = resolve_source(o);
    std::vector<std::string> inputs;
    if (!o.demo)
        inputs = { src.data_path };
    if (!src.meta_path.empty())
        inputs.push_back(src.meta_path);
    refuse_overwriting_inputs(inputs, { { "--png", o.png }, { "--csv", o.csv }, { "--jsonl", o.jsonl },
                                       { "--persistence", o.persistence } });

    const gpufft::spectrum_config c = engine_config(o, src);
    gpufft::spectrum engine(c);
    collector out(o, src, engine);
    const auto sink = [&](const float* db, std::size_t len) { out.add(db, len); };
    progress_line progress(o.progress == 1 || (o.progress == -1 && isatty(2)), c, out);

    // With an output on standard output, the report goes to standard error.
    std::FILE* report = (o.png == "-" || o.csv == "-" || o.jsonl == "-" || o.persistence == "-") ? stderr : stdout;
    std::unique_ptr<gpufft::demo_signal> demo;
    std::size_t samples = 0;
    if (o.demo) {
        demo = std::make_unique<gpufft::demo_signal>(c.sample_rate, engine.fft_size());
        samples = feed_demo(*demo, engine, sink, progress);
    } else {
        samples = read_input(src, engine, sink, progress);
    }
    progress.end();
    const int stopped = stop_signal();
    if (out.spectra() == 0) {
        if (stopped)
            std::fprintf(stderr, "gpufft-spectrum: stopped by signal %d before the first spectrum\n", stopped);
        else
            throw app_error((samples == 0 ? std::string("the input is empty")
                                          : "the input has " + std::to_string(samples) + " samples") +
                            ": not enough for one spectrum (" +
                            std::to_string(engine.fft_size() + (engine.frames_per_output() - 1) * engine.hop()) +
                            " samples)");
        return 128 + stopped;
    }
    out.commit();

    std::fprintf(report, "gpufft-spectrum: %zu samples at %.0f Hz, N = %zu on %s, %zu spectra of %zu frames%s\n",
                 samples, c.sample_rate, engine.fft_size(), engine.backend().c_str(), out.spectra(),
                 engine.frames_per_output(), stopped ? " (stopped by a signal)" : "");
    if (o.png != "none")
        write_waterfall(o, src, engine, out, report);
    write_persistence(o, src, engine, out, report);
    const auto found = print_peaks(o, src, engine, out, report);
    const bool demo_ok = !demo || check_demo(*demo, found, src, engine, report);

    if (std::fflush(stdout) != 0 && errno == EPIPE)
        request_stop(SIGPIPE);
    else if (std::ferror(stdout))
        throw app_error(std::string("standard output: write failed: ") + std::strerror(errno));
    if (stop_signal())
        return 128 + stop_signal();
    return demo_ok ? exit_ok : exit_failure;
}

} // namespace

double tone_gain_db(const std::vector<float>& window)
{
    double sum = 0, power = 0;
    for (float w : window)
        sum += w, power += double(w) * w;
    return 10 * std::log10(sum * sum / (double(window.size()) * power));
}

std::vector<peak> find_peaks(const std::vector<float>& db,
                             const gpufft::spectrum& s,
                             double threshold_db,
                             std::size_t min_sep,
                             std::size_t count)
{
    const std::size_t n = db.size();
    if (n < 3)
        return {};
    std::vector<float> sorted(db);
    std::nth_element(sorted.begin(), sorted.begin() + std::ptrdiff_t(n / 2), sorted.end());
    const double floor = sorted[n / 2] + threshold_db;
    std::vector<std::size_t> cand;
    for (std::size_t i = 1; i + 1 < n; ++i)
        if (db[i] > floor && db[i] >= db[i - 1] && db[i] > db[i + 1])
            cand.push_back(i);
    std::sort(cand.begin(), cand.end(), [&](std::size_t a, std::size_t b) { return db[a] > db[b]; });
    std::vector<std::size_t> kept;
    for (std::size_t i : cand) {
        if (kept.size() == count)
            break;
        if (std::all_of(kept.begin(), kept.end(), [&](std::size_t k) { return (i > k ? i - k : k - i) >= min_sep; }))
            kept.push_back(i);
    }
    std::vector<peak> out;
    for (std::size_t i : kept)
        out.push_back({ s.bin_hz(i), db[i] });
    return out;
}

int run(const std::vector<std::string>& args)
{
    try {
        const options o = parse_options(args);
        if (!o.help.empty()) {
            std::fputs(o.help.c_str(), stdout);
            return exit_ok;
        }
        install_stop_handlers();
        return receive(o);
    } catch (const usage_error& e) {
        std::fprintf(stderr, "gpufft-spectrum: %s (try --help)\n", e.what());
        return exit_usage;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gpufft-spectrum: %s\n", e.what());
        return exit_failure;
    }
}

} // namespace gpufft_app
