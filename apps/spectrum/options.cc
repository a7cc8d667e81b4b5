// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-spectrum: the command line (CLI11), every number range-checked. */
#include "app.h"

#include <gpufft/error.h>
#include <gpufft/registry.h>
#include <gpufft/version.h>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <sstream>
#include <tuple>
#include <unistd.h>

namespace gpufft_app {

namespace {

const char* const description = R"(Spectra of an IQ recording or stream, on any gr-gpufft backend: a waterfall
PNG, optional per-spectrum CSV or JSON lines, and the strongest peaks.

INPUT is a raw IQ file, '-' for standard input (the default), or a SigMF
recording (NAME, NAME.sigmf-meta or NAME.sigmf-data), whose datatype, sample
rate, captures (centre and time of each) and annotations come from its metadata.
Raw IQ and standard input carry no metadata: they need --rate and --center,
and --format unless the file is named .cu8, .cs8, .cs16 or .cf32, e.g.
  rtl_sdr -f 100M -s 2.4M - | gpufft-spectrum --format cu8 --rate 2.4M --center 100M
Numbers are decimal (2.5, -3, 1e6). Frequencies and rates take k, M and G
(2.4M, 100M, 10k, 1.5G); times take ms, s, m, h and d (50ms, 10m, 1h; a plain
number is seconds); fractions take % (20% = 0.2).
Every dB value (CSV, JSON lines, waterfall, peaks) is a tone's power in dBFS:
a full-scale complex tone reads 0 dB whatever the window (--linear: CSV, JSON
lines and rtl_power rows in linear tone power, a full-scale tone reading 1). CSV rows and JSON
lines carry the UTC time of the spectrum's last sample: a SigMF capture's
core:datetime plus the sample's offset, else the time it was read.
)";

const char* const footer = R"(The rows (--csv, --jsonl, --rtl-power) are written to the named file as
they are measured, each flushed when complete; pictures and metadata are
written under a temporary name and renamed when complete; '-' writes to
standard output (the report then goes to standard error).
SIGINT, SIGTERM or SIGHUP stop reading: the spectra so far are written in full
(a signal ignored at start, as under nohup, stays ignored; a second one kills).

Exit status: 0 done; 1 bad input, a read or write error, or a failed --demo
check; 2 bad command line (a --serve or --zmq-pub address that cannot be bound
among them); 128+N stopped by signal N (130 SIGINT, 143 SIGTERM,
129 SIGHUP) with complete outputs; 141 standard output was closed.)";

std::string shortest(double v)
{
    std::ostringstream s;
    s << v;
    return s.str();
}


//! A number option stored as double; a count option converted after parsing.
CLI::Option* number(CLI::App& app, const std::string& name, double& target, double lo, double hi,
                    const std::string& help, const std::string& unit = "NUM")
{
    return app.add_option(name, target, help)->check(number_in(lo, hi))->type_name(unit);
}

//! A frequency or rate: a number option that also takes k, M and G.
CLI::Option* hertz(CLI::App& app, const std::string& name, double& target, double lo, double hi,
                   const std::string& help, const std::string& unit = "HZ")
{
    return app.add_option(name, target, help)->transform(value_in(parse_si, lo, hi))->type_name(unit);
}

/*!
 * Every option given either acts in this run or is refused here, naming what
 * it conflicts with or needs (the radio's and sweep's: check_radio_options).
 */
void refuse_unused(const CLI::App& app, const options& o)
{
    const auto given = [&](const char* name) { return app.get_option(name)->count() > 0; };
    const bool input = given("INPUT"), sweep = !o.radio.sweep.empty();
    // --version, --list-devices and --info print and exit (--info: for the --device, on the sky side with --lnb-offset).
    for (const auto& [asked, name, with] : { std::tuple{ o.version, "--version", std::vector<std::string>{} },
                                             { o.radio.list_devices, "--list-devices", {} },
                                             { o.radio.info, "--info", { "--device", "--lnb-offset" } } }) {
        if (!asked)
            continue;
        for (const CLI::Option* opt : app.get_options())
            if (opt->count() > 0 && opt->get_name() != name &&
                std::find(with.begin(), with.end(), opt->get_name()) == with.end())
                throw usage_error(std::string(name) + (name == std::string("--list-devices") ? " lists" : " prints") + " and exits: " +
                                  opt->get_name() + " would do nothing");
    }
    if (o.linear && o.csv.empty() && o.jsonl.empty() && o.radio.rtl_power.empty())
        throw usage_error("--linear needs --csv, --jsonl or --rtl-power (the images, the peaks and the live "
                          "outputs stay in dBFS)");
    if (o.demo && input)
        throw usage_error("--demo and an input (" + o.input + ") exclude each other");
    if (given("--format") && (o.demo || !o.radio.device.empty()))
        throw usage_error(std::string("--format: ") +
                          (o.demo ? "the demo's samples are cf32" : "a --device streams its native format") +
                          " (drop --format)");
    if (given("--fps") && given("--frames"))
        throw usage_error("--fps and --frames exclude each other (both set the spectra's length)");
    if (given("--progress") && given("--quiet"))
        throw usage_error("--progress and --quiet exclude each other");
    if (given("--alpha") && o.average != "exponential")
        throw usage_error("--alpha needs --average exponential");
    if (given("--threshold") && !o.annotate)
        throw usage_error("--threshold needs --annotate");
    if (given("--name") && o.serve.empty() && o.zmq_pub.empty())
        throw usage_error("--name needs --serve or --zmq-pub (it names the receiver there)");
    if (o.png == "none" && o.persistence.empty())
        for (const char* name : { "--width", "--height", "--db-min", "--db-max" })
            if (given(name))
                throw usage_error(std::string(name) + " needs a --png or --persistence image");
    if (sweep) {
        // A sweep's N comes from its BIN, each hop averages --dwell (or
        // --frames), and it reports each sweep rather than a progress line.
        for (const char* name : { "--fft", "--fps", "--progress" })
            if (given(name))
                throw usage_error(std::string(name) + " and --sweep exclude each other");
        if (given("--dwell") && given("--frames"))
            throw usage_error("--dwell and --frames exclude each other (both set a hop's length)");
    } else {
        for (const char* name : { "--dwell", "--crop" })
            if (given(name))
                throw usage_error(std::string(name) + " needs --sweep");
        // Without a sweep, --interval is the time each rtl_power row averages.
        if (given("--interval") && o.radio.rtl_power.empty())
            throw usage_error("--interval needs --sweep or --rtl-power");
    }
    if (given("--settle") && o.radio.device.empty())
        throw usage_error("--settle needs --device");
}

} // namespace

std::string version_text(const char* program)
{
    std::string s = std::string(program) + " " + GPUFFT_PROJECT_VERSION + " (gr-gpufft)\nlibgpufft " +
                    gpufft::version() + "\nbackends built in:\n";
    for (const auto& b : gpufft::backends()) {
        std::string variants;
        for (std::size_t i = 0; i < b.variants.size(); ++i)
            variants += (i ? ", " : "") + b.variants[i] +
                        (i < b.variant_notes.size() ? " (" + b.variant_notes[i] + ")" : "");
        const std::string state = b.usable ? "usable here" + (variants.empty() ? "" : "; variants " + variants)
                                           : "not usable here: " + b.reason;
        s += "  " + b.name + ": " + state + "\n";
    }
    return s;
}

std::string check_number(const std::string& text, double lo, double hi, bool whole)
{
    double d = 0;
    if (!parse_decimal(text, d))
        return "expected a decimal number, got \"" + text + "\"";
    if (!(d >= lo && d <= hi))
        return text + " is out of range [" + shortest(lo) + ", " + shortest(hi) + "]";
    if (whole && d != std::floor(d))
        return "expected a whole number, got " + text;
    return "";
}

CLI::Validator number_in(double lo, double hi, bool whole)
{
    return CLI::Validator([=](std::string& text) { return check_number(text, lo, hi, whole); }, "");
}

CLI::Validator value_in(double (*parse)(const std::string&), double lo, double hi)
{
    return CLI::Validator(
        [=](std::string& text) {
            double v = 0;
            try {
                v = parse(text);
            } catch (const usage_error& e) {
                return std::string(e.what());
            }
            if (!(v >= lo && v <= hi))
                return text + " is out of range [" + shortest(lo) + ", " + shortest(hi) + "]";
            // Rewritten as the plain number CLI11 stores.
            char buf[32];
            std::snprintf(buf, sizeof buf, "%.17g", v);
            text = buf;
            return std::string();
        },
        "");
}

std::pair<std::string, double> parse_window(const std::string& text, const std::string& option)
{
    const auto colon = text.find(':');
    const std::string name = text.substr(0, colon);
    double param = NAN;
    // Unknown names and parameters out of a window's range are bad command
    // lines like bad numbers, not failures found once the input is open.
    try {
        if (colon == std::string::npos) {
            gpufft::make_window(name, 1);
            return { name, param };
        }
        const std::string value = text.substr(colon + 1);
        if (!parse_decimal(value, param))
            throw usage_error(option + ": " + name + ": expected a decimal parameter, got \"" + value + "\"");
        gpufft::check_window_param(name, param); // given: -1, make_window's "default", is no value here
    } catch (const gpufft::error& e) {
        throw usage_error(option + ": " + e.what());
    }
    return { name, param };
}

options parse_options(const std::vector<std::string>& args)
{
    options o;
    CLI::App app(description, "gpufft-spectrum");
    app.footer(footer);
    app.get_formatter()->column_width(30);
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast); // as before: the last one counts
    double fft = double(o.fft), frames = 0, width = 0, height = 0, peaks = double(o.peaks);
    std::string window = o.window;

    app.add_option("INPUT", o.input, "raw IQ file, '-' (standard input) or a SigMF recording");
    app.add_flag("--demo", o.demo,
                 "2 s of known tones, an FM carrier and noise at 2.4 MHz; checks the peaks found");
    auto* format =
        app.add_option("--format", o.format,
                       "cf32, cs16, cs8 or cu8; required for standard input and a raw file whose name (.cf32 "
                       "...) does not say it")
            ->check(CLI::IsMember({ "cf32", "cs16", "cs8", "cu8" }))
            ->type_name("F");
    auto* rate = hertz(app, "--rate", o.rate, 1e-3, max_sample_rate_hz,
                       "sample rate, e.g. 2.4M; required for raw IQ (--demo and a --device: default 2.4M)");
    auto* center = hertz(app, "--center", o.center, -max_frequency_hz, max_frequency_hz,
                         "centre frequency, e.g. 100M (0 for baseband); required for raw IQ and a --device");
    app.add_option("--backend", o.backend, "FFT backend: auto, simd, simd:avx2, ... (default auto)")
        ->type_name("NAME");
    app.add_option("--fft", fft, "FFT size N, 1 to 2^28 (default 2048)")
        ->check(number_in(1, double(1 << 28), true))
        ->type_name("N");
    app.add_option("--overlap", o.overlap,
                   "fraction of a frame shared with the next, 0 to 0.9 or 0% to 90% (default 0.5)")
        ->transform(value_in(parse_fraction, 0, 0.9))
        ->type_name("F");
    app.add_option("--window", window,
                   "blackmanharris (default), hann, flattop, ...; P of kaiser (beta in [0, 700], default 6.76), "
                   "gaussian (sigma > 0 samples, default N/6), tukey (alpha in [0, 1], default 0.5), "
                   "exponential (decay > 0 dB, default 6): kaiser:8.6")
        ->type_name("NAME[:P]");
    app.add_option("--average", o.average, "linear (default), exponential, peak or min; every frame is used")
        ->check(CLI::Validator(
            [](std::string& name) {
                try {
                    gpufft::parse_averaging(name);
                    return std::string();
                } catch (const gpufft::error&) {
                    return "unknown mode \"" + name + "\" (known: exponential, linear, peak, min)";
                }
            },
            ""))
        ->type_name("MODE");
    app.add_option("--alpha", o.alpha, "exponential averaging weight, (0, 1] or a percentage (default 0.1)")
        ->transform(value_in(parse_fraction, 1e-9, 1))
        ->type_name("A");
    auto* fps = hertz(app, "--fps", o.fps, 1e-6, 1e9, "spectra per second (default 25; demo 100)", "R");
    app.add_option("--frames", frames, "frames per spectrum K, instead of --fps")
        ->check(number_in(1, 1e12, true))
        ->type_name("K");
    number(app, "--db-min", o.db_min, -1000, 1000, "waterfall colours and persistence rows, low end (default: from the data)", "DB");
    number(app, "--db-max", o.db_max, -1000, 1000, "waterfall colours and persistence rows, high end (default: from the data)", "DB");
    app.add_option("--png", o.png, "waterfall image (default waterfall.png; 'none' for none)")->type_name("FILE");
    app.add_option("--width", width, "plot width in pixels, 1 to 16384 (default min(N, 1024))")
        ->check(number_in(1, 16384, true))
        ->type_name("W");
    app.add_option("--height", height,
                   "plot height in pixels, 1 to 16384 (default: waterfall a row per spectrum, <= 1000; persistence 256)")
        ->check(number_in(1, 16384, true))
        ->type_name("H");
    app.add_option("--persistence", o.persistence,
                   "persistence view of the run: how often each power was seen per frequency (default none)")
        ->type_name("FILE");
    app.add_option("--csv", o.csv,
                   "every spectrum as a CSV row (time_s, utc, center_hz, dB per bin); '-': standard output")
        ->type_name("FILE");
    app.add_option("--jsonl", o.jsonl, "every spectrum as a JSON line; '-': standard output")->type_name("FILE");
    app.add_option("--serve", o.serve,
                   "live web view on HOST:PORT (PORT alone: on 127.0.0.1)")
        ->type_name("ADDR");
    app.add_option("--serve-origin", o.serve_origins,
                   "--serve: pages of this origin (http://HOST[:PORT], https://...) may open the web view's "
                   "WebSocket too (default: only its own page); repeatable or comma-separated")
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->delimiter(',')
        ->type_name("ORIGIN");
    app.add_option("--zmq-pub", o.zmq_pub, "publish every spectrum on ZeroMQ (e.g. tcp://127.0.0.1:5555)")
        ->type_name("ENDPOINT");
    app.add_option("--name", o.name, "receiver name in the web view and ZeroMQ tags (default: host name)")
        ->type_name("NAME");
    app.add_option("--peaks", peaks, "peaks to list (default 10)")->check(number_in(0, 1e6, true))->type_name("K");
    number(app, "--peak-threshold", o.peak_threshold, 0, 1000, "peaks are this far above the median (default 10)", "DB");
    app.add_option("--record", o.record, "also write the raw IQ as the SigMF recording NAME.sigmf-data/-meta")
        ->type_name("NAME");
    app.add_flag("--annotate", o.annotate,
                 "signals above --threshold as SigMF annotations: into --record's metadata, else the input's");
    number(app, "--threshold", o.threshold, 0, 1000, "--annotate: dB over the noise floor (default 10)", "DB");
    app.add_flag("--linear", o.linear,
                 "--csv, --jsonl and --rtl-power values as linear tone power (a full-scale tone is 1) instead of dBFS");
    app.add_flag("--version", o.version, "the program's and the library's version and the backends built in, then exit");
    auto* progress = app.add_flag("--progress", "show the progress line (default: on a terminal; not with --sweep)");
    auto* quiet = app.add_flag("--quiet", "no progress line");
    add_radio_options(app, o.radio);
    add_playback_options(app, o);

    std::vector<std::string> reversed(args.rbegin(), args.rend()); // CLI11 takes them last first
    try {
        app.parse(reversed);
    } catch (const CLI::CallForHelp&) {
        o.help = app.help();
        return o;
    } catch (const CLI::ParseError& e) {
        throw usage_error(e.what());
    }

    o.format_set = format->count() > 0;
    o.rate_set = rate->count() > 0;
    o.center_set = center->count() > 0;
    o.fps_set = fps->count() > 0;
    o.fft = std::size_t(fft), o.frames = std::size_t(frames);
    o.width = std::size_t(width), o.height = std::size_t(height), o.peaks = std::size_t(peaks);
    if (progress->count())
        o.progress = 1;
    if (quiet->count())
        o.progress = 0;
    if (o.name.empty()) {
        char host[256] = {};
        o.name = ::gethostname(host, sizeof host - 1) == 0 ? host : "gpufft-spectrum";
    }
    std::tie(o.window, o.window_param) = parse_window(window, "--window");
    if (o.backend != "auto") {
        const std::string name = o.backend.substr(0, o.backend.find(':'));
        const auto all = gpufft::backends();
        if (std::none_of(all.begin(), all.end(), [&](const gpufft::backend_info& b) { return b.name == name; }))
            throw usage_error("--backend: unknown backend '" + name +
                              "'; usable backends: " + gpufft::usable_backend_names());
    }
    if (!o.record.empty() && o.record.back() == '/')
        throw usage_error("--record: expected a recording's name, got the directory " + o.record);
    if (!o.serve_origins.empty() && o.serve.empty())
        throw usage_error("--serve-origin needs --serve");
    if (o.persistence == "none") // as --png none
        o.persistence.clear();
    if (!std::isnan(o.db_min) && !std::isnan(o.db_max) && o.db_min >= o.db_max)
        throw usage_error("--db-min must be below --db-max");
    check_radio_options(app, o);
    check_playback_options(app, o);
    refuse_unused(app, o);
    return o;
}

} // namespace gpufft_app
