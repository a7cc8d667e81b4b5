// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-spectrum: the run itself, step by step (source, engine, outputs,
 * reading, waterfall, peaks), and the exit status. */
#include "app.h"
#include "live.h"
#include "persistence.h"

#include <gpufft/demo_signal.h>
#include <gpufft/error.h>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <memory>
#include <optional>
#include <sys/stat.h>
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

//! A number as JSON writes it (shortest round trip).
std::string json_number(double v) { return nlohmann::json(v).dump(); }

//! The input named by the options: the demo, a SigMF recording or raw IQ.
iq_source resolve_source(const options& o)
{
    iq_source src;
    src.data_path = o.input;
    src.sample_rate = o.rate;
    src.center_hz = o.center;
    if (o.demo) {
        src.format = gpufft::sample_format::cf32;
        src.center_hz = o.center_set ? o.center : 100e6;
    } else if (o.input != "-" && is_sigmf(o.input)) {
        src = open_sigmf(o.input);
        // Optional in SigMF: --rate and --center stand in for what the
        // recording lacks, never for what it says, and nothing else does.
        if (src.sample_rate <= 0 && !o.rate_set)
            throw app_error(src.meta_path + ": no core:sample_rate; give --rate");
        if (src.sample_rate > 0 && o.rate_set && std::abs(o.rate - src.sample_rate) > 1e-9 * src.sample_rate)
            throw usage_error("--rate " + json_number(o.rate) + ": " + src.meta_path + " has core:sample_rate " +
                              json_number(src.sample_rate) + " (drop --rate)");
        if (src.sample_rate <= 0)
            src.sample_rate = o.rate;
        bool center_used = false;
        for (std::size_t i = 0; i < src.captures.size(); ++i) {
            capture& c = src.captures[i];
            if (!std::isnan(c.center_hz))
                continue;
            if (!o.center_set)
                throw app_error(src.meta_path + ": captures[" + std::to_string(i) +
                                "] has no core:frequency; give --center (0 for baseband)");
            c.center_hz = o.center;
            center_used = true;
        }
        if (o.center_set && !center_used)
            throw usage_error("--center: every capture of " + src.meta_path +
                              " has its core:frequency (drop --center)");
        src.center_hz = src.captures.front().center_hz;
        if (o.format_set && gpufft::parse_sample_format(o.format) != src.format)
            throw usage_error(o.input + ": its SigMF datatype is " + sigmf_datatype(src.format) + " but --format is " +
                              o.format + " (drop --format)");
    } else {
        // Raw IQ carries no metadata: what its name does not say, the command
        // line must, and nothing stands in for it.
        const auto format = raw_format(o.input, o.format_set ? o.format : "");
        std::vector<std::string> lacks, give;
        if (!format) {
            lacks.push_back("sample format");
            give.push_back("--format cf32, cs16, cs8 or cu8 (rtl_sdr writes cu8; a file named .cf32, .cs16, .cs8 or "
                           ".cu8 says it)");
        }
        if (!o.rate_set) {
            lacks.push_back("sample rate");
            give.push_back("--rate (e.g. 2.4M)");
        }
        if (!o.center_set) {
            lacks.push_back("centre frequency");
            give.push_back("--center (e.g. 100M; 0 for baseband)");
        }
        if (!lacks.empty()) {
            const auto list = [](const std::vector<std::string>& items) {
                std::string text = items.front();
                for (std::size_t i = 1; i < items.size(); ++i)
                    text += (i + 1 < items.size() ? ", " : " and ") + items[i];
                return text;
            };
            throw usage_error((o.input == "-" ? std::string("standard input") : o.input) +
                              ": raw IQ does not say its " + list(lacks) + "; give " + list(give));
        }
        src.format = *format;
    }
    return src;
}



//! Where --annotate writes without --record: the input's .sigmf-meta, or one next to a raw file naming it.
std::string annotation_meta_path(const options& o, const iq_source& src)
{
    if (!o.annotate || !o.record.empty())
        return "";
    if (!src.meta_path.empty())
        return src.meta_path;
    struct stat st;
    if (o.demo || o.input == "-" || (::stat(o.input.c_str(), &st) == 0 && !S_ISREG(st.st_mode)))
        throw usage_error("--annotate without --record needs an input file to annotate");
    const auto slash = o.input.rfind('/'), dot = o.input.rfind('.');
    const bool has_ext = dot != std::string::npos && (slash == std::string::npos || dot > slash + 1);
    return (has_ext ? o.input.substr(0, dot) : o.input) + ".sigmf-meta";
}

/*!
 * `meta`, if it exists, as --annotate may rewrite it for the raw file
 * `data`: "" if there is none, `meta` if it is SigMF metadata whose dataset
 * is `data` itself; anything else is refused (usage_error), never replaced.
 */
std::string existing_meta_of(const std::string& meta, const std::string& data)
{
    struct stat st, own;
    if (::lstat(meta.c_str(), &st) != 0)
        return "";
    const auto refuse = [&](const std::string& why) {
        throw usage_error("--annotate " + data + ": " + meta + " " + why + ": refusing to replace it (move it away, "
                          "or give --record NAME for a recording of its own)");
    };
    std::string described;
    try {
        described = open_sigmf(meta).data_path;
    } catch (const app_error& e) {
        refuse(std::string("is not metadata of this file (") + e.what() + ")");
    }
    if (::stat(described.c_str(), &st) != 0 || ::stat(data.c_str(), &own) != 0 || st.st_dev != own.st_dev ||
        st.st_ino != own.st_ino)
        refuse("describes another dataset, " + described);
    return meta;
}

//! A file's name without its directory.
std::string file_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }

} // namespace

gpufft::spectrum_config common_engine_config(const options& o, std::size_t fft, double rate,
                                             gpufft::sample_format format)
{
    gpufft::spectrum_config c;
    c.fft_size = fft;
    c.sample_rate = rate;
    c.format = format;
    c.overlap = o.overlap;
    c.window = o.window;
    if (!std::isnan(o.window_param))
        c.window_param = o.window_param;
    if (o.window_taps)
        c.user_window = o.window_taps(fft);
    c.average = gpufft::parse_averaging(o.average);
    c.alpha = o.alpha;
    c.shift = true;
    c.backend = o.backend;
    return c;
}

namespace {

//! The engine's configuration; --fps is checked against the frame rate here, naming it.
gpufft::spectrum_config engine_config(const options& o, const iq_source& src)
{
    gpufft::spectrum_config c = common_engine_config(o, o.fft, src.sample_rate, src.format);
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

//! MemAvailable of /proc/meminfo, in bytes; none where the system does not say.
std::optional<std::uint64_t> available_memory()
{
    std::FILE* f = std::fopen("/proc/meminfo", "r");
    if (!f)
        return std::nullopt;
    std::optional<std::uint64_t> bytes;
    char line[256];
    unsigned long long kib = 0;
    while (!bytes && std::fgets(line, sizeof line, f))
        if (std::sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
            bytes = std::uint64_t(kib) * 1024;
    std::fclose(f);
    return bytes;
}

/*!
 * Before the engine allocates or plans anything: refuses (usage_error) an
 * --fft with its --frames or --fps whose one spectrum needs more samples
 * than the input has where its length is known (a regular file's longest
 * capture, the demo, --duration), or buffers beyond the memory available. A
 * missing or empty input file is an app_error here too.
 */
void refuse_unfit_size(const options& o, const gpufft::spectrum_config& c, const iq_source& src,
                       std::size_t max_samples, bool live)
{
    const gpufft::spectrum_needs needs = gpufft::spectrum_requirements(c);
    std::optional<std::uint64_t> have;
    std::string of;
    if (max_samples) {
        have = max_samples;
        of = "--duration " + json_number(o.radio.duration) + " s";
    }
    if (o.demo && (!have || std::uint64_t(demo_seconds * c.sample_rate) < *have)) {
        have = std::uint64_t(demo_seconds * c.sample_rate);
        of = "--demo's " + json_number(demo_seconds) + " s";
    } else if (!o.demo && !live && src.data_path != "-") {
        struct stat st;
        if (::stat(src.data_path.c_str(), &st) != 0)
            throw app_error(src.data_path + ": cannot open: " + std::strerror(errno));
        if (S_ISREG(st.st_mode)) {
            // Each capture of a SigMF recording starts a fresh engine: the longest one counts.
            const std::uint64_t samples = std::uint64_t(st.st_size) / gpufft::sample_bytes(c.format);
            std::uint64_t longest = src.captures.size() > 1 ? 0 : samples;
            for (std::size_t i = 0; src.captures.size() > 1 && i < src.captures.size(); ++i) {
                const std::uint64_t start = i ? std::min(samples, src.captures[i].sample_start) : 0;
                const std::uint64_t end =
                    i + 1 < src.captures.size() ? std::min(samples, src.captures[i + 1].sample_start) : samples;
                longest = std::max(longest, end > start ? end - start : 0);
            }
            if (samples == 0)
                throw app_error(src.data_path + ": the input is empty");
            if (!have || longest < *have) {
                have = longest;
                of = src.data_path + (src.captures.size() > 1 ? "'s longest capture" : "");
            }
        }
    }
    const std::string size = "--fft " + std::to_string(c.fft_size) +
                             (o.frames ? " --frames " + std::to_string(o.frames) : std::string());
    if (have && *have < needs.samples_per_output)
        throw usage_error(size + ": one spectrum needs " + std::to_string(needs.samples_per_output) +
                          " samples (N + (K - 1) hop), more than the " + std::to_string(*have) + " of " + of);
    const auto gib = [](std::uint64_t bytes) {
        char text[32];
        std::snprintf(text, sizeof text, "%.3g GiB", double(bytes) / double(1ull << 30));
        return std::string(text);
    };
    if (const auto available = available_memory(); available && needs.host_bytes > *available)
        throw usage_error(size + ": the engine's buffers alone take " + gib(needs.host_bytes) + ", more than the " +
                          gib(*available) + " of memory available");
}

//! The peaks of the mean spectrum over a run of spectra at one centre frequency.
struct peak_run {
    double center_hz;
    std::uint64_t first_sample;
    std::size_t spectra;
    std::vector<peak> peaks;
    std::vector<double> sum; //!< --loop: its summed powers, which later passes at its centre add to
};

//! The mean of `count` spectra's summed powers, in dB (an empty bin reads -300).
std::vector<float> mean_db(const std::vector<double>& sum, std::size_t count)
{
    std::vector<float> db(sum.size());
    for (std::size_t i = 0; i < sum.size(); ++i)
        db[i] = float(10 * std::log10(std::max(sum[i] / double(count), 1e-30)));
    return db;
}

/*!
 * Everything the spectra feed: waterfall rows, the persistence view, the mean
 * for the peaks, CSV and JSON lines, the signal detector. The input comes in segments (SigMF
 * captures; one for other inputs), each from a fresh engine, so a spectrum's
 * samples are [start + (k-1) K hop, start + (k K - 1) hop + N) of its segment's k-th.
 */
class collector
{
public:
    collector(const options& o, const iq_source& src, const gpufft::spectrum& engine)
        : d_engine(engine),
          d_options(o),
          d_rate(src.sample_rate),
          d_input_annotations(src.annotations),
          d_n(engine.fft_size()),
          d_seconds_per_spectrum(double(engine.frames_per_output() * engine.hop()) / src.sample_rate),
          d_waterfall(o.width ? o.width : std::min<std::size_t>(d_n, 1024), 2 * std::max<std::size_t>(o.height, 1024)),
          d_sum(d_n, 0.0),
          d_rtl_interval(o.radio.interval > 0 ? std::llround(o.radio.interval) : 1),
          d_rtl_signal_time(o.radio.device.empty()),
          d_tone(d_n),
          d_dc_lobe(o.radio.dc == radio_options::dc_mode::replace ? dc_lobe_bins(o, d_n) : 0)
    {
        if (!o.csv.empty())
            d_csv.emplace(o.csv, output_file::kind::streamed);
        if (!o.jsonl.empty())
            d_jsonl.emplace(o.jsonl, output_file::kind::streamed);
        if (!o.radio.rtl_power.empty()) {
            d_rtl_power.emplace(o.radio.rtl_power);
            d_rtl_power->set_linear(o.linear);
            // rtl_power's rows need a date: where the input has none, the run's start stands in, and says so.
            const bool dated = std::any_of(src.captures.begin(), src.captures.end(),
                                           [](const capture& c) { return bool(c.datetime); });
            if (d_rtl_signal_time && !dated)
                std::fprintf(stderr,
                             "gpufft-spectrum: warning: the input has no start time (a SigMF core:datetime): "
                             "--rtl-power rows are dated from when this run began\n");
        }
        if (o.annotate)
            d_detector.emplace(o.threshold);
        std::stable_sort(d_input_annotations.begin(), d_input_annotations.end(),
                         [](const annotation& a, const annotation& b) { return a.sample_start < b.sample_start; });
        if (!o.persistence.empty()) {
            d_persistence_file.emplace(o.persistence);
            d_persistence.emplace(d_waterfall.width, o.height ? o.height : 256, o.db_min, o.db_max);
        }
        if (src.radio) { // the gain in force, on every line
            d_jsonl_radio = "\"gain_db\":" + json_number(src.radio->gain_db) + ",\"gains_db\":{";
            for (std::size_t i = 0; i < src.radio->gains.size(); ++i)
                d_jsonl_radio += (i ? "," : "") + nlohmann::json(src.radio->gains[i].first).dump() + ":" +
                                 json_number(src.radio->gains[i].second);
            d_jsonl_radio += "},\"agc\":" + std::string(src.radio->agc ? "true" : "false") + ",";
        }
        d_center = d_first_center = src.center_hz;
        d_df = src.sample_rate / double(d_n);
    }

    //! A segment of the input: from sample `start` on, the capture `c` applies (the engine restarted).
    void begin_segment(const capture& c, std::uint64_t start)
    {
        if (c.center_hz != d_center)
            end_run();
        d_center = c.center_hz;
        d_segment_start = start;
        d_segment_spectra = 0;
        d_capture = c;
    }

    /*!
     * A device overflow: the samples from stream index `at` on follow `lost`
     * samples that never came (the engine restarted, so no spectrum spans
     * the gap). The next JSON line says so.
     */
    void gap(std::uint64_t at, std::uint64_t lost)
    {
        capture same = d_capture;
        same.center_hz = d_center; // still tuned there: one run of peaks
        begin_segment(same, at);
        ++d_gaps_pending;
        d_lost_pending += lost;
    }

    //! After each read: the samples so far arrived now (a spectrum's time without a SigMF datetime).
    void note_read(std::uint64_t samples)
    {
        if (d_reads.size() == max_reads)
            d_reads.pop_front(); // only when no spectrum comes out for that long: a later time then
        d_reads.push_back({ samples, utc_now() });
    }

    //! One spectrum in dBFS.
    void add(const float* db, std::size_t len)
    {
        std::copy(db, db + len, d_tone.begin());
        if (d_dc_lobe) { // before every output: the peaks, images and live views see no spike either
            d_dc_replaced = replace_dc(d_tone.data(), len, d_dc_lobe);
            const double f0 = d_center + d_engine.bin_hz(0);
            d_dc_replaced_hz = { { f0 + double(d_dc_replaced.first) * d_df, f0 + double(d_dc_replaced.second) * d_df } };
        }
        const float* v = d_tone.data();
        ++d_spectra;
        d_nonfinite_spectra += d_engine.output_nonfinite_samples() > 0;
        const std::uint64_t k = ++d_segment_spectra, frames = d_engine.frames_per_output(), hop = d_engine.hop();
        const std::uint64_t first = d_segment_start + (k - 1) * frames * hop,
                            end = d_segment_start + (k * frames - 1) * hop + d_n;
        const double t = double(end) / d_rate;
        const std::string utc = format_utc(sample_time(end - 1));
        const double f0 = d_center + d_engine.bin_hz(0);
        d_waterfall.add(v, len);
        if (d_persistence)
            d_persistence->add(v, len);
        for (std::size_t i = 0; i < len; ++i)
            d_sum[i] += std::pow(10.0, v[i] / 10);
        if (d_run_spectra++ == 0)
            d_run_first = first;
        if (d_detector)
            d_detector->add(v, len, f0, d_df, first, end);
        if (d_csv) {
            if (d_spectra == 1) {
                // The first cell says what the values are; then the time and the
                // centre, and each bin's frequency at the first capture's centre.
                std::fprintf(d_csv->get(), "time_s (values: %s%s),utc,center_hz", value_scale(),
                             d_dc_lobe ? dc_note().c_str() : "");
                for (std::size_t i = 0; i < d_n; ++i)
                    std::fprintf(d_csv->get(), ",%.3f", d_first_center + d_engine.bin_hz(i));
                std::fprintf(d_csv->get(), "\n");
            }
            std::fprintf(d_csv->get(), "%.6f,%s,%.3f", t, utc.c_str(), d_center);
            for (std::size_t i = 0; i < len; ++i)
                write_value(d_csv->get(), ",", v[i]);
            std::fprintf(d_csv->get(), "\n");
            d_csv->flush(); // each row on disk as it completes (tail -f, a hard kill)
        }
        if (d_jsonl) {
            std::fprintf(d_jsonl->get(),
                         "{\"time_s\":%.6f,\"utc\":\"%s\",\"center_hz\":%.3f,\"f0_hz\":%.3f,\"df_hz\":%.6f,"
                         "\"%s\":\"%s\",",
                         t, utc.c_str(), d_center, f0, d_df, d_options.linear ? "power_scale" : "db_scale", value_scale());
            if (d_dc_lobe) // the bins --dc replace wrote, by their frequencies
                std::fprintf(d_jsonl->get(), "\"dc_replaced_hz\":[%.3f,%.3f],", d_dc_replaced_hz[0].first,
                             d_dc_replaced_hz[0].second);
            std::fputs(d_jsonl_radio.c_str(), d_jsonl->get());
            write_annotations(first, end);
            if (const std::size_t bad = d_engine.output_nonfinite_samples()) // taken as 0 (docs/receiver.md)
                std::fprintf(d_jsonl->get(), "\"nonfinite_samples\":%zu,", bad);
            if (d_gaps_pending) // the spectra lost to overflows since the line before
                std::fprintf(d_jsonl->get(), "\"overflow_before\":{\"overflows\":%zu,\"lost_samples\":%llu,\"lost_s\":%.6f},",
                             d_gaps_pending, (unsigned long long)d_lost_pending, double(d_lost_pending) / d_rate);
            std::fprintf(d_jsonl->get(), "\"%s\":[", d_options.linear ? "power" : "db");
            for (std::size_t i = 0; i < len; ++i)
                write_value(d_jsonl->get(), i ? "," : "", v[i]);
            std::fprintf(d_jsonl->get(), "]}\n");
            d_jsonl->flush();
        }
        if (d_rtl_power)
            add_rtl_power(v, len, f0, frames, end - 1);
        d_gaps_pending = 0;
        d_lost_pending = 0;
    }

    //! Ends the last run of peaks and writes the last rtl_power row.
    void finish()
    {
        end_run();
        write_rtl_power_row();
    }
    const std::vector<peak_run>& runs() const { return d_runs; }
    std::vector<annotation> detected() { return d_detector ? d_detector->finish() : std::vector<annotation>(); }
    std::size_t detections_dropped() const { return d_detector ? d_detector->dropped() : 0; }

    void commit()
    {
        if (d_csv)
            d_csv->commit();
        if (d_jsonl)
            d_jsonl->commit();
        if (d_rtl_power)
            d_rtl_power->commit();
    }

    //! The newest spectrum (tone dBFS).
    const float* latest() const { return d_tone.data(); }
    //! --dc replace: the bins the newest spectrum had replaced, by their frequencies; null without it.
    const std::vector<std::pair<double, double>>* dc_replaced_hz() const
    {
        return d_dc_lobe ? &d_dc_replaced_hz : nullptr;
    }
    //! The centre frequency of the current segment.
    double center() const { return d_center; }
    std::size_t spectra() const { return d_spectra; }
    //! Spectra whose frames held NaN or infinite samples (taken as 0).
    std::size_t nonfinite_spectra() const { return d_nonfinite_spectra; }
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

private:
    //! What --csv and --jsonl values are (docs/levels.md).
    const char* value_scale() const
    {
        return d_options.linear ? "tone power, linear, full-scale tone = 1" : "tone dBFS";
    }
    //! The CSV's note of the bins --dc replace writes, by their offset from the centre.
    std::string dc_note() const
    {
        char text[160];
        std::snprintf(text, sizeof text, "; the centre bin and %zu each side replaced by their neighbours' mean",
                      d_dc_lobe - 1);
        return text;
    }
    //! One value of a tone dBFS spectrum, as --linear asks.
    void write_value(std::FILE* f, const char* before, float db) const
    {
        if (d_options.linear)
            std::fprintf(f, "%s%.4e", before, std::pow(10.0, double(db) / 10));
        else
            std::fprintf(f, "%s%.2f", before, db);
    }

    //! When sample i was taken: its capture's core:datetime plus its offset, else when it was read.
    utc_time sample_time(std::uint64_t i)
    {
        if (d_capture.datetime) {
            return utc_after(*d_capture.datetime, (double(i) - double(d_capture.sample_start)) / d_rate);
        }
        while (d_reads.size() > 1 && d_reads.front().first <= i)
            d_reads.pop_front();
        return d_reads.empty() ? utc_now() : d_reads.front().second;
    }

    //! When the signal was `seconds` after the input's first sample: by its capture's core:datetime, else from when the run began.
    utc_time signal_time(double seconds) const
    {
        if (d_capture.datetime)
            return utc_after(*d_capture.datetime, seconds - double(d_capture.sample_start) / d_rate);
        return utc_after(d_run_began, seconds);
    }

    //! The input's annotations that overlap samples [first, end), as a JSON member.
    void write_annotations(std::uint64_t first, std::uint64_t end)
    {
        while (d_next_annotation < d_input_annotations.size() &&
               d_input_annotations[d_next_annotation].sample_start < end)
            d_active.push_back(&d_input_annotations[d_next_annotation++]);
        const auto over = [&](const annotation* a) {
            return a->sample_count && a->sample_start <= first && *a->sample_count <= first - a->sample_start;
        };
        d_active.erase(std::remove_if(d_active.begin(), d_active.end(), over), d_active.end());
        if (d_active.empty())
            return;
        nlohmann::json list = nlohmann::json::array();
        for (const annotation* a : d_active) {
            nlohmann::json j{ { "sample_start", a->sample_start }, { "label", a->label }, { "comment", a->comment } };
            if (a->sample_count)
                j["sample_count"] = *a->sample_count;
            if (a->freq_lower_edge)
                j["freq_lower_edge"] = *a->freq_lower_edge;
            if (a->freq_upper_edge)
                j["freq_upper_edge"] = *a->freq_upper_edge;
            list.push_back(j);
        }
        const std::string text = list.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        std::fprintf(d_jsonl->get(), "\"annotations\":%s,", text.c_str());
    }

    /*
     * rtl_power's rows without a sweep: as rtl_power.c, the mean power of
     * every spectrum of one interval (whole seconds), a row per interval
     * stamped with the second it ends, so that no two rows of one centre
     * share a time. A spectrum belongs to the interval its last sample
     * falls in; the last interval, cut short by the end of the run, is
     * written too (its samples field says how many FFTs it holds). From a
     * radio the intervals are of wall-clock time from the first spectrum's
     * second, as rtl_power's; from a file, standard input or the demo they
     * are of signal time from the first sample, so that the rows do not
     * depend on how fast the machine reads (docs/receiver.md).
     */
    void add_rtl_power(const float* v, std::size_t len, double f0, std::size_t frames, std::uint64_t last)
    {
        std::int64_t k;
        if (d_rtl_signal_time) {
            k = static_cast<std::int64_t>(double(last) / d_rate / double(d_rtl_interval));
        } else {
            const std::int64_t second =
                std::chrono::floor<std::chrono::seconds>(sample_time(last)).time_since_epoch().count();
            if (!d_rtl_first_second)
                d_rtl_first_second = second;
            k = (second - *d_rtl_first_second) / d_rtl_interval;
        }
        if (d_rtl_spectra && (k != d_rtl_k || f0 != d_rtl_f0))
            write_rtl_power_row();
        if (!d_rtl_spectra) {
            d_rtl_k = k;
            d_rtl_f0 = f0;
            d_rtl_sum.assign(len, 0.0);
            // Stamped now, while the capture the row's spectra came from is in force.
            d_rtl_end = d_rtl_signal_time ? signal_time(double((k + 1) * d_rtl_interval))
                                          : utc_time(std::chrono::seconds(*d_rtl_first_second +
                                                                          (k + 1) * d_rtl_interval));
        }
        for (std::size_t i = 0; i < len; ++i)
            d_rtl_sum[i] += std::pow(10.0, v[i] / 10);
        ++d_rtl_spectra;
        d_rtl_frames += frames;
    }

    void write_rtl_power_row()
    {
        if (!d_rtl_spectra)
            return;
        const std::vector<float> mean = mean_db(d_rtl_sum, d_rtl_spectra);
        d_rtl_power->row(std::chrono::time_point_cast<std::chrono::system_clock::duration>(d_rtl_end), d_rtl_f0, d_df,
                         d_rtl_frames, mean.data(), mean.size());
        d_rtl_spectra = d_rtl_frames = 0;
    }

    void end_run()
    {
        if (!d_run_spectra)
            return;
        // --loop: the passes of a capture join its first pass's run, so that
        // the peak list (and memory) stays one run per centre of the file.
        auto run = d_options.loop ? std::find_if(d_runs.begin(), d_runs.end(),
                                                 [&](const peak_run& r) { return r.center_hz == d_center; })
                                  : d_runs.end();
        if (run == d_runs.end()) {
            d_runs.push_back({ d_center, d_run_first, 0, {}, std::vector<double>(d_sum.size(), 0.0) });
            run = d_runs.end() - 1;
        }
        for (std::size_t i = 0; i < d_sum.size(); ++i)
            run->sum[i] += d_sum[i];
        run->spectra += d_run_spectra;
        run->peaks = find_peaks(mean_db(run->sum, run->spectra), d_engine, d_options.peak_threshold,
                                std::max<std::size_t>(8, d_n / 256), d_options.peaks);
        if (!d_options.loop)
            run->sum.clear();
        std::fill(d_sum.begin(), d_sum.end(), 0.0);
        d_run_spectra = 0;
    }

    static constexpr std::size_t max_reads = 4096;
    const gpufft::spectrum& d_engine;
    const options& d_options;
    double d_rate;
    std::vector<annotation> d_input_annotations; // by sample_start
    std::size_t d_next_annotation = 0;
    std::vector<const annotation*> d_active;
    std::size_t d_n;
    double d_seconds_per_spectrum, d_center = 0, d_first_center = 0, d_df = 0;
    waterfall d_waterfall;
    std::vector<double> d_sum; // linear power, this run
    // The rtl_power row being integrated: linear power summed over its spectra.
    std::int64_t d_rtl_interval;
    bool d_rtl_signal_time; // intervals of signal time (the input is no radio)
    std::optional<std::int64_t> d_rtl_first_second;
    utc_time d_rtl_end;               // the time the row being integrated is stamped with
    utc_time d_run_began = utc_now(); // a row's time where the input has none
    std::int64_t d_rtl_k = 0;
    double d_rtl_f0 = 0;
    std::vector<double> d_rtl_sum;
    std::size_t d_rtl_spectra = 0, d_rtl_frames = 0;
    std::size_t d_gaps_pending = 0; // overflows since the last spectrum
    std::uint64_t d_lost_pending = 0;
    std::vector<float> d_tone;
    std::size_t d_dc_lobe;                             // --dc replace: the window's main lobe, bins; 0: none
    std::pair<std::size_t, std::size_t> d_dc_replaced; // the bins it replaced
    std::vector<std::pair<double, double>> d_dc_replaced_hz; // and their frequencies (one run)
    std::size_t d_spectra = 0, d_run_spectra = 0, d_segment_spectra = 0, d_nonfinite_spectra = 0;
    std::uint64_t d_segment_start = 0, d_run_first = 0;
    capture d_capture;
    std::deque<std::pair<std::uint64_t, utc_time>> d_reads; // samples read so far, and when
    std::vector<peak_run> d_runs;
    std::optional<signal_detector> d_detector;
    std::optional<output_file> d_csv, d_jsonl, d_persistence_file;
    std::optional<persistence> d_persistence;
    std::optional<rtl_power_csv> d_rtl_power;
    std::string d_jsonl_radio; //!< a radio's gain as JSON members, or ""
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

//! Reads the input file or standard input, capture by capture (with --loop, pass after pass); returns the samples used.
std::size_t read_input(const options& o, const iq_source& src, gpufft::spectrum& engine,
                       const gpufft::spectrum::sink& sink, collector& out, const read_hook& on_read,
                       std::size_t max_samples)
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
    const std::size_t bps = gpufft::sample_bytes(engine.config().format);
    const std::size_t budget = max_samples && max_samples < SIZE_MAX / bps ? max_samples * bps : SIZE_MAX; // --duration
    const std::size_t chunk = o.realtime ? realtime_chunk(src.sample_rate) * bps : std::size_t(1) << 20;
    // --loop plays the file's whole samples (a trailing partial one never) again and again.
    std::uint64_t file_samples = 0;
    if (o.loop) {
        struct stat st;
        if (::fstat(in.fd, &st) != 0)
            throw app_error(src.data_path + ": " + std::strerror(errno));
        file_samples = std::uint64_t(st.st_size) / bps;
    }
    const std::vector<capture> captures =
        src.captures.empty() ? std::vector<capture>{ { 0, src.center_hz, std::nullopt } } : src.captures;
    std::size_t bytes = 0;
    try {
        // Several captures (a retune each), and each pass of a loop: from a
        // fresh engine, so that no frame mixes two captures' samples or the
        // end of the file with its start; the samples after a capture's last
        // whole spectrum go into none.
        for (std::uint64_t pass = 0; pass == 0 || (o.loop && bytes < budget && !stop_signal()); ++pass) {
            if (pass && ::lseek(in.fd, 0, SEEK_SET) != 0)
                throw app_error(std::string("cannot play it again: ") + std::strerror(errno));
            // Pass p's samples follow pass p - 1's: its sample numbers and times go on.
            const std::uint64_t offset = pass * file_samples;
            for (std::size_t i = 0; i < captures.size() && bytes < budget && !stop_signal(); ++i) {
                // A loop's passes cover the file exactly: captures clamped to its samples.
                const auto in_file = [&](std::uint64_t k) { return o.loop ? std::min(k, file_samples) : k; };
                const std::uint64_t start = i ? in_file(captures[i].sample_start) : 0;
                const std::uint64_t end = i + 1 < captures.size() ? in_file(captures[i + 1].sample_start)
                                          : o.loop                ? file_samples
                                                                  : 0; // 0: to the end of the input
                const std::size_t capture_bytes =
                    end || o.loop ? (end - start < SIZE_MAX / bps ? std::size_t(end - start) * bps : SIZE_MAX)
                                  : SIZE_MAX;
                const std::size_t limit = std::min(budget - bytes, capture_bytes);
                if (i || pass)
                    engine.reset();
                capture c = captures[i];
                c.sample_start += offset;
                if (c.datetime)
                    c.datetime = utc_after(*c.datetime, double(offset) / src.sample_rate);
                out.begin_segment(c, start + offset);
                const std::size_t got = pump(in.fd, engine, sink, on_read, limit, chunk);
                bytes += got;
                if (got < limit) {
                    if (o.loop && !stop_signal() && bytes < budget) // else the loop would spin on nothing
                        throw app_error("--loop: it ended early in pass " + std::to_string(pass + 1) +
                                        ": the file is shorter than when it was opened");
                    break;
                }
            }
        }
    } catch (const app_error& e) {
        throw app_error((src.data_path == "-" ? "standard input" : src.data_path) + ": " + e.what());
    }
    if (bytes % bps && !stop_signal())
        std::fprintf(stderr, "gpufft-spectrum: ignored %zu trailing bytes (a partial %s sample)\n", bytes % bps,
                     gpufft::format_name(engine.config().format).c_str());
    return bytes / bps;
}

//! Synthesizes the demo signal (at most `max_samples` of it, 0: all; with --loop without end) into the engine; returns the samples used.
std::size_t feed_demo(const options& o, gpufft::demo_signal& demo, gpufft::spectrum& engine,
                      const gpufft::spectrum::sink& sink, const read_hook& on_read, std::size_t max_samples)
{
    const double rate = engine.config().sample_rate;
    std::vector<gpufft::complex> chunk(o.realtime ? std::min<std::size_t>(1 << 16, realtime_chunk(rate)) : 1 << 16);
    auto total = o.loop ? SIZE_MAX : std::size_t(demo_seconds * rate);
    if (max_samples) // --duration
        total = std::min(total, max_samples);
    std::size_t done = 0;
    for (; done < total && !stop_signal(); done += chunk.size()) {
        const std::size_t len = std::min(chunk.size(), total - done);
        demo.generate(chunk.data(), len);
        on_read(reinterpret_cast<const unsigned char*>(chunk.data()), len * sizeof(gpufft::complex));
        engine.push(chunk.data(), len, sink);
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
void write_waterfall(const options& o, output_file& f, const iq_source& src, const gpufft::spectrum& engine,
                     const collector& out, std::FILE* report)
{
    write_waterfall_png(o, f, out.rows(), view_axes(src, engine, out), report);
}

} // namespace

void write_waterfall_png(const options& o, output_file& f, const waterfall& wf, axes ax, std::FILE* report)
{
    std::vector<float> v(wf.rows);
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 50), v.end());
    ax.db_min = std::isnan(o.db_min) ? std::floor(v[v.size() / 50]) : o.db_min;
    ax.db_max = std::isnan(o.db_max) ? std::ceil(*std::max_element(wf.rows.begin(), wf.rows.end())) : o.db_max;
    if (ax.db_max <= ax.db_min)
        ax.db_max = ax.db_min + 1;
    write_png(f, wf, ax, o.height ? o.height : std::min<std::size_t>(wf.count(), 1000));
    std::fprintf(report, "waterfall: %s (%g to %g dBFS)\n", o.png.c_str(), ax.db_min, ax.db_max);
}

namespace {

//! The persistence PNG, if asked for; its dB range was fixed by the first spectrum unless given.
void write_persistence(const options& o, const iq_source& src, const gpufft::spectrum& engine, collector& out,
                       std::FILE* report)
{
    if (const auto range = out.write_persistence(view_axes(src, engine, out)))
        std::fprintf(report, "persistence: %s (%g to %g dBFS)\n", o.persistence.c_str(), range->first,
                     range->second);
}

//! Prints the peaks of the mean spectrum (one per run of captures at one centre); returns the first run's.
std::vector<peak> print_peaks(const collector& out, std::FILE* report)
{
    const auto& runs = out.runs();
    for (const auto& run : runs) {
        if (runs.size() == 1)
            std::fprintf(report, "peaks (mean spectrum, tone power in dBFS):\n");
        else
            std::fprintf(report, "peaks at centre %s (from sample %llu, mean of %zu spectra, tone dBFS):\n",
                         hz(run.center_hz).c_str(), (unsigned long long)run.first_sample, run.spectra);
        for (const auto& p : run.peaks)
            std::fprintf(report, "  %s  %7.2f dBFS\n", hz(run.center_hz + p.hz).c_str(), p.db);
    }
    return runs.empty() ? std::vector<peak>() : runs.front().peaks;
}

//! Lists the input's SigMF annotations (at most 20), control characters shown as '?'.
void print_annotations(const iq_source& src, std::FILE* report)
{
    const auto printable = [](std::string text) {
        for (char& c : text)
            if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
                c = '?';
        return text;
    };
    if (src.annotations.empty())
        return;
    std::fprintf(report, "annotations in %s: %zu\n", src.meta_path.c_str(), src.annotations.size());
    for (std::size_t i = 0; i < src.annotations.size() && i < 20; ++i) {
        const annotation& a = src.annotations[i];
        std::fprintf(report, "  %.6f s", double(a.sample_start) / src.sample_rate);
        if (a.sample_count)
            std::fprintf(report, " + %.6f s", double(*a.sample_count) / src.sample_rate);
        if (a.freq_lower_edge && a.freq_upper_edge)
            std::fprintf(report, ", %.3f to %.3f Hz", *a.freq_lower_edge, *a.freq_upper_edge);
        std::fprintf(report, "%s%s%s%s\n", a.label.empty() ? "" : ": ", printable(a.label).c_str(),
                     a.comment.empty() ? "" : " - ", printable(a.comment).c_str());
    }
    if (src.annotations.size() > 20)
        std::fprintf(report, "  ... and %zu more\n", src.annotations.size() - 20);
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
    std::vector<std::pair<std::string, std::string>> outputs{ { "--png", o.png },
                                                              { "--csv", o.csv },
                                                              { "--jsonl", o.jsonl },
                                                              { "--rtl-power", o.radio.rtl_power },
                                                              { "--persistence", o.persistence } };
    if (!o.record.empty()) {
        outputs.push_back({ "--record", sigmf_recorder::data_name(o.record) });
        outputs.push_back({ "--record", sigmf_recorder::meta_name(o.record) });
    }
    refuse_unwritable_outputs(outputs);
    refuse_shared_outputs(outputs);
    std::unique_ptr<soapy_radio> radio;
    if (!o.radio.device.empty()) {
        radio = std::make_unique<soapy_radio>(o.radio, o.rate,
                                              o.radio.sweep.empty() ? std::optional<double>(o.center) : std::nullopt);
        if (!o.radio.sweep.empty()) {
            if (o.annotate) // its signals span samples of one capture's spectra, not a stitched band
                throw usage_error("--annotate does not combine with --sweep");
            return run_sweep(o, *radio);
        }
    }
    const iq_source src = radio ? radio_source(*radio) : resolve_source(o);
    refuse_unplayable(o, src);
    const std::string annotation_meta = annotation_meta_path(o, src);
    refuse_unwritable_outputs({ { "--annotate", annotation_meta } });
    auto with_annotation = outputs; // the metadata of a SigMF input, which it rewrites: no other output's
    with_annotation.push_back({ "--annotate", annotation_meta });
    refuse_shared_outputs(with_annotation);
    // A raw file's metadata: a .sigmf-meta of that name already there must
    // describe this very file, not a recording beside it.
    const std::string annotation_base =
        annotation_meta.empty() || !src.meta_path.empty() ? "" : existing_meta_of(annotation_meta, src.data_path);
    std::vector<std::string> inputs;
    if (!o.demo && !radio)
        inputs = { src.data_path };
    if (!src.meta_path.empty())
        inputs.push_back(src.meta_path);
    refuse_overwriting_inputs(inputs, outputs);

    gpufft::spectrum_config c = engine_config(o, src);
    c.ref_scale = ref_scale(src.format, src.full_scale);
    // --duration in samples (0: no limit; at least one when given).
    const double duration_samples = std::ceil(o.radio.duration * c.sample_rate);
    const std::size_t max_samples = duration_samples >= 1e18 ? 0 : std::size_t(duration_samples);
    refuse_unfit_size(o, c, src, max_samples, bool(radio));
    gpufft::spectrum engine(c);
    live_outputs live(o); // binds before the output files exist: a port in use leaves none
    collector out(o, src, engine);
    std::optional<output_file> png;
    if (o.png != "none")
        png.emplace(o.png);
    std::size_t overflows = 0;
    std::uint64_t lost = 0; // samples a live radio dropped
    const auto sink = [&](const float* db, std::size_t len) {
        out.add(db, len);
        live_spectrum s = capture_spectrum(out.center(), engine); // a SigMF capture's centre
        s.db = out.latest();
        s.bins = len;
        s.overflows = overflows;
        s.lost_s = double(lost) / c.sample_rate;
        s.nonfinite_samples = engine.nonfinite_samples();
        s.radio = src.radio ? &*src.radio : nullptr;
        s.dc_replaced_hz = out.dc_replaced_hz();
        live.publish(s, out.seconds());
    };
    progress_line progress(o.progress == 1 || (o.progress == -1 && isatty(2)), c, out);
    std::optional<sigmf_recorder> recorder;
    if (!o.record.empty())
        recorder.emplace(o.record, src);
    std::size_t bytes_read = 0;
    const std::size_t bps = gpufft::sample_bytes(c.format);
    std::optional<pacer> pace; // --realtime
    if (o.realtime)
        pace.emplace(c.sample_rate);
    const read_hook on_read = [&](const unsigned char* data, std::size_t len) {
        bytes_read += len;
        if (pace) // before the read counts as arrived: its samples' time
            pace->wait(bytes_read / bps);
        if (recorder)
            recorder->write(data, len);
        out.note_read(bytes_read / bps + lost);
        progress(bytes_read);
    };

    // With an output on standard output, the report goes to standard error.
    std::FILE* report =
        (o.png == "-" || o.csv == "-" || o.jsonl == "-" || o.radio.rtl_power == "-" || o.persistence == "-") ? stderr
                                                                                                              : stdout;
    std::unique_ptr<gpufft::demo_signal> demo;
    std::size_t samples = 0;
    stream_stats device_stats;
    if (radio) {
        std::fprintf(report, "gpufft-spectrum: %s, centre %s\n", radio->description().c_str(),
                     hz_text(radio->center()).c_str());
        std::fflush(report); // a live capture runs until stopped: say what it is now
    }
    // A failure of the input (a radio's stream, a driver, a read) ends the
    // measurement, not the run: everything measured before it is written
    // out in full, and the run still fails. An output that fails ends it at once.
    std::string failure;
    try {
        if (radio) {
            const auto on_gap = [&](std::uint64_t at, std::uint64_t dropped) {
                ++overflows;
                lost += dropped;
                out.gap(at, dropped);
                if (recorder) // a new capture: a replay starts afresh there, as the live spectra did
                    recorder->retune(radio->center());
            };
            device_stats = stream_radio(*radio, engine, sink,
                                        std::size_t(std::llround(o.radio.settle * c.sample_rate)), max_samples, on_read,
                                        on_gap);
            samples = device_stats.samples;
        } else if (o.demo) {
            demo = std::make_unique<gpufft::demo_signal>(c.sample_rate, engine.fft_size());
            samples = feed_demo(o, *demo, engine, sink, on_read, max_samples);
        } else {
            samples = read_input(o, src, engine, sink, out, on_read, max_samples);
        }
    } catch (const output_error&) {
        throw;
    } catch (const std::exception& e) {
        failure = *e.what() ? e.what() : "the input failed";
        samples = bytes_read / bps;
        try {
            engine.flush(sink); // the spectra complete before the failure, as at an overflow
        } catch (const output_error&) {
            throw;
        } catch (const std::exception&) { // the engine's own failure: its spectra so far are what there is
        }
    }
    progress.end();
    const bool failed = !failure.empty();
    if (failed) // now: writing the outputs may take a while
        std::fprintf(stderr, "gpufft-spectrum: %s\n", failure.c_str());
    out.finish();
    report_nonfinite(engine.nonfinite_samples(), out.nonfinite_spectra());
    const int stopped = stop_signal();
    if (out.spectra() == 0) {
        if ((stopped || failed) && recorder)
            recorder->commit(std::nullopt);
        if (failed)
            throw app_error("no spectrum was complete before the failure above");
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
    std::optional<std::vector<annotation>> detected;
    if (o.annotate)
        detected = out.detected();
    if (recorder) {
        recorder->commit(detected);
        std::fprintf(report, "recording: %s and %s\n", sigmf_recorder::data_name(o.record).c_str(),
                     sigmf_recorder::meta_name(o.record).c_str());
    } else if (!annotation_meta.empty()) {
        iq_source annotated = src;
        std::optional<std::string> dataset; // a SigMF input's own: kept
        if (src.meta_path.empty()) {        // a raw file: named by core:dataset
            annotated.captures = { { 0, o.center_set ? src.center_hz : NAN, std::nullopt } };
            annotated.meta_path = annotation_base; // its earlier metadata, every field kept
            dataset = file_name(src.data_path);
        }
        write_sigmf_meta(annotation_meta, annotated, detected, dataset);
    }
    if (o.annotate)
        std::fprintf(report, "annotations: %zu signals %g dB over the noise floor written to %s%s\n", detected->size(),
                     o.threshold, (recorder ? sigmf_recorder::meta_name(o.record) : annotation_meta).c_str(),
                     out.detections_dropped() ? " (more were found than are kept)" : "");

    std::fprintf(report, "gpufft-spectrum: %zu samples at %.0f Hz, N = %zu on %s, %zu spectra of %zu frames%s\n",
                 samples, c.sample_rate, engine.fft_size(), engine.backend().c_str(), out.spectra(),
                 engine.frames_per_output(), stopped ? " (stopped by a signal)" : "");
    if (radio && !failed) {
        std::fprintf(report, "device: %.3f s, waiting on the device %.1f%%, FFT path %.1f%% of the time; %zu overflows\n",
                     device_stats.wall_s, 100 * device_stats.device_s / device_stats.wall_s,
                     100 * device_stats.fft_s / device_stats.wall_s, device_stats.overflows);
        if (device_stats.overflows)
            std::fprintf(report,
                         "overflows: %zu gaps, about %llu samples (%.3f s) lost by the host's clock; no spectrum "
                         "spans a gap, times count the lost ones\n",
                         overflows, (unsigned long long)device_stats.lost, double(device_stats.lost) / c.sample_rate);
    }
    if (png)
        write_waterfall(o, *png, src, engine, out, report);
    write_persistence(o, src, engine, out, report);
    print_annotations(src, report);
    const auto found = print_peaks(out, report);
    const bool demo_ok = !demo || check_demo(*demo, found, src, engine, report);

    flush_stdout();
    if (failed) {
        std::fprintf(stderr, "gpufft-spectrum: the outputs hold the %zu spectra before the failure\n", out.spectra());
        return exit_failure;
    }
    if (stop_signal())
        return 128 + stop_signal();
    return demo_ok ? exit_ok : exit_failure;
}

} // namespace

iq_source radio_source(const soapy_radio& radio)
{
    iq_source src;
    src.data_path = radio.description();
    src.format = radio.format();
    src.sample_rate = radio.rate();
    src.center_hz = radio.center();
    src.hardware = radio.description(); // core:hw of a --record
    src.full_scale = radio.full_scale();
    src.radio = radio.settings();
    return src;
}

void report_nonfinite(std::uint64_t samples, std::optional<std::size_t> spectra)
{
    if (!samples)
        return;
    std::fprintf(stderr, "gpufft-spectrum: warning: %llu input samples were NaN or infinite: taken as 0",
                 (unsigned long long)samples);
    if (spectra)
        std::fprintf(stderr, " in the %zu spectra that hold some (--jsonl: nonfinite_samples)", *spectra);
    std::fprintf(stderr, "\n");
}

void flush_stdout()
{
    if (std::fflush(stdout) != 0 && errno == EPIPE)
        request_stop(SIGPIPE);
    else if (std::ferror(stdout))
        throw app_error(std::string("standard output: write failed: ") + std::strerror(errno));
}

std::vector<peak> find_peaks(const std::vector<float>& db,
                             const gpufft::spectrum& s,
                             double threshold_db,
                             std::size_t min_sep,
                             std::size_t count)
{
    std::vector<peak> out;
    for (std::size_t i : peak_bins(db, threshold_db, min_sep, count))
        out.push_back({ s.bin_hz(i), db[i] });
    return out;
}

std::vector<std::size_t> peak_bins(const std::vector<float>& db, double threshold_db, std::size_t min_sep,
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
    return kept;
}

int run(const std::vector<std::string>& args)
{
    try {
        const options o = parse_options(args);
        if (!o.help.empty()) {
            std::fputs(o.help.c_str(), stdout);
            return exit_ok;
        }
        if (o.version) {
            std::fputs(version_text("gpufft-spectrum").c_str(), stdout);
            return exit_ok;
        }
        if (o.radio.list_devices) {
            list_devices(stdout);
            return exit_ok;
        }
        if (o.radio.info) {
            print_device_info(o.radio, stdout);
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
