// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-spectrum: a headless receiver on the spectrum engine (internal API,
 * shared by the program and its tests). */
#ifndef GPUFFT_APPS_SPECTRUM_APP_H
#define GPUFFT_APPS_SPECTRUM_APP_H

#include "radio.h"

#include <gpufft/spectrum.h>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <stdexcept>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace gpufft_app {

//! Exit statuses (also in --help and README.md).
enum exit_status : int {
    exit_ok = 0,
    exit_failure = 1, //!< bad input, a failed read or write, or the demo's check failed
    exit_usage = 2,   //!< bad command line
    // 128 + N: stopped by signal N (SIGINT 130, SIGTERM 143, SIGHUP 129) with
    // complete outputs, or 141 (128 + SIGPIPE) when standard output closed.
};

//! Bad input (files, metadata, data): the program prints it and exits with 1.
struct app_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};
//! An output that cannot be written (an app_error): unlike a failing input, it ends the run at once.
struct output_error : app_error {
    using app_error::app_error;
};
//! A bad command line: the program prints it and exits with 2.
struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

//! The command line.
struct options {
    std::string input = "-";
    std::string help; //!< the --help text, if asked for
    bool demo = false;
    std::string format;    //!< --format, if given (raw IQ needs it where the name does not say it)
    double rate = 2.4e6;   //!< --demo's and a --device's unless --rate; raw IQ needs --rate
    double center = 0;     //!< used only where given (--center)
    bool rate_set = false, center_set = false, format_set = false, fps_set = false;
    std::string backend = "auto", window = "blackmanharris", average = "linear";
    double window_param = NAN; //!< P of --window NAME:P; NaN if none
    //! If set, the window of N taps instead of --window's (gpufft-power's rtl_power windows).
    std::function<std::vector<float>(std::size_t n)> window_taps;
    std::size_t fft = 2048, frames = 0, width = 0, height = 0, peaks = 10;
    double overlap = 0.5, alpha = 0.1, fps = 0, peak_threshold = 10;
    double db_min = NAN, db_max = NAN;
    std::string png = "waterfall.png", csv, jsonl;
    std::string serve, zmq_pub; //!< live outputs (live.h): web view address, ZeroMQ endpoint
    std::vector<std::string> serve_origins; //!< --serve-origin: other pages that may open the web view's WebSocket
    std::string name;           //!< the receiver's name in the live outputs (default: the host name)
    std::string persistence; //!< the persistence PNG, if any
    int progress = -1; //!< -1: on a terminal
    radio_options radio; //!< --device, --sweep, --rtl-power, --duration (radio.h)
    std::string record; //!< --record NAME: NAME.sigmf-data and NAME.sigmf-meta
    bool annotate = false;
    double threshold = 10; //!< --annotate: dB over the noise floor
    bool realtime = false; //!< --realtime: the input file or the demo at its sample rate
    bool loop = false;     //!< --loop: the input file again from its start (the demo without end)
    bool linear = false;   //!< --linear: --csv, --jsonl and --rtl-power values as linear tone power (full scale 1)
    bool version = false;  //!< --version
};
//! --version's text: the program's, the library's and the backends built in.
std::string version_text(const char* program);
//! Parses the arguments (without the program name); throws usage_error naming the option.
options parse_options(const std::vector<std::string>& args);
/*!
 * A window as NAME or NAME:P (gpufft::make_window's names; P a decimal
 * number in the window's range, gpufft::check_window_param): the name and P,
 * NaN if none. Throws usage_error naming `option`.
 */
std::pair<std::string, double> parse_window(const std::string& text, const std::string& option);
//! Adds --realtime and --loop (playback.cc).
void add_playback_options(CLI::App& app, options& o);
//! After parsing: refuses --realtime and --loop where they mean nothing (a radio, standard input); usage_error.
void check_playback_options(const CLI::App& app, const options& o);
//! --realtime: the samples of one read, about 20 ms of them at `sample_rate`.
std::size_t realtime_chunk(double sample_rate);
/*!
 * --realtime: holds each read back until its samples' time has come, as a
 * radio delivers them, counted from the first wait().
 */
class pacer
{
public:
    explicit pacer(double sample_rate) : d_rate(sample_rate) {}
    //! Returns once `samples` samples have had their time, or at once on stop_signal().
    void wait(std::uint64_t samples);

private:
    double d_rate;
    std::optional<std::chrono::steady_clock::time_point> d_start;
};
//! The engine settings every capture shares (window, averaging, backend, fftshift) at N, rate and format.
gpufft::spectrum_config common_engine_config(const options& o, std::size_t fft, double rate,
                                             gpufft::sample_format format);

//! Frequencies and rates the program accepts (Hz), so that bins stay resolvable in double.
constexpr double max_frequency_hz = 1e12, max_sample_rate_hz = 1e12;

/*!
 * A decimal number and nothing else: [+-]DIGITS[.DIGITS][(e|E)[+-]DIGITS]
 * (or .DIGITS), no spaces, hex, inf, nan or leading zero ("010"). False if
 * `text` is not one; a number beyond a double (1e400, 1e-400) reads as
 * infinity, out of every range. The number inside every value taken.
 */
bool parse_decimal(const std::string& text, double& value);
//! A unit a number may end with, and what it multiplies the number by.
struct unit {
    const char* suffix;
    double scale;
};
/*!
 * A decimal number with one of `units` after it (or none: scale 1), the
 * longer of two suffixes where one ends the other listed first ("ms", "s");
 * throws usage_error with `expected` and the text if it is not one, or if
 * it is beyond a double. The one grammar of the parsers below.
 */
double scaled(const std::string& text, std::initializer_list<unit> units, const std::string& expected);
/*!
 * A number with an optional suffix k, M or G (x 1e3, 1e6, 1e9; m and g too,
 * as rtl_power reads them): "100M", "2.4M", "10k", "1.5G", "2.4e6". Throws
 * usage_error saying what was expected. For every frequency and rate taken.
 */
double parse_si(const std::string& text);
/*!
 * A time in seconds: a number with an optional unit ms, s, m, h or d
 * (S, M, H and D too, as rtl_power reads -i and -e): "50ms", "2.5", "10m",
 * "1h", "7d". Throws usage_error saying the syntax. For every duration taken.
 */
double parse_seconds(const std::string& text);
/*!
 * A fraction: a number, or a percentage ("0.2", "20%"). Throws usage_error
 * saying the syntax. For every fraction taken.
 */
double parse_fraction(const std::string& text);

//! A UTC time, nanoseconds since the Unix epoch (64 bits: years 1678 to 2261).
using utc_time = std::chrono::time_point<std::chrono::system_clock, std::chrono::nanoseconds>;
constexpr std::int64_t max_utc_seconds = 9000000000; //!< within the 64-bit count, both ways
utc_time utc_now();
//! `seconds` after `t` (before if negative), to the nanosecond, saturating at the range's ends.
utc_time utc_after(utc_time t, double seconds);
//! ISO 8601 in UTC with microseconds: 2026-11-24T20:31:05.123456Z.
std::string format_utc(utc_time t);
/*!
 * Reads an RFC 3339 UTC time (YYYY-MM-DDTHH:MM:SS[.frac]Z): a real day of
 * the Gregorian calendar, hours 00-23, minutes 00-59, seconds 00-59 (60 at
 * 23:59, a leap second). False if it is not one or out of range, and then
 * `why` (if given) says what is wrong where the shape was right.
 */
bool parse_utc(const std::string& text, utc_time& out, std::string* why = nullptr);

//! A SigMF capture segment (SigMF Specification v1.0.0, "Capture Segment Objects").
struct capture {
    std::uint64_t sample_start = 0;
    double center_hz = 0; //!< NaN where a SigMF capture has no core:frequency
    std::optional<utc_time> datetime; //!< of the sample at sample_start
};

//! A SigMF annotation segment (SigMF Specification v1.0.0, "Annotation Segment Objects").
struct annotation {
    std::uint64_t sample_start = 0;
    std::optional<std::uint64_t> sample_count;
    std::optional<double> freq_lower_edge, freq_upper_edge; //!< Hz
    std::string label, comment;
};

//! Where samples come from and what they are.
struct iq_source {
    std::string data_path; //!< "-" is standard input
    std::string meta_path; //!< the SigMF metadata, if any
    gpufft::sample_format format = gpufft::sample_format::cu8;
    double sample_rate = 0; //!< Hz; 0 if unknown
    double center_hz = 0;   //!< the first capture's
    std::vector<capture> captures; //!< sorted by sample_start; empty but for SigMF
    std::vector<annotation> annotations;
    //! core:hw of a recording: what a device source knows of its radio ("" for none).
    std::string hardware;
    /*!
     * The value of a full-scale sample in `format` where it is not the
     * format's own (a 12-bit converter's 2048 in CS16); 0: the format's own.
     * A SigMF recording carries it as gpufft:full_scale.
     */
    double full_scale = 0;
    //! A radio's gain and antenna as read back (SigMF: core:hw and gpufft:gain_db, gpufft:gains_db).
    std::optional<radio_settings> radio;
};

/*!
 * The engine's ref_scale (a tone at full_scale reads 0 dBFS) for samples of
 * `format` whose full scale is `full_scale` (0: the format's own, ref_scale 2).
 */
double ref_scale(gpufft::sample_format format, double full_scale);

/*!
 * Reads a SigMF recording given its .sigmf-meta, its .sigmf-data or the
 * name without extension: global core:datatype (cf32_le, ci16_le, ci8, cu8;
 * anything else is refused), core:sample_rate (optional, > 0; 0 if absent), core:dataset
 * (a data file of another name, in the metadata's directory),
 * gpufft:full_scale (the samples' full scale, if not the datatype's), every capture
 * (core:sample_start ascending, core:frequency, core:datetime) and every
 * annotation. The data file must exist.
 */
iq_source open_sigmf(const std::string& path);
//! A radio's samples as the engine sees them (and as --record describes them: core:hw from the device).
iq_source radio_source(const soapy_radio& radio);
//! --loop of an input that is not a regular file (a FIFO, a device): usage_error (playback.cc).
void refuse_unplayable(const options& o, const iq_source& src);
//! True if `path` names a SigMF recording (by extension, or a base name with a .sigmf-meta).
bool is_sigmf(const std::string& path);

/*!
 * The sample format of a raw IQ file from its extension (.cu8, .cs8, .cs16,
 * .cf32) or `format` (--format, "" if not given); none if neither says it
 * (standard input "-", FIFOs, .iq, .raw, ...). A name and a --format that
 * disagree are a usage error naming the file.
 */
std::optional<gpufft::sample_format> raw_format(const std::string& path, const std::string& format);

//! SigMF core:datatype of a format (cu8, ci8, ci16_le, cf32_le).
std::string sigmf_datatype(gpufft::sample_format f);

/*!
 * Writes SigMF metadata to `path` (atomically): `src`'s own .sigmf-meta with
 * every field kept if it has one, else a new one from its format, rate,
 * captures and hardware. `detected` (--annotate's signals, if it ran)
 * replace the annotations an earlier run of this program made (core:generator
 * gpufft-spectrum); the others are kept, all sorted by core:sample_start.
 * core:dataset: kept as it is if `dataset` is nullopt, else set to it ("" removes
 * it), and then core:sha512 removed (it is the other file's).
 */
void write_sigmf_meta(const std::string& path, const iq_source& src,
                      const std::optional<std::vector<annotation>>& detected,
                      const std::optional<std::string>& dataset);

/*!
 * SIGINT, SIGTERM and SIGHUP set a flag that pump() and the demo check
 * (a second one kills the program as usual); SIGPIPE is ignored, so that a
 * closed standard output is a write error (EPIPE) that stops the run.
 */
void install_stop_handlers();
//! The signal that asked the run to stop (SIGPIPE: standard output closed), or 0.
int stop_signal();
void request_stop(int signal);

//! Each read's bytes, before they go into the engine (recording, arrival times, progress).
using read_hook = std::function<void(const unsigned char* data, std::size_t len)>;

/*!
 * Pushes the input on `fd` into the engine until its end, `limit` bytes or
 * stop_signal(), then flushes; returns the bytes read, at most `chunk` a
 * read. A signal also ends a read that waits for data. A trailing partial
 * sample is left unused.
 */
std::size_t pump(int fd, gpufft::spectrum& s, const gpufft::spectrum::sink& out, const read_hook& on_read = nullptr,
                 std::size_t limit = SIZE_MAX, std::size_t chunk = 1 << 20);

/*!
 * An output file (docs/receiver.md, "What is on disk when"). kind::streamed
 * (rows: CSV, JSON lines, rtl_power, a recording's samples): the named file
 * itself, created at once, emptied at the first get(), each flush() putting
 * what was written on disk; a run that fails keeps what it wrote, and a file
 * it created but never wrote is removed. kind::whole (PNGs, SigMF metadata):
 * written under a temporary name beside the file and renamed over it by
 * commit(), so the file is either the old one or the new one; removed if
 * never committed; an existing file's mode is kept. Both write through a
 * symbolic link (it stays a link). "-" is standard output, and a path that
 * is not a regular file (a FIFO, /dev/null) is written directly. Every write
 * failure is an app_error naming the file, except a closed standard output,
 * which stops the run (request_stop(SIGPIPE)).
 */
class output_file
{
public:
    enum class kind { streamed, whole };
    static constexpr std::size_t streamed_buffer = 1 << 20; //!< bytes a streamed file buffers between flushes
    explicit output_file(const std::string& path, kind k = kind::whole);
    ~output_file();
    output_file(const output_file&) = delete;
    output_file& operator=(const output_file&) = delete;

    //! The stream to write to (a streamed file is emptied at the first call).
    std::FILE* get();
    const std::string& path() const { return d_path; }
    //! Throws if a write so far failed.
    void check();
    //! Hands what was written to the system (a completed row or block); throws if that failed.
    void flush();
    //! Flushes and closes; a whole file is renamed into place.
    void commit();

private:
    std::string d_path, d_target, d_temp; //!< as named, the file a link names, the temporary name
    std::FILE* d_file = nullptr;
    bool d_created = false, d_emptied = false;
};

//! `path` with every symbolic link it ends in replaced by what the link names (existing or not).
std::string follow_links(std::string path);

/*!
 * --record NAME: the raw IQ as read (the input's own format, whole samples
 * only) into NAME.sigmf-data, and NAME.sigmf-meta: core:datatype,
 * core:sample_rate, core:version, core:recorder, core:hw if known, the input's
 * captures (or one at sample 0: the centre and the time of the first read)
 * and annotations, plus at commit() `detected` (see write_sigmf_meta). The
 * samples go into the named file as they come, each read's flushed; the
 * metadata is replaced whole (renamed into place) when the first samples
 * come, when captures were added (at most once a second: until then their
 * samples wait here, at most max_waiting bytes, so that the data on disk
 * is always what the metadata on disk describes), and at commit().
 */
class sigmf_recorder
{
public:
    sigmf_recorder(const std::string& name, const iq_source& src);
    void write(const unsigned char* data, std::size_t len);
    /*!
     * For a source that retunes (a device, a sweep) and has no SigMF
     * metadata of its own: the samples written from now on are at
     * `center_hz`, a new capture with the time of the call.
     */
    void retune(double center_hz);
    void commit(const std::optional<std::vector<annotation>>& detected);
    static std::string data_name(const std::string& name) { return name + ".sigmf-data"; }
    static std::string meta_name(const std::string& name) { return name + ".sigmf-meta"; }
    static constexpr std::size_t max_waiting = 16 << 20;

private:
    //! Whole samples: into the data file, or into d_waiting while the metadata lacks their capture.
    void put(const unsigned char* data, std::size_t len);
    //! Writes the metadata, and the samples that waited for it.
    void write_meta(const std::optional<std::vector<annotation>>& detected);
    void write_waiting();

    std::string d_name;
    iq_source d_src;
    output_file d_data;
    std::size_t d_sample_bytes, d_partial = 0; //!< bytes of an incomplete sample held back
    unsigned char d_held[8];
    std::uint64_t d_bytes = 0; //!< written or held
    bool d_meta_behind = true; //!< the metadata on disk lacks a capture (or is not written yet)
    std::optional<std::chrono::steady_clock::time_point> d_meta_written;
    std::vector<unsigned char> d_waiting;
};

/*!
 * --annotate: bins at least `threshold_db` over the spectrum's noise floor
 * (its median), adjacent ones grouped into a signal; a signal in the next
 * spectrum overlapping its frequencies continues it, one absent from a
 * spectrum ends. Each signal becomes an annotation: its lowest and highest
 * bin's edges, the samples from its first spectrum's first to its last
 * spectrum's last, label "signal" and its peak in the comment. At most
 * max_signals are kept (memory stays flat); later ones are counted.
 */
class signal_detector
{
public:
    explicit signal_detector(double threshold_db, std::size_t max_signals = 100000);
    //! A spectrum (tone dBFS) whose bin i is at f0_hz + i * df_hz, of samples [first, end).
    void add(const float* db, std::size_t n, double f0_hz, double df_hz, std::uint64_t first, std::uint64_t end);
    //! Ends the open signals; returns every signal, by sample_start.
    std::vector<annotation> finish();
    std::size_t dropped() const { return d_dropped; }

private:
    struct open_signal {
        double lo_hz, hi_hz, peak_db, floor_db;
        std::uint64_t first, end;
        bool seen;
    };
    void close(const open_signal& s);
    double d_threshold_db;
    std::size_t d_max, d_dropped = 0;
    std::vector<open_signal> d_open;
    std::vector<annotation> d_done;
    std::vector<float> d_sorted;
};

/*!
 * Throws usage_error naming the option if an output (option, path) cannot
 * be written: a directory, a device or FIFO without write permission, or a
 * directory where its temporary file cannot be created (tried and removed).
 * At the start, so that a run never ends in an output it cannot write.
 */
void refuse_unwritable_outputs(const std::vector<std::pair<std::string, std::string>>& outputs);
/*!
 * Throws usage_error naming both options if two outputs (option, path) would
 * write one file: the same file (device and inode) or the same resolved path
 * (links, "./", ".."), or standard output ("-") twice. "" and "none" are no output.
 */
void refuse_shared_outputs(const std::vector<std::pair<std::string, std::string>>& outputs);
/*!
 * Throws usage_error if an output path names the same file (device and
 * inode) as an input; "-" and "none" are not files.
 */
void refuse_overwriting_inputs(const std::vector<std::string>& inputs,
                               const std::vector<std::pair<std::string, std::string>>& outputs);

/*!
 * The waterfall's rows, each a spectrum reduced to `width` columns (max of
 * the bins a column covers). At most max_rows rows are kept: when full, pairs
 * of rows merge (max), and each later row covers twice as many spectra.
 */
struct waterfall {
    explicit waterfall(std::size_t width, std::size_t max_rows = 2048);
    std::size_t width;
    std::size_t max_rows;
    std::size_t spectra = 0; //!< added so far
    std::size_t span = 1;    //!< spectra per row (the last row may hold fewer)
    std::vector<float> rows; //!< row-major, dB
    std::size_t count() const { return width ? rows.size() / width : 0; }
    void add(const float* spectrum, std::size_t n);
};

//! What the waterfall's axes say.
struct axes {
    double f_lo = 0, f_hi = 1; //!< Hz at the left and right edges
    double seconds = 1;        //!< time from the top row to the bottom row
    double db_min = -120, db_max = 0;
};

//! Margins around the plot (pixels): the PNG is (left + width + right) x (top + height + bottom).
constexpr int margin_left = 64, margin_right = 84, margin_top = 12, margin_bottom = 40;

/*!
 * Writes the waterfall as an RGB PNG into `f` and commits it: `height` pixel
 * rows (0: one per row), viridis colours over [db_min, db_max], frequency
 * ticks below, time ticks left, a dB scale bar right.
 */
void write_png(output_file& f, const waterfall& w, const axes& a, std::size_t height = 0);

/*!
 * --png, into `f` (opened at the start, so that nothing the run meets, a
 * crowd of web clients among them, can cost it the descriptor): the waterfall
 * with the frequency axis and time span of `a` and the colour range of
 * --db-min/--db-max (default: 2nd percentile to the maximum); names it on `report`.
 */
void write_waterfall_png(const options& o, output_file& f, const waterfall& w, axes a, std::FILE* report);

//! Viridis at t in [0, 1] (clamped), interpolated from control points.
void colormap(double t, unsigned char rgb[3]);

//! Tick values, the multiples of step in [lo, hi] (at most 1000).
std::vector<double> ticks(double lo, double hi, double step);

struct peak {
    double hz;
    double db;
};
/*!
 * Local maxima of a spectrum at least `threshold_db` above its median, at
 * least `min_sep` bins apart, strongest first, at most `count`.
 */
std::vector<peak> find_peaks(const std::vector<float>& db, const gpufft::spectrum& s,
                             double threshold_db, std::size_t min_sep, std::size_t count);
//! The bins of find_peaks().
std::vector<std::size_t> peak_bins(const std::vector<float>& db, double threshold_db, std::size_t min_sep,
                                   std::size_t count);

/*!
 * The end report's warning, on standard error, of NaN or infinite input
 * samples (the engine takes them as 0): their count and, where known, how
 * many spectra hold some. Nothing if there were none.
 */
void report_nonfinite(std::uint64_t samples, std::optional<std::size_t> spectra);

//! Flushes standard output: a closed one stops the run (request_stop(SIGPIPE)), another failure throws app_error.
void flush_stdout();

//! The program: parses options and runs; returns the exit status.
int run(const std::vector<std::string>& args);

} // namespace gpufft_app

#endif
