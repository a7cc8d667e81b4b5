// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-power: rtl_power's command line (rtl-sdr's rtl_power.c and its
 * convenience.c are the reference for the options, their defaults and value
 * syntax), turned into gpufft-spectrum's options. */
#include "rtl_power.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace gpufft_app {

namespace {

const char* const help_text = R"(gpufft-power: rtl_power's command line on gr-gpufft's spectrum engine, through
SoapySDR (any radio it has a module for).

Use: gpufft-power -f freq_range [-options] [filename]
  -f lower:upper:bin_size   Hz, with k, M or G (the bin size is a maximum:
                            rtl_power's hop plan picks the rate and bins)
  -i integration_interval   every FFT of the interval averaged into one row per
                            hop, hopping over the band all the time (default 10 s;
                            s, m, h or d suffix; whole seconds, at least 1)
  -1                        single shot: one interval, then exit
  -e exit_timer             stop at the first interval ending after it (s, m, h, d)
  -d device                 index among the devices SoapySDR finds (default 0),
                            a serial, or SoapySDR arguments (driver=rtlsdr,serial=...)
  -g tuner_gain             dB (default: automatic where the device has it)
  -p ppm_error              whole ppm (default 0)
  -T                        bias-T on (the device's "biastee" setting)
  -w window                 rectangle (default), hamming, blackman,
                            blackman-harris, hann-poisson, bartlett, youssef
  -c crop                   fraction (0.2) or percentage (20%) of each hop's
                            bins dropped, half at each edge (default 0)
  -P                        peak hold: the highest power of the interval
  -D                        direct sampling (the device's "direct_samp" setting, 1)
  -O                        offset tuning (the device's "offset_tune" setting)
  -F 0|9                    not implemented: gpufft-power does not downsample in
                            time (a narrow band is one longer FFT at the full rate)
  filename                  the CSV; '-' or none: standard output

CSV rows as rtl_power writes them: date, time, Hz low, Hz high, Hz step,
samples, then one dB value per bin and the last once more. Levels are a tone's
power in dBFS (a full-scale tone reads 0 dB). See docs/gpufft-power.md.

Examples:
  gpufft-power -f 88M:108M:125k fm_stations.csv
  gpufft-power -f 100M:1G:1M -i 5m -1 survey.csv
  gpufft-power -f 88M:108M:125k -e 1h | gzip > log.csv.gz

Exit status: 0 done, or stopped by SIGINT, SIGTERM, SIGHUP or a closed output
(rows of whole intervals written, as rtl_power); 1 a failure (no device, a read
or write error); 2 a bad command line.
)";

//! parse(text) with the option's name before its error, within [0, 1e9]; `allowed` says so in the option's terms.
template <class Parse>
double option_value(const std::string& text, const std::string& option, Parse parse, const char* allowed)
{
    double v = 0;
    try {
        v = parse(text);
    } catch (const usage_error& e) {
        throw usage_error(option + ": " + e.what());
    }
    if (!(v >= 0 && v <= 1e9))
        throw usage_error(option + ": " + text + " is out of range (" + allowed + ")");
    return v;
}

//! rtl_power's -f part: a whole number of Hz (rtl_power truncates, as here).
long long rtl_power_hz(const std::string& text)
{
    double v = 0;
    try {
        v = parse_si(text);
    } catch (const usage_error& e) {
        throw usage_error(std::string("-f: ") + e.what());
    }
    if (!(std::abs(v) <= max_frequency_hz))
        throw usage_error("-f: " + text + " is beyond 1e12 Hz");
    return static_cast<long long>(v);
}

} // namespace

double rtl_power_seconds(const std::string& text, const std::string& option)
{
    // convenience.c's atoft(): s, m, h (either case); d as well; no ms.
    const auto seconds = [](const std::string& t) {
        return scaled(t,
                      { { "s", 1 }, { "S", 1 }, { "m", 60 }, { "M", 60 }, { "h", 3600 }, { "H", 3600 }, { "d", 86400 }, { "D", 86400 } },
                      "expected seconds with an optional s, m, h or d suffix (e.g. 10, 5m, 1h)");
    };
    return option_value(text, option, seconds, "expected 0 to 1e9 seconds");
}

double rtl_power_fraction(const std::string& text)
{
    // convenience.c's atofp(): a trailing % divides by 100.
    const double v = option_value(text, "-c", parse_fraction, "expected a fraction from 0 to below 1, or a percentage below 100%");
    if (!(v < 1))
        throw usage_error("-c: " + text + " would crop every bin (expected below 1 or 100%)");
    return v;
}

rtl_power_request parse_rtl_power_options(const std::vector<std::string>& args)
{
    rtl_power_request r;
    options& o = r.o;
    if (std::find(args.begin(), args.end(), "--help") != args.end()) {
        o.help = help_text;
        return r;
    }
    // POSIX getopt over rtl_power's option string, as rtl_power parses it
    // (grouped flags, values attached or apart, options after the file name).
    std::vector<std::string> copies{ "gpufft-power" };
    copies.insert(copies.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& s : copies)
        argv.push_back(s.data());
    argv.push_back(nullptr);
    optind = 0; // glibc: start over (a fresh scan, for each call)
    opterr = 0; // the messages are ours
    std::string freq;
    for (int c; (c = ::getopt(int(copies.size()), argv.data(), ":f:i:s:t:d:g:p:e:w:c:F:1PDOhT")) != -1;) {
        const std::string value = optarg ? optarg : "";
        const int letter = c == ':' || c == '?' ? optopt : c;
        // A long option (--name), which rtl_power has none of, is named whole: getopt reads its first '-' as a letter.
        const std::string name =
            letter == '-' && argv[optind] ? std::string(argv[optind]) : std::string("-") + char(letter);
        switch (c) {
        case 'f':
            freq = value;
            break;
        case 'i': {
            // rtl_power rounds to whole seconds, and reports at least every second.
            r.interval_s = std::max(1LL, std::llround(rtl_power_seconds(value, "-i")));
            break;
        }
        case 'e':
            r.exit_s = std::llround(rtl_power_seconds(value, "-e"));
            break;
        case 'd':
            if (value.empty())
                throw usage_error("-d: empty (an index, a serial or SoapySDR arguments)");
            r.device_index.clear(), o.radio.device.clear(); // the last -d counts, as in rtl_power
            if (value.find_first_not_of("0123456789") == std::string::npos)
                r.device_index = value;
            else if (value.find('=') == std::string::npos)
                o.radio.device = "serial=" + value; // rtl_power matches a serial
            else
                o.radio.device = value;
            break;
        case 'g':
            if (const auto why = check_number(value, -1000, 1000); !why.empty())
                throw usage_error("-g: " + why + " (dB)");
            o.radio.gain = value;
            break;
        case 'p':
            if (const auto why = check_number(value, -1e4, 1e4, true); !why.empty())
                throw usage_error("-p: " + why + " (ppm)");
            o.radio.ppm = std::strtod(value.c_str(), nullptr);
            o.radio.ppm_set = o.radio.ppm != 0; // rtl_power sets no correction for 0
            break;
        case 'c':
            r.crop = rtl_power_fraction(value);
            break;
        case 'w':
            rtl_power_window(value, 1); // known names only
            r.window = value;
            break;
        case 'F':
            throw usage_error("-F " + value +
                              ": not implemented: gpufft-power does not downsample in time (a band narrower than "
                              "1 MHz is one longer FFT at the full rate, which leaks less than rtl_power's filters); "
                              "drop -F");
        case 's':
        case 't':
            throw usage_error(name + ": rtl_power ignores it (not in its help); it would do nothing here");
        case '1':
            r.single = true;
            break;
        case 'P':
            r.peak_hold = true;
            break;
        case 'D':
            o.radio.settings.push_back({ "-D", "direct_samp", "1" });
            break;
        case 'O':
            o.radio.settings.push_back({ "-O", "offset_tune", "true" });
            break;
        case 'T':
            o.radio.settings.push_back({ "-T", "biastee", "true" });
            break;
        case 'h':
            o.help = help_text;
            return r;
        case ':':
            throw usage_error(name + " needs a value");
        default:
            throw usage_error("unknown option " + name);
        }
    }
    const std::vector<std::string> rest(argv.begin() + optind, argv.end() - 1); // getopt moved them last
    if (rest.size() > 1)
        throw usage_error("one output file expected, got " + std::to_string(rest.size()) + ": " + rest[0] + ", " +
                          rest[1] + (rest.size() > 2 ? ", ..." : ""));
    o.radio.rtl_power = rest.empty() ? "-" : rest[0];
    if (freq.empty())
        throw usage_error("-f lower:upper:bin_size is required (e.g. -f 88M:108M:125k)");
    const auto a = freq.find(':'), b = a == std::string::npos ? a : freq.find(':', a + 1);
    if (b == std::string::npos || freq.find(':', b + 1) != std::string::npos)
        throw usage_error("-f: expected lower:upper:bin_size (e.g. 88M:108M:125k), got \"" + freq + "\"");
    r.lower = rtl_power_hz(freq.substr(0, a));
    r.upper = rtl_power_hz(freq.substr(a + 1, b - a - 1));
    r.max_bin = rtl_power_hz(freq.substr(b + 1));
    plan_rtl_power(r.lower, r.upper, r.max_bin, r.crop); // refuses a plan rtl_power would not make
    return r;
}

} // namespace gpufft_app
