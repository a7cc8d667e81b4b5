// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufftsim: a simulated SDR as a real SoapySDR module (libgpufftsim.so,
 * found through SOAPY_SDR_PLUGIN_PATH), so that gpufft-spectrum's device
 * path, sweeps and outputs are tested without hardware.
 *
 * Device arguments (all optional):
 *   tones=100.1e6:-30;433.92e6:-50  absolute frequency (Hz) : power (dBFS) of each tone,
 *                      separated by ";" (SoapySDR splits the arguments at commas)
 *   noise=-60          total noise power over the sample rate, dBFS (complex Gaussian)
 *   format=CS16        native stream format: CS16, CF32 or CS8
 *   full_scale=2048    CS16's full scale (a 12-bit converter); CS8 128, CF32 1
 *   transient=0.005    seconds of garbage (loud noise) after each setFrequency
 *   paced=1            1: samples come at the sample rate (overflow if the reader
 *                      falls 0.25 s behind); 0: as fast as they are read
 *   overflow_every=0   if > 0: after this many samples, one readStream returns
 *                      SOAPY_SDR_OVERFLOW and 1000 samples are lost
 *   tune_step=0        if > 0: the synthesizer tunes to multiples of this (Hz),
 *                      which the frequency range does not report (as many drivers)
 *   dc=-20             a DC offset of this power (dBFS, before the gains), as a
 *                      zero-IF tuner's LO leakage puts at the tuned frequency
 *   tones1=...         channel 1's tones (as tones; default none): RX channel 1
 *                      is a second receiver sharing channel 0's tuner settings
 * Device settings (getSettingInfo, writeSetting, readSetting): biastee (bool),
 * direct_samp (0, 1 or 2) and offset_tune (bool), as the rtl-sdr module names
 * them; a bool reads back as "true" or "false" whatever spelling was written.
 * settings=0 hides them all, as a module without settings (most but rtl-sdr's).
 * Filter bandwidth: 0 (none reported) until set, then 200 kHz - 56 MHz
 * (clamped); a tone further than half of it from the tuned frequency is not
 * received.
 * Driver faults (a receiver must survive a buggy module):
 *   big_return=0       if > 0: every readStream writes the samples asked for and
 *                      returns this many more
 *   tiny_reads=K       every readStream delivers at most K (>= 1) samples
 *   error_after=N      after N samples delivered, readStream returns
 *                      SOAPY_SDR_STREAM_ERROR for ever (a device that died)
 *   throw_after=N      after N samples delivered, readStream throws
 *   timeout_after=N    after N samples delivered, readStream waits its timeout and
 *                      returns SOAPY_SDR_TIMEOUT for ever (a wedged device)
 *   overflow_always_after=N  after N samples delivered, readStream returns
 *                      SOAPY_SDR_OVERFLOW at once, for ever
 *   nan_after=N        after N samples delivered, every sample is NaN+NaN*i
 *                      (CF32 streams; integer formats cannot hold NaN)
 *   retune_fail_after=K  setFrequency succeeds K times, then throws
 * N counts samples over the device's life, across streams and retunes.
 * As real drivers do, it clamps silently: the frequency to 1 MHz - 6 GHz, the
 * rate to 100 kHz - 61.44 MS/s, the gains to LNA 0-40 dB and VGA 0-30 dB
 * (overall 0-70 dB, SoapySDR's default spreads an overall gain over them).
 * A tone is received when it lies within +-rate/2 of the tuned frequency (an
 * ideal anti-alias filter); gains add to every tone and the noise.
 *
 * Built with GPUFFTSIM_DEMO, it is gpufftdemo instead (libgpufftdemo.so):
 * the same radio with something to see (demo_tones, noise -60 dBFS), which
 * cmake --install installs as a demo radio to try the receiver without one
 * (docs/receiver.md). A module of its own, so that the tests' folder holds
 * one device. */
#include <SoapySDR/Device.hpp>
#include <SoapySDR/Errors.hpp>
#include <SoapySDR/Formats.hpp>
#include <SoapySDR/Registry.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <thread>

namespace {

constexpr char driver[] = "gpufftsim";
constexpr char serial[] = "sim0";
constexpr double min_hz = 1e6, max_hz = 6e9, min_rate = 1e5, max_rate = 61.44e6;
constexpr double min_bandwidth = 2e5, max_bandwidth = 56e6;
constexpr std::size_t lost_on_overflow = 1000;

struct tone {
    double hz;
    double amplitude; // of full scale
    std::complex<double> phasor{ 1, 0 };
};

double number(const std::string& text, const std::string& what)
{
    try {
        std::size_t used = 0;
        const double v = std::stod(text, &used);
        if (used == text.size() && std::isfinite(v))
            return v;
    } catch (const std::exception&) {
    }
    throw std::runtime_error(std::string(driver) + ": " + what + " \"" + text + "\" is not a number");
}

double number_arg(const SoapySDR::Kwargs& args, const std::string& key, double absent)
{
    const auto it = args.find(key);
    return it == args.end() ? absent : number(it->second, key);
}

//! A fault's sample or call count; absent means the fault never happens.
std::size_t count_arg(const SoapySDR::Kwargs& args, const std::string& key)
{
    constexpr auto never = std::numeric_limits<std::size_t>::max();
    const double v = number_arg(args, key, -1);
    if (args.count(key) && (v < 0 || v != std::floor(v)))
        throw std::runtime_error(std::string(driver) + ": " + key + "=" + args.at(key) + " is not a count");
    return args.count(key) ? std::size_t(v) : never;
}

std::vector<tone> parse_tones(const std::string& text)
{
    std::vector<tone> out;
    std::istringstream list(text);
    for (std::string item; std::getline(list, item, ';');) {
        const auto colon = item.find(':');
        if (colon == std::string::npos)
            throw std::runtime_error(std::string(driver) + ": tone \"" + item + "\" is not HZ:DBFS");
        const double hz = number(item.substr(0, colon), "tone frequency"), db = number(item.substr(colon + 1), "tone power");
        out.push_back({ hz, std::pow(10.0, db / 20) });
    }
    return out;
}

class sim_device : public SoapySDR::Device
{
public:
    explicit sim_device(const SoapySDR::Kwargs& args, std::string key = driver)
        : d_key(std::move(key)),
          d_tones(parse_tones(args.count("tones") ? args.at("tones") : "")),
          d_noise_amplitude(std::pow(10.0, number_arg(args, "noise", -60) / 20)),
          d_native(args.count("format") ? args.at("format") : SOAPY_SDR_CS16),
          d_cs16_full_scale(number_arg(args, "full_scale", 2048)),
          d_transient_s(number_arg(args, "transient", 0.005)),
          d_paced(number_arg(args, "paced", 1) != 0),
          d_overflow_every(std::size_t(std::max(0.0, number_arg(args, "overflow_every", 0)))),
          d_tune_step(number_arg(args, "tune_step", 0)),
          d_noise(1 << 16),
          d_big_return(int(std::clamp(number_arg(args, "big_return", 0), 0.0, 1e6))),
          d_tiny_reads(count_arg(args, "tiny_reads")),
          d_error_after(count_arg(args, "error_after")),
          d_throw_after(count_arg(args, "throw_after")),
          d_timeout_after(count_arg(args, "timeout_after")),
          d_overflow_always_after(count_arg(args, "overflow_always_after")),
          d_nan_after(count_arg(args, "nan_after")),
          d_retune_fail_after(count_arg(args, "retune_fail_after")),
          d_dc_amplitude(args.count("dc") ? std::pow(10.0, number(args.at("dc"), "dc") / 20) : 0),
          d_tones1(parse_tones(args.count("tones1") ? args.at("tones1") : "")),
          d_has_settings(number_arg(args, "settings", 1) != 0)
    {
        if (d_tiny_reads == 0)
            throw std::runtime_error(std::string(driver) + ": tiny_reads=0 would deliver nothing");
        if (d_native != SOAPY_SDR_CS16 && d_native != SOAPY_SDR_CF32 && d_native != SOAPY_SDR_CS8)
            throw std::runtime_error(std::string(driver) + ": format=" + d_native + " (known: CS16, CF32, CS8)");
        // A fixed table of unit-power complex Gaussian noise, read from random offsets.
        std::mt19937_64 rng(1);
        std::normal_distribution<float> gauss(0, float(std::sqrt(0.5)));
        for (auto& z : d_noise)
            z = { gauss(rng), gauss(rng) };
    }

    std::string getDriverKey() const override { return d_key; }
    std::string getHardwareKey() const override { return "gpufftsim"; }
    SoapySDR::Kwargs getHardwareInfo() const override { return { { "serial", serial } }; }
    std::size_t getNumChannels(const int direction) const override { return direction == SOAPY_SDR_RX ? 2 : 0; }

    SoapySDR::ArgInfoList getSettingInfo() const override
    {
        SoapySDR::ArgInfoList list;
        for (const char* key : { "biastee", "direct_samp", "offset_tune" }) {
            SoapySDR::ArgInfo a;
            a.key = key;
            a.value = key == std::string("direct_samp") ? "0" : "false";
            a.type = key == std::string("direct_samp") ? SoapySDR::ArgInfo::INT : SoapySDR::ArgInfo::BOOL;
            if (a.type == SoapySDR::ArgInfo::INT)
                a.options = { "0", "1", "2" };
            list.push_back(a);
        }
        return d_has_settings ? list : SoapySDR::ArgInfoList();
    }
    void writeSetting(const std::string& key, const std::string& value) override
    {
        if (key == "direct_samp") {
            if (value != "0" && value != "1" && value != "2")
                throw std::runtime_error("gpufftsim: direct_samp=" + value + " (0, 1 or 2)");
            d_settings[key] = value;
        } else if (key == "biastee" || key == "offset_tune") {
            d_settings[key] = value == "true" || value == "1" ? "true" : "false";
        } else {
            throw std::runtime_error("gpufftsim: no setting " + key);
        }
    }
    std::string readSetting(const std::string& key) const override
    {
        const auto it = d_settings.find(key);
        return it != d_settings.end() ? it->second : key == "direct_samp" ? "0"
                                                                          : "false";
    }

    void setBandwidth(const int, const std::size_t, const double bw) override
    {
        d_bandwidth = std::clamp(bw, min_bandwidth, max_bandwidth);
    }
    double getBandwidth(const int, const std::size_t) const override { return d_bandwidth; }
    SoapySDR::RangeList getBandwidthRange(const int, const std::size_t) const override
    {
        return { SoapySDR::Range(min_bandwidth, max_bandwidth) };
    }

    std::vector<std::string> getStreamFormats(const int, const std::size_t) const override
    {
        return { SOAPY_SDR_CS16, SOAPY_SDR_CF32, SOAPY_SDR_CS8 };
    }
    std::string getNativeStreamFormat(const int, const std::size_t, double& full_scale) const override
    {
        full_scale = scale_of(d_native);
        return d_native;
    }

    SoapySDR::Stream* setupStream(const int direction, const std::string& format,
                                  const std::vector<std::size_t>& channels, const SoapySDR::Kwargs&) override
    {
        if (direction != SOAPY_SDR_RX || channels.size() > 1 || (!channels.empty() && channels[0] > 1))
            throw std::runtime_error("gpufftsim: one RX channel per stream, 0 or 1");
        d_channel = channels.empty() ? 0 : channels[0];
        if (format != SOAPY_SDR_CS16 && format != SOAPY_SDR_CF32 && format != SOAPY_SDR_CS8)
            throw std::runtime_error("gpufftsim: stream format " + format + " (known: CS16, CF32, CS8)");
        d_format = format;
        return reinterpret_cast<SoapySDR::Stream*>(this);
    }
    void closeStream(SoapySDR::Stream*) override {}
    std::size_t getStreamMTU(SoapySDR::Stream*) const override { return 16384; }
    int activateStream(SoapySDR::Stream*, const int, const long long, const std::size_t) override
    {
        restart_clock();
        return 0;
    }
    int deactivateStream(SoapySDR::Stream*, const int, const long long) override { return 0; }

    int readStream(SoapySDR::Stream*, void* const* buffs, const std::size_t count, int& flags, long long& time_ns,
                   const long timeout_us) override
    {
        flags = 0;
        time_ns = 0;
        if (d_delivered >= d_error_after)
            return SOAPY_SDR_STREAM_ERROR;
        if (d_delivered >= d_throw_after)
            throw std::runtime_error("gpufftsim: simulated driver exception in readStream");
        if (d_delivered >= d_timeout_after) {
            std::this_thread::sleep_for(std::chrono::microseconds(timeout_us));
            return SOAPY_SDR_TIMEOUT;
        }
        if (d_delivered >= d_overflow_always_after)
            return SOAPY_SDR_OVERFLOW;
        if (d_overflow_every && d_since_overflow >= d_overflow_every) {
            d_since_overflow = 0;
            skip(lost_on_overflow);
            return SOAPY_SDR_OVERFLOW;
        }
        if (d_paced) {
            // Samples exist once their time has come; a reader 0.25 s behind lost some.
            const double now = seconds_since_start();
            const double behind = now - double(d_produced) / d_rate;
            if (behind > 0.25) {
                skip(std::size_t(behind * d_rate));
                return SOAPY_SDR_OVERFLOW;
            }
            const double wait = double(d_produced + count) / d_rate - now;
            if (wait > double(timeout_us) * 1e-6) {
                std::this_thread::sleep_for(std::chrono::microseconds(timeout_us));
                return SOAPY_SDR_TIMEOUT;
            }
            if (wait > 0)
                std::this_thread::sleep_for(std::chrono::duration<double>(wait));
        }
        std::size_t n = std::min(count, d_tiny_reads);
        // Stop exactly where a fault begins, so that N samples are delivered whole.
        for (const std::size_t at : { d_error_after, d_throw_after, d_timeout_after, d_overflow_always_after })
            if (at > d_delivered)
                n = std::min(n, at - d_delivered);
        if (d_overflow_every)
            n = std::min(n, d_overflow_every - d_since_overflow);
        generate(buffs[0], n);
        d_since_overflow += n;
        d_delivered += n;
        return int(n) + d_big_return;
    }

    std::vector<std::string> listAntennas(const int, const std::size_t) const override { return { "RX", "TEST" }; }
    void setAntenna(const int, const std::size_t, const std::string& name) override
    {
        if (name != "RX" && name != "TEST")
            throw std::runtime_error("gpufftsim: no antenna " + name);
        d_antenna = name;
    }
    std::string getAntenna(const int, const std::size_t) const override { return d_antenna; }

    std::vector<std::string> listGains(const int, const std::size_t) const override { return { "LNA", "VGA" }; }
    void setGain(const int, const std::size_t, const std::string& name, const double value) override
    {
        d_gains[name] = std::clamp(value, 0.0, name == "LNA" ? 40.0 : 30.0);
    }
    double getGain(const int, const std::size_t, const std::string& name) const override
    {
        const auto it = d_gains.find(name);
        return it == d_gains.end() ? 0 : it->second;
    }
    SoapySDR::Range getGainRange(const int, const std::size_t, const std::string& name) const override
    {
        return SoapySDR::Range(0, name == "LNA" ? 40 : 30, 1);
    }

    bool hasFrequencyCorrection(const int, const std::size_t) const override { return true; }
    void setFrequencyCorrection(const int, const std::size_t, const double ppm) override { d_ppm = ppm; }
    double getFrequencyCorrection(const int, const std::size_t) const override { return d_ppm; }

    void setFrequency(const int, const std::size_t, const double hz, const SoapySDR::Kwargs&) override
    {
        if (d_retunes++ >= d_retune_fail_after)
            throw std::runtime_error("gpufftsim: simulated tuning failure");
        d_center = std::clamp(d_tune_step > 0 ? std::round(hz / d_tune_step) * d_tune_step : hz, min_hz, max_hz);
        d_transient_left = std::size_t(d_transient_s * d_rate);
    }
    double getFrequency(const int, const std::size_t) const override { return d_center; }
    SoapySDR::RangeList getFrequencyRange(const int, const std::size_t) const override
    {
        return { SoapySDR::Range(min_hz, max_hz) };
    }

    void setSampleRate(const int, const std::size_t, const double rate) override
    {
        d_rate = std::clamp(rate, min_rate, max_rate);
        restart_clock();
    }
    double getSampleRate(const int, const std::size_t) const override { return d_rate; }
    SoapySDR::RangeList getSampleRateRange(const int, const std::size_t) const override
    {
        return { SoapySDR::Range(min_rate, max_rate) };
    }

private:
    double scale_of(const std::string& format) const
    {
        return format == SOAPY_SDR_CS16 ? d_cs16_full_scale : format == SOAPY_SDR_CS8 ? 128.0 : 1.0;
    }
    double gain_factor() const
    {
        double db = 0;
        for (const auto& g : d_gains)
            db += g.second;
        return std::pow(10.0, db / 20);
    }
    void restart_clock()
    {
        d_start = std::chrono::steady_clock::now();
        d_produced = 0;
    }
    double seconds_since_start() const
    {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - d_start).count();
    }
    //! Lost samples: time and the tones' phases move on, nothing is delivered.
    void skip(std::size_t n)
    {
        for (auto& t : d_channel ? d_tones1 : d_tones)
            t.phasor *= std::polar(1.0, 2 * M_PI * (t.hz - d_center) / d_rate * double(n));
        d_produced += n;
    }

    // In passes over a float buffer (noise, each tone, then the format), with
    // complex products written out: std::complex's operator* checks for
    // infinities (C99 Annex G) and would make the simulator the bottleneck.
    void generate(void* out, std::size_t n)
    {
        const double gain = gain_factor();
        d_work.resize(n);
        const float noise = float(d_noise_amplitude * gain);
        const std::size_t at = d_rng() % d_noise.size();
        // The table from `at` on, wrapping, in runs (a radio's driver costs little a
        // sample: so should its stand-in, whose CPU counts to every program it feeds).
        for (std::size_t i = 0, from = at; i < n; from = 0) {
            const std::size_t run = std::min(n - i, d_noise.size() - from);
            for (std::size_t k = 0; k < run; ++k)
                d_work[i + k] = noise * d_noise[from + k];
            i += run;
        }
        for (auto& t : d_channel ? d_tones1 : d_tones) {
            if (std::abs(t.hz - d_center) >= d_rate / 2 || (d_bandwidth > 0 && std::abs(t.hz - d_center) >= d_bandwidth / 2))
                continue;
            // Four phasors a quarter of the samples each (sample i + k of every
            // fourth from phasor k), so that the recurrences run side by side.
            const double w = 2 * M_PI * (t.hz - d_center) / d_rate, a = t.amplitude * gain;
            const std::complex<double> step4 = std::polar(1.0, 4 * w);
            std::complex<double> p[4];
            for (int k = 0; k < 4; ++k)
                p[k] = t.phasor * std::polar(1.0, k * w);
            std::size_t i = 0;
            for (; i + 4 <= n; i += 4)
                for (int k = 0; k < 4; ++k) {
                    d_work[i + k] += std::complex<float>(float(a * p[k].real()), float(a * p[k].imag()));
                    p[k] *= step4;
                }
            for (int k = 0; i < n; ++i, ++k)
                d_work[i] += std::complex<float>(float(a * p[k].real()), float(a * p[k].imag()));
            // The next call's first phasor, sample n's: p[0] is sample n - n % 4's.
            const std::complex<double> next = p[0] * std::polar(1.0, double(n % 4) * w);
            t.phasor = next / std::abs(next); // |phasor| stays 1 against rounding
        }
        for (std::size_t i = 0; i < n && d_dc_amplitude > 0; ++i)
            d_work[i] += float(d_dc_amplitude);
        for (std::size_t i = 0; i < n && d_transient_left; ++i, --d_transient_left) // not locked yet: loud junk
            d_work[i] = 0.5f * d_noise[(at + i) % d_noise.size()];
        const float nan = std::numeric_limits<float>::quiet_NaN();
        for (std::size_t i = d_nan_after > d_delivered ? d_nan_after - d_delivered : 0; i < n; ++i)
            d_work[i] = { nan, nan };
        store(out, float(scale_of(d_format)));
        d_produced += n;
    }

    void store(void* out, float scale) const
    {
        const std::size_t n = d_work.size();
        if (d_format == SOAPY_SDR_CF32) {
            for (std::size_t i = 0; i < n; ++i)
                static_cast<std::complex<float>*>(out)[i] = d_work[i] * scale;
            return;
        }
        const bool cs16 = d_format == SOAPY_SDR_CS16;
        const float lo = cs16 ? -32768.0f : -128.0f, hi = cs16 ? 32767.0f : 127.0f;
        // Rounded to nearest, ties to even, as lrint, inline: adding and taking away
        // 1.5 * 2^23 leaves no fraction bits for values within the clamp.
        // NaN (the nan_after fault) would make the conversion undefined: integer formats read it as 0.
        const auto quantize = [&](float v) {
            constexpr float shift = 12582912.0f;
            return std::isnan(v) ? 0L : long((std::clamp(v * scale, lo, hi) + shift) - shift);
        };
        for (std::size_t i = 0; i < n; ++i) {
            if (cs16) {
                static_cast<int16_t*>(out)[2 * i] = int16_t(quantize(d_work[i].real()));
                static_cast<int16_t*>(out)[2 * i + 1] = int16_t(quantize(d_work[i].imag()));
            } else {
                static_cast<int8_t*>(out)[2 * i] = int8_t(quantize(d_work[i].real()));
                static_cast<int8_t*>(out)[2 * i + 1] = int8_t(quantize(d_work[i].imag()));
            }
        }
    }

    std::string d_key;
    std::vector<tone> d_tones;
    double d_noise_amplitude;
    std::string d_native, d_format = SOAPY_SDR_CS16, d_antenna = "RX";
    double d_cs16_full_scale, d_transient_s;
    bool d_paced;
    std::size_t d_overflow_every, d_since_overflow = 0;
    double d_tune_step;
    std::vector<std::complex<float>> d_noise, d_work;
    std::minstd_rand d_rng{ 7 };
    std::map<std::string, double> d_gains;
    double d_ppm = 0, d_center = 100e6, d_rate = 2.4e6;
    std::size_t d_transient_left = 0, d_produced = 0;
    std::chrono::steady_clock::time_point d_start = std::chrono::steady_clock::now();
    // Driver faults.
    int d_big_return;
    std::size_t d_tiny_reads, d_error_after, d_throw_after, d_timeout_after, d_overflow_always_after, d_nan_after,
        d_retune_fail_after;
    std::size_t d_delivered = 0, d_retunes = 0;
    double d_dc_amplitude;
    std::vector<tone> d_tones1;
    std::size_t d_channel = 0;
    std::map<std::string, std::string> d_settings;
    bool d_has_settings;
    double d_bandwidth = 0;
};

#ifndef GPUFFTSIM_DEMO
SoapySDR::KwargsList find_sim(const SoapySDR::Kwargs& args)
{
    if ((args.count("driver") && args.at("driver") != driver) || (args.count("serial") && args.at("serial") != serial))
        return {};
    return { { { "driver", driver }, { "serial", serial }, { "label", "gr-gpufft simulated SDR" } } };
}

SoapySDR::Device* make_sim(const SoapySDR::Kwargs& args) { return new sim_device(args); }

const SoapySDR::Registry registration(driver, &find_sim, &make_sim, SOAPY_SDR_ABI_VERSION);
#else
// gpufftdemo: tones at known levels (gain 0 dB; a --gain adds to them and to
// the noise) in the FM band around its 100 MHz start and at 433.92 MHz.
constexpr char demo_driver[] = "gpufftdemo", demo_serial[] = "demo0";
constexpr char demo_tones[] = "99.4e6:-40;100.2e6:-20;433.92e6:-30";

SoapySDR::KwargsList find_demo(const SoapySDR::Kwargs& args)
{
    if ((args.count("driver") && args.at("driver") != demo_driver) ||
        (args.count("serial") && args.at("serial") != demo_serial))
        return {};
    return { { { "driver", demo_driver }, { "serial", demo_serial }, { "label", "gr-gpufft demo radio (simulated)" } } };
}

SoapySDR::Device* make_demo(const SoapySDR::Kwargs& args)
{
    SoapySDR::Kwargs with_signals = args;
    with_signals.emplace("tones", demo_tones); // unless given
    return new sim_device(with_signals, demo_driver);
}

const SoapySDR::Registry demo_registration(demo_driver, &find_demo, &make_demo, SOAPY_SDR_ABI_VERSION);
#endif

} // namespace
