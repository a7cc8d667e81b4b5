/* gpufft-spectrum: options, the demo signal, peaks, and the run itself. */
#include "app.h"

#include <gpufft/demo_signal.h>
#include <gpufft/error.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <unistd.h>

namespace gpufft_app {

namespace {

const char* const usage = R"(usage: gpufft-spectrum [options] [INPUT]

Spectra of an IQ recording or stream, on any gr-gpufft backend: a waterfall
PNG, optional per-spectrum CSV or JSON lines, and the strongest peaks.

INPUT is a raw IQ file, '-' for standard input (the default, e.g.
`rtl_sdr -f 100e6 - | gpufft-spectrum --format cu8 --rate 2.4e6 --center 100e6`),
or a SigMF recording (NAME, NAME.sigmf-meta or NAME.sigmf-data), whose
datatype, sample rate and centre frequency come from its metadata.

  --demo             synthesize tones at known frequencies and powers, an FM
                     carrier and noise (2 s at 2.4 MHz) and check the peaks found
  --format F         cf32, cs16, cs8 or cu8 (default cu8, rtl_sdr's)
  --rate HZ          sample rate (default 2.4e6)
  --center HZ        centre frequency (default 0)
  --backend NAME     FFT backend: auto, simd, simd:avx2, ... (default auto)
  --fft N            FFT size, any N >= 1 (default 2048)
  --overlap F        fraction of a frame shared with the next, 0 to 0.9 (default 0.5)
  --window NAME[:P]  blackmanharris (default), hann, flattop, kaiser:8.6, ...
  --average MODE     linear (default), exponential, peak or min; every frame is used
  --alpha A          exponential averaging weight, (0, 1] (default 0.1)
  --fps R            spectra per second (default 25; demo 100)
  --frames K         frames per spectrum, instead of --fps
  --db-min DB, --db-max DB   waterfall colour range (default: from the data)
  --png FILE         waterfall image (default waterfall.png; 'none' for none)
  --width W          plot width in pixels (default min(N, 1024))
  --height H         plot height in pixels (default one row per spectrum, at most 1000)
  --csv FILE         every spectrum as a CSV row (time, then dB per bin)
  --jsonl FILE       every spectrum as a JSON line
  --peaks K          peaks to list (default 10); --peak-threshold DB above the median (default 10)
  --progress, --quiet   force or silence the progress line (default: shown on a terminal)
  -h, --help
)";

double to_number(const std::string& opt, const std::string& v)
{
    char* end = nullptr;
    const double d = std::strtod(v.c_str(), &end);
    if (v.empty() || *end || !std::isfinite(d))
        throw app_error("option " + opt + ": expected a number, got \"" + v + "\"");
    return d;
}

std::size_t to_count(const std::string& opt, const std::string& v)
{
    const double d = to_number(opt, v);
    if (d < 0 || d != std::floor(d) || d > 1e12)
        throw app_error("option " + opt + ": expected a whole number >= 0, got \"" + v + "\"");
    return std::size_t(d);
}

// The demo's signal lasts this long.
constexpr double demo_seconds = 2.0;

struct options {
    std::string input = "-";
    bool demo = false;
    std::string format = "cu8";
    double rate = 2.4e6, center = 0;
    bool rate_set = false, center_set = false, format_set = false, fps_set = false;
    std::string backend = "auto", window = "blackmanharris", average = "linear";
    std::size_t fft = 2048, frames = 0, width = 0, height = 0, peaks = 10;
    double overlap = 0.5, alpha = 0.1, fps = 0, peak_threshold = 10;
    double db_min = NAN, db_max = NAN;
    std::string png = "waterfall.png", csv, jsonl;
    int progress = -1; // -1: on a terminal
};

options parse(const std::vector<std::string>& args)
{
    options o;
    bool have_input = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        const auto value = [&]() -> const std::string& {
            if (i + 1 >= args.size())
                throw app_error("option " + a + " needs a value");
            return args[++i];
        };
        if (a == "-h" || a == "--help") {
            std::fputs(usage, stdout);
            std::exit(0);
        } else if (a == "--demo") {
            o.demo = true;
        } else if (a == "--format") {
            o.format = value(), o.format_set = true;
        } else if (a == "--rate") {
            o.rate = to_number(a, value()), o.rate_set = true;
        } else if (a == "--center") {
            o.center = to_number(a, value()), o.center_set = true;
        } else if (a == "--backend") {
            o.backend = value();
        } else if (a == "--fft") {
            o.fft = to_count(a, value());
        } else if (a == "--overlap") {
            o.overlap = to_number(a, value());
        } else if (a == "--window") {
            o.window = value();
        } else if (a == "--average") {
            o.average = value();
        } else if (a == "--alpha") {
            o.alpha = to_number(a, value());
        } else if (a == "--fps") {
            o.fps = to_number(a, value()), o.fps_set = true;
        } else if (a == "--frames") {
            o.frames = to_count(a, value());
            if (o.frames == 0)
                throw app_error("option --frames: must be >= 1");
        } else if (a == "--db-min") {
            o.db_min = to_number(a, value());
        } else if (a == "--db-max") {
            o.db_max = to_number(a, value());
        } else if (a == "--png") {
            o.png = value();
        } else if (a == "--width") {
            o.width = to_count(a, value());
        } else if (a == "--height") {
            o.height = to_count(a, value());
        } else if (a == "--csv") {
            o.csv = value();
        } else if (a == "--jsonl") {
            o.jsonl = value();
        } else if (a == "--peaks") {
            o.peaks = to_count(a, value());
        } else if (a == "--peak-threshold") {
            o.peak_threshold = to_number(a, value());
        } else if (a == "--progress") {
            o.progress = 1;
        } else if (a == "--quiet") {
            o.progress = 0;
        } else if (a.size() > 1 && a[0] == '-') {
            throw app_error("unknown option " + a + " (try --help)");
        } else if (have_input) {
            throw app_error("more than one input: " + o.input + " and " + a);
        } else {
            o.input = a, have_input = true;
        }
    }
    if (o.width > 16384 || o.height > 16384)
        throw app_error("--width and --height must be at most 16384");
    if (!std::isnan(o.db_min) && !std::isnan(o.db_max) && o.db_min >= o.db_max)
        throw app_error("--db-min must be below --db-max");
    return o;
}

//! A file opened for writing, or an error naming it.
std::unique_ptr<std::FILE, int (*)(std::FILE*)> create(const std::string& path)
{
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (!f)
        throw app_error(path + ": cannot write: " + std::strerror(errno));
    return { f, std::fclose };
}

// 10 log10 of the mean of spectra given in dB.
std::vector<float> mean_db(const std::vector<double>& sum, std::size_t count)
{
    std::vector<float> out(sum.size());
    for (std::size_t i = 0; i < sum.size(); ++i)
        out[i] = float(10 * std::log10(std::max(sum[i] / double(count), 1e-30)));
    return out;
}

std::string hz(double f)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%14.3f Hz", f);
    return buf;
}

} // namespace

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
        const options o = parse(args);
        gpufft::spectrum_config c;
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

        c.fft_size = o.fft;
        c.sample_rate = src.sample_rate;
        c.format = src.format;
        c.overlap = o.overlap;
        const auto colon = o.window.find(':');
        c.window = o.window.substr(0, colon);
        if (colon != std::string::npos)
            c.window_param = to_number("--window", o.window.substr(colon + 1));
        c.average = gpufft::parse_averaging(o.average);
        c.alpha = o.alpha;
        if (o.frames)
            c.frames_per_output = o.frames;
        else
            // An explicit --fps above the frame rate is the engine's error; the
            // default is capped by fs / N, the lowest frame rate any overlap gives.
            c.output_rate = o.fps_set ? o.fps : std::min(o.demo ? 100.0 : 25.0, c.sample_rate / double(std::max<std::size_t>(o.fft, 1)));
        c.shift = true;
        c.backend = o.backend;
        gpufft::spectrum engine(c);
        const std::size_t n = engine.fft_size();
        const double seconds_per_row = double(engine.frames_per_output() * engine.hop()) / c.sample_rate;

        waterfall wf;
        wf.width = o.width ? o.width : std::min<std::size_t>(n, 1024);
        std::vector<double> sum(n, 0.0); // linear power, for the peaks
        std::size_t outputs = 0;
        auto csv = o.csv.empty() ? decltype(create("")) { nullptr, std::fclose } : create(o.csv);
        auto jsonl = o.jsonl.empty() ? decltype(create("")) { nullptr, std::fclose } : create(o.jsonl);
        if (csv) {
            std::fprintf(csv.get(), "time_s");
            for (std::size_t i = 0; i < n; ++i)
                std::fprintf(csv.get(), ",%.3f", src.center_hz + engine.bin_hz(i));
            std::fprintf(csv.get(), "\n");
        }
        const auto sink = [&](const float* db, std::size_t len) {
            const double t = double(++outputs) * seconds_per_row;
            wf.add(db, len);
            for (std::size_t i = 0; i < len; ++i)
                sum[i] += std::pow(10.0, db[i] / 10);
            if (csv) {
                std::fprintf(csv.get(), "%.6f", t);
                for (std::size_t i = 0; i < len; ++i)
                    std::fprintf(csv.get(), ",%.2f", db[i]);
                std::fprintf(csv.get(), "\n");
            }
            if (jsonl) {
                std::fprintf(jsonl.get(), "{\"time_s\":%.6f,\"f0_hz\":%.3f,\"df_hz\":%.6f,\"db\":[", t,
                             src.center_hz + engine.bin_hz(0), c.sample_rate / double(n));
                for (std::size_t i = 0; i < len; ++i)
                    std::fprintf(jsonl.get(), "%s%.2f", i ? "," : "", db[i]);
                std::fprintf(jsonl.get(), "]}\n");
            }
        };

        const bool show = o.progress == 1 || (o.progress == -1 && isatty(2));
        const auto start = std::chrono::steady_clock::now();
        auto last = start;
        std::size_t samples = 0;
        const auto progress = [&](std::size_t bytes) {
            const auto now = std::chrono::steady_clock::now();
            if (!show || now - last < std::chrono::milliseconds(500))
                return;
            last = now;
            const double s = std::chrono::duration<double>(now - start).count();
            const double ms = double(bytes / gpufft::sample_bytes(c.format)) / 1e6;
            std::fprintf(stderr, "\rgpufft-spectrum: %.1f Msamples (%.1f s of signal), %zu spectra, %.1f Msamples/s   ",
                         ms, ms * 1e6 / c.sample_rate, outputs, ms / s);
        };

        std::unique_ptr<gpufft::demo_signal> demo;
        if (o.demo) {
            demo = std::make_unique<gpufft::demo_signal>(c.sample_rate, n);
            std::vector<gpufft::complex> chunk(1 << 16);
            const auto total = std::size_t(demo_seconds * c.sample_rate);
            for (std::size_t done = 0; done < total; done += chunk.size()) {
                const std::size_t len = std::min(chunk.size(), total - done);
                demo->generate(chunk.data(), len);
                engine.push(chunk.data(), len, sink);
                progress((done + len) * sizeof(gpufft::complex));
            }
            engine.flush(sink);
            samples = total;
        } else {
            std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(
                src.data_path == "-" ? stdin : std::fopen(src.data_path.c_str(), "rb"),
                [](std::FILE* f) { return f == stdin ? 0 : std::fclose(f); });
            if (!in)
                throw app_error(src.data_path + ": cannot open: " + std::strerror(errno));
            const std::size_t bytes = pump(in.get(), engine, sink, progress);
            const std::size_t bps = gpufft::sample_bytes(c.format);
            samples = bytes / bps;
            if (bytes % bps)
                std::fprintf(stderr, "gpufft-spectrum: ignored %zu trailing bytes (a partial %s sample)\n",
                             bytes % bps, gpufft::format_name(c.format).c_str());
        }
        if (show)
            std::fprintf(stderr, "\n");
        if (outputs == 0)
            throw app_error((samples == 0 ? std::string("the input is empty")
                                          : "the input has " + std::to_string(samples) + " samples") +
                            ": not enough for one spectrum (" +
                            std::to_string(n + (engine.frames_per_output() - 1) * engine.hop()) + " samples)");

        std::printf("gpufft-spectrum: %zu samples at %.0f Hz, N = %zu on %s, %zu spectra of %zu frames\n",
                    samples, c.sample_rate, n, engine.backend().c_str(), outputs, engine.frames_per_output());
        if (o.png != "none") {
            axes ax;
            ax.f_lo = src.center_hz + engine.bin_hz(0) - c.sample_rate / double(n) / 2;
            ax.f_hi = ax.f_lo + c.sample_rate;
            ax.seconds_per_row = seconds_per_row;
            std::vector<float> v(wf.rows);
            std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 50), v.end());
            ax.db_min = std::isnan(o.db_min) ? std::floor(v[v.size() / 50]) : o.db_min;
            ax.db_max = std::isnan(o.db_max) ? std::ceil(*std::max_element(wf.rows.begin(), wf.rows.end())) : o.db_max;
            if (ax.db_max <= ax.db_min)
                ax.db_max = ax.db_min + 1;
            write_png(o.png, wf, ax, o.height ? o.height : std::min<std::size_t>(wf.count(), 1000));
            std::printf("waterfall: %s (%g to %g dB)\n", o.png.c_str(), ax.db_min, ax.db_max);
        }

        // Peaks of the mean spectrum, as the power of a sinusoid in dBFS: the
        // window's coherent gain (sum w)^2 / (N sum w^2) is taken out.
        double wsum = 0, wpow = 0;
        for (float w : engine.window())
            wsum += w, wpow += double(w) * w;
        const double gain_db = 10 * std::log10(wsum * wsum / (double(n) * wpow));
        const auto found = find_peaks(mean_db(sum, outputs), engine, o.peak_threshold,
                                      std::max<std::size_t>(8, n / 256), o.peaks);
        std::printf("peaks (mean spectrum, tone power in dBFS):\n");
        for (const auto& p : found)
            std::printf("  %s  %7.2f dB\n", hz(src.center_hz + p.hz).c_str(), p.db - gain_db);
        if (!demo)
            return 0;

        bool all = true;
        const double bin = c.sample_rate / double(n);
        std::printf("demo: synthesized tones next to the peaks found:\n");
        for (const auto& t : demo->tones()) {
            const peak* best = nullptr;
            for (const auto& p : found)
                if (std::abs(p.hz - t.hz) <= 2 * bin && (!best || std::abs(p.hz - t.hz) < std::abs(best->hz - t.hz)))
                    best = &p;
            std::printf("  %s  %7.2f dBFS   ->  ", hz(src.center_hz + t.hz).c_str(), t.dbfs);
            if (best)
                std::printf("%s  %7.2f dBFS\n", hz(src.center_hz + best->hz).c_str(), best->db - gain_db);
            else
                std::printf("not found\n");
            all = all && best && std::abs(best->db - gain_db - t.dbfs) < 1.0;
        }
        std::printf("  FM carrier at %s, -30 dBFS, +-%g kHz once a second (the wavy trace)\n",
                    hz(src.center_hz + demo->fm_hz()).c_str(), demo->fm_deviation_hz() / 1e3);
        std::printf("demo: %s\n", all ? "every tone found at its frequency and power (within 1 dB)"
                                      : "FAILED: a tone was missed or read the wrong power");
        return all ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gpufft-spectrum: %s\n", e.what());
        return 1;
    }
}

} // namespace gpufft_app
