// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-spectrum: the options of live radios and sweeps (CLI11). */
#include "app.h"

#include <CLI/CLI.hpp>
#include <SoapySDR/Types.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace gpufft_app {

void add_radio_options(CLI::App& app, radio_options& r)
{
    app.footer(app.get_footer() + R"(

A live radio: --device ARGS opens it through SoapySDR (--list-devices shows
what is found) and streams at --rate and --center in its native sample format
(CS8, CS16, CF32). --sweep START:STOP:BIN hops it over a wider band (e.g.
88M:108M:10k): each hop drops --settle seconds, averages --dwell seconds,
keeps its middle (--crop) and joins the next; the PNG has a row per sweep over
the whole band, and --rtl-power writes rtl_power's CSV (a row per hop; without
--sweep a row per --interval, the mean of its spectra) for its heatmap tools.)");
    app.add_option("--device", r.device,
                   "a live radio through SoapySDR, e.g. \"driver=rtlsdr,serial=0001\" (--rate and --center tune it)")
        ->type_name("ARGS");
    app.add_flag("--list-devices", r.list_devices, "list the radios SoapySDR finds, then exit");
    app.add_option("--gain", r.gain, "radio gain: DB (overall), auto, or NAME=DB,... per element")->type_name("G");
    app.add_option("--ppm", r.ppm, "radio frequency correction in ppm")
        ->check(number_in(-1e4, 1e4))
        ->type_name("PPM");
    app.add_option("--antenna", r.antenna, "radio antenna (the device's name for it)")->type_name("NAME");
    app.add_option("--lnb-offset", r.lnb_offset,
                   "sky frequency = the device's + this: an LNB's or downconverter's LO (e.g. 9.75G), negative for "
                   "an upconverter (e.g. -125M); every frequency given and written is the sky's")
        ->transform(value_in(parse_si, -max_frequency_hz, max_frequency_hz))
        ->type_name("HZ");
    app.add_option("--device-setting", "a SoapySDR device setting, read back: e.g. biastee=true, direct_samp=2, "
                                       "offset_tune=true (--info lists the device's); repeatable")
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->type_name("KEY=VALUE");
    app.add_option("--bandwidth", r.bandwidth, "radio filter bandwidth, e.g. 1.5M (read back; default the device's)")
        ->transform(value_in(parse_si, 1, max_sample_rate_hz))
        ->type_name("HZ");
    app.add_option_function<double>(
           "--channel", [&r](double v) { r.channel = std::size_t(v); }, "radio RX channel (default 0)")
        ->check(number_in(0, 1e6, true))
        ->type_name("N");
    app.add_flag("--info", r.info, "what the --device reports (ranges, gains, bandwidths, settings), then exit");
    app.add_option_function<std::string>(
           "--dc",
           [&r](const std::string& v) {
               r.dc = v == "replace" ? radio_options::dc_mode::replace
                      : v == "shift" ? radio_options::dc_mode::shift
                                     : radio_options::dc_mode::keep;
           },
           "the tuner's centre (DC) spike: keep (default), replace (its bins by their neighbours' mean, flagged), "
           "shift (sweep: tune each hop so it falls in the --crop)")
        ->check(CLI::IsMember({ "keep", "replace", "shift" }))
        ->type_name("MODE");
    app.add_option("--duration", r.duration,
                   "stop after this long of signal, e.g. 30, 10m, 1h, 2d (a sweep: the first sweep ending after it)")
        ->transform(value_in(parse_seconds, 0.0, 1e9))
        ->type_name("TIME");
    app.add_option("--stall-timeout", r.stall_timeout,
                   "end with an error when the radio delivers no samples for this long, up to 1h, e.g. 500ms "
                   "(default 5s, more where the device's reads take longer at its rate)")
        ->transform(value_in(parse_seconds, 1e-3, 3600.0))
        ->type_name("TIME");
    app.add_option("--sweep", r.sweep, "hop a --device over START:STOP with bins of at most BIN Hz (e.g. 88M:108M:10k)")
        ->type_name("START:STOP:BIN");
    app.add_option("--crop", r.crop,
                   "sweep: fraction of each hop's bins dropped, half at each edge, 0 to 0.9 or 20% (default 0.25)")
        ->transform(value_in(parse_fraction, 0.0, 0.9))
        ->type_name("F");
    app.add_option("--settle", r.settle,
                   "time dropped after each retune and before a live capture, up to 10 s, e.g. 50ms (default 10ms)")
        ->transform(value_in(parse_seconds, 0.0, 10.0))
        ->type_name("TIME");
    app.add_option("--dwell", r.dwell,
                   "sweep: time of signal averaged per hop, up to 1h, e.g. 1s (default 50ms; --frames instead)")
        ->transform(value_in(parse_seconds, 1e-6, 3600.0))
        ->type_name("TIME");
    app.add_option("--interval", r.interval,
                   "sweep: time from one sweep's start to the next, e.g. 10m (default 0); without --sweep: the "
                   "whole seconds each --rtl-power row averages (default 1; of signal time unless from a --device)")
        ->transform(value_in(parse_seconds, 0.0, 1e6))
        ->type_name("TIME");
    app.add_flag("--once", r.once, "sweep: one sweep, then exit");
    app.add_option_function<double>(
           "--sweeps", [&r](double v) { r.sweeps = std::size_t(v); }, "sweep: this many sweeps, then exit")
        ->check(number_in(1, 1e12, true))
        ->type_name("N");
    app.add_option("--rtl-power", r.rtl_power,
                   "rtl_power's CSV: a row per hop (sweep) or per --interval; '-' for standard output")
        ->type_name("FILE");
    for (const char* name : { "--device", "--list-devices", "--info", "--gain", "--ppm", "--antenna", "--lnb-offset",
                              "--device-setting", "--bandwidth", "--channel", "--duration", "--stall-timeout",
                              "--sweep", "--crop", "--settle", "--dwell", "--interval", "--once", "--sweeps", "--dc",
                              "--rtl-power" })
        app.get_option(name)->group("Radio (SoapySDR) and sweeps");
}

void check_radio_options(const CLI::App& app, options& o)
{
    radio_options& r = o.radio;
    r.ppm_set = app.get_option("--ppm")->count() > 0;
    if (o.version || r.list_devices || r.info) { // they print and exit: refuse_unused refuses the rest
        if (r.info && r.device.empty())
            throw usage_error("--info needs --device (the device to describe)");
        return;
    }
    const bool input_given = app.get_option("INPUT")->count() > 0;
    if (app.get_option("--device")->count() > 0 && r.device.empty())
        throw usage_error("--device: empty (give the SoapySDR arguments, e.g. driver=rtlsdr; --list-devices shows them)");
    if (!r.device.empty() && (input_given || o.demo))
        throw usage_error("--device and an input (" + (o.demo ? std::string("--demo") : o.input) + ") exclude each other");
    if (r.gain != "auto" && !r.gain.empty()) {
        if (r.gain.find('=') == std::string::npos) {
            if (const auto why = check_number(r.gain, -1000, 1000); !why.empty())
                throw usage_error("--gain: " + why);
        } else {
            for (const auto& [name, value] : SoapySDR::KwargsFromString(r.gain))
                if (const auto why = check_number(value, -1000, 1000); !why.empty())
                    throw usage_error("--gain " + name + ": " + why);
        }
    }
    for (const std::string& kv : app.get_option("--device-setting")->results()) {
        const auto eq = kv.find('=');
        if (eq == 0 || eq == std::string::npos)
            throw usage_error("--device-setting: expected KEY=VALUE (e.g. biastee=true), got \"" + kv + "\"");
        r.settings.push_back({ "--device-setting", kv.substr(0, eq), kv.substr(eq + 1) });
    }
    const auto was_given = [&](const char* name) { return app.get_option(name)->count() > 0; };
    if (r.device.empty()) {
        for (const char* name : { "--gain", "--ppm", "--antenna", "--sweep", "--stall-timeout", "--lnb-offset",
                                  "--device-setting", "--bandwidth", "--channel", "--info" })
            if (was_given(name))
                throw usage_error(std::string(name) + " needs --device");
    }
    if (r.once && was_given("--sweeps"))
        throw usage_error("--once and --sweeps exclude each other (--once is --sweeps 1)");
    if (r.once)
        r.sweeps = 1;
    if (r.sweep.empty()) {
        for (const char* name : { "--once", "--sweeps" })
            if (was_given(name))
                throw usage_error(std::string(name) + " needs --sweep");
        if (r.dc == radio_options::dc_mode::shift)
            throw usage_error("--dc shift needs --sweep (it moves each hop; --dc replace works on any input)");
        if (!r.device.empty() && !o.center_set) // 0 Hz, the default for a file, is no frequency to tune a radio to
            throw usage_error("--device needs --center or --sweep");
        // rtl_power's rows carry whole seconds: so do their intervals.
        if (r.interval != std::round(r.interval) && !r.rtl_power.empty()) {
            char given[32];
            std::snprintf(given, sizeof given, "%g", r.interval);
            throw usage_error(std::string("--interval ") + given +
                              " without --sweep: --rtl-power rows average whole seconds");
        }
        return;
    }
    r.range = parse_sweep(r.sweep);
    if (o.center_set)
        throw usage_error("--center and --sweep exclude each other (the sweep tunes)");
    if (!o.csv.empty() || !o.jsonl.empty())
        throw usage_error("--csv and --jsonl write one capture's bins; a sweep writes --rtl-power");
}

} // namespace gpufft_app
