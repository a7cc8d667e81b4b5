// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-spectrum: live radios through SoapySDR, frequency sweeps and
 * rtl_power's CSV (internal API, shared by the program and its tests). */
#ifndef GPUFFT_APPS_SPECTRUM_RADIO_H
#define GPUFFT_APPS_SPECTRUM_RADIO_H

#include <gpufft/spectrum.h>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace CLI {
class App;
class Validator;
}

namespace gpufft_app {

class output_file;

//! START:STOP:BIN of --sweep, in Hz.
struct sweep_range {
    double start = 0, stop = 0, bin = 0;
};

//! The radio and sweep options (see add_radio_options).
struct radio_options {
    std::string device;        //!< --device: SoapySDR arguments; empty: no radio
    bool list_devices = false; //!< --list-devices
    std::string gain;          //!< --gain: "DB", "auto" or "NAME=DB,NAME=DB"
    double ppm = 0;
    bool ppm_set = false;
    std::string antenna;
    double duration = 0; //!< --duration seconds; 0: until the input ends or a signal
    double stall_timeout = 0; //!< --stall-timeout seconds; 0: soapy_radio's default
    std::string sweep;   //!< --sweep as given
    sweep_range range;   //!< parsed from sweep
    double crop = 0.25;  //!< fraction of each hop's bins dropped, half at each edge
    double settle = 0.01; //!< seconds dropped after each tune (also before a live capture)
    double dwell = 0.05, interval = 0;
    bool once = false;
    std::string rtl_power; //!< --rtl-power FILE or "-"
    //! No --gain: automatic gain where the device has it, else its gain as it is (rtl_power's default).
    bool auto_gain_if_any = false;
    //! A device setting (SoapySDR writeSetting) that `option` asked for; refused where the device lacks `key`.
    struct device_setting {
        std::string option, key, value;
    };
    std::vector<device_setting> settings;
    /*!
     * --lnb-offset: the sky frequency is the device's plus this (Hz): an
     * LNB's or downconverter's LO (9.75 GHz), negative for an upconverter
     * (-125 MHz). Every frequency taken, shown and written is the sky's.
     */
    double lnb_offset = 0;
    double bandwidth = 0;    //!< --bandwidth Hz; 0: the device's own
    std::size_t channel = 0; //!< --channel: the RX channel
    std::size_t sweeps = 0;  //!< --sweeps: this many, then exit (--once: 1); 0: until --duration or a signal
    //! --dc: the tuner's DC spike left as it is, replaced by its neighbours' mean, or each hop shifted off it.
    enum class dc_mode { keep,
                         replace,
                         shift };
    dc_mode dc = dc_mode::keep;
    bool info = false; //!< --info
};

struct options;
//! The check of every number option: a finite number in [lo, hi] (whole if asked). CLI11's Range lets NaN through.
CLI::Validator number_in(double lo, double hi, bool whole = false);
//! number_in's check of one value: "" if `text` passes, else the reason.
std::string check_number(const std::string& text, double lo, double hi, bool whole = false);
/*!
 * The check of every number option with a unit: `parse` (parse_si,
 * parse_seconds, parse_fraction: app.h) reads it, then it must be in
 * [lo, hi]; the value is rewritten as the plain number it stands for.
 */
CLI::Validator value_in(double (*parse)(const std::string&), double lo, double hi);
//! Adds the radio and sweep options to the command line.
void add_radio_options(CLI::App& app, radio_options& r);
//! After parsing: parses --sweep and checks what needs what; throws usage_error.
void check_radio_options(const CLI::App& app, options& o);

/*!
 * A frequency or rate: a number with an optional k, M or G suffix
 * ("88M", "2.4e6", "10k"); throws usage_error naming `option`.
 */
double parse_hz(const std::string& text, const std::string& option);
//! "START:STOP:BIN" (each parse_hz); throws usage_error naming --sweep.
sweep_range parse_sweep(const std::string& text);

/*!
 * How a sweep covers [start, stop): hops of fft_size bins of bin_hz
 * (rate / fft_size, the widest such bin not above the asked width), each
 * keeping `kept` bins from bin `first_kept` on (the edges cropped), hop h
 * tuned to centers[h]; the kept bins of consecutive hops are adjacent, so
 * the sweep's spectrum is `total_bins` bins from start on.
 */
struct sweep_plan {
    double start = 0, bin_hz = 0;
    std::size_t fft_size = 0, first_kept = 0, kept = 0, total_bins = 0;
    std::vector<double> centers;
    //! Frequency of bin i of the sweep's spectrum (its centre).
    double hz(std::size_t i) const { return start + double(i) * bin_hz; }
};
/*!
 * Throws usage_error naming --sweep or --crop when no sensible plan exists.
 * `dc_guard` > 0 (--dc shift): each hop is tuned so far below its kept bins
 * that the centre bin and the `dc_guard` - 1 bins each side of it (the
 * window's main lobe) fall in the cropped part; the crop must leave room.
 */
sweep_plan plan_sweep(const sweep_range& range, double rate, double crop, std::size_t dc_guard = 0);

/*!
 * The bins a spectrum's centre (DC) spike covers through the window: the
 * half width of its main lobe in bins, rounded up (rectangle 1, hann 2,
 * blackmanharris 4), found from the window's own taps.
 */
std::size_t dc_lobe_bins(const options& o, std::size_t fft_size);
/*!
 * --dc replace: the bins within dc_lobe_bins() - 1 of the centre bin of an
 * fftshifted spectrum of `n` bins (tone dBFS) replaced by the mean power of
 * the two bins just outside them; returns the first and last bin replaced.
 */
std::pair<std::size_t, std::size_t> replace_dc(float* db, std::size_t n, std::size_t lobe);

//! rtl_power's CSV: "date, time, Hz low, Hz high, Hz step, samples, dB, dB, ..." (one row per hop per interval).
class rtl_power_csv
{
public:
    explicit rtl_power_csv(const std::string& path);
    ~rtl_power_csv();
    /*!
     * One complete row: `n` values in dB for the bins centred at hz_low +
     * i * step, then the last once more (as rtl_power.c); Hz high is hz_low
     * + n * step; `frames` FFTs were averaged.
     */
    void row(std::chrono::system_clock::time_point when, double hz_low, double step, std::size_t frames,
             const float* db, std::size_t n);
    //! --linear: the values as linear tone power (a full-scale tone is 1) instead of dB, "%.4e".
    void set_linear(bool linear) { d_linear = linear; }
    //! Hands the rows so far to the file (rtl_power flushes after each interval).
    void flush();
    void commit();

private:
    std::unique_ptr<output_file> d_out;
    bool d_linear = false;
};

//! "88 MHz", "9.375 kHz", "1.2 GHz".
std::string hz_text(double f);

//! What a radio has in force, as it reads it back (not as asked).
struct radio_settings {
    double gain_db = 0;                                  //!< overall
    std::vector<std::pair<std::string, double>> gains;   //!< each element's, dB
    bool agc = false;                                    //!< automatic gain on (gain_db: at the start)
    std::string antenna;                                 //!< "" if the device names none
    double bandwidth_hz = 0;                             //!< 0 if the device does not say
    std::size_t channel = 0;                             //!< the RX channel
    double lnb_offset_hz = 0;                            //!< --lnb-offset: sky = device + this
    std::vector<std::pair<std::string, std::string>> device_settings; //!< --device-setting keys, values read back
    //! "gain 10 dB (LNA 4 dB, VGA 6 dB), antenna RX" (then bandwidth, channel, settings, LNB offset where given)
    std::string text() const;
};

/*!
 * A SoapySDR receive channel: opened by the --device arguments, with the
 * rate, centre, gain, correction and antenna set, streaming in the device's
 * native format when the engine reads it (CS8, CS16, CF32, CU8), else CS16.
 * A rate, centre or gain outside what the device reports is a usage_error
 * naming its range; everything is read back, and the read-back values are
 * the ones used (a difference beyond the device's step is warned of once).
 */
class soapy_radio
{
public:
    /*!
     * Throws usage_error listing the devices SoapySDR found if none matches.
     * `center`: the --center to tune to; nullopt for a sweep (tune() per hop).
     */
    soapy_radio(const radio_options& r, double rate, std::optional<double> center);
    ~soapy_radio();
    soapy_radio(const soapy_radio&) = delete;
    soapy_radio& operator=(const soapy_radio&) = delete;

    gpufft::sample_format format() const { return d_format; }
    //! The engine's ref_scale for which a full-scale tone reads 0 dB.
    double ref_scale() const { return d_ref_scale; }
    //! The value of a full-scale sample in the stream format (CS16 from a 12-bit converter: 2048).
    double full_scale() const { return d_full_scale; }
    //! As read back.
    double rate() const { return d_rate; }
    //! As read back after the last tune(), plus --lnb-offset: the sky frequency.
    double center() const { return d_center; }
    const radio_settings& settings() const { return d_settings; }
    //! The lowest and highest frequency the device reports it tunes to, plus --lnb-offset.
    std::pair<double, double> frequency_range() const { return d_frequency_range; }
    //! "gpufftsim (serial=sim0), CS16 native, full scale 2048, 2400000 S/s, gain 10 dB (...), antenna RX"
    const std::string& description() const { return d_description; }

    //! Tunes to sky frequency `hz` (the device to hz - --lnb-offset) and reads it back (center()); warns once if it differs by more than the device's step.
    void tune(double hz);
    /*!
     * Reads up to `samples` into `buf` (waits at most 0.1 s: ask for at most
     * an MTU or what arrives well within that); returns the
     * count, 0 on a timeout, never more than asked (a driver that returns
     * more is reported once); sets `overflow` when the device dropped
     * samples before these. Throws app_error naming the device when its
     * reads have delivered no samples (timeouts, overflows) for longer than
     * stall_timeout().
     */
    std::size_t read(void* buf, std::size_t samples, bool& overflow);
    /*!
     * Seconds of reads without a sample after which read() gives up:
     * --stall-timeout, else 5 s, or three of the device's reads (MTUs) where
     * those take longer at its rate.
     */
    double stall_timeout() const { return d_stall_s; }
    //! Samples per read the device prefers.
    std::size_t mtu() const { return d_mtu; }

private:
    struct handle;
    std::unique_ptr<handle> d_handle;
    gpufft::sample_format d_format = gpufft::sample_format::cs16;
    double d_ref_scale = 2, d_full_scale = 32768, d_rate = 0, d_center = 0;
    double d_frequency_step = 0, d_lnb_offset = 0;
    std::size_t d_channel = 0;
    std::pair<double, double> d_frequency_range;
    bool d_tune_warned = false;
    radio_settings d_settings;
    std::size_t d_mtu = 16384;
    std::string d_description;
    bool d_over_return_reported = false; //!< a read returned more samples than asked
    std::string d_name; //!< "gpufftsim (serial=sim0)": the device in messages
    double d_stall_s = 5;
    //! Since the first of the reads in a row that delivered no samples, and what they returned.
    std::optional<std::chrono::steady_clock::time_point> d_stalled_since;
    std::size_t d_stalled_timeouts = 0, d_stalled_overflows = 0;
    void no_samples(int status);
};

//! --list-devices: every device SoapySDR finds, one line each, to `out`.
void list_devices(std::FILE* out);
/*!
 * --info: what the device of `r.device` reports, as text to `out`: driver,
 * hardware key and info, RX channels, and per channel its sample rate,
 * frequency (and with --lnb-offset the sky's), gain and bandwidth ranges,
 * antennas, stream formats, and the device's settings with their values.
 */
void print_device_info(const radio_options& r, std::FILE* out);

//! What a live capture did.
struct stream_stats {
    std::size_t samples = 0;   //!< used (after the settle time)
    std::size_t overflows = 0; //!< times the device dropped samples
    std::uint64_t lost = 0;    //!< samples the device dropped, as the host's clock tells (an estimate)
    double wall_s = 0, device_s = 0, fft_s = 0; //!< in all, waiting on the device, in the engine
};
/*!
 * Streams the radio into the engine, after dropping `settle_samples`, until
 * `max_samples` (0: no limit) or a stop signal; `on_read` gets each buffer
 * before the engine does (recording, arrival times, progress). With
 * `max_samples`, the wall clock bounds the capture too: a device that
 * delivers fewer samples than its rate says is stopped at their time plus
 * the radio's stall_timeout(), with a warning.
 *
 * At an overflow the engine delivers the spectra complete before it and
 * restarts, so that no spectrum holds samples from both sides of the gap;
 * before the first samples after it, `on_gap(at, lost)` gets their index in
 * the stream (samples used plus samples lost: the index that stays true to
 * the clock) and how many were lost since the samples before.
 */
stream_stats stream_radio(soapy_radio& radio, gpufft::spectrum& engine, const gpufft::spectrum::sink& sink,
                          std::size_t settle_samples, std::size_t max_samples,
                          const std::function<void(const unsigned char* data, std::size_t len)>& on_read,
                          const std::function<void(std::uint64_t at, std::uint64_t lost)>& on_gap);

/*!
 * Measures the hops of `plan` in turn, over and over, as a sweep does (each
 * tuned, settled and averaged over --dwell or --frames), giving each hop's
 * spectrum (tone dBFS, fftshifted) and its frame count to `on_hop` until it
 * returns false or a stop signal comes.
 */
void measure_hops(const options& o, soapy_radio& radio, const sweep_plan& plan,
                  const std::function<bool(std::size_t hop, const std::vector<float>& db, std::size_t frames)>& on_hop);

//! --sweep: runs the sweeps and writes their outputs; returns the exit status.
int run_sweep(const options& o, soapy_radio& radio);

} // namespace gpufft_app

#endif
