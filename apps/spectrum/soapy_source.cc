// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-spectrum: a live radio through SoapySDR (the device API behind the
 * rtl-sdr, HackRF, Airspy, LimeSDR, PlutoSDR and UHD modules). */
#include "app.h"

#include <SoapySDR/Device.hpp>
#include <SoapySDR/Errors.hpp>
#include <SoapySDR/Formats.hpp>
#include <SoapySDR/Logger.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>

namespace gpufft_app {

namespace {

std::string kwargs_text(const SoapySDR::Kwargs& args)
{
    std::string s;
    for (const auto& [key, value] : args)
        s += (s.empty() ? "" : ",") + key + "=" + value;
    return s;
}

std::string number_text(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

std::string found_devices()
{
    std::string list;
    for (const auto& d : SoapySDR::Device::enumerate())
        list += (list.empty() ? "" : "; ") + kwargs_text(d);
    return list.empty() ? "none (is the SoapySDR module for it installed? SoapySDRUtil --info)" : list;
}

// The SoapySDR formats the engine reads as they are.
struct stream_format {
    const char* soapy;
    gpufft::sample_format engine;
};
const stream_format engine_formats[] = {
    { SOAPY_SDR_CS8, gpufft::sample_format::cs8 },
    { SOAPY_SDR_CS16, gpufft::sample_format::cs16 },
    { SOAPY_SDR_CF32, gpufft::sample_format::cf32 },
    { SOAPY_SDR_CU8, gpufft::sample_format::cu8 },
};

std::string db_text(double db)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g dB", db);
    return buf;
}

//! A range list as one span: its lowest minimum to its highest maximum, and its coarsest step.
struct span {
    double lo = 0, hi = 0, step = 0;
    bool known = false; //!< false if the device reports nothing
};
span span_of(const SoapySDR::RangeList& list)
{
    span s;
    for (const auto& r : list) {
        if (r.minimum() == 0 && r.maximum() == 0)
            continue; // a driver's "unknown"
        s.lo = s.known ? std::min(s.lo, r.minimum()) : r.minimum();
        s.hi = s.known ? std::max(s.hi, r.maximum()) : r.maximum();
        s.step = std::max(s.step, r.step());
        s.known = true;
    }
    return s;
}

//! Throws usage_error if `v` lies outside the span the device reports: "REQUEST is outside the device's range, LO to HI".
void refuse_outside(const std::string& request, double v, const span& s, std::string (*text)(double))
{
    if (s.known && !(v >= s.lo && v <= s.hi))
        throw usage_error(request + " is outside the device's range, " + text(s.lo) + " to " + text(s.hi));
}

//! One line on standard error if the device read back more than its step (or a rounding) away from the request; true if so.
bool warn_if_differs(const std::string& what, double asked, double got, double step, std::string (*text)(double))
{
    if (!(std::abs(got - asked) > std::max({ step, 1e-9 * std::abs(asked), 1e-9 })))
        return false;
    std::fprintf(stderr, "gpufft-spectrum: warning: asked for a %s of %s, the device has %s (used for every label)\n",
                 what.c_str(), text(asked).c_str(), text(got).c_str());
    return true;
}

// SoapySDR's log goes to standard error only for warnings and errors.
void quiet_logger(const SoapySDRLogLevel level, const char* message)
{
    if (level <= SOAPY_SDR_WARNING)
        std::fprintf(stderr, "gpufft-spectrum: SoapySDR: %s\n", message);
}

} // namespace

std::string radio_settings::text() const
{
    std::string s = (agc ? "automatic gain (" + db_text(gain_db) + " at the start)" : "gain " + db_text(gain_db));
    std::string each;
    for (const auto& [name, db] : gains)
        each += (each.empty() ? "" : ", ") + name + " " + db_text(db);
    if (gains.size() > 1)
        s += " (" + each + ")";
    if (!antenna.empty())
        s += ", antenna " + antenna;
    if (bandwidth_hz > 0)
        s += ", bandwidth " + hz_text(bandwidth_hz);
    if (channel)
        s += ", channel " + std::to_string(channel);
    for (const auto& [key, value] : device_settings)
        s += ", " + key + "=" + value;
    if (lnb_offset_hz != 0)
        s += ", LNB offset " + hz_text(lnb_offset_hz) + " (frequencies on the sky side)";
    return s;
}

struct soapy_radio::handle {
    SoapySDR::Device* device = nullptr;
    SoapySDR::Stream* stream = nullptr;
    ~handle()
    {
        if (stream) {
            device->deactivateStream(stream);
            device->closeStream(stream);
        }
        if (device)
            SoapySDR::Device::unmake(device);
    }
};

void list_devices(std::FILE* out)
{
    SoapySDR::registerLogHandler(quiet_logger);
    const auto devices = SoapySDR::Device::enumerate();
    if (devices.empty())
        std::fprintf(out, "no devices found (is the SoapySDR module for yours installed? SoapySDRUtil --info)\n");
    for (const auto& d : devices)
        std::fprintf(out, "%s\n", kwargs_text(d).c_str());
}

namespace {

std::string ranges_text(const SoapySDR::RangeList& list, std::string (*text)(double))
{
    std::string s;
    for (const auto& r : list) {
        s += (s.empty() ? "" : ", ") + text(r.minimum());
        if (r.maximum() != r.minimum())
            s += " to " + text(r.maximum());
        if (r.step() > 0)
            s += " (step " + text(r.step()) + ")";
    }
    return s.empty() ? "not reported" : s;
}

/*
 * The device's frequency ranges on the sky side (plus --lnb-offset), from
 * 0 Hz up: an upconverter's offset beyond the device's lowest frequency
 * would put part of them below 0 Hz, where there is no sky frequency, so
 * that part is left out and the line says so. Throws usage_error when
 * nothing is left: no sky frequency can be tuned with that offset.
 */
std::string sky_ranges_text(const SoapySDR::RangeList& list, double offset)
{
    const span device = span_of(list);
    if (device.known && device.hi + offset < 0)
        throw usage_error("--lnb-offset " + hz_text(offset) + ": the device's frequencies, " + hz_text(device.lo) +
                          " to " + hz_text(device.hi) + ", are all below 0 Hz on the sky side");
    SoapySDR::RangeList sky;
    for (const auto& r : list)
        if (r.maximum() + offset >= 0)
            sky.emplace_back(std::max(r.minimum() + offset, 0.0), r.maximum() + offset, r.step());
    std::string text = ranges_text(sky, hz_text);
    if (device.known && device.lo + offset < 0)
        text += " (from 0 Hz: the device's lowest, " + hz_text(device.lo) + ", is " + hz_text(device.lo + offset) +
                " on the sky side)";
    return text;
}

std::string args_text(const SoapySDR::ArgInfoList& list, const std::function<std::string(const std::string&)>& read)
{
    std::string s;
    for (const auto& a : list) {
        std::string value;
        try {
            value = read(a.key);
        } catch (const std::exception& e) {
            value = std::string("(unreadable: ") + e.what() + ")";
        }
        s += "    " + a.key + " = " + (value.empty() ? "\"\"" : value);
        if (!a.options.empty()) {
            std::string each;
            for (const auto& o : a.options)
                each += (each.empty() ? "" : ", ") + o;
            s += " (one of " + each + ")";
        }
        if (!a.description.empty())
            s += ": " + a.description;
        s += "\n";
    }
    return s.empty() ? "    none\n" : s;
}

} // namespace

void print_device_info(const radio_options& r, std::FILE* out)
{
    SoapySDR::registerLogHandler(quiet_logger);
    if (SoapySDR::Device::enumerate(r.device).empty())
        throw usage_error("--device \"" + r.device + "\" matches no device; SoapySDR found: " + found_devices());
    std::unique_ptr<SoapySDR::Device, void (*)(SoapySDR::Device*)> opened(nullptr, [](SoapySDR::Device* d) {
        SoapySDR::Device::unmake(d);
    });
    try {
        opened.reset(SoapySDR::Device::make(r.device));
    } catch (const std::exception& e) {
        throw app_error("--device \"" + r.device + "\": cannot open: " + e.what());
    }
    SoapySDR::Device& dev = *opened;
    const int rx = SOAPY_SDR_RX;
    std::string text;
    try {
        text += "driver: " + dev.getDriverKey() + "\nhardware: " + dev.getHardwareKey() + "\n";
        for (const auto& [key, value] : dev.getHardwareInfo())
            text += "  " + key + ": " + value + "\n";
        const std::size_t channels = dev.getNumChannels(rx);
        text += "RX channels: " + std::to_string(channels) + "\n";
        text += "settings (--device-setting KEY=VALUE), current values:\n" +
                args_text(dev.getSettingInfo(), [&](const std::string& k) { return dev.readSetting(k); });
        for (std::size_t ch = 0; ch < channels; ++ch) {
            text += "channel " + std::to_string(ch) + ":\n";
            text += "  sample rates: " + ranges_text(dev.getSampleRateRange(rx, ch), hz_text) + "\n";
            text += "  frequencies: " + ranges_text(dev.getFrequencyRange(rx, ch), hz_text) + "\n";
            if (r.lnb_offset != 0)
                text += "  sky frequencies (--lnb-offset " + hz_text(r.lnb_offset) +
                        "): " + sky_ranges_text(dev.getFrequencyRange(rx, ch), r.lnb_offset) + "\n";
            text += "  gain: " + ranges_text({ dev.getGainRange(rx, ch) }, db_text) +
                    (dev.hasGainMode(rx, ch) ? ", automatic gain available" : ", no automatic gain") + "\n";
            for (const auto& name : dev.listGains(rx, ch))
                text += "    " + name + ": " + ranges_text({ dev.getGainRange(rx, ch, name) }, db_text) + "\n";
            text += "  bandwidths: " + ranges_text(dev.getBandwidthRange(rx, ch), hz_text) + "\n";
            std::string antennas;
            for (const auto& a : dev.listAntennas(rx, ch))
                antennas += (antennas.empty() ? "" : ", ") + a;
            text += "  antennas: " + (antennas.empty() ? std::string("none named") : antennas) + "\n";
            double full_scale = 0;
            const std::string native = dev.getNativeStreamFormat(rx, ch, full_scale);
            std::string formats;
            for (const auto& f : dev.getStreamFormats(rx, ch))
                formats += (formats.empty() ? "" : ", ") + f;
            text += "  stream formats: " + formats + " (native " + native + ", full scale " + number_text(full_scale) +
                    ")\n";
            text += "  frequency correction: " + std::string(dev.hasFrequencyCorrection(rx, ch) ? "yes" : "no") + "\n";
            const auto channel_settings = dev.getSettingInfo(rx, ch);
            if (!channel_settings.empty())
                text += "  channel settings, current values:\n" +
                        args_text(channel_settings, [&](const std::string& k) { return dev.readSetting(rx, ch, k); });
        }
    } catch (const usage_error&) {
        throw;
    } catch (const std::exception& e) {
        throw app_error("--device \"" + r.device + "\": " + e.what());
    }
    std::fputs(text.c_str(), out);
}

soapy_radio::soapy_radio(const radio_options& r, double rate, std::optional<double> center)
    : d_handle(std::make_unique<handle>())
{
    SoapySDR::registerLogHandler(quiet_logger);
    if (SoapySDR::Device::enumerate(r.device).empty())
        throw usage_error("--device \"" + r.device + "\" matches no device; SoapySDR found: " + found_devices());
    try {
        d_handle->device = SoapySDR::Device::make(r.device);
    } catch (const std::exception& e) {
        throw app_error("--device \"" + r.device + "\": cannot open: " + e.what());
    }
    SoapySDR::Device& dev = *d_handle->device;
    const int rx = SOAPY_SDR_RX;
    const std::size_t ch = d_channel = r.channel;
    d_lnb_offset = r.lnb_offset;
    try {
        if (const std::size_t channels = dev.getNumChannels(rx); ch >= channels)
            throw usage_error("--channel " + std::to_string(ch) + ": the device has " + std::to_string(channels) +
                              " RX channel" + (channels == 1 ? "" : "s") +
                              (channels ? " (0 to " + std::to_string(channels - 1) + ")" : ""));
        // Every request is checked against what the device reports before
        // anything is set: a driver clamps silently, and the data would be
        // labelled with what was asked.
        const span rates = span_of(dev.getSampleRateRange(rx, ch));
        span tuning = span_of(dev.getFrequencyRange(rx, ch));
        tuning.lo += d_lnb_offset, tuning.hi += d_lnb_offset; // the sky's, from 0 Hz (sky_ranges_text)
        if (tuning.known && d_lnb_offset != 0)
            sky_ranges_text(dev.getFrequencyRange(rx, ch), d_lnb_offset); // refuses an offset that leaves none
        tuning.lo = std::max(tuning.lo, 0.0);
        refuse_outside("--rate " + hz_text(rate), rate, rates, hz_text);
        if (center)
            refuse_outside("--center " + hz_text(*center) +
                               (d_lnb_offset != 0 ? " (--lnb-offset " + hz_text(d_lnb_offset) + ")" : ""),
                           *center, tuning, hz_text);
        if (r.bandwidth > 0)
            refuse_outside("--bandwidth " + hz_text(r.bandwidth), r.bandwidth, span_of(dev.getBandwidthRange(rx, ch)),
                           hz_text);
        d_frequency_range = { tuning.lo, tuning.hi };
        d_frequency_step = tuning.step;
        dev.setSampleRate(rx, ch, rate);
        d_rate = dev.getSampleRate(rx, ch);
        if (!(d_rate > 0))
            throw app_error("--rate " + number_text(rate) + ": the device reports a rate of " + number_text(d_rate));
        warn_if_differs("sample rate", rate, d_rate, rates.step, hz_text);
        if (!r.antenna.empty()) {
            const auto names = dev.listAntennas(rx, ch);
            if (std::find(names.begin(), names.end(), r.antenna) == names.end()) {
                std::string known;
                for (const auto& n : names)
                    known += (known.empty() ? "" : ", ") + n;
                throw usage_error("--antenna " + r.antenna + ": the device has " + (known.empty() ? "none" : known));
            }
            dev.setAntenna(rx, ch, r.antenna);
        }
        const auto gain_names = dev.listGains(rx, ch);
        if (r.gain.empty() && r.auto_gain_if_any && dev.hasGainMode(rx, ch)) {
            dev.setGainMode(rx, ch, true);
        } else if (r.gain == "auto") {
            if (!dev.hasGainMode(rx, ch))
                throw usage_error("--gain auto: the device has no automatic gain");
            dev.setGainMode(rx, ch, true);
        } else if (!r.gain.empty()) {
            // Every value is checked before any is set.
            std::vector<std::pair<std::string, double>> asked;
            if (r.gain.find('=') == std::string::npos) {
                const double db = std::strtod(r.gain.c_str(), nullptr); // a number: check_radio_options
                refuse_outside("--gain " + db_text(db), db, span_of({ dev.getGainRange(rx, ch) }), db_text);
                asked.push_back({ "", db });
            } else {
                for (const auto& [name, value] : SoapySDR::KwargsFromString(r.gain)) {
                    if (std::find(gain_names.begin(), gain_names.end(), name) == gain_names.end()) {
                        std::string known;
                        for (const auto& n : gain_names)
                            known += (known.empty() ? "" : ", ") + n;
                        throw usage_error("--gain: the device has no gain element \"" + name + "\" (it has: " +
                                          (known.empty() ? "none" : known) + ")");
                    }
                    const double db = std::strtod(value.c_str(), nullptr);
                    refuse_outside("--gain " + name + "=" + db_text(db), db,
                                   span_of({ dev.getGainRange(rx, ch, name) }), db_text);
                    asked.push_back({ name, db });
                }
            }
            if (dev.hasGainMode(rx, ch))
                dev.setGainMode(rx, ch, false);
            for (const auto& [name, db] : asked) {
                if (name.empty())
                    dev.setGain(rx, ch, db);
                else
                    dev.setGain(rx, ch, name, db);
                const double got = name.empty() ? dev.getGain(rx, ch) : dev.getGain(rx, ch, name);
                const auto range = name.empty() ? dev.getGainRange(rx, ch) : dev.getGainRange(rx, ch, name);
                warn_if_differs(name.empty() ? "gain" : name + " gain", db, got, range.step(), db_text);
            }
        }
        if (r.ppm_set) {
            if (!dev.hasFrequencyCorrection(rx, ch))
                throw usage_error("--ppm: the device has no frequency correction");
            dev.setFrequencyCorrection(rx, ch, r.ppm);
        }
        if (!r.settings.empty()) {
            // Device-wide settings (biastee, direct_samp, offset_tune on rtl-sdr) and the channel's.
            const auto info = dev.getSettingInfo(), channel_info = dev.getSettingInfo(rx, ch);
            const auto find = [](const SoapySDR::ArgInfoList& list, const std::string& key) {
                return std::find_if(list.begin(), list.end(), [&](const SoapySDR::ArgInfo& a) { return a.key == key; });
            };
            for (const auto& want : r.settings) { // every one checked before any is written
                const auto a = find(info, want.key), c = find(channel_info, want.key);
                if (a == info.end() && c == channel_info.end()) {
                    std::string known;
                    for (const auto* list : { &info, &channel_info })
                        for (const auto& k : *list)
                            known += (known.empty() ? "" : ", ") + k.key;
                    throw usage_error(want.option + ": the device has no \"" + want.key + "\" setting (it has: " +
                                      (known.empty() ? "none" : known) + ")");
                }
                const SoapySDR::ArgInfo& arg = a != info.end() ? *a : *c;
                if (!arg.options.empty() &&
                    std::find(arg.options.begin(), arg.options.end(), want.value) == arg.options.end()) {
                    std::string known;
                    for (const auto& v : arg.options)
                        known += (known.empty() ? "" : ", ") + v;
                    throw usage_error(want.option + " " + want.key + "=" + want.value + ": the device takes " + known);
                }
                if (arg.type == SoapySDR::ArgInfo::BOOL && want.value != "true" && want.value != "false")
                    throw usage_error(want.option + " " + want.key + "=" + want.value + ": expected true or false");
            }
            for (const auto& want : r.settings) {
                const bool device_wide = find(info, want.key) != info.end();
                if (device_wide)
                    dev.writeSetting(want.key, want.value);
                else
                    dev.writeSetting(rx, ch, want.key, want.value);
                const std::string got = device_wide ? dev.readSetting(want.key) : dev.readSetting(rx, ch, want.key);
                if (got != want.value)
                    std::fprintf(stderr, "gpufft-spectrum: warning: %s %s=%s: the device reads back %s\n",
                                 want.option.c_str(), want.key.c_str(), want.value.c_str(),
                                 got.empty() ? "nothing" : got.c_str());
                auto& kept = d_settings.device_settings;
                kept.erase(std::remove_if(kept.begin(), kept.end(), [&](const auto& kv) { return kv.first == want.key; }),
                           kept.end());
                kept.push_back({ want.key, got });
            }
        }
        if (r.bandwidth > 0) {
            dev.setBandwidth(rx, ch, r.bandwidth);
            warn_if_differs("bandwidth", r.bandwidth, dev.getBandwidth(rx, ch),
                            span_of(dev.getBandwidthRange(rx, ch)).step, hz_text);
        }
        if (center)
            tune(*center);
        else
            d_center = dev.getFrequency(rx, ch) + d_lnb_offset;

        // What is in force, as the device reads it back.
        d_settings.agc = dev.hasGainMode(rx, ch) && dev.getGainMode(rx, ch);
        d_settings.gain_db = dev.getGain(rx, ch);
        for (const auto& name : gain_names)
            d_settings.gains.push_back({ name, dev.getGain(rx, ch, name) });
        if (!dev.listAntennas(rx, ch).empty())
            d_settings.antenna = dev.getAntenna(rx, ch);
        d_settings.bandwidth_hz = dev.getBandwidth(rx, ch);
        d_settings.channel = ch;
        d_settings.lnb_offset_hz = d_lnb_offset;

        double full_scale = 0;
        const std::string native = dev.getNativeStreamFormat(rx, ch, full_scale);
        const stream_format* chosen = nullptr;
        for (const auto& f : engine_formats)
            if (native == f.soapy)
                chosen = &f;
        if (!chosen) { // e.g. CS12 or CU16: SoapySDR converts to CS16 at its full scale
            chosen = &engine_formats[1];
            full_scale = 32768;
        }
        d_format = chosen->engine;
        d_full_scale = full_scale;
        d_ref_scale = gpufft_app::ref_scale(d_format, full_scale);
        d_handle->stream = dev.setupStream(rx, chosen->soapy, { ch });
        d_mtu = std::max<std::size_t>(1024, dev.getStreamMTU(d_handle->stream));
        if (dev.activateStream(d_handle->stream) != 0)
            throw app_error("--device \"" + r.device + "\": cannot start the stream");
        const std::string hardware = kwargs_text(dev.getHardwareInfo());
        d_name = dev.getDriverKey() + (hardware.empty() ? "" : " (" + hardware + ")");
        // A read returns when its buffer fills: at a low rate that takes a while.
        d_stall_s = r.stall_timeout > 0 ? r.stall_timeout : std::max(5.0, 3 * double(d_mtu) / d_rate);
        d_description = d_name + ", " + chosen->soapy + (native == chosen->soapy ? " native" : " converted from " + native) +
                        ", full scale " + number_text(full_scale) + ", " + number_text(d_rate) + " S/s, " +
                        d_settings.text();
    } catch (const usage_error&) {
        throw;
    } catch (const app_error&) {
        throw;
    } catch (const std::exception& e) {
        throw app_error("--device \"" + r.device + "\": " + e.what());
    }
}

soapy_radio::~soapy_radio() = default;

void soapy_radio::tune(double hz)
{
    try {
        d_handle->device->setFrequency(SOAPY_SDR_RX, d_channel, hz - d_lnb_offset);
    } catch (const std::exception& e) {
        throw app_error("the device " + d_name + " failed to tune to " + hz_text(hz - d_lnb_offset) +
                        (d_lnb_offset != 0 ? " (sky " + hz_text(hz) + ")" : "") + ": " + e.what());
    }
    d_center = d_handle->device->getFrequency(SOAPY_SDR_RX, d_channel) + d_lnb_offset;
    if (!d_tune_warned)
        d_tune_warned = warn_if_differs("frequency", hz, d_center, d_frequency_step, hz_text);
}

std::size_t soapy_radio::read(void* buf, std::size_t samples, bool& overflow)
{
    void* buffs[] = { buf };
    int flags = 0;
    long long time_ns = 0;
    const std::size_t asked = samples;
    int got = 0;
    try {
        got = d_handle->device->readStream(d_handle->stream, buffs, asked, flags, time_ns, 100000);
    } catch (const std::exception& e) {
        throw app_error("the device " + d_name + " failed: " + e.what());
    }
    if (got == SOAPY_SDR_OVERFLOW)
        overflow = true;
    if (got == SOAPY_SDR_OVERFLOW || got == SOAPY_SDR_TIMEOUT || got == 0) {
        no_samples(got);
        return 0;
    }
    if (got < 0)
        throw app_error("the device " + d_name + " stopped: " + SoapySDR::errToStr(got));
    d_stalled_since.reset();
    // A module is third-party code: past `asked` is not this buffer's (nor known to be samples).
    if (std::size_t(got) > asked) {
        if (!d_over_return_reported)
            std::fprintf(stderr,
                         "gpufft-spectrum: warning: the SoapySDR driver %s returned %d samples for a read of %zu; "
                         "only %zu are used (a driver bug; reported once)\n",
                         d_handle->device->getDriverKey().c_str(), got, asked, asked);
        d_over_return_reported = true;
        return asked;
    }
    return std::size_t(got);
}

void soapy_radio::no_samples(int status)
{
    const auto now = std::chrono::steady_clock::now();
    if (!d_stalled_since) {
        d_stalled_since = now;
        d_stalled_timeouts = d_stalled_overflows = 0;
    }
    (status == SOAPY_SDR_OVERFLOW ? d_stalled_overflows : d_stalled_timeouts) += 1;
    const double waited = std::chrono::duration<double>(now - *d_stalled_since).count();
    if (waited < d_stall_s)
        return;
    char text[160];
    std::snprintf(text, sizeof text,
                  " delivered no samples for %.3g s: %zu reads timed out and %zu reported an overflow "
                  "(--stall-timeout %g s)",
                  waited, d_stalled_timeouts, d_stalled_overflows, d_stall_s);
    throw app_error("the device " + d_name + text);
}

stream_stats stream_radio(soapy_radio& radio, gpufft::spectrum& engine, const gpufft::spectrum::sink& sink,
                          std::size_t settle_samples, std::size_t max_samples,
                          const std::function<void(const unsigned char* data, std::size_t len)>& on_read,
                          const std::function<void(std::uint64_t at, std::uint64_t lost)>& on_gap)
{
    using clock = std::chrono::steady_clock;
    const auto seconds_since = [](clock::time_point t) {
        return std::chrono::duration<double>(clock::now() - t).count();
    };
    const std::size_t bps = gpufft::sample_bytes(radio.format());
    std::vector<unsigned char> buf(radio.mtu() * bps);
    stream_stats st;
    const auto start = clock::now();
    // The tuner's settling after the initial tune is not signal.
    for (std::size_t dropped = 0; dropped < settle_samples && !stop_signal();) {
        bool overflow = false;
        dropped += radio.read(buf.data(), std::min(radio.mtu(), settle_samples - dropped), overflow);
    }
    // SoapySDR does not say how many samples an overflow lost: the host's
    // clock does. The stream's lag behind it (seconds since the first read
    // times the rate, less the samples so far) is at least the buffering's;
    // after a gap it is larger by the samples lost.
    const auto streaming = clock::now();
    double least_lag = INFINITY;
    bool gap = false;
    // --duration by the clock too: its time plus the stall timeout (whole reads of a
    // device at its rate end well before).
    const double wall_limit = max_samples ? double(max_samples) / radio.rate() + radio.stall_timeout() : INFINITY;
    while (!stop_signal() && (max_samples == 0 || st.samples < max_samples)) {
        if (seconds_since(streaming) > wall_limit) {
            std::fprintf(stderr,
                         "gpufft-spectrum: warning: the device delivered %zu of the %zu samples --duration asks for "
                         "(%.3f of %.3f s at %g S/s) in %.3f s: stopped there, %g s (--stall-timeout) after "
                         "--duration (a rate below the one it reads back?)\n",
                         st.samples, max_samples, double(st.samples) / radio.rate(),
                         double(max_samples) / radio.rate(), radio.rate(), seconds_since(streaming),
                         radio.stall_timeout());
            break;
        }
        bool overflow = false;
        std::size_t want = radio.mtu();
        if (max_samples)
            want = std::min(want, max_samples - st.samples);
        auto t = clock::now();
        const std::size_t got = radio.read(buf.data(), want, overflow);
        st.device_s += seconds_since(t);
        if (overflow) {
            ++st.overflows;
            if (!gap) { // what is complete before the gap, then a fresh start
                t = clock::now();
                engine.flush(sink);
                engine.reset();
                st.fft_s += seconds_since(t);
            }
            gap = true;
        }
        if (got) {
            const double lag = seconds_since(streaming) * radio.rate() - double(st.samples + st.lost + got);
            if (gap) {
                const double lost = std::isfinite(least_lag) ? std::max(0.0, std::round(lag - least_lag)) : 0.0;
                st.lost += std::uint64_t(lost);
                on_gap(st.samples + st.lost, std::uint64_t(lost));
                gap = false;
                least_lag = std::min(least_lag, lag - lost);
            } else {
                least_lag = std::min(least_lag, lag);
            }
        }
        on_read(buf.data(), got * bps);
        t = clock::now();
        engine.push_bytes(buf.data(), got * bps, sink);
        st.fft_s += seconds_since(t);
        st.samples += got;
    }
    const auto t = clock::now();
    engine.flush(sink);
    st.fft_s += seconds_since(t);
    st.wall_s = seconds_since(start);
    return st;
}

} // namespace gpufft_app
