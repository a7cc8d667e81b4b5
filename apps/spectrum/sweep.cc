// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-spectrum --sweep: hops the tuner over a band wider than one
 * capture, as rtl_power and soapy_power do: after each retune the settle
 * time is discarded, one averaged spectrum is taken, its edges are cropped
 * (where the anti-alias filter rolls off), and the hops are stitched into
 * one spectrum per sweep. With --record, each hop's measured samples (not
 * the settle time) are a SigMF capture at the hop's centre. */
#include "app.h"
#include "live.h"
#include "persistence.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <optional>
#include <thread>

namespace gpufft_app {

namespace {

// Largest FFT per hop and most hops per sweep: beyond these the plan is a typo.
constexpr std::size_t max_hop_fft = std::size_t(1) << 22, min_hop_fft = 8, max_hops = 100000;
// A hop that overflows this often in a row cannot be measured at this rate.
constexpr std::size_t max_overflows_per_hop = 20;

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t)
{
    return std::chrono::duration<double>(clock_type::now() - t).count();
}

//! Sleeps until `t` or a stop signal.
void sleep_until(clock_type::time_point t)
{
    while (!stop_signal() && clock_type::now() < t)
        std::this_thread::sleep_for(std::min<clock_type::duration>(t - clock_type::now(), std::chrono::milliseconds(50)));
}

//! One sweep's state: the hop being measured, its timings, the stitched spectrum.
class sweeper
{
public:
    //! `recorder`, if any, gets each hop's measured samples as a capture of their own.
    sweeper(const options& o, soapy_radio& radio, const sweep_plan& plan, sigmf_recorder* recorder)
        : d_radio(radio), d_plan(plan), d_recorder(recorder), d_engine(config(o, radio, plan)), d_samples_per_hop(d_engine.fft_size() + (d_engine.frames_per_output() - 1) * d_engine.hop()), d_settle_samples(std::size_t(std::llround(o.radio.settle * radio.rate()))), d_read_max(read_max(radio, d_settle_samples + d_samples_per_hop)), d_buf(d_read_max * gpufft::sample_bytes(radio.format())), d_hop(plan.fft_size)
    {
        if (o.radio.dc == radio_options::dc_mode::replace)
            d_dc_lobe = dc_lobe_bins(o, plan.fft_size);
    }

    //! --dc replace: the bins replaced in each hop (of fft_size, fftshifted); none if 0.
    std::size_t dc_lobe() const { return d_dc_lobe; }

    std::size_t frames_per_hop() const { return d_engine.frames_per_output(); }
    std::size_t samples_per_hop() const { return d_samples_per_hop; }
    const std::string& backend() const { return d_engine.backend(); }

    /*!
     * Tunes to hop h, discards the settle time and measures one spectrum
     * into hop() (tone dBFS); false if a stop signal came first.
     */
    bool measure(std::size_t h)
    {
        d_radio.tune(d_plan.centers[h]);
        // Rows and captures carry the centre read back; the stitched band
        // keeps the plan's bins, right to half a bin.
        if (std::abs(d_radio.center() - d_plan.centers[h]) > d_plan.bin_hz / 2)
            throw app_error("the device tuned to " + hz_text(d_radio.center()) + " for the hop at " +
                            hz_text(d_plan.centers[h]) + ", more than half a bin (" + hz_text(d_plan.bin_hz / 2) +
                            ") away: the band's bins would be misplaced (ask for wider bins)");
        const std::size_t bps = gpufft::sample_bytes(d_radio.format());
        for (std::size_t overflows_in_a_row = 0;;) {
            d_engine.reset();
            if (d_recorder) // a new capture: a retried hop's samples are not contiguous with the failed try's
                d_recorder->retune(d_radio.center());
            bool done = false, overflow = false;
            const auto sink = [&](const float* db, std::size_t n) {
                std::copy(db, db + n, d_hop.begin());
                done = true;
            };
            // The settling samples, dropped, then the hop's, read back to back: a
            // paced device's reader wakes once a read, so fewer reads cost less CPU.
            const std::size_t total = d_settle_samples + d_samples_per_hop;
            for (std::size_t have = 0; have < total && !overflow;) {
                if (stop_signal())
                    return false;
                bool gap = false;
                const std::size_t got = timed_read(total - have, gap);
                if (gap && have < d_settle_samples) { // the gap came while settling: dropped with it
                    count_overflow(overflows_in_a_row);
                    gap = false;
                }
                overflow = gap;
                const std::size_t settling = have < d_settle_samples ? std::min(got, d_settle_samples - have) : 0;
                const unsigned char* measured = d_buf.data() + settling * bps;
                have += got;
                if (overflow || got == settling)
                    continue;
                if (d_recorder)
                    d_recorder->write(measured, (got - settling) * bps);
                const auto t = clock_type::now();
                d_engine.push_bytes(measured, (got - settling) * bps, sink);
                d_fft_s += seconds_since(t);
            }
            if (overflow) { // the spectrum would straddle a gap: measure the hop again
                count_overflow(overflows_in_a_row);
                continue;
            }
            const auto t = clock_type::now();
            d_engine.flush(sink);
            d_fft_s += seconds_since(t);
            if (done && d_dc_lobe)
                replace_dc(d_hop.data(), d_hop.size(), d_dc_lobe);
            if (done)
                return true;
        }
    }

    const std::vector<float>& hop() const { return d_hop; }
    double device_seconds() const { return d_device_s; }
    double fft_seconds() const { return d_fft_s; }
    std::size_t overflows() const { return d_overflows; }
    std::uint64_t nonfinite_samples() const { return d_engine.nonfinite_samples(); }

private:
    static gpufft::spectrum_config config(const options& o, const soapy_radio& radio, const sweep_plan& plan)
    {
        gpufft::spectrum_config c = common_engine_config(o, plan.fft_size, radio.rate(), radio.format());
        c.ref_scale = radio.ref_scale();
        const std::size_t hop = std::max<std::size_t>(1, plan.fft_size - std::size_t(std::lround(o.overlap * double(plan.fft_size))));
        c.frames_per_output = o.frames ? o.frames
                                       : std::max<std::size_t>(1, std::size_t(std::llround(o.radio.dwell * radio.rate() / double(hop))));
        return c;
    }

    /*!
     * Samples a read may ask for: the settling and the hop's samples at
     * once, but at least an MTU and at most what arrives well within
     * read()'s wait (50 ms at the device's rate).
     */
    static std::size_t read_max(const soapy_radio& radio, std::size_t wanted)
    {
        return std::max(radio.mtu(), std::min(wanted, std::size_t(radio.rate() * 0.05)));
    }

    std::size_t timed_read(std::size_t want, bool& overflow)
    {
        const auto t = clock_type::now();
        const std::size_t got = d_radio.read(d_buf.data(), std::min(want, d_read_max), overflow);
        d_device_s += seconds_since(t);
        return got;
    }

    /*!
     * One more overflow of this hop's tries (settling or measuring): throws
     * when there have been too many, since the last measured hop, to hope
     * for one whole spectrum.
     */
    void count_overflow(std::size_t& in_a_row)
    {
        ++d_overflows;
        if (++in_a_row == max_overflows_per_hop)
            throw app_error("the device dropped samples " + std::to_string(max_overflows_per_hop) +
                            " times in a row while settling and measuring one hop of " +
                            std::to_string(d_samples_per_hop) + " samples: lower --dwell or --rate");
    }

    soapy_radio& d_radio;
    const sweep_plan& d_plan;
    sigmf_recorder* d_recorder;
    gpufft::spectrum d_engine;
    std::size_t d_samples_per_hop, d_settle_samples, d_read_max;
    std::vector<unsigned char> d_buf;
    std::vector<float> d_hop;
    std::size_t d_dc_lobe = 0;
    double d_device_s = 0, d_fft_s = 0;
    std::size_t d_overflows = 0;
};

} // namespace

std::string hz_text(double f)
{
    const double a = std::abs(f);
    const auto [scale, prefix] = a >= 1e9 ? std::pair{ 1e9, "G" } : a >= 1e6 ? std::pair{ 1e6, "M" }
                               : a >= 1e3 ? std::pair{ 1e3, "k" } : std::pair{ 1.0, "" };
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.9g %sHz", f / scale, prefix);
    return buf;
}

double parse_hz(const std::string& text, const std::string& option)
{
    double v = 0;
    try {
        v = parse_si(text);
    } catch (const usage_error& e) {
        throw usage_error(option + ": " + e.what());
    }
    if (!(std::abs(v) <= max_frequency_hz))
        throw usage_error(option + ": " + text + " is beyond 1e12 Hz");
    return v;
}

sweep_range parse_sweep(const std::string& text)
{
    const auto a = text.find(':'), b = a == std::string::npos ? a : text.find(':', a + 1);
    if (b == std::string::npos || text.find(':', b + 1) != std::string::npos)
        throw usage_error("--sweep: expected START:STOP:BIN (e.g. 88M:108M:10k), got \"" + text + "\"");
    sweep_range r;
    r.start = parse_hz(text.substr(0, a), "--sweep");
    r.stop = parse_hz(text.substr(a + 1, b - a - 1), "--sweep");
    r.bin = parse_hz(text.substr(b + 1), "--sweep");
    if (!(r.stop > r.start))
        throw usage_error("--sweep: stop " + hz_text(r.stop) + " must be above start " + hz_text(r.start));
    if (!(r.bin > 0))
        throw usage_error("--sweep: the bin width must be above 0, got " + text.substr(b + 1));
    return r;
}

std::size_t dc_lobe_bins(const options& o, std::size_t fft_size)
{
    // The main lobe's width in bins hardly depends on N: at most 4096 taps
    // stand for the window, their transform read every 1/16 bin up to its
    // first minimum (a null, or the dip before the first sidelobe).
    const std::size_t m = std::min<std::size_t>(fft_size, 4096);
    const double param = std::isnan(o.window_param) ? gpufft::window_default_param : o.window_param;
    const std::vector<float> w = o.window_taps ? o.window_taps(m) : gpufft::make_window(o.window, m, param);
    const auto magnitude = [&](double bins) {
        std::complex<double> sum = 0;
        for (std::size_t j = 0; j < m; ++j)
            sum += double(w[j]) * std::polar(1.0, -2 * M_PI * bins * double(j) / double(m));
        return std::abs(sum);
    };
    const double step = 1.0 / 16, most = std::min(32.0, double(m) / 4);
    double previous = magnitude(0);
    for (double f = step; f < most; f += step) {
        const double here = magnitude(f);
        if (here <= magnitude(f + step) && here < previous)
            return std::max<std::size_t>(1, std::size_t(std::ceil(f - 1e-9)));
        previous = here;
    }
    return std::size_t(most);
}

std::pair<std::size_t, std::size_t> replace_dc(float* db, std::size_t n, std::size_t lobe)
{
    const std::size_t c = n / 2; // DC of an fftshifted spectrum, N even or odd
    const std::size_t lo = c >= lobe - 1 ? c - (lobe - 1) : 0, hi = std::min(n - 1, c + (lobe - 1));
    double sum = 0;
    int count = 0;
    if (lo > 0)
        sum += std::pow(10.0, db[lo - 1] / 10), ++count;
    if (hi + 1 < n)
        sum += std::pow(10.0, db[hi + 1] / 10), ++count;
    if (count)
        std::fill(db + lo, db + hi + 1, float(10 * std::log10(sum / count)));
    return { lo, hi };
}

sweep_plan plan_sweep(const sweep_range& range, double rate, double crop, std::size_t dc_guard)
{
    if (!(crop >= 0 && crop < 1))
        throw usage_error("--crop must be in [0, 1)");
    sweep_plan p;
    p.start = range.start;
    // The bin width is rate / N for the smallest power of two N that gives at most the asked width.
    const double ideal = rate / range.bin;
    if (ideal > double(max_hop_fft))
        throw usage_error("--sweep: a bin width of " + hz_text(range.bin) + " is below what the rate allows (" +
                          hz_text(rate / double(max_hop_fft)) + " at " + hz_text(rate) + ", an FFT of 2^22)");
    p.fft_size = min_hop_fft;
    while (double(p.fft_size) < ideal * (1 - 1e-9))
        p.fft_size *= 2;
    p.bin_hz = rate / double(p.fft_size);
    const std::size_t dropped_each_side = std::size_t(std::floor(double(p.fft_size) * crop / 2));
    p.first_kept = dropped_each_side;
    p.kept = p.fft_size - 2 * dropped_each_side;
    if (dc_guard) {
        // --dc shift: the kept bins start just past the spike's main lobe,
        // above the centre; the hop is tuned that much lower.
        if (p.kept + p.fft_size / 2 + dc_guard > p.fft_size) {
            const double needed = double(p.fft_size / 2 + dc_guard) / double(p.fft_size);
            char text[64];
            std::snprintf(text, sizeof text, "%.1f%%", std::ceil(needed * 1000) / 10);
            throw usage_error("--dc shift: a hop keeps " + std::to_string(p.kept) + " of its " +
                              std::to_string(p.fft_size) + " bins; the centre spike (" + std::to_string(dc_guard) +
                              " bins each side through the window) falls in the cropped part only with --crop " +
                              text + " or more");
        }
        p.first_kept = p.fft_size / 2 + dc_guard;
    }
    const double hop_hz = double(p.kept) * p.bin_hz;
    const double hops = std::ceil((range.stop - range.start) / hop_hz - 1e-9);
    if (hops > double(max_hops))
        throw usage_error("--sweep: " + hz_text(range.stop - range.start) + " in hops of " + hz_text(hop_hz) +
                          " takes " + std::to_string(std::llround(hops)) + " hops (at most " +
                          std::to_string(max_hops) + "): raise --rate or lower --crop");
    p.total_bins = std::size_t(std::ceil((range.stop - range.start) / p.bin_hz - 1e-9));
    for (std::size_t h = 0; h < std::size_t(hops); ++h)
        p.centers.push_back(range.start + double(h) * hop_hz + (double(p.fft_size / 2) - double(p.first_kept)) * p.bin_hz);
    return p;
}

void measure_hops(const options& o, soapy_radio& radio, const sweep_plan& plan,
                  const std::function<bool(std::size_t hop, const std::vector<float>& db, std::size_t frames)>& on_hop)
{
    sweeper sweep(o, radio, plan, nullptr);
    for (;;)
        for (std::size_t h = 0; h < plan.centers.size(); ++h)
            if (!sweep.measure(h) || !on_hop(h, sweep.hop(), sweep.frames_per_hop()))
                return;
}

int run_sweep(const options& o, soapy_radio& radio)
{
    const sweep_plan plan =
        plan_sweep(o.radio.range, radio.rate(), o.radio.crop,
                   o.radio.dc == radio_options::dc_mode::shift
                       ? dc_lobe_bins(o, plan_sweep(o.radio.range, radio.rate(), o.radio.crop).fft_size)
                       : 0);
    // Every hop within the device's tuning range, or none is measured (a
    // driver clamps, and the hops beyond would repeat the edge's spectrum).
    if (const auto [lo, hi] = radio.frequency_range(); hi > lo) {
        std::size_t first = plan.centers.size(), last = 0, count = 0;
        for (std::size_t h = 0; h < plan.centers.size(); ++h)
            if (plan.centers[h] < lo || plan.centers[h] > hi)
                first = std::min(first, h), last = h, ++count;
        if (count)
            throw usage_error("--sweep " + o.radio.sweep + ": " + std::to_string(count) + " of its " +
                              std::to_string(plan.centers.size()) + " hops (tuned to " +
                              hz_text(plan.centers[first]) + (count > 1 ? " to " + hz_text(plan.centers[last]) : "") +
                              ") are outside the device's range, " + hz_text(lo) + " to " + hz_text(hi) +
                              (o.radio.lnb_offset != 0 ? " with --lnb-offset " + hz_text(o.radio.lnb_offset) : ""));
    }
    std::FILE* report = (o.png == "-" || o.radio.rtl_power == "-" || o.persistence == "-") ? stderr : stdout;
    live_outputs live(o); // binds before the output files exist: a port in use leaves none
    std::optional<output_file> png;
    if (o.png != "none")
        png.emplace(o.png);
    std::optional<rtl_power_csv> csv;
    if (!o.radio.rtl_power.empty()) {
        csv.emplace(o.radio.rtl_power);
        csv->set_linear(o.linear);
    }
    std::optional<sigmf_recorder> recorder;
    if (!o.record.empty())
        recorder.emplace(o.record, radio_source(radio));
    std::optional<output_file> persistence_file;
    if (!o.persistence.empty())
        persistence_file.emplace(o.persistence);
    sweeper sweep(o, radio, plan, recorder ? &*recorder : nullptr);
    std::fprintf(report, "gpufft-spectrum: %s\n", radio.description().c_str());
    std::fprintf(report,
                 "sweep: %s to %s in %zu hops of %s usable (%zu of %zu bins, %.3g%% cropped), bin %s, N = %zu on %s, "
                 "%zu frames (%zu samples) per hop after %.3g s settling\n",
                 hz_text(plan.start).c_str(), hz_text(plan.hz(plan.total_bins)).c_str(), plan.centers.size(),
                 hz_text(double(plan.kept) * plan.bin_hz).c_str(), plan.kept, plan.fft_size,
                 100.0 * double(plan.fft_size - plan.kept) / double(plan.fft_size), hz_text(plan.bin_hz).c_str(),
                 plan.fft_size, sweep.backend().c_str(), sweep.frames_per_hop(), sweep.samples_per_hop(),
                 o.radio.settle);
    const std::size_t dc_bin = plan.fft_size / 2;
    const bool dc_kept = plan.first_kept <= dc_bin && dc_bin < plan.first_kept + plan.kept;
    if (sweep.dc_lobe())
        std::fprintf(report, "dc: bins %zu to %zu of each hop (the centre spike through the window) replaced by their "
                             "neighbours' mean%s\n",
                     dc_bin - (sweep.dc_lobe() - 1), dc_bin + (sweep.dc_lobe() - 1), dc_kept ? "" : " (all cropped)");
    if (o.radio.dc == radio_options::dc_mode::shift)
        std::fprintf(report, "dc: each hop tuned %s below its kept bins' start, the centre spike in the cropped part\n",
                     hz_text(double(plan.first_kept - dc_bin) * plan.bin_hz).c_str());
    std::fflush(report);

    const std::size_t total = plan.total_bins;
    waterfall rows(o.width ? o.width : std::min<std::size_t>(total, 1024), 2 * std::max<std::size_t>(o.height, 1024));
    std::vector<float> stitched(total);
    // --persistence: each whole sweep is one spectrum of the band.
    std::optional<persistence> band_persistence;
    if (persistence_file)
        band_persistence.emplace(rows.width, o.height ? o.height : 256, o.db_min, o.db_max);
    // The live outputs get each whole sweep as one spectrum of the band; its
    // centre is the band's middle, its rate and FFT size those of the hops.
    live_spectrum band;
    band.db = stitched.data();
    band.bins = total;
    band.f0_hz = plan.hz(0);
    band.bin_hz = plan.bin_hz;
    band.center_hz = plan.hz(0) + double(total - 1) * plan.bin_hz / 2;
    band.sample_rate = radio.rate();
    band.radio = &radio.settings();
    band.fft_size = plan.fft_size;
    std::vector<double> hop_edges; // between hop h - 1's last kept bin and hop h's first
    for (std::size_t h = 1; h < plan.centers.size(); ++h)
        hop_edges.push_back(plan.hz(h * plan.kept) - plan.bin_hz / 2);
    band.hop_edges_hz = &hop_edges;
    // --dc replace: the replaced bins each hop keeps, by their frequencies in the band.
    std::vector<std::pair<double, double>> dc_replaced;
    if (sweep.dc_lobe()) {
        const std::size_t lobe = sweep.dc_lobe() - 1; // bins each side, as replace_dc() takes them
        const std::size_t lo = std::max(dc_bin >= lobe ? dc_bin - lobe : 0, plan.first_kept),
                          hi = std::min({ dc_bin + lobe, plan.fft_size - 1, plan.first_kept + plan.kept - 1 });
        for (std::size_t h = 0; h < plan.centers.size() && lo <= hi; ++h) {
            const std::size_t first = h * plan.kept + (lo - plan.first_kept);
            if (first < total)
                dc_replaced.emplace_back(plan.hz(first), plan.hz(std::min(total - 1, first + (hi - lo))));
        }
        band.dc_replaced_hz = &dc_replaced;
    }
    std::vector<double> sum(total, 0.0); // linear power, for the mean spectrum's peaks
    std::size_t sweeps = 0, hops = 0;
    const auto start = clock_type::now();
    // As rtl_power's -e: --duration is checked between sweeps, so every sweep is whole.
    const auto out_of_time = [&] { return o.radio.duration > 0 && seconds_since(start) >= o.radio.duration; };
    bool partial = false;     // the last sweep stopped before its end
    std::size_t measured = 0; // bins of the last sweep
    // A failure of the radio (its stream, its driver, a retune) ends the
    // sweeps, not the run: the hops measured before it are written out in
    // full, and the run still fails. An output that fails ends it at once.
    std::string failure;
    while (!stop_signal() && failure.empty()) {
        const auto sweep_start = clock_type::now();
        // Every row of a sweep has its time, as rtl_power writes them: heatmap
        // tools make one image row of all the rows with one timestamp.
        const auto sweep_time = std::chrono::system_clock::now();
        std::size_t reached = 0; // bins of this sweep
        for (std::size_t h = 0; h < plan.centers.size(); ++h) {
            try {
                if (!sweep.measure(h))
                    break;
            } catch (const output_error&) {
                throw;
            } catch (const std::exception& e) {
                failure = *e.what() ? e.what() : "the device failed";
                std::fprintf(stderr, "gpufft-spectrum: %s\n", failure.c_str()); // now: the outputs may take a while
                break;
            }
            const std::size_t first = h * plan.kept, n = std::min(plan.kept, total - first);
            std::copy_n(sweep.hop().begin() + std::ptrdiff_t(plan.first_kept), n, stitched.begin() + std::ptrdiff_t(first));
            reached = first + n;
            ++hops;
            if (csv) // at the centre the device read back
                csv->row(sweep_time, plan.hz(first) + radio.center() - plan.centers[h], plan.bin_hz, sweep.frames_per_hop(),
                         &stitched[first], n);
        }
        if (reached == 0)
            break;
        measured = reached;
        partial = measured < total;
        if (partial) // the bins not reached read as the lowest level measured
            std::fill(stitched.begin() + std::ptrdiff_t(measured), stitched.end(),
                      *std::min_element(stitched.begin(), stitched.begin() + std::ptrdiff_t(measured)));
        rows.add(stitched.data(), total);
        if (!partial)
            live.publish(band, seconds_since(start));
        if (!partial && band_persistence)
            band_persistence->add(stitched.data(), total);
        ++sweeps;
        for (std::size_t i = 0; i < measured; ++i)
            sum[i] += std::pow(10.0, stitched[i] / 10);
        if (partial || !failure.empty() || (o.radio.sweeps && sweeps == o.radio.sweeps) || out_of_time())
            break;
        if (o.radio.interval > 0)
            sleep_until(sweep_start + std::chrono::duration_cast<clock_type::duration>(
                                          std::chrono::duration<double>(o.radio.interval)));
        if (out_of_time())
            break;
    }
    const double wall = seconds_since(start);
    const int stopped = stop_signal();
    report_nonfinite(sweep.nonfinite_samples(), std::nullopt);
    if (recorder) // the samples so far, an interrupted hop's too: a valid recording
        recorder->commit(std::nullopt);
    if (sweeps == 0 && !failure.empty())
        throw app_error("no hop was complete before the failure above");
    if (sweeps == 0) {
        std::fprintf(stderr, "gpufft-spectrum: stopped by signal %d before the first hop\n", stopped);
        return 128 + stopped;
    }
    if (csv)
        csv->commit();
    std::fprintf(report,
                 "sweep: %zu sweeps%s, %zu hops in %.3f s (%.2f hops/s); device %.1f%%, FFT path %.1f%% of the time; "
                 "%zu overflows%s\n",
                 sweeps, partial ? " (the last one partial)" : "", hops, wall, double(hops) / wall,
                 100 * sweep.device_seconds() / wall, 100 * sweep.fft_seconds() / wall, sweep.overflows(),
                 stopped ? " (stopped by a signal)" : "");
    if (recorder)
        std::fprintf(report, "recording: %s and %s, a capture per hop\n", sigmf_recorder::data_name(o.record).c_str(),
                     sigmf_recorder::meta_name(o.record).c_str());
    axes ax;
    ax.f_lo = plan.start - plan.bin_hz / 2;
    ax.f_hi = ax.f_lo + double(total) * plan.bin_hz;
    ax.seconds = wall;
    if (png)
        write_waterfall_png(o, *png, rows, ax, report);
    if (band_persistence && band_persistence->spectra()) {
        band_persistence->write_png(*persistence_file, ax);
        std::fprintf(report, "persistence: %s (%g to %g dBFS, %zu whole sweeps)\n", o.persistence.c_str(),
                     band_persistence->db_min(), band_persistence->db_max(), band_persistence->spectra());
    } else if (band_persistence) {
        std::fprintf(stderr, "gpufft-spectrum: --persistence %s not written: no sweep was whole\n",
                     o.persistence.c_str());
    }
    // The mean over the sweeps that reached each bin; bins no sweep reached read as the lowest mean.
    std::vector<float> mean(total);
    for (std::size_t i = 0; i < total; ++i) {
        const std::size_t count = partial && i >= measured ? sweeps - 1 : sweeps;
        mean[i] = count ? float(10 * std::log10(std::max(sum[i] / double(count), 1e-30))) : NAN;
    }
    const float lowest = *std::min_element(mean.begin(), mean.begin() + std::ptrdiff_t(measured));
    std::replace_if(mean.begin(), mean.end(), [](float v) { return std::isnan(v); }, lowest);
    std::fprintf(report, "peaks (mean spectrum, tone power in dBFS):\n");
    for (std::size_t i : peak_bins(mean, o.peak_threshold, 8, o.peaks))
        std::fprintf(report, "  %14.3f Hz  %7.2f dBFS\n", plan.hz(i), mean[i]);
    flush_stdout();
    if (!failure.empty()) {
        std::fprintf(stderr, "gpufft-spectrum: the outputs hold the %zu hops before the failure\n", hops);
        return exit_failure;
    }
    return stop_signal() ? 128 + stop_signal() : exit_ok;
}

} // namespace gpufft_app
