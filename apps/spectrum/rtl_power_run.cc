// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-power: rtl_power's hop plan, windows and integration over each
 * interval, on gpufft-spectrum's radio and sweep code. rtl-sdr's
 * rtl_power.c is the reference: frequency_range() for the plan, scanner()
 * and csv_dbm() for what a row holds, main() for the timing of rows. */
#include "rtl_power.h"

#include <SoapySDR/Device.hpp>
#include <SoapySDR/Types.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>

namespace gpufft_app {

namespace {

// rtl_power.c: the rates it hops at, its most hops, its read per visit of a
// hop (bytes of cu8), and what its retune() drops (5 ms, then 4096 bytes).
constexpr long long maximum_rate = 2800000, minimum_rate = 1000000, max_tunes = 3000;
constexpr std::size_t read_bytes = 16384, settle_bytes = 4096;
constexpr double settle_sleep_s = 0.005;
// Beyond these the plan is a typo, not a measurement (sweep.cc's limit on an FFT).
constexpr std::size_t max_fft = std::size_t(1) << 22, max_total_bins = std::size_t(1) << 25;

std::string hz_number(long long v) { return std::to_string(v) + " Hz"; }

//! -d: the SoapySDR arguments of the device asked for (an index among those found, 0 by default).
std::string device_arguments(const rtl_power_request& r)
{
    if (!r.o.radio.device.empty())
        return r.o.radio.device;
    const auto found = SoapySDR::Device::enumerate();
    const std::string index_text = r.device_index.empty() ? "0" : r.device_index;
    const unsigned long long index = std::strtoull(index_text.c_str(), nullptr, 10);
    if (found.empty())
        throw app_error("no supported devices found (is the SoapySDR module for yours installed? SoapySDRUtil --info)");
    // As rtl_power: an index if there is a device of that index, else a serial of digits.
    for (const auto& d : found)
        if (index >= found.size() && d.count("serial") && d.at("serial") == index_text)
            return SoapySDR::KwargsToString(d);
    if (index >= found.size()) {
        std::string list;
        for (std::size_t i = 0; i < found.size(); ++i)
            list += (i ? "; " : "") + std::to_string(i) + ": " + SoapySDR::KwargsToString(found[i]);
        throw usage_error("-d " + index_text + ": SoapySDR found " + std::to_string(found.size()) + " device" +
                          (found.size() > 1 ? "s" : "") + " (" + list + ")");
    }
    return SoapySDR::KwargsToString(found[index]);
}

} // namespace

long long rtl_power_plan::hz_low(std::size_t h) const
{
    // csv_dbm(): the hop's centre less half the bins kept, in whole Hz.
    const long long kept = static_cast<long long>(double(bins) * (1.0 - crop));
    return static_cast<long long>(centers[h]) -
           static_cast<long long>(rate * double(kept) / double(bins * 2 * downsample));
}

long long rtl_power_plan::hz_high(std::size_t h) const
{
    return 2 * static_cast<long long>(centers[h]) - hz_low(h);
}

rtl_power_plan plan_rtl_power(long long lower, long long upper, long long max_bin, double crop)
{
    if (!(upper > lower))
        throw usage_error("-f: upper " + hz_number(upper) + " must be above lower " + hz_number(lower));
    if (max_bin < 1)
        throw usage_error("-f: the bin size must be at least 1 Hz");
    if (!(crop >= 0 && crop < 1))
        throw usage_error("-c must be in [0, 1)");
    // Evenly sized hops, as few as keep the rate (the band seen over 1 - crop) at most 2.8 MS/s.
    long long bw_seen = 0, bw_used = 0, tunes = 0;
    constexpr long long max_split = 1500; // rtl_power tries 1 to 1499 hops
    for (long long i = 1; i < max_split; ++i) {
        bw_seen = (upper - lower) / i;
        bw_used = static_cast<long long>(double(bw_seen) / (1.0 - crop));
        if (bw_used > maximum_rate)
            continue;
        tunes = i;
        break;
    }
    // A band under 1 MHz: one hop at the rate times a whole factor near 2.8 MS/s.
    long long downsample = 1;
    if (bw_used < minimum_rate) {
        tunes = 1;
        downsample = maximum_rate / std::max(1LL, bw_used);
        bw_used *= downsample;
    }
    // The fewest power-of-two bins (up to 2^21) that make a bin at most max_bin.
    int bin_e = 1;
    for (int i = 1; i <= 21; ++i) {
        bin_e = i;
        if (double(bw_used) / double((1LL << i) * downsample) <= double(max_bin))
            break;
    }
    // Bins of 1 MHz and more: each hop is one bin, its total power.
    if (max_bin >= minimum_rate) {
        bw_seen = bw_used = max_bin;
        tunes = (upper - lower) / bw_seen;
        bin_e = 0;
        crop = 0;
        downsample = 1;
    }
    if (tunes < 1 && max_bin < minimum_rate)
        throw usage_error("-f: " + hz_number(upper - lower) + " is too wide for " + std::to_string(max_split - 1) +
                          " hops of at most 2.8 MHz");
    if (tunes < 1)
        throw usage_error("-f: " + hz_number(upper - lower) + " holds no bin of " + hz_number(max_bin) +
                          " (rtl_power makes no hop of it)");
    if (tunes > max_tunes)
        throw usage_error("-f: bandwidth too wide: " + std::to_string(tunes) + " hops (rtl_power's limit " +
                          std::to_string(max_tunes) + ")");
    rtl_power_plan p;
    p.rate = double(bw_used);
    p.bins = std::size_t(1) << bin_e;
    p.downsample = std::size_t(downsample);
    p.crop = crop;
    if (p.fft_size() > max_fft)
        throw usage_error("-f: bins of " + hz_text(p.bin_hz()) + " at " + hz_text(p.rate) + " need an FFT of " +
                          std::to_string(p.fft_size()) + " (at most 2^22): ask for wider bins");
    if (p.bins * std::size_t(tunes) > max_total_bins)
        throw usage_error("-f: " + std::to_string(tunes) + " hops of " + std::to_string(p.bins) +
                          " bins are too many (at most 2^25 in all): ask for wider bins");
    const std::size_t cropped = static_cast<std::size_t>(double(p.bins) * crop * 0.5);
    p.first = cropped;
    p.last = p.bins - 1 - cropped;
    p.ffts_per_visit = std::max<std::size_t>(1, std::max(read_bytes, 2 * p.fft_size()) / 2 / p.fft_size());
    for (long long i = 0; i < tunes; ++i)
        p.centers.push_back(double(lower + i * bw_seen + bw_seen / 2));
    return p;
}

std::vector<float> rtl_power_window(const std::string& name, std::size_t n)
{
    // rtl_power.c's window functions, in double (it rounds each to 8 bits).
    using fn = double (*)(double i, double n1, double length);
    const auto cosines = [](double i, double n1, std::initializer_list<double> a) {
        double w = 0, sign = 1;
        int k = 0;
        for (double c : a)
            w += sign * c * std::cos(2 * M_PI * k++ * i / n1), sign = -sign;
        return w;
    };
    static const std::pair<const char*, fn> windows[] = {
        { "rectangle", [](double, double, double) { return 1.0; } },
        { "hamming", [](double i, double n1, double) { return 25.0 / 46 - 21.0 / 46 * std::cos(2 * M_PI * i / n1); } },
        { "blackman",
          [](double i, double n1, double) {
              return (7938 - 9240 * std::cos(2 * M_PI * i / n1) + 1430 * std::cos(4 * M_PI * i / n1)) / 18608;
          } },
        { "blackman-harris", nullptr },
        { "hann-poisson",
          [](double i, double n1, double) {
              return 0.5 * (1 - std::cos(2 * M_PI * i / n1)) * std::exp(-2 * std::abs(n1 - 1 - 2 * i) / n1);
          } },
        { "youssef", nullptr }, // blackman-harris times a Poisson window of decay 0.0025
        { "bartlett", [](double i, double n1, double length) { return 1 - std::abs(i - n1 / 2) / (length / 2); } },
    };
    const auto it = std::find_if(std::begin(windows), std::end(windows),
                                 [&](const auto& w) { return name == w.first; });
    if (it == std::end(windows))
        throw usage_error("-w: unknown window \"" + name +
                          "\" (rtl_power's: rectangle, hamming, blackman, blackman-harris, hann-poisson, bartlett, "
                          "youssef)");
    std::vector<float> w(n, 1.0f);
    if (n < 2) // rtl_power's formulas divide by n - 1
        return w;
    const double n1 = double(n - 1);
    for (std::size_t k = 0; k < n; ++k) {
        const double i = double(k);
        double v;
        if (it->second)
            v = it->second(i, n1, double(n));
        else {
            v = cosines(i, n1, { 0.35875, 0.48829, 0.14128, 0.01168 });
            if (name == "youssef")
                v *= std::exp(-0.0025 * std::abs(n1 - 1 - 2 * i) / n1);
        }
        w[k] = float(v);
    }
    return w;
}

int run_rtl_power(const rtl_power_request& r)
{
    const rtl_power_plan plan = plan_rtl_power(r.lower, r.upper, r.max_bin, r.crop);
    options o = r.o;
    o.radio.device = device_arguments(r);
    o.radio.auto_gain_if_any = o.radio.gain.empty();
    o.radio.settle = settle_sleep_s + double(settle_bytes / 2) / plan.rate;
    // rtl_power's FFTs do not overlap; a visit of a hop is one 16384-byte read.
    o.overlap = 0;
    o.frames = plan.ffts_per_visit;
    // Peak hold: the highest power of each bin (of each visit's total power for one-bin hops).
    o.average = r.peak_hold && !plan.rms() ? "peak" : "linear";
    o.window_taps = [window = r.window](std::size_t n) { return rtl_power_window(window, n); };

    soapy_radio radio(o.radio, plan.rate, std::nullopt);
    if (const auto [lo, hi] = radio.frequency_range(); hi > lo)
        for (double c : plan.centers)
            if (c < lo || c > hi)
                throw usage_error("-f: the hop at " + hz_text(c) + " is outside the device's range, " + hz_text(lo) +
                                  " to " + hz_text(hi));
    sweep_plan hops;
    hops.start = plan.centers.front();
    hops.fft_size = plan.fft_size();
    hops.bin_hz = radio.rate() / double(hops.fft_size);
    hops.centers = plan.centers;
    hops.first_kept = (plan.fft_size() - plan.bins) / 2 + plan.first;
    hops.kept = plan.last - plan.first + 1;
    hops.total_bins = hops.kept * plan.centers.size();

    rtl_power_csv csv(o.radio.rtl_power);
    std::fprintf(stderr, "gpufft-power: %s\n", radio.description().c_str());
    std::fprintf(stderr,
                 "Number of frequency hops: %zu\nDongle bandwidth: %.0fHz\nDownsampling by: %zux\nCropping by: "
                 "%0.2f%%\nTotal FFT bins: %zu\nLogged FFT bins: %zu\nFFT bin size: %0.2fHz\nFFTs per visit of a "
                 "hop: %zu (N = %zu, %s window)\nReporting every %lld seconds\n",
                 plan.centers.size(), radio.rate(), plan.downsample, plan.crop * 100,
                 plan.centers.size() * plan.bins, plan.centers.size() * hops.kept, hops.bin_hz, plan.ffts_per_visit,
                 plan.fft_size(), r.window.c_str(), r.interval_s);
    std::fflush(stderr);

    // Each hop's power per bin over the interval (linear; a sum, or the peak)
    // and what rtl_power counts as its samples: FFTs times the downsampling,
    // or visits for one-bin hops.
    std::vector<double> power(plan.centers.size() * plan.bins, 0.0);
    std::vector<std::size_t> frames(plan.centers.size(), 0), counted(plan.centers.size(), 0);
    std::vector<double> tuned(plan.centers); // each hop's centre as the device read it back
    std::vector<float> row(plan.bins);
    const std::size_t k0 = (plan.fft_size() - plan.bins) / 2; // the band's bins in the longer FFT
    using clock = std::chrono::steady_clock;
    const auto start = clock::now(), exit_at = start + std::chrono::seconds(r.exit_s);
    auto next_tick = start + std::chrono::seconds(r.interval_s);
    std::size_t rows = 0;

    const auto write_rows = [&] {
        const auto when = std::chrono::system_clock::now(); // every hop of an interval has its time, as rtl_power's
        for (std::size_t h = 0; h < plan.centers.size(); ++h) {
            double* p = &power[h * plan.bins];
            for (std::size_t j = 0; j < plan.bins; ++j) {
                const double v = r.peak_hold ? p[j] : p[j] / double(std::max<std::size_t>(frames[h], 1));
                row[j] = float(10 * std::log10(std::max(v, 1e-30)));
            }
            // rtl_power's csv_dbm() gives the DC bin its upper neighbour's value (the RTL2832's spike).
            if (plan.bins > 1)
                row[plan.bins / 2] = row[(plan.bins / 2 + 1) % plan.bins];
            const double step = hops.bin_hz;
            // Bin j is centred at Hz low + j * step; a one-bin hop spans Hz low to Hz high, as rtl_power writes it.
            const double low = plan.rms() ? tuned[h] - step / 2
                                          : tuned[h] + (double(plan.first) - double(plan.bins / 2)) * step;
            csv.row(when, low, step, counted[h], &row[plan.first], hops.kept);
            std::fill(p, p + plan.bins, 0.0);
            frames[h] = counted[h] = 0;
        }
        csv.flush();
        if (stop_signal() != SIGPIPE) // standard output closed: these rows went nowhere
            ++rows;
    };

    measure_hops(o, radio, hops, [&](std::size_t h, const std::vector<float>& db, std::size_t n) {
        double* p = &power[h * plan.bins];
        for (std::size_t j = 0; j < plan.bins; ++j) {
            const double v = std::pow(10.0, double(db[k0 + j]) / 10);
            p[j] = r.peak_hold ? std::max(p[j], v) : p[j] + v * double(n);
        }
        frames[h] += n;
        tuned[h] = radio.center();
        counted[h] += plan.rms() ? 1 : n * plan.downsample;
        if (h + 1 < plan.centers.size())
            return true;
        // After each whole pass over the band, as rtl_power: a row per hop once the interval is over.
        const auto now = clock::now();
        if (now < next_tick)
            return true;
        write_rows();
        while (clock::now() >= next_tick)
            next_tick += std::chrono::seconds(r.interval_s);
        return !r.single && !(r.exit_s > 0 && clock::now() >= exit_at);
    });
    csv.commit();
    if (const int s = stop_signal())
        std::fprintf(stderr, "gpufft-power: signal %d: stopped; %zu intervals written, the one under way dropped\n", s,
                     rows);
    return exit_ok;
}

int run_power(const std::vector<std::string>& args)
{
    try {
        const rtl_power_request r = parse_rtl_power_options(args);
        if (!r.o.help.empty()) {
            std::fputs(r.o.help.c_str(), stdout);
            return exit_ok;
        }
        install_stop_handlers();
        return run_rtl_power(r);
    } catch (const usage_error& e) {
        std::fprintf(stderr, "gpufft-power: %s (try --help)\n", e.what());
        return exit_usage;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gpufft-power: %s\n", e.what());
        return exit_failure;
    }
}

} // namespace gpufft_app
