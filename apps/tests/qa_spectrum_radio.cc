// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-spectrum's radio suite: sweep plans, and the program run in-process
 * on gpufftsim, the simulated SoapySDR module built next to this test
 * (CTest points SOAPY_SDR_PLUGIN_PATH at it): tones found at their frequency
 * and power across hop boundaries in every native format, the settle time,
 * overflows, live capture, --duration, a sweep's --record read back by the
 * SigMF reader, the radio's settings read back and labelling every output,
 * recordings that replay at their live levels in every native format and
 * full scale, a sweep's persistence, and bad input (a device string
 * matching nothing, a bad sweep, a request outside the device's ranges, an
 * unwritable output, a port in use): one line, exit status 2, no file left
 * behind; a radio that fails mid-run (a stream error, a driver exception, a
 * retune in a sweep): what was measured before it kept in every output, exit 1.
 * The front-end options: an LNB offset on the sky side of every output,
 * device settings, bandwidth and channel read back or refused, --sweeps, the
 * DC spike replaced or shifted into the crop, --linear, --info, --version.
 * Signals and memory on long runs are in qa_spectrum_radio.py (subprocesses).
 *
 *   qa_spectrum_radio [TEST...]    default: the whole suite */
#include "spectrum/app.h"
#include "spectrum/rtl_power.h"

#include <gpufft/registry.h>
#include <gpufft/version.h>

#include <nlohmann/json.hpp>

#include <cppunit/TextTestRunner.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cppunit/extensions/TestFactoryRegistry.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

namespace {

std::string temp_path(const std::string& name)
{
    static const std::string dir = [] {
        char tmpl[] = "/tmp/qa_spectrum_radio_XXXXXX";
        const char* d = mkdtemp(tmpl);
        CPPUNIT_ASSERT_MESSAGE("mkdtemp failed", d);
        return std::string(d);
    }();
    return dir + "/" + name;
}

std::string read_text(const std::string& path)
{
    std::ifstream f(path);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

//! Runs the program in this process with standard output and error in files; returns {status, stdout, stderr}.
std::tuple<int, std::string, std::string> app(const std::vector<std::string>& args)
{
    const std::string out = temp_path("stdout.txt"), err = temp_path("stderr.txt");
    std::fflush(stdout), std::fflush(stderr);
    const int saved_out = ::dup(1), saved_err = ::dup(2);
    const int out_fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err_fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out_fd, 1), ::dup2(err_fd, 2);
    const int status = gpufft_app::run(args);
    std::fflush(stdout), std::fflush(stderr);
    ::dup2(saved_out, 1), ::dup2(saved_err, 2);
    for (int fd : { saved_out, saved_err, out_fd, err_fd })
        ::close(fd);
    return { status, read_text(out), read_text(err) };
}

//! rtl_power rows stitched: bin centre frequency -> dB (later rows overwrite earlier ones).
struct rtl_power_rows {
    std::size_t rows = 0;
    std::vector<std::pair<double, double>> bins; // Hz, dB of the last sweep
    std::vector<std::string> times;              // each row's "date, time"
    std::size_t samples = 0;                     // the rows' samples fields summed
};

rtl_power_rows read_rtl_power(const std::string& path)
{
    rtl_power_rows r;
    std::ifstream f(path);
    for (std::string line; std::getline(f, line);) {
        std::vector<std::string> cells;
        std::istringstream s(line);
        for (std::string c; std::getline(s, c, ',');)
            cells.push_back(c);
        CPPUNIT_ASSERT_MESSAGE(line, cells.size() > 6);
        const double low = std::stod(cells[2]), high = std::stod(cells[3]), step = std::stod(cells[4]);
        // As rtl_power.c: (high - low) / step + 1 values, the last bin's twice.
        CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(line.substr(0, 60), double(cells.size() - 7), (high - low) / step, 0.01);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(line.substr(0, 60), cells[cells.size() - 2], cells.back());
        for (std::size_t i = 6; i + 1 < cells.size(); ++i)
            r.bins.push_back({ low + double(i - 6) * step, std::stod(cells[i]) });
        r.times.push_back(cells[0] + "," + cells[1]);
        r.samples += std::stoul(cells[5]);
        ++r.rows;
    }
    return r;
}

struct tone {
    double hz, dbfs;
};

std::string tones_arg(const std::vector<tone>& tones)
{
    std::string s = "tones=";
    for (const auto& t : tones)
        s += std::to_string(t.hz) + ":" + std::to_string(t.dbfs) + ";";
    s.pop_back();
    return s;
}

//! Every tone's strongest bin within one bin of it, its power within `tolerance_db`.
void expect_tones(const rtl_power_rows& r, const std::vector<tone>& tones, double bin, double tolerance_db,
                  const std::string& what)
{
    for (const auto& t : tones) {
        double best_db = -1e9, best_hz = 0;
        for (const auto& [hz, db] : r.bins)
            if (std::abs(hz - t.hz) <= 2 * bin && db > best_db)
                best_db = db, best_hz = hz;
        std::ostringstream m;
        m << what << ": tone " << t.hz << " Hz, " << t.dbfs << " dBFS read " << best_hz << " Hz, " << best_db << " dBFS";
        CPPUNIT_ASSERT_MESSAGE(m.str(), std::abs(best_hz - t.hz) <= bin);
        CPPUNIT_ASSERT_MESSAGE(m.str(), std::abs(best_db - t.dbfs) <= tolerance_db);
    }
}

double median_db(const rtl_power_rows& r)
{
    std::vector<double> v;
    for (const auto& b : r.bins)
        v.push_back(b.second);
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
    return v[v.size() / 2];
}

template <typename F>
std::string usage_message(F&& fn)
{
    try {
        fn();
    } catch (const gpufft_app::usage_error& e) {
        return e.what();
    }
    CPPUNIT_FAIL("no usage_error");
    return "";
}

const std::string sim = "driver=gpufftsim,paced=0";

//! The first JSON line of a --jsonl file.
nlohmann::json first_line(const std::string& path)
{
    std::ifstream f(path);
    std::string line;
    std::getline(f, line);
    CPPUNIT_ASSERT_MESSAGE(path + " is empty", !line.empty());
    return nlohmann::json::parse(line);
}

//! The highest value of bins [lo, hi] of a spectrum.
double highest(const std::vector<double>& v, std::size_t lo, std::size_t hi)
{
    return *std::max_element(v.begin() + std::ptrdiff_t(lo), v.begin() + std::ptrdiff_t(hi) + 1);
}

double median(std::vector<double> v)
{
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
    return v[v.size() / 2];
}

} // namespace

// Outside the anonymous namespace, so that tests are found by "qa_spectrum_radio::NAME".
class qa_spectrum_radio : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_spectrum_radio);
    CPPUNIT_TEST(sweep_parse);
    CPPUNIT_TEST(sweep_plan);
    CPPUNIT_TEST(radio_options);
    CPPUNIT_TEST(bad_device);
    CPPUNIT_TEST(sweep_finds_tones);
    CPPUNIT_TEST(settle_time_discarded);
    CPPUNIT_TEST(overflows);
    CPPUNIT_TEST(repeats);
    CPPUNIT_TEST(gains);
    CPPUNIT_TEST(live_capture);
    CPPUNIT_TEST(live_overflow);
    CPPUNIT_TEST(file_duration);
    CPPUNIT_TEST(sweep_record);
    CPPUNIT_TEST(read_back);
    CPPUNIT_TEST(full_scale_round_trip);
    CPPUNIT_TEST(sweep_full_scale_round_trip);
    CPPUNIT_TEST(sweep_persistence);
    CPPUNIT_TEST(bad_input);
    CPPUNIT_TEST(non_finite_options);
    CPPUNIT_TEST(driver_over_return);
    CPPUNIT_TEST(radio_faults);
    CPPUNIT_TEST(rtl_power_hop_plan);
    CPPUNIT_TEST(rtl_power_options);
    CPPUNIT_TEST(stalled_device);
    CPPUNIT_TEST(under_delivering_device);
    CPPUNIT_TEST(nan_samples);
    CPPUNIT_TEST(front_end_options);
    CPPUNIT_TEST(lnb_offset);
    CPPUNIT_TEST(device_settings);
    CPPUNIT_TEST(bandwidth_and_channel);
    CPPUNIT_TEST(sweep_count);
    CPPUNIT_TEST(dc_replace);
    CPPUNIT_TEST(dc_shift);
    CPPUNIT_TEST(device_info);
    CPPUNIT_TEST(version);
    CPPUNIT_TEST(linear_power);
    CPPUNIT_TEST_SUITE_END();

public:
    void sweep_parse()
    {
        const auto r = gpufft_app::parse_sweep("88M:108M:10k");
        CPPUNIT_ASSERT(r.start == 88e6 && r.stop == 108e6 && r.bin == 1e4);
        CPPUNIT_ASSERT(gpufft_app::parse_sweep("1.2G:2.5e9:125").stop == 2.5e9);
        for (const char* bad : { "108M:88M:10k", "88M:88M:10k", "88M:108M", "88M:108M:10k:1", "88M:108M:0",
                                 "88X:108M:10k", "a:b:c", "88M:108M:-5k" }) {
            const std::string m = usage_message([&] { gpufft_app::parse_sweep(bad); });
            CPPUNIT_ASSERT_MESSAGE(m, m.find("--sweep") != std::string::npos);
        }
        CPPUNIT_ASSERT(usage_message([] { gpufft_app::parse_sweep("108M:88M:10k"); }).find("must be above start") !=
                       std::string::npos);
    }

    // Kept bins of consecutive hops are adjacent and cover [start, stop).
    void sweep_plan()
    {
        const auto p = gpufft_app::plan_sweep(gpufft_app::parse_sweep("88M:108M:10k"), 2.4e6, 0.25);
        CPPUNIT_ASSERT_EQUAL(std::size_t(256), p.fft_size);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(9375.0, p.bin_hz, 0);
        CPPUNIT_ASSERT(p.first_kept == 32 && p.kept == 192 && p.centers.size() == 12 && p.total_bins == 2134);
        for (std::size_t h = 0; h < p.centers.size(); ++h) { // hop h's first kept bin is sweep bin h * kept
            const double first = p.centers[h] + (double(p.first_kept) - 128) * p.bin_hz;
            CPPUNIT_ASSERT_DOUBLES_EQUAL(p.hz(h * p.kept), first, 1e-6);
        }
        CPPUNIT_ASSERT(p.hz(p.total_bins - 1) < 108e6 && p.hz(p.total_bins) >= 108e6);
        CPPUNIT_ASSERT_EQUAL(std::size_t(256), gpufft_app::plan_sweep({ 0, 1e6, 9375 }, 2.4e6, 0).kept);
        const std::string fine = usage_message([] { gpufft_app::plan_sweep({ 88e6, 108e6, 0.1 }, 2.4e6, 0.25); });
        CPPUNIT_ASSERT_MESSAGE(fine, fine.find("below what the rate allows") != std::string::npos);
        const std::string many = usage_message([] { gpufft_app::plan_sweep({ 1e6, 1000e9, 1e4 }, 2.4e6, 0.25); });
        CPPUNIT_ASSERT_MESSAGE(many, many.find("hops") != std::string::npos);
    }

    void radio_options()
    {
        const auto o = gpufft_app::parse_options({ "--device", "driver=x", "--gain", "LNA=20,VGA=5", "--ppm", "-1.5",
                                                   "--antenna", "RX", "--sweep", "88M:108M:10k", "--crop", "0.5",
                                                   "--settle", "0.02", "--dwell", "0.1", "--interval", "10", "--once",
                                                   "--rtl-power", "-", "--duration", "60" });
        CPPUNIT_ASSERT(o.radio.device == "driver=x" && o.radio.gain == "LNA=20,VGA=5" && o.radio.ppm == -1.5);
        CPPUNIT_ASSERT(o.radio.ppm_set && o.radio.antenna == "RX" && o.radio.range.stop == 108e6);
        CPPUNIT_ASSERT(o.radio.crop == 0.5 && o.radio.settle == 0.02 && o.radio.dwell == 0.1);
        CPPUNIT_ASSERT(o.radio.interval == 10 && o.radio.once && o.radio.rtl_power == "-" && o.radio.duration == 60);
        const std::pair<std::vector<std::string>, const char*> bad[] = {
            { { "--sweep", "88M:108M:10k" }, "--sweep needs --device" },
            { { "--gain", "20" }, "--gain needs --device" },
            { { "--device", "driver=x", "--gain", "loud" }, "--gain" },
            { { "--device", "driver=x", "--gain", "LNA=x" }, "--gain LNA" },
            { { "--device", "driver=x", "in.cu8" }, "exclude each other" },
            { { "--device", "driver=x", "--sweep", "1:2:1", "--center", "5" }, "--center" },
            { { "--device", "driver=x", "--sweep", "1:2:1", "--csv", "a" }, "--rtl-power" },
            { { "--device", "driver=x", "--once" }, "--once needs --sweep" },
            { { "--device", "driver=x" }, "--device needs --center or --sweep" },
            { { "--device", "" }, "--device: empty" },
            { { "--device", "driver=x", "--center", "1M", "--format", "cs8" }, "a --device streams its native format" },
            { { "--device", "driver=x", "--sweep", "1M:2M:1k", "--fft", "1024" }, "--fft and --sweep exclude each other" },
            { { "--device", "driver=x", "--sweep", "1M:2M:1k", "--fps", "5" }, "--fps and --sweep exclude each other" },
            { { "--device", "driver=x", "--sweep", "1M:2M:1k", "--progress" }, "--progress and --sweep exclude" },
            { { "--device", "driver=x", "--sweep", "1M:2M:1k", "--dwell", "1", "--frames", "9" },
              "--dwell and --frames exclude each other" },
            { { "--device", "driver=x", "--center", "1M", "--dwell", "1" }, "--dwell needs --sweep" },
            { { "--device", "driver=x", "--center", "1M", "--interval", "1" }, "--interval needs --sweep" },
            { { "--device", "driver=x", "--center", "1M", "--rtl-power", "a", "--interval", "0.5" }, "whole seconds" },
            { { "--crop", "0.95" }, "--crop" },
        };
        for (const auto& [args, word] : bad) {
            const std::string m = usage_message([&] { gpufft_app::parse_options(args); });
            CPPUNIT_ASSERT_MESSAGE(m + " lacks " + word, m.find(word) != std::string::npos);
        }
    }

    // One line naming what SoapySDR found, exit status 2; nothing else opened.
    void bad_device()
    {
        const auto [status, out, err] =
            app({ "--device", "driver=nosuch", "--center", "100M", "--png", temp_path("bad.png") });
        CPPUNIT_ASSERT_EQUAL(2, status);
        CPPUNIT_ASSERT_MESSAGE(err, err.find("matches no device") != std::string::npos);
        CPPUNIT_ASSERT_MESSAGE(err, err.find("driver=gpufftsim") != std::string::npos);
        CPPUNIT_ASSERT_EQUAL(std::size_t(1), std::size_t(std::count(err.begin(), err.end(), '\n')));
        CPPUNIT_ASSERT(access(temp_path("bad.png").c_str(), F_OK) != 0);
        CPPUNIT_ASSERT_EQUAL(2, std::get<0>(app({ "--device", "driver=gpufftsim,serial=other", "--center", "100M" })));
        const auto [list_status, list, list_err] = app({ "--list-devices" });
        CPPUNIT_ASSERT(list_status == 0 && list.find("driver=gpufftsim") != std::string::npos);
        const auto [antenna_status, o2, antenna_err] =
            app({ "--device", sim, "--center", "100M", "--antenna", "SKY", "--png", "none" });
        CPPUNIT_ASSERT_MESSAGE(antenna_err, antenna_status == 2 && antenna_err.find("RX, TEST") != std::string::npos);
        const auto [gain_status, o3, gain_err] =
            app({ "--device", sim, "--center", "100M", "--gain", "MIX=3", "--png", "none" });
        CPPUNIT_ASSERT_MESSAGE(gain_err, gain_status == 2 && gain_err.find("LNA, VGA") != std::string::npos);
    }

    // Tones mid-hop, on a hop boundary and next to a crop edge, in every native
    // format (CS16 at a 12-bit full scale: the engine's ref_scale follows it).
    void sweep_finds_tones()
    {
        const auto p = gpufft_app::plan_sweep({ 88e6, 108e6, 1e4 }, 2.4e6, 0.25);
        const std::vector<tone> tones = {
            { 100.1e6, -30 },                       // mid-hop
            { p.hz(p.kept), -35 },                  // first bin of hop 1
            { p.hz(3 * p.kept) - 2 * p.bin_hz, -40 }, // next to hop 2's upper crop edge
            { 95.3e6, -50 },
            { 107.9e6, -45 },                       // in the last, partly used hop
        };
        for (const char* format : { "CS16", "CF32", "CS8" }) {
            const std::string noise = std::string(format) == "CS8" ? "-40" : "-60"; // CS8: noise above one step
            const std::string csv = temp_path(std::string("tones_") + format + ".csv");
            const auto [status, out, err] =
                app({ "--device", sim + ",format=" + format + ",noise=" + noise + "," + tones_arg(tones), "--sweep",
                      "88M:108M:10k", "--once", "--rtl-power", csv, "--png", temp_path("tones.png"), "--quiet" });
            CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
            CPPUNIT_ASSERT_MESSAGE(out, out.find("12 hops") != std::string::npos);
            CPPUNIT_ASSERT_MESSAGE(out, out.find(std::string(format) + " native") != std::string::npos);
            const auto r = read_rtl_power(csv);
            CPPUNIT_ASSERT_EQUAL(std::size_t(12), r.rows);
            CPPUNIT_ASSERT_EQUAL(p.total_bins, r.bins.size());
            // Blackman-Harris loses at most 0.83 dB between bins (its scalloping loss).
            expect_tones(r, tones, p.bin_hz, 1.0, format);
        }
    }

    // After a retune the simulated synthesizer sends 20 ms of loud junk: with
    // the settle time discarded the floor is the noise's, without it not.
    void settle_time_discarded()
    {
        const std::vector<tone> tones = { { 100.1e6, -40 } };
        double floor[2];
        for (int settle : { 0, 1 }) {
            const std::string csv = temp_path("settle.csv");
            const auto [status, out, err] =
                app({ "--device", sim + ",transient=0.02," + tones_arg(tones), "--sweep", "96M:104M:10k", "--once",
                      "--settle", settle ? "0.025" : "0", "--rtl-power", csv, "--png", "none", "--quiet" });
            CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
            const auto r = read_rtl_power(csv);
            floor[settle] = median_db(r);
            if (settle)
                expect_tones(r, tones, 9375, 1.0, "with settling");
        }
        // Noise of -60 dBFS over 256 bins, Blackman-Harris's 3 dB of noise bandwidth in tone dBFS: about -81.
        CPPUNIT_ASSERT_DOUBLES_EQUAL(-81.0, floor[1], 1.5);
        CPPUNIT_ASSERT_MESSAGE(std::to_string(floor[0]), floor[0] > floor[1] + 20);
    }

    // A hop that overflowed is measured again: the rows stay right and the count is reported.
    void overflows()
    {
        const std::vector<tone> tones = { { 100.1e6, -30 }, { 101.8e6, -40 } };
        const std::string csv = temp_path("overflow.csv");
        const auto [status, out, err] =
            app({ "--device", sim + ",overflow_every=200000," + tones_arg(tones), "--sweep", "96M:104M:10k", "--once",
                  "--rtl-power", csv, "--png", "none", "--quiet" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
        CPPUNIT_ASSERT_MESSAGE(out, out.find(" 0 overflows") == std::string::npos);
        expect_tones(read_rtl_power(csv), tones, 9375, 1.0, "overflows");
        // Dropping more often than a hop lasts cannot work: a clear error, not a hang.
        const auto [status2, out2, err2] = app({ "--device", sim + ",overflow_every=1000", "--sweep", "96M:104M:10k",
                                                 "--once", "--png", "none", "--quiet" });
        CPPUNIT_ASSERT_MESSAGE(err2, status2 == 1 && err2.find("dropped samples") != std::string::npos);
    }

    // gpufftsim's gains add to the signal: an overall 10 dB, or 4 + 6 per element.
    void gains()
    {
        for (const char* gain : { "10", "LNA=4,VGA=6" }) {
            const std::string csv = temp_path("gain.csv");
            const auto [status, out, err] = app({ "--device", sim + ",tones=100.1e6:-40", "--gain", gain, "--antenna",
                                                  "TEST", "--ppm", "1.5", "--sweep", "99M:101M:10k", "--once",
                                                  "--rtl-power", csv, "--png", "none", "--quiet" });
            CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
            expect_tones(read_rtl_power(csv), { { 100.1e6, -30 } }, 9375, 1.0, std::string("--gain ") + gain);
        }
    }

    // --interval starts a sweep every 0.4 s; --duration ends after the sweep running at 1 s.
    void repeats()
    {
        const std::string csv = temp_path("repeats.csv");
        const auto [status, out, err] =
            app({ "--device", sim, "--sweep", "96M:100M:10k", "--interval", "0.4", "--duration", "1", "--rtl-power",
                  csv, "--png", "none", "--quiet" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
        CPPUNIT_ASSERT_MESSAGE(out, out.find("3 sweeps, 9 hops") != std::string::npos);
        CPPUNIT_ASSERT_EQUAL(std::size_t(9), read_rtl_power(csv).rows);
    }

    // Without --sweep the device streams at --center, after the settle time
    // (gpufftsim's 5 ms of junk would hide the tone): one rtl_power row per
    // second of the clock (the default --interval), the mean of its spectra,
    // no two rows at one time.
    void live_capture()
    {
        const std::string csv = temp_path("live.csv");
        const auto [status, out, err] =
            app({ "--device", sim + ",format=CF32,tones=433.92e6:-50", "--rate", "2.4e6", "--center", "434e6",
                  "--fft", "1024", "--fps", "10", "--duration", "1", "--rtl-power", csv, "--png", "none", "--quiet" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
        CPPUNIT_ASSERT_MESSAGE(out, out.find("433920") != std::string::npos || out.find("433918") != std::string::npos);
        const auto r = read_rtl_power(csv);
        // 1 s holds 9 spectra of 469 frames of 512 samples: over one or two seconds of the clock.
        CPPUNIT_ASSERT_MESSAGE(std::to_string(r.rows), r.rows == 1 || r.rows == 2);
        CPPUNIT_ASSERT_EQUAL(std::size_t(9 * 469), r.samples);
        CPPUNIT_ASSERT(std::set<std::string>(r.times.begin(), r.times.end()).size() == r.rows);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(434e6 - 1.2e6, r.bins.front().first, 1);
        expect_tones(r, { { 433.92e6, -50 } }, 2.4e6 / 1024, 1.0, "live");
    }

    /*
     * A live capture whose device overflows (gpufftsim drops 1000 samples
     * every 50000: the tone's phase jumps): no spectrum spans a gap, so none
     * shows the skirts a jump puts around the tone (its bins 16 and more away
     * stay below -80 dBFS, the window's sidelobes and the noise being far
     * lower); the JSON line after each gap says so, the report counts them,
     * and times only grow.
     */
    void live_overflow()
    {
        const std::string jsonl = temp_path("overflow.jsonl"), rec = temp_path("overflow");
        const auto [status, out, err] =
            app({ "--device", sim + ",format=CF32,noise=-100,overflow_every=50000,tones=100.1e6:-10", "--rate", "2.4e6",
                  "--center", "100e6", "--fft", "1024", "--overlap", "0", "--frames", "1",
                  "--duration", "0.5", "--jsonl", jsonl, "--record", rec, "--png", "none" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
        const std::size_t at = out.find("overflows: ");
        CPPUNIT_ASSERT_MESSAGE(out, at != std::string::npos);
        const std::size_t gaps = std::stoul(out.substr(at + 11));
        CPPUNIT_ASSERT_MESSAGE(out, gaps >= 20); // 1.2e6 samples, a gap every 50000
        CPPUNIT_ASSERT_MESSAGE(out, out.find("peaks at centre") == std::string::npos); // one run, at one centre
        const std::size_t tone_bin = 512 + std::size_t(std::lround(100e3 / (2.4e6 / 1024)));
        std::size_t flagged = 0, lines = 0;
        double last_time = -1, worst = -300;
        std::ifstream f(jsonl);
        for (std::string line; std::getline(f, line); ++lines) {
            const auto j = nlohmann::json::parse(line);
            if (j.contains("overflow_before")) {
                ++flagged;
                CPPUNIT_ASSERT_EQUAL(1, j["overflow_before"]["overflows"].get<int>());
            }
            const double t = j["time_s"].get<double>();
            CPPUNIT_ASSERT_MESSAGE(line.substr(0, 80), t > last_time);
            last_time = t;
            const auto db = j["db"].get<std::vector<double>>();
            for (std::size_t i = 0; i < db.size(); ++i)
                if (i + 16 <= tone_bin || i >= tone_bin + 16)
                    worst = std::max(worst, db[i]);
        }
        CPPUNIT_ASSERT_MESSAGE(std::to_string(lines), lines > 1000);
        CPPUNIT_ASSERT_EQUAL(gaps, flagged);
        CPPUNIT_ASSERT_MESSAGE("away from the tone: " + std::to_string(worst) + " dBFS", worst < -80);

        // The recording starts a capture at every gap, so its replay spans none either.
        std::ifstream meta_file(rec + ".sigmf-meta");
        const auto meta = nlohmann::json::parse(meta_file);
        CPPUNIT_ASSERT_EQUAL(gaps + 1, meta["captures"].size());
        std::uint64_t last_start = 0;
        for (std::size_t i = 1; i < meta["captures"].size(); ++i) {
            const auto start = meta["captures"][i]["core:sample_start"].get<std::uint64_t>();
            CPPUNIT_ASSERT(start > last_start);
            last_start = start;
        }
        const std::string replayed = temp_path("overflow_replay.jsonl");
        const auto [r_status, r_out, r_err] = app({ rec + ".sigmf-meta", "--fft", "1024", "--overlap", "0", "--frames",
                                                    "1", "--jsonl", replayed, "--png", "none" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(r_err, 0, r_status);
        double replay_worst = -300;
        std::ifstream g(replayed);
        for (std::string line; std::getline(g, line);) {
            const auto db = nlohmann::json::parse(line)["db"].get<std::vector<double>>();
            for (std::size_t i = 0; i < db.size(); ++i)
                if (i + 16 <= tone_bin || i >= tone_bin + 16)
                    replay_worst = std::max(replay_worst, db[i]);
        }
        CPPUNIT_ASSERT_MESSAGE("replay, away from the tone: " + std::to_string(replay_worst) + " dBFS",
                               replay_worst < -80);
    }

    // --duration limits a file too (seconds of signal).
    void file_duration()
    {
        const std::string in = temp_path("in.cf32"), csv = temp_path("file.csv");
        std::vector<float> samples(2 * 100000, 0.0f); // 1 s at 1e5
        std::FILE* f = std::fopen(in.c_str(), "wb");
        std::fwrite(samples.data(), sizeof(float), samples.size(), f);
        std::fclose(f);
        const auto [status, out, err] = app({ in, "--format", "cf32", "--rate", "1e5", "--center", "0", "--fft",
                                              "1000", "--overlap", "0", "--fps", "10", "--duration", "0.5",
                                              "--rtl-power", csv, "--png", "none", "--quiet" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
        CPPUNIT_ASSERT_MESSAGE(out, out.find("50000 samples") != std::string::npos);
        // 5 spectra of 10 frames, read in well under a second: one row, two if a second began meanwhile.
        const auto r = read_rtl_power(csv);
        CPPUNIT_ASSERT_MESSAGE(std::to_string(r.rows), r.rows == 1 || r.rows == 2);
        CPPUNIT_ASSERT_EQUAL(std::size_t(50), r.samples);
    }

    // --record with --sweep: a SigMF capture per hop at the hop's centre with
    // its time, only the measured samples (no settle time), every tone at its
    // absolute frequency and power when the recording is read back.
    void sweep_record()
    {
        const auto p = gpufft_app::plan_sweep({ 88e6, 93e6, 1e4 }, 2.4e6, 0.25); // 3 hops of 1.8 MHz
        const std::vector<tone> tones = { { 89.0e6, -30 }, { p.hz(p.kept) + 2 * p.bin_hz, -40 }, { 92.5e6, -45 } };
        const std::string name = temp_path("sweep_rec");
        const auto [status, out, err] = app({ "--device", sim + ",format=CF32," + tones_arg(tones), "--sweep",
                                              "88M:93M:10k", "--once", "--record", name, "--png", "none" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
        CPPUNIT_ASSERT_MESSAGE(out, out.find("a capture per hop") != std::string::npos);
        const gpufft_app::iq_source rec = gpufft_app::open_sigmf(name);
        CPPUNIT_ASSERT(rec.format == gpufft::sample_format::cf32 && rec.sample_rate == 2.4e6);
        CPPUNIT_ASSERT_MESSAGE(rec.hardware, rec.hardware.find("gpufftsim") != std::string::npos);
        CPPUNIT_ASSERT_EQUAL(p.centers.size(), rec.captures.size());
        const std::size_t per_hop = rec.captures[1].sample_start; // 0.05 s dwell in whole frames
        CPPUNIT_ASSERT(per_hop >= 120000 && per_hop < 121000);
        for (std::size_t h = 0; h < p.centers.size(); ++h) {
            CPPUNIT_ASSERT_EQUAL(std::uint64_t(h * per_hop), rec.captures[h].sample_start);
            CPPUNIT_ASSERT_EQUAL(p.centers[h], rec.captures[h].center_hz);
            CPPUNIT_ASSERT(rec.captures[h].datetime);
            CPPUNIT_ASSERT(!h || !(*rec.captures[h].datetime < *rec.captures[h - 1].datetime));
        }
        CPPUNIT_ASSERT_EQUAL(std::uintmax_t(3 * per_hop * 8), std::filesystem::file_size(name + ".sigmf-data"));

        // Read back: the peaks of each capture (a run at its centre), each tone in the hop whose kept bins hold it.
        const auto [read_status, report, read_err] =
            app({ name, "--fft", "256", "--frames", "100", "--png", "none", "--peaks", "3" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(read_err, 0, read_status);
        std::vector<rtl_power_rows> hops(p.centers.size());
        std::size_t hop = 0;
        std::istringstream lines(report);
        for (std::string line; std::getline(lines, line);) {
            double center = 0, hz = 0, db = 0;
            if (std::sscanf(line.c_str(), "peaks at centre %lf Hz", &center) == 1)
                hop = std::size_t(std::find(p.centers.begin(), p.centers.end(), center) - p.centers.begin());
            else if (std::sscanf(line.c_str(), " %lf Hz %lf dBFS", &hz, &db) == 2 && hop < hops.size())
                hops[hop].bins.push_back({ hz, db });
        }
        for (const auto& t : tones) {
            const std::size_t h = std::size_t((t.hz - p.hz(0)) / (double(p.kept) * p.bin_hz));
            expect_tones(hops[h], { t }, p.bin_hz, 1.0, "capture " + std::to_string(h) + " read back");
        }
        // --annotate's signals belong to one capture's spectra, not to a band.
        CPPUNIT_ASSERT_EQUAL(2, std::get<0>(app({ "--device", sim, "--sweep", "88M:93M:10k", "--once", "--record",
                                                   temp_path("no_rec"), "--annotate", "--png", "none" })));
        CPPUNIT_ASSERT(!std::filesystem::exists(temp_path("no_rec.sigmf-data")));
    }

    // Bad input: each one line on standard error, exit status 2,
    // and none of the run's other outputs left behind.
    void bad_input()
    {
        const std::string dir = temp_path("bad_input");
        std::filesystem::create_directory(dir);
        const int busy = ::socket(AF_INET, SOCK_STREAM, 0); // a port in use
        sockaddr_in at{};
        at.sin_family = AF_INET;
        at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof at;
        CPPUNIT_ASSERT(::bind(busy, reinterpret_cast<sockaddr*>(&at), sizeof at) == 0 && ::listen(busy, 1) == 0 &&
                       ::getsockname(busy, reinterpret_cast<sockaddr*>(&at), &len) == 0);
        const std::string port = std::to_string(ntohs(at.sin_port));
        const std::vector<std::string> outputs = { "--rtl-power", dir + "/sweep.csv", "--png", dir + "/sweep.png",
                                                   "--record", dir + "/rec" };
        const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
            { { "--device", "driver=nosuch", "--sweep", "88M:90M:10k" }, "matches no device" },
            { { "--device", sim, "--sweep", "90M:88M:10k" }, "--sweep: stop 88 MHz must be above start 90 MHz" },
            { { "--device", sim, "--sweep", "88M:88M:10k" }, "must be above start" },
            { { "--device", sim, "--sweep", "88M:90M:0.1" }, "--sweep: a bin width of 0.1 Hz is below what the rate allows" },
            { { "--device", sim, "--sweep", "88M:90M:10k", "--serve", "127.0.0.1:" + port }, "--serve 127.0.0.1:" + port },
            { { "--device", sim, "--center", "100M", "--csv", "/nonexistent/dir/x.csv" },
              "--csv /nonexistent/dir/x.csv: cannot write: No such file or directory" },
            { { "--device", sim, "--center", "100M", "--jsonl", "/proc/x.jsonl" }, "--jsonl /proc/x.jsonl: cannot write" },
            { { "--device", sim, "--sweep", "88M:90M:10k", "--png", "/proc/x.png" }, "--png /proc/x.png: cannot write" },
            { { "--device", sim, "--center", "100M", "--persistence", dir }, "it is a directory" },
            // Requests outside what the device reports: refused, not clamped.
            { { "--device", sim + ",tones=6000.3e6:-30", "--center", "7000M", "--duration", "0.3" },
              "--center 7 GHz is outside the device's range, 1 MHz to 6 GHz" },
            { { "--device", sim, "--sweep", "5990M:6010M:10k", "--once" },
              "--sweep 5990M:6010M:10k: 6 of its 12 hops (tuned to 6.0017 GHz to 6.0107 GHz) are outside the "
              "device's range, 1 MHz to 6 GHz" },
            { { "--device", sim, "--center", "100M", "--gain", "-5" },
              "--gain -5 dB is outside the device's range, 0 dB to 70 dB" },
            { { "--device", sim, "--center", "100M", "--gain", "300" },
              "--gain 300 dB is outside the device's range, 0 dB to 70 dB" },
            { { "--device", sim, "--center", "100M", "--gain", "VGA=5,LNA=99" },
              "--gain LNA=99 dB is outside the device's range, 0 dB to 40 dB" },
            { { "--device", sim, "--center", "100M", "--rate", "100M" },
              "--rate 100 MHz is outside the device's range, 100 kHz to 61.44 MHz" },
        };
        for (auto [args, expected] : cases) {
            args.insert(args.begin(), outputs.begin(), outputs.end()); // the case's own --png comes last
            const auto [status, out, err] = app(args);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 2, status);
            CPPUNIT_ASSERT_MESSAGE(expected + " in: " + err, err.find(expected) != std::string::npos);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(err, std::size_t(1), std::size_t(std::count(err.begin(), err.end(), '\n')));
            CPPUNIT_ASSERT_MESSAGE(err, std::filesystem::is_empty(dir)); // no output, no temporary file
        }
        ::close(busy);
        // --annotate's metadata next to a raw input, where nothing can be created.
        const auto [status, out, err] =
            app({ "/proc/self/cmdline", "--format", "cu8", "--rate", "1M", "--center", "0", "--annotate" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 2, status);
        CPPUNIT_ASSERT_MESSAGE(err, err.find("--annotate /proc/self/cmdline.sigmf-meta: cannot write") != std::string::npos);
    }

    /*
     * What the radio read back labels everything: a synthesizer that tunes in
     * 1 MHz steps puts a 100.3 MHz tone at 100.3 MHz (not 100.4) with one
     * warning; a sweep's rtl_power rows start at the hop's read-back centre;
     * the gain in force is in the report, the JSON lines and the SigMF metadata.
     */
    void read_back()
    {
        const std::string rec = temp_path("gain_rec"), jsonl = temp_path("gain.jsonl");
        const auto [status, out, err] =
            app({ "--device", sim + ",format=CF32,tune_step=1e6,tones=100.3e6:-30", "--center", "100.1M", "--gain",
                  "LNA=4,VGA=6", "--fft", "1024", "--duration", "0.2", "--png", "none", "--peaks", "1", "--record",
                  rec, "--jsonl", jsonl, "--quiet" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
        CPPUNIT_ASSERT_MESSAGE(err, err.find("warning: asked for a frequency of 100.1 MHz, the device has 100 MHz") !=
                                        std::string::npos);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, std::size_t(1), std::size_t(std::count(err.begin(), err.end(), '\n')));
        CPPUNIT_ASSERT_MESSAGE(out, out.find("gain 10 dB (LNA 4 dB, VGA 6 dB), antenna RX, centre 100 MHz") !=
                                        std::string::npos);
        double hz = 0, db = 0;
        const auto at = out.find("peaks");
        CPPUNIT_ASSERT_MESSAGE(out, at != std::string::npos &&
                                        std::sscanf(out.c_str() + out.find('\n', at), " %lf Hz %lf dBFS", &hz, &db) == 2);
        CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(out, 100.3e6, hz, 2.4e6 / 1024);
        const std::string line = read_text(jsonl).substr(0, 400);
        CPPUNIT_ASSERT_MESSAGE(line, line.find("\"center_hz\":100000000.000") != std::string::npos);
        CPPUNIT_ASSERT_MESSAGE(line, line.find("\"gain_db\":10.0,\"gains_db\":{\"LNA\":4.0,\"VGA\":6.0},\"agc\":false") !=
                                         std::string::npos);
        const std::string meta = read_text(rec + ".sigmf-meta");
        for (const char* field : { "\"gpufft:gain_db\": 10.0", "\"LNA\": 4.0", "\"core:frequency\": 100000000.0",
                                   "\"name\": \"gpufft\"", "gain 10 dB (LNA 4 dB, VGA 6 dB)" })
            CPPUNIT_ASSERT_MESSAGE(std::string(field) + " in " + meta, meta.find(field) != std::string::npos);

        // Hops at 99.9 and 101.7 MHz on a 7 kHz grid: read back 3 kHz away, within half a bin.
        const std::string csv = temp_path("readback.csv");
        const auto [sweep_status, sweep_out, sweep_err] =
            app({ "--device", sim + ",tune_step=7e3,tones=100.1e6:-30", "--sweep", "99M:101M:10k", "--once",
                  "--gain", "20", "--rtl-power", csv, "--png", "none", "--quiet" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(sweep_err, 0, sweep_status);
        CPPUNIT_ASSERT_MESSAGE(sweep_out, sweep_out.find("gain 20 dB (LNA 20 dB, VGA 0 dB)") != std::string::npos);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(sweep_err, std::size_t(1),
                                     std::size_t(std::count(sweep_err.begin(), sweep_err.end(), '\n')));
        const std::string rows = read_text(csv);
        CPPUNIT_ASSERT_MESSAGE(rows.substr(0, 80), rows.find(", 98997000, ") != std::string::npos);
        CPPUNIT_ASSERT_MESSAGE(rows.substr(0, 80), rows.find(", 100803000, ") != std::string::npos);
        expect_tones(read_rtl_power(csv), { { 100.1e6, -10 } }, 9375, 1.0, "read-back rows");
        // A synthesizer too coarse for the bins: an error, not a misplaced band.
        const auto [coarse, coarse_out, coarse_err] = app({ "--device", sim + ",tune_step=250e3", "--sweep",
                                                            "99M:101M:10k", "--once", "--png", "none", "--quiet" });
        CPPUNIT_ASSERT_MESSAGE(coarse_err, coarse == 1 && coarse_err.find("more than half a bin") != std::string::npos);
    }

    //! The strongest peak a report lists: {Hz, dBFS}.
    static std::pair<double, double> first_peak(const std::string& report)
    {
        double hz = 0, db = 0;
        const auto at = report.find("peaks");
        CPPUNIT_ASSERT_MESSAGE(report, at != std::string::npos);
        CPPUNIT_ASSERT_MESSAGE(report, std::sscanf(report.c_str() + report.find('\n', at), " %lf Hz %lf dBFS", &hz, &db) == 2);
        return { hz, db };
    }

    /*
     * A recording replays at the levels it was measured at, in every native
     * format and full scale (CS16 from a 12-bit converter: 2048), and its
     * --annotate comment says the same peak.
     */
    void full_scale_round_trip()
    {
        for (const char* native : { "format=CS16,full_scale=2048", "format=CS16,full_scale=32768", "format=CF32",
                                    "format=CS8,noise=-40" }) {
            const std::string rec = temp_path("fs_rec"), live = temp_path("fs_live.jsonl"),
                              replay = temp_path("fs_replay.jsonl");
            const std::vector<std::string> engine = { "--fft", "1024", "--frames", "50", "--png", "none", "--peaks",
                                                      "1", "--quiet" };
            std::vector<std::string> args = { "--device", sim + "," + native + ",tones=100.1e6:-10", "--center",
                                              "100M", "--duration", "0.2", "--record", rec, "--annotate", "--jsonl",
                                              live };
            args.insert(args.end(), engine.begin(), engine.end());
            const auto [status, out, err] = app(args);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
            args = { rec, "--jsonl", replay };
            args.insert(args.end(), engine.begin(), engine.end());
            const auto [replay_status, replay_out, replay_err] = app(args);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(replay_err, 0, replay_status);
            const auto [live_hz, live_db] = first_peak(out);
            const auto [replay_hz, replay_db] = first_peak(replay_out);
            std::ostringstream m;
            m << native << ": live " << live_hz << " Hz " << live_db << " dBFS, replay " << replay_hz << " Hz "
              << replay_db << " dBFS";
            CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(m.str(), -10.0, live_db, 0.5);
            CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(m.str(), live_hz, replay_hz, 0);
            CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(m.str(), live_db, replay_db, 0.01);
            // Every spectrum, bin by bin (as written: to 0.01 dB).
            const std::string live_lines = read_text(live), replay_lines = read_text(replay);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(m.str(), std::count(live_lines.begin(), live_lines.end(), '\n'),
                                         std::count(replay_lines.begin(), replay_lines.end(), '\n'));
            std::istringstream a(live_lines), b(replay_lines);
            for (std::string la, lb; std::getline(a, la) && std::getline(b, lb);)
                CPPUNIT_ASSERT_EQUAL_MESSAGE(m.str(), la.substr(la.find("\"db\":")), lb.substr(lb.find("\"db\":")));
            // The annotation's peak (to 0.1 dB) is the replay's.
            const std::string meta = read_text(rec + ".sigmf-meta");
            const std::string comment = "\"core:comment\": \"peak ";
            const auto peak_at = meta.find(comment);
            CPPUNIT_ASSERT_MESSAGE(meta, peak_at != std::string::npos);
            const double annotated = std::strtod(meta.c_str() + peak_at + comment.size(), nullptr);
            CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(m.str() + ", annotated " + std::to_string(annotated), replay_db,
                                                 annotated, 1.0); // the annotation is one spectrum's peak, not the mean's
        }
    }

    // A sweep's recording in CS16 at 12 bits: each capture replayed with the
    // hop's engine gives the rtl_power row's values exactly.
    void sweep_full_scale_round_trip()
    {
        const auto p = gpufft_app::plan_sweep({ 88e6, 93e6, 1e4 }, 2.4e6, 0.25);
        const std::string name = temp_path("sweep_fs"), csv = temp_path("sweep_fs.csv"),
                          replay = temp_path("sweep_fs.jsonl");
        const auto [status, out, err] =
            app({ "--device", sim + ",format=CS16,full_scale=2048,tones=89e6:-10;91.5e6:-20", "--sweep",
                  "88M:93M:10k", "--once", "--record", name, "--rtl-power", csv, "--png", "none", "--quiet" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
        const std::string frames = std::to_string(std::llround(0.05 * 2.4e6 / 128)); // --dwell's default, hop N/2
        const auto [replay_status, replay_out, replay_err] =
            app({ name, "--fft", "256", "--frames", frames, "--jsonl", replay, "--png", "none", "--quiet" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(replay_err, 0, replay_status);
        std::istringstream rows(read_text(csv)), spectra(read_text(replay));
        std::size_t hops = 0;
        for (std::string row, spectrum; std::getline(rows, row) && std::getline(spectra, spectrum); ++hops) {
            std::vector<std::string> cells, bins;
            std::istringstream r(row), s(spectrum.substr(spectrum.find("\"db\":[") + 6));
            for (std::string c; std::getline(r, c, ',');)
                cells.push_back(c.substr(c.find_first_not_of(' ')));
            for (std::string c; std::getline(s, c, ',');)
                bins.push_back(c.substr(0, c.find(']')));
            CPPUNIT_ASSERT_EQUAL(std::size_t(256), bins.size());
            const std::size_t n = std::min(p.kept, p.total_bins - hops * p.kept); // the hop's bins in the band
            CPPUNIT_ASSERT(cells.size() >= 6 + n);
            for (std::size_t i = 0; i < n; ++i)
                CPPUNIT_ASSERT_EQUAL_MESSAGE("hop " + std::to_string(hops) + " bin " + std::to_string(i),
                                             cells[6 + i], bins[p.first_kept + i]);
        }
        CPPUNIT_ASSERT_EQUAL(p.centers.size(), hops);
        expect_tones(read_rtl_power(csv), { { 89e6, -10 }, { 91.5e6, -20 } }, p.bin_hz, 1.0, "12-bit sweep");
    }

    // --persistence of a sweep: the stitched band, a spectrum per whole sweep.
    void sweep_persistence()
    {
        const std::string png = temp_path("sweep_persistence.png");
        const auto [status, out, err] = app({ "--device", sim + ",tones=100.1e6:-30", "--sweep", "96M:104M:10k",
                                              "--duration", "0.001", "--persistence", png, "--png", "none", "--quiet" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
        CPPUNIT_ASSERT_MESSAGE(out, out.find("persistence: " + png + " (") != std::string::npos);
        CPPUNIT_ASSERT_MESSAGE(out, out.find("dBFS, 1 whole sweeps)") != std::string::npos);
        // The PNG's width: the margins around the band's 854 bins (at most 1024 columns).
        const std::string head = read_text(png).substr(0, 24);
        CPPUNIT_ASSERT(head.size() == 24 && head.compare(1, 3, "PNG") == 0);
        const auto be32 = [&](std::size_t at) {
            return (unsigned(static_cast<unsigned char>(head[at])) << 24) |
                   (unsigned(static_cast<unsigned char>(head[at + 1])) << 16) |
                   (unsigned(static_cast<unsigned char>(head[at + 2])) << 8) | static_cast<unsigned char>(head[at + 3]);
        };
        CPPUNIT_ASSERT_EQUAL(unsigned(gpufft_app::margin_left + 854 + gpufft_app::margin_right), be32(16));
        CPPUNIT_ASSERT_EQUAL(unsigned(gpufft_app::margin_top + 256 + gpufft_app::margin_bottom), be32(20));
    }

    // NaN and infinity are no number of seconds, ppm or fraction: a usage
    // error naming the option (exit status 2), as every other number option.
    void non_finite_options()
    {
        for (const char* option :
             { "--settle", "--duration", "--interval", "--ppm", "--dwell", "--crop", "--stall-timeout" }) {
            for (const char* value : { "nan", "-nan", "inf", "-inf" }) {
                const std::vector<std::string> args = { "--device", sim, option, value, "--png", "none" };
                const std::string what = std::string(option) + " " + value;
                const std::string m = usage_message([&] { gpufft_app::parse_options(args); });
                CPPUNIT_ASSERT_MESSAGE(what + ": " + m, m.find(option) != std::string::npos);
                CPPUNIT_ASSERT_MESSAGE(what + ": " + m, m.find("expected a") != std::string::npos ||
                                                            m.find("out of range") != std::string::npos);
                const auto [status, out, err] = app(args);
                CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": " + err, 2, status);
                CPPUNIT_ASSERT_MESSAGE(what + ": " + err, err.find(option) != std::string::npos);
            }
        }
    }

    // A radio that fails mid-run: the error on standard error, exit status 1,
    // and everything measured before it in full (CSV, JSON lines, rtl_power
    // rows, the recording's samples and metadata, the PNG).
    void radio_faults()
    {
        const auto is_png = [](const std::string& path) { return read_text(path).rfind("\x89PNG\r\n\x1a\n", 0) == 0; };
        // Live: the stream fails after 1.2 M samples, 24000 of them (--settle 0.01 s) the tuner's settling.
        const std::pair<std::string, std::string> faults[] = { { "error_after", "stopped: STREAM_ERROR" },
                                                               { "throw_after", "simulated driver exception" } };
        for (const auto& [fault, message] : faults) {
            const std::string base = temp_path("fault_" + fault);
            const auto [status, out, err] =
                app({ "--device", sim + ",format=CF32,tones=433.92e6:-50," + fault + "=1200000", "--rate", "2.4e6",
                      "--center", "434e6", "--fft", "1024", "--fps", "10", "--csv", base + ".csv", "--jsonl",
                      base + ".jsonl", "--rtl-power", base + ".rtl", "--record", base, "--png", base + ".png",
                      "--quiet" });
            CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 1, status);
            CPPUNIT_ASSERT_MESSAGE(err, err.find(message) != std::string::npos);
            CPPUNIT_ASSERT_MESSAGE(err, err.find("the device gpufftsim") != std::string::npos); // which device
            std::size_t rows = 0;
            std::istringstream csv(read_text(base + ".csv"));
            for (std::string line; std::getline(csv, line);)
                rows += line.rfind("time_s", 0) != 0;
            CPPUNIT_ASSERT_MESSAGE(err, rows >= 4); // 1176000 samples: 4 spectra of 0.1 s, and what flush() completes
            std::istringstream jsonl(read_text(base + ".jsonl"));
            std::size_t lines = 0;
            for (std::string line; std::getline(jsonl, line); ++lines)
                CPPUNIT_ASSERT_EQUAL(std::size_t(1024), nlohmann::json::parse(line)["db"].size());
            CPPUNIT_ASSERT_EQUAL(rows, lines);
            const auto r = read_rtl_power(base + ".rtl");
            CPPUNIT_ASSERT(r.rows >= 1);
            expect_tones(r, { { 433.92e6, -50 } }, 2.4e6 / 1024, 1.0, fault);
            const gpufft_app::iq_source rec = gpufft_app::open_sigmf(base);
            CPPUNIT_ASSERT_EQUAL(434e6, rec.center_hz);
            CPPUNIT_ASSERT_EQUAL(std::uintmax_t((1200000 - 24000) * 8),
                                 std::filesystem::file_size(base + ".sigmf-data"));
            CPPUNIT_ASSERT_MESSAGE(base, is_png(base + ".png"));
        }
        // A sweep of 3 hops whose sixth retune fails: the first sweep and two hops of the second kept.
        const std::string base = temp_path("fault_retune");
        const auto [status, out, err] =
            app({ "--device", sim + ",format=CF32,retune_fail_after=5", "--sweep", "88M:93M:10k", "--rtl-power",
                  base + ".rtl", "--record", base, "--png", base + ".png" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 1, status);
        CPPUNIT_ASSERT_MESSAGE(err, err.find("simulated tuning failure") != std::string::npos);
        CPPUNIT_ASSERT_MESSAGE(err, err.find("the device gpufftsim") != std::string::npos);
        CPPUNIT_ASSERT_MESSAGE(out, out.find("2 sweeps (the last one partial), 5 hops") != std::string::npos);
        CPPUNIT_ASSERT_EQUAL(std::size_t(5), read_rtl_power(base + ".rtl").rows);
        CPPUNIT_ASSERT_EQUAL(std::size_t(5), gpufft_app::open_sigmf(base).captures.size());
        CPPUNIT_ASSERT_MESSAGE(base, is_png(base + ".png"));
    }

    // A driver whose readStream returns more samples than asked (gpufftsim's
    // big_return): only the samples asked for are used, the driver's fault is
    // reported once, and the tone reads right. Under ASan a read past the
    // buffer would end the test.
    // The hop plans rtl_power.c's frequency_range() makes, worked out by hand
    // from it: hops, rate, bins, downsampling, kept bins, centres, and the
    // Hz low and Hz high csv_dbm() writes.
    void rtl_power_hop_plan()
    {
        using gpufft_app::plan_rtl_power;
        struct expected {
            long long lower, upper, bin;
            double crop;
            std::size_t hops;
            double rate;
            std::size_t bins, downsample, first, ffts;
            double center0;
            long long low0, high0;
        };
        const expected cases[] = {
            // rtl_power's first example: 8 hops of 2.5 MHz, 32 bins of 78125 Hz.
            { 88000000, 108000000, 125000, 0, 8, 2500000, 32, 1, 0, 256, 89250000, 88000000, 90500000 },
            // -c 20%: 9 hops of 2222222 Hz seen at 2777777 S/s; bins 3 to 28 kept,
            // Hz low 89111111 - int(2777777 * 25 / 64).
            { 88000000, 108000000, 125000, 0.2, 9, 2777777, 32, 1, 3, 256, 89111111, 88026042, 90196180 },
            // The survey example: bins of 1 MHz and more are one bin per hop (its power).
            { 100000000, 1000000000, 1000000, 0, 900, 1000000, 1, 1, 0, 8192, 100500000, 100000000, 101000000 },
            // A band under 1 MHz: one hop at 5 x 500 kS/s, 512 bins of 976.5625 Hz.
            { 100000000, 100500000, 1000, 0, 1, 2500000, 512, 5, 0, 3, 100250000, 100000000, 100500000 },
        };
        for (const auto& e : cases) {
            const auto p = plan_rtl_power(e.lower, e.upper, e.bin, e.crop);
            const std::string what = std::to_string(e.lower) + ":" + std::to_string(e.upper) + ":" +
                                     std::to_string(e.bin) + " -c " + std::to_string(e.crop);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what, e.hops, p.centers.size());
            CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(what, e.rate, p.rate, 0);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what, e.bins, p.bins);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what, e.downsample, p.downsample);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what, e.first, p.first);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what, e.bins - 1 - e.first, p.last);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what, e.ffts, p.ffts_per_visit);
            CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(what, e.center0, p.centers[0], 0);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what, e.low0, p.hz_low(0));
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what, e.high0, p.hz_high(0));
            const double spacing = p.centers.size() > 1 ? p.centers[1] - p.centers[0] : 0;
            for (std::size_t h = 1; h < p.centers.size(); ++h)
                CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(what, spacing, p.centers[h] - p.centers[h - 1], 0);
        }
        const std::pair<std::vector<long long>, const char*> bad[] = {
            { { 108000000, 88000000, 1000 }, "must be above lower" },
            { { 88000000, 108000000, 0 }, "at least 1 Hz" },
            { { 1000000, 9000000000, 100000 }, "too wide" },
            { { 0, 10000000000, 1000000 }, "bandwidth too wide" },
            { { 100000000, 100500000, 1000000 }, "holds no bin" },
            { { 100000000, 100010000, 1 }, "at most 2^22" },
            { { 24000000, 1700000000, 1 }, "2^25 in all" },
        };
        for (const auto& [args, expect] : bad) {
            const std::string m = usage_message([&] { plan_rtl_power(args[0], args[1], args[2], 0); });
            CPPUNIT_ASSERT_MESSAGE(m, m.find(expect) != std::string::npos && m.find("-f") == 0);
        }
    }

    // rtl_power's value syntax (convenience.c's atofs, atoft, atofp) and getopt's ways.
    void rtl_power_options()
    {
        using gpufft_app::parse_rtl_power_options;
        const auto r = parse_rtl_power_options({ "-f88M:108M:125k", "-i", "5m", "-e", "1h", "-c", "20%", "-1P", "-g",
                                                 "29.7", "-p", "-3", "-w", "hann-poisson", "-d", "1", "out.csv" });
        CPPUNIT_ASSERT(r.lower == 88000000 && r.upper == 108000000 && r.max_bin == 125000);
        CPPUNIT_ASSERT(r.interval_s == 300 && r.exit_s == 3600 && r.crop == 0.2 && r.single && r.peak_hold);
        CPPUNIT_ASSERT(r.o.radio.gain == "29.7" && r.o.radio.ppm == -3 && r.o.radio.ppm_set);
        CPPUNIT_ASSERT(r.window == "hann-poisson" && r.device_index == "1" && r.o.radio.device.empty());
        CPPUNIT_ASSERT_EQUAL(std::string("out.csv"), r.o.radio.rtl_power);
        // The defaults: 10 s, no exit timer, no crop, rectangle, standard output, automatic gain.
        const auto d = parse_rtl_power_options({ "-f", "1G:1.1g:1M" });
        CPPUNIT_ASSERT(d.lower == 1000000000 && d.upper == 1100000000 && d.interval_s == 10 && d.exit_s == 0);
        CPPUNIT_ASSERT(d.crop == 0 && d.window == "rectangle" && d.o.radio.rtl_power == "-" && d.o.radio.gain.empty());
        CPPUNIT_ASSERT(!d.single && !d.peak_hold && d.device_index.empty() && d.o.radio.settings.empty());
        // An option after the file; -1 is an option, not a file; whole seconds, at least 1; the last -d counts.
        const auto e = parse_rtl_power_options({ "log.csv", "-f", "88M:108M:125k", "-1", "-i", "0.3", "-c", "0.25",
                                                 "-d", "0", "-d", "driver=rtlsdr", "-T", "-D", "-O" });
        CPPUNIT_ASSERT(e.o.radio.rtl_power == "log.csv" && e.single && e.interval_s == 1 && e.crop == 0.25);
        CPPUNIT_ASSERT(e.o.radio.device == "driver=rtlsdr" && e.device_index.empty());
        CPPUNIT_ASSERT_EQUAL(std::size_t(3), e.o.radio.settings.size());
        CPPUNIT_ASSERT(e.o.radio.settings[0].key == "biastee" && e.o.radio.settings[1].key == "direct_samp" &&
                       e.o.radio.settings[2].key == "offset_tune");
        const auto serial = parse_rtl_power_options({ "-f", "88M:108M:125k", "-d", "serial=00000001" });
        CPPUNIT_ASSERT_EQUAL(std::string("serial=00000001"), serial.o.radio.device);
        CPPUNIT_ASSERT_EQUAL(std::string("serial=ABC"),
                             parse_rtl_power_options({ "-f", "88M:108M:125k", "-d", "ABC" }).o.radio.device);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(129600.0, gpufft_app::rtl_power_seconds("1.5d", "-e"), 0);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(5400.0, gpufft_app::rtl_power_seconds("1.5H", "-e"), 0);
        const std::pair<std::vector<std::string>, const char*> bad[] = {
            { {}, "-f lower:upper:bin_size is required" },
            { { "-f" }, "-f needs a value" },
            { { "-f", "88M:108M" }, "-f: expected lower:upper:bin_size" },
            { { "-f", "88X:108M:1k" }, "-f: expected a number" },
            { { "-f", "88M:108M:1k", "-i", "10y" }, "-i: expected seconds" },
            { { "-f", "88M:108M:1k", "-i", "-5" }, "-i: -5 is out of range" },
            { { "-f", "88M:108M:1k", "-e", "nan" }, "-e: expected seconds" },
            { { "-f", "88M:108M:1k", "-e", "-5" }, "-e: -5 is out of range (expected 0 to 1e9 seconds)" },
            { { "-f", "88M:108M:1k", "-c", "-0.1" }, "-c: -0.1 is out of range (expected a fraction from 0" },
            { { "-f", "88M:108M:1k", "-c", "100%" }, "-c: 100% would crop every bin" },
            { { "-f", "88M:108M:1k", "-c", "20%%" }, "-c: expected a fraction" },
            { { "-f", "88M:108M:1k", "-g", "loud" }, "-g: expected a decimal number" },
            { { "-f", "88M:108M:1k", "-p", "1.5" }, "-p: expected a whole number" },
            { { "-f", "88M:108M:1k", "-w", "kaiser" }, "-w: unknown window" },
            { { "-f", "88M:108M:1k", "-F", "9" }, "-F 9: not implemented" },
            { { "-f", "88M:108M:1k", "-s", "avg" }, "-s: rtl_power ignores it" },
            { { "-f", "88M:108M:1k", "-x" }, "unknown option -x" },
            { { "-f", "88M:108M:1k", "--interval", "10" }, "unknown option --interval" },
            { { "-f", "88M:108M:1k", "-d", "" }, "-d: empty" },
            { { "-f", "88M:108M:1k", "a.csv", "b.csv" }, "one output file expected, got 2" },
        };
        for (const auto& [args, expect] : bad) {
            const std::string m = usage_message([&] { parse_rtl_power_options(args); });
            CPPUNIT_ASSERT_MESSAGE(m, m.find(expect) == 0);
        }
        // rtl_power.c's windows, against their formulas in double at a few taps.
        const auto w = [](const char* name, std::size_t n, std::size_t i) {
            return double(gpufft_app::rtl_power_window(name, n)[i]);
        };
        CPPUNIT_ASSERT_DOUBLES_EQUAL(4.0 / 46, w("hamming", 9, 0), 1e-7);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(128.0 / 18608, w("blackman", 9, 8), 1e-7);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(1.0, w("blackman-harris", 9, 4), 1e-7);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(1.0 - 2.0 / 4.5, w("bartlett", 9, 2), 1e-7); // 1 - |2 - 4| / (9 / 2)
        CPPUNIT_ASSERT_DOUBLES_EQUAL(std::exp(-2.0 / 8), w("hann-poisson", 9, 4), 1e-7); // |8 - 1 - 8| / 8
        CPPUNIT_ASSERT_DOUBLES_EQUAL(std::exp(-0.0025 / 8), w("youssef", 9, 4), 1e-7);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(1.0, w("rectangle", 9, 3), 0);
        CPPUNIT_ASSERT(!parse_rtl_power_options({ "-h" }).o.help.empty());
        CPPUNIT_ASSERT(!parse_rtl_power_options({ "--help" }).o.help.empty());
    }

    void driver_over_return()
    {
        const std::string csv = temp_path("over_return.csv");
        const auto [status, out, err] =
            app({ "--device", sim + ",format=CF32,big_return=1000,tones=433.92e6:-50", "--rate", "2.4e6", "--center",
                  "434e6", "--fft", "1024", "--fps", "10", "--duration", "0.5", "--rtl-power", csv, "--png", "none",
                  "--quiet" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
        const std::string warning = "returned 17384 samples for a read of 16384";
        CPPUNIT_ASSERT_MESSAGE(err, err.find(warning) != std::string::npos);
        CPPUNIT_ASSERT_MESSAGE(err, err.find(warning) == err.rfind(warning)); // once
        CPPUNIT_ASSERT_MESSAGE(err, err.find("gpufftsim") != std::string::npos);
        const auto r = read_rtl_power(csv);
        CPPUNIT_ASSERT_EQUAL(std::size_t(1), r.rows); // 0.5 s: one row, the first --interval cut short
        expect_tones(r, { { 433.92e6, -50 } }, 2.4e6 / 1024, 1.0, "big_return");
    }

    /*
     * A device that stops delivering (gpufftsim's timeout_after: every read
     * times out; overflow_always_after: every read reports an overflow) ends
     * the run with exit status 1 and a message naming the device, whether it
     * stops while the capture settles, streams or sweeps (a short
     * --stall-timeout; the test asserts only that each run ended). A sweep
     * whose device only overflows stops at its limit of overflows in a row,
     * settling included. --stall-timeout 0 or below, or without a device, is
     * refused.
     */
    void stalled_device()
    {
        const std::string jsonl = temp_path("stall.jsonl");
        const std::vector<std::string> live = { "--rate", "2.4e6", "--center", "100e6", "--fft", "1024", "--fps", "10",
                                                "--stall-timeout", "0.3", "--png", "none", "--quiet" };
        for (const auto& [fault, says] : { std::pair{ "timeout_after=0", "0 reported an overflow" },
                                           { "timeout_after=500000", "0 reported an overflow" },
                                           { "overflow_always_after=0", "0 reads timed out" },
                                           { "overflow_always_after=500000", "0 reads timed out" } }) {
            for (const char* duration : { "0", "100" }) {
                std::vector<std::string> args = { "--device", sim + ",paced=1," + fault, "--duration", duration };
                args.insert(args.end(), live.begin(), live.end());
                const auto [status, out, err] = app(args);
                const std::string what = std::string(fault) + ", --duration " + duration + ": " + err;
                CPPUNIT_ASSERT_EQUAL_MESSAGE(what, 1, status);
                CPPUNIT_ASSERT_MESSAGE(what, err.find("the device gpufftsim (serial=") != std::string::npos);
                CPPUNIT_ASSERT_MESSAGE(what, err.find("delivered no samples for ") != std::string::npos);
                CPPUNIT_ASSERT_MESSAGE(what, err.find(says) != std::string::npos);
            }
        }
        // A sweep: stalled between hops, or overflowing from the start (while settling).
        const auto [status, out, err] =
            app({ "--device", sim + ",timeout_after=300000", "--sweep", "96M:110M:10k", "--stall-timeout", "0.3",
                  "--png", "none", "--quiet" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 1, status);
        CPPUNIT_ASSERT_MESSAGE(err, err.find("delivered no samples") != std::string::npos);
        const auto [status2, out2, err2] = app({ "--device", sim + ",overflow_always_after=0", "--sweep",
                                                 "96M:110M:10k", "--png", "none", "--quiet" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err2, 1, status2);
        CPPUNIT_ASSERT_MESSAGE(err2, err2.find("dropped samples 20 times in a row while settling") != std::string::npos);

        for (const char* value : { "0", "-1", "nan" }) {
            const auto [s, o, e] = app({ "--device", sim, "--center", "100M", "--stall-timeout", value });
            CPPUNIT_ASSERT_EQUAL_MESSAGE(e, 2, s);
            CPPUNIT_ASSERT_MESSAGE(e, e.find("--stall-timeout") != std::string::npos);
        }
        const auto [s3, o3, e3] = app({ "--demo", "--stall-timeout", "1", "--png", "none" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(e3, 2, s3);
        CPPUNIT_ASSERT_MESSAGE(e3, e3.find("--stall-timeout needs --device") != std::string::npos);
    }

    /*
     * --duration ends by the wall clock too: a device that delivers far fewer
     * samples than its rate says (one per read, as fast as the program reads:
     * not 61.44 MS/s) stops at --duration plus --stall-timeout, with a
     * warning saying how much it delivered, and its outputs written.
     */
    void under_delivering_device()
    {
        const std::string csv = temp_path("under.csv");
        const auto [status, out, err] =
            app({ "--device", sim + ",tiny_reads=1", "--rate", "61.44e6", "--center", "100e6", "--fft", "256",
                  "--frames", "4", "--duration", "0.5", "--stall-timeout", "0.3", "--csv", csv, "--png", "none",
                  "--quiet" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
        CPPUNIT_ASSERT_MESSAGE(err, err.find("warning: the device delivered ") != std::string::npos);
        CPPUNIT_ASSERT_MESSAGE(err, err.find("of the 30720000 samples --duration asks for") != std::string::npos);
        CPPUNIT_ASSERT_MESSAGE(csv, read_text(csv).size() > 1000);
    }

    /*
     * A radio whose samples turn NaN (gpufftsim's nan_after, CF32): they are
     * taken as 0 and counted; the JSON lines of the spectra they touch say
     * how many, the end report the total, as does a sweep's.
     */
    void nan_samples()
    {
        const std::string jsonl = temp_path("nan.jsonl");
        const auto [status, out, err] =
            app({ "--device", sim + ",format=CF32,nan_after=600000,tones=100.1e6:-20", "--rate", "2.4e6", "--center",
                  "100e6", "--fft", "1024", "--overlap", "0", "--frames", "1", "--settle", "0", "--duration", "0.5",
                  "--jsonl", jsonl, "--png", "none", "--quiet" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
        CPPUNIT_ASSERT_MESSAGE(err, err.find("600000 input samples were NaN or infinite") != std::string::npos);
        std::ifstream f(jsonl);
        std::size_t flagged = 0, lines = 0; // the spectra from sample 600000 on: 1024 each, but the first
        for (std::string line; std::getline(f, line); ++lines)
            flagged += nlohmann::json::parse(line).value("nonfinite_samples", std::size_t(0));
        CPPUNIT_ASSERT_EQUAL(std::size_t(1200000 / 1024), lines);
        CPPUNIT_ASSERT_EQUAL(lines * 1024 - 600000, flagged);

        const auto [status2, out2, err2] = app({ "--device", sim + ",format=CF32,nan_after=200000", "--sweep",
                                                 "96M:104M:10k", "--once", "--png", "none", "--quiet" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err2, 0, status2);
        CPPUNIT_ASSERT_MESSAGE(err2, err2.find("input samples were NaN or infinite") != std::string::npos);
    }

    // The front-end options' checks, and the units every time and fraction takes.
    void front_end_options()
    {
        const auto o = gpufft_app::parse_options({ "--device", "driver=x", "--center", "10.95G", "--lnb-offset", "9.75G",
                                                   "--device-setting", "biastee=true", "--device-setting",
                                                   "direct_samp=2", "--bandwidth", "1.5M", "--channel", "1", "--dc",
                                                   "replace", "--alpha", "20%", "--average", "exponential",
                                                   "--stall-timeout", "500ms", "--settle", "50ms", "--overlap", "25%" });
        CPPUNIT_ASSERT(o.radio.lnb_offset == 9.75e9 && o.radio.bandwidth == 1.5e6 && o.radio.channel == 1);
        CPPUNIT_ASSERT(o.radio.settings.size() == 2 && o.radio.settings[1].key == "direct_samp" &&
                       o.radio.settings[1].value == "2");
        CPPUNIT_ASSERT(o.radio.dc == gpufft_app::radio_options::dc_mode::replace);
        CPPUNIT_ASSERT(o.alpha == 0.2 && o.radio.stall_timeout == 0.5 && o.radio.settle == 0.05 && o.overlap == 0.25);
        CPPUNIT_ASSERT_EQUAL(-125e6, gpufft_app::parse_options({ "--device", "x", "--center", "1M", "--lnb-offset",
                                                                 "-125M" })
                                         .radio.lnb_offset);
        const auto swept = gpufft_app::parse_options({ "--device", "x", "--sweep", "1M:2M:1k", "--sweeps", "3" });
        CPPUNIT_ASSERT_EQUAL(std::size_t(3), swept.radio.sweeps);
        CPPUNIT_ASSERT_EQUAL(std::size_t(1),
                             gpufft_app::parse_options({ "--device", "x", "--sweep", "1M:2M:1k", "--once" }).radio.sweeps);
        const std::pair<std::vector<std::string>, const char*> bad[] = {
            { { "--center", "1M", "--lnb-offset", "9.75G" }, "--lnb-offset needs --device" },
            { { "--center", "1M", "--bandwidth", "1M" }, "--bandwidth needs --device" },
            { { "--center", "1M", "--channel", "1" }, "--channel needs --device" },
            { { "--center", "1M", "--device-setting", "a=b" }, "--device-setting needs --device" },
            { { "--device", "x", "--center", "1M", "--device-setting", "biastee" }, "expected KEY=VALUE" },
            { { "--device", "x", "--center", "1M", "--device-setting", "=1" }, "expected KEY=VALUE" },
            { { "--device", "x", "--center", "1M", "--channel", "0.5" }, "whole" },
            { { "--device", "x", "--center", "1M", "--bandwidth", "0" }, "out of range" },
            { { "--device", "x", "--center", "1M", "--lnb-offset", "2e12" }, "out of range" },
            { { "--device", "x", "--center", "1M", "--sweeps", "2" }, "--sweeps needs --sweep" },
            { { "--device", "x", "--sweep", "1M:2M:1k", "--sweeps", "0" }, "out of range" },
            { { "--device", "x", "--sweep", "1M:2M:1k", "--sweeps", "2", "--once" }, "exclude each other" },
            { { "--device", "x", "--center", "1M", "--dc", "shift" }, "--dc shift needs --sweep" },
            { { "--device", "x", "--center", "1M", "--dc", "remove" }, "--dc" },
            { { "--device", "x", "--center", "1M", "--linear" }, "--linear needs --csv" },
            { { "--info" }, "--info needs --device" },
            { { "--info", "--device", "x", "--center", "1M" }, "--center would do nothing" },
            { { "--version", "--demo" }, "--demo would do nothing" },
            { { "--alpha", "150%", "--average", "exponential" }, "out of range" },
        };
        for (const auto& [args, word] : bad) {
            const std::string m = usage_message([&] { gpufft_app::parse_options(args); });
            CPPUNIT_ASSERT_MESSAGE(m + " lacks " + word, m.find(word) != std::string::npos);
        }
    }

    /*
     * --lnb-offset: the device tuned to the sky frequency minus the offset,
     * and every output on the sky side, from the frequency read back: a
     * 9.75 GHz LNB (the sim's tone at 1.2003 GHz is 10.9503 GHz in the sky;
     * asked for 10.9501 GHz, its synthesizer's 1 MHz steps give 10.95 GHz)
     * in the report, the peaks, the JSON lines, the CSV's bins and the
     * recording's core:frequency (the offset beside it); an upconverter's
     * -125 MHz in a sweep's rtl_power rows; a sky frequency the device cannot
     * reach refused naming the offset.
     */
    void lnb_offset()
    {
        const std::string rec = temp_path("lnb"), jsonl = temp_path("lnb.jsonl"), csv = temp_path("lnb.csv");
        const auto [status, out, err] =
            app({ "--device", sim + ",format=CF32,tune_step=1e6,tones=1200.3e6:-30", "--lnb-offset", "9.75G", "--center",
                  "10.9501G", // the synthesizer tunes to 1.2 GHz: read back, 10.95 GHz in the sky
                  "--fft", "1024", "--duration", "0.2", "--png", "none", "--peaks", "1", "--record", rec, "--jsonl",
                  jsonl, "--csv", csv, "--quiet" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
        CPPUNIT_ASSERT_MESSAGE(err, err.find("asked for a frequency of 10.9501 GHz, the device has 10.95 GHz") !=
                                        std::string::npos);
        CPPUNIT_ASSERT_MESSAGE(out, out.find("LNB offset 9.75 GHz (frequencies on the sky side), centre 10.95 GHz") !=
                                        std::string::npos);
        CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(out, 10950.3e6, first_peak(out).first, 2.4e6 / 1024);
        const auto line = first_line(jsonl);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(10.95e9, line["center_hz"].get<double>(), 1e-3);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(10.95e9 - 1.2e6, line["f0_hz"].get<double>(), 1e-3);
        const std::string header = read_text(csv).substr(0, 200);
        CPPUNIT_ASSERT_MESSAGE(header, header.find(",center_hz,10948800000.000,") != std::string::npos);
        const auto meta = nlohmann::json::parse(read_text(rec + ".sigmf-meta"));
        CPPUNIT_ASSERT_DOUBLES_EQUAL(10.95e9, meta["captures"][0]["core:frequency"].get<double>(), 1e-3);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(9.75e9, meta["global"]["gpufft:lnb_offset_hz"].get<double>(), 1e-3);

        const std::string rows = temp_path("upconverter.csv");
        const auto [sweep_status, sweep_out, sweep_err] =
            app({ "--device", sim + ",tones=225.1e6:-30", "--lnb-offset", "-125M", "--sweep", "99M:101M:10k",
                  "--once", "--rtl-power", rows, "--png", "none", "--quiet" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(sweep_err, 0, sweep_status);
        const auto r = read_rtl_power(rows);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(99e6, r.bins.front().first, 1);
        expect_tones(r, { { 100.1e6, -30 } }, 9375, 1.0, "upconverter");

        const auto [far, far_out, far_err] = app({ "--device", sim, "--lnb-offset", "9.75G", "--center", "100M",
                                                   "--png", "none" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(far_err, 2, far);
        CPPUNIT_ASSERT_MESSAGE(far_err, far_err.find("(--lnb-offset 9.75 GHz) is outside the device's range, "
                                                     "9.751 GHz to 15.75 GHz") != std::string::npos);
        const auto [low, low_out, low_err] = app({ "--device", sim, "--lnb-offset", "9.75G", "--sweep", "99M:101M:10k",
                                                   "--once", "--png", "none" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(low_err, 2, low);
        CPPUNIT_ASSERT_MESSAGE(low_err, low_err.find("9.751 GHz to 15.75 GHz with --lnb-offset 9.75 GHz") !=
                                            std::string::npos);
    }

    /*
     * --device-setting: checked against the device's getSettingInfo before
     * any is written, then read back into the report and the recording's
     * core:hw; an unknown key is refused listing the device's keys, a value
     * outside a setting's options or a bool's true/false too (exit 2).
     */
    void device_settings()
    {
        const std::string rec = temp_path("settings");
        const auto [status, out, err] =
            app({ "--device", sim, "--center", "100M", "--device-setting", "biastee=true", "--device-setting",
                  "direct_samp=2", "--fft", "1024", "--duration", "0.05", "--png", "none", "--record", rec, "--quiet" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
        CPPUNIT_ASSERT_MESSAGE(out, out.find("biastee=true, direct_samp=2") != std::string::npos);
        CPPUNIT_ASSERT_MESSAGE(err, err.empty());
        CPPUNIT_ASSERT(read_text(rec + ".sigmf-meta").find("biastee=true, direct_samp=2") != std::string::npos);
        const std::pair<const char*, const char*> bad[] = {
            { "bias_t=true", "no \"bias_t\" setting (it has: biastee, direct_samp, offset_tune)" },
            { "direct_samp=5", "direct_samp=5: the device takes 0, 1, 2" },
            { "offset_tune=yes", "offset_tune=yes: expected true or false" },
        };
        for (const auto& [setting, message] : bad) {
            const auto [code, o2, e2] =
                app({ "--device", sim, "--center", "100M", "--device-setting", setting, "--png", "none" });
            CPPUNIT_ASSERT_EQUAL_MESSAGE(e2, 2, code);
            CPPUNIT_ASSERT_MESSAGE(e2, e2.find(message) != std::string::npos);
        }
    }

    /*!
     * The bins of the first spectrum of a live capture of the sim (1024 bins
     * at 2.4 MS/s, centre 100 MHz), and the report with the JSON line's other members.
     */
    static std::pair<std::vector<double>, std::string> first_spectrum(const std::string& device,
                                                                      std::vector<std::string> extra)
    {
        const std::string jsonl = temp_path("first.jsonl");
        std::vector<std::string> args{ "--device", device, "--center", "100M", "--fft", "1024", "--frames", "8",
                                       "--duration", "0.05", "--jsonl", jsonl, "--png", "none", "--quiet" };
        args.insert(args.end(), extra.begin(), extra.end());
        const auto [status, out, err] = app(args);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
        auto line = first_line(jsonl);
        const auto values = line[line.contains("db") ? "db" : "power"].get<std::vector<double>>();
        line.erase("db"), line.erase("power"); // the report and the line's other members, for the messages
        return { values, out + line.dump() };
    }

    /*
     * --bandwidth (read back) narrows what the sim hears: a tone 0.9 MHz off
     * centre is gone with 1 MHz, there without; out of the device's range is
     * refused. --channel 1 streams the sim's second receiver; channel 2 is
     * refused naming the count.
     */
    void bandwidth_and_channel()
    {
        const std::string two_tones = sim + ",format=CF32,tones=100.1e6:-30;100.9e6:-30,tones1=100.5e6:-40";
        const std::size_t near = 512 + 43, far = 512 + 384, other = 512 + 213; // 100.1, 100.9 and 100.5 MHz
        const auto [wide, wide_text] = first_spectrum(two_tones, {});
        CPPUNIT_ASSERT_MESSAGE(wide_text, highest(wide, far - 1, far + 1) > -31);
        const auto [narrow, narrow_text] = first_spectrum(two_tones, { "--bandwidth", "1M" });
        CPPUNIT_ASSERT_MESSAGE(narrow_text, narrow_text.find("bandwidth 1 MHz") != std::string::npos);
        CPPUNIT_ASSERT_MESSAGE(narrow_text, highest(narrow, near - 1, near + 1) > -31);
        CPPUNIT_ASSERT_MESSAGE(narrow_text, highest(narrow, far - 1, far + 1) < -80);
        const auto [range, o1, range_err] =
            app({ "--device", sim, "--center", "100M", "--bandwidth", "100k", "--png", "none" });
        CPPUNIT_ASSERT_MESSAGE(range_err, range == 2 && range_err.find("--bandwidth 100 kHz is outside the device's "
                                                                       "range, 200 kHz to 56 MHz") != std::string::npos);

        const auto [second, second_text] = first_spectrum(two_tones, { "--channel", "1" });
        CPPUNIT_ASSERT_MESSAGE(second_text, second_text.find("channel 1") != std::string::npos);
        CPPUNIT_ASSERT_MESSAGE(second_text, highest(second, other - 1, other + 1) > -41.5);
        CPPUNIT_ASSERT_MESSAGE(second_text, highest(second, near - 1, near + 1) < -80);
        const auto [none, o2, none_err] = app({ "--device", sim, "--center", "100M", "--channel", "2", "--png", "none" });
        CPPUNIT_ASSERT_MESSAGE(none_err, none == 2 && none_err.find("--channel 2: the device has 2 RX channels (0 to 1)") !=
                                                          std::string::npos);
    }

    //! --sweeps N: N whole sweeps, each a row per hop with its own time, then exit.
    void sweep_count()
    {
        const std::string csv = temp_path("sweeps.csv");
        const auto [status, out, err] = app({ "--device", sim, "--sweep", "99M:101M:10k", "--sweeps", "3", "--rtl-power",
                                              csv, "--png", "none", "--quiet" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
        const std::size_t hops = gpufft_app::plan_sweep({ 99e6, 101e6, 1e4 }, 2.4e6, 0.25).centers.size();
        CPPUNIT_ASSERT_EQUAL(3 * hops, read_rtl_power(csv).rows);
        CPPUNIT_ASSERT_MESSAGE(out, out.find("sweep: 3 sweeps,") != std::string::npos);
    }

    /*
     * --dc replace on the sim's -20 dBFS DC offset: without it the centre
     * bin reads the offset; with it the bins of the window's main lobe
     * around the centre read the noise floor's level (within 6 dB of the
     * median), the JSON line names them, and a tone nearby is untouched; in
     * a sweep without crop, no hop's centre shows a spike. The main lobe
     * is measured from the window: 1 bin rectangular, 4 blackmanharris.
     */
    void dc_replace()
    {
        gpufft_app::options o;
        CPPUNIT_ASSERT_EQUAL(std::size_t(4), gpufft_app::dc_lobe_bins(o, 1024));
        o.window = "rectangular";
        CPPUNIT_ASSERT_EQUAL(std::size_t(1), gpufft_app::dc_lobe_bins(o, 1024));
        o.window = "hann";
        CPPUNIT_ASSERT_EQUAL(std::size_t(2), gpufft_app::dc_lobe_bins(o, 1024));

        const std::string dc = sim + ",format=CF32,dc=-20,noise=-60,tones=100.1e6:-30";
        const auto [spiked, spiked_text] = first_spectrum(dc, {});
        CPPUNIT_ASSERT_MESSAGE(spiked_text, spiked[512] > -21);
        const auto [clean, clean_text] = first_spectrum(dc, { "--dc", "replace" });
        const double floor = median(clean);
        CPPUNIT_ASSERT_MESSAGE(clean_text, highest(clean, 500, 524) < floor + 6);
        CPPUNIT_ASSERT_MESSAGE(clean_text, highest(clean, 553, 557) > -31);
        CPPUNIT_ASSERT_MESSAGE(clean_text, clean_text.find("\"dc_replaced_hz\":[99992968.75,100007031.25]") !=
                                               std::string::npos); // bins 509 to 515: the centre and 3 each side

        const std::string csv = temp_path("dc_sweep.csv");
        const auto [status, out, err] = app({ "--device", dc, "--sweep", "99M:103M:10k", "--crop", "0", "--dc",
                                              "replace", "--once", "--rtl-power", csv, "--png", "none", "--quiet" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
        CPPUNIT_ASSERT_MESSAGE(out, out.find("dc: bins 125 to 131 of each hop") != std::string::npos);
        const auto r = read_rtl_power(csv);
        const double sweep_floor = median_db(r);
        for (const auto& [hz, db] : r.bins)
            if (std::abs(hz - 100.1e6) > 5e4)
                CPPUNIT_ASSERT_MESSAGE(std::to_string(hz) + " Hz reads " + std::to_string(db), db < sweep_floor + 10);
        expect_tones(r, { { 100.1e6, -30 } }, 9375, 1.0, "dc replace");
    }

    /*
     * --dc shift: each hop tuned below its kept bins so the sim's DC offset
     * falls in the crop; the band reads its tone where it is and no spike,
     * where the same sweep unshifted shows the offset at every hop's centre.
     * A crop leaving no room is refused, naming the crop needed.
     */
    void dc_shift()
    {
        const std::string dc = sim + ",dc=-20,noise=-60,tones=100.1e6:-30";
        const auto spike = [&](const std::vector<std::string>& extra) {
            const std::string csv = temp_path("dc_shift.csv");
            std::vector<std::string> args{ "--device", dc, "--sweep", "99M:102M:10k", "--crop", "0.6", "--once",
                                           "--rtl-power", csv, "--png", "none", "--quiet" };
            args.insert(args.end(), extra.begin(), extra.end());
            const auto [status, out, err] = app(args);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
            const auto r = read_rtl_power(csv);
            expect_tones(r, { { 100.1e6, -30 } }, 9375, 1.0, "dc shift");
            double worst = -300;
            for (const auto& [hz, db] : r.bins)
                if (std::abs(hz - 100.1e6) > 5e4)
                    worst = std::max(worst, db - median_db(r));
            return std::pair{ worst, out };
        };
        const auto [unshifted, o1] = spike({});
        CPPUNIT_ASSERT_MESSAGE(o1, unshifted > 40);
        const auto [shifted, o2] = spike({ "--dc", "shift" });
        CPPUNIT_ASSERT_MESSAGE(o2 + std::to_string(shifted), shifted < 10);
        CPPUNIT_ASSERT_MESSAGE(o2, o2.find("dc: each hop tuned") != std::string::npos);
        const auto [status, out, err] = app({ "--device", dc, "--sweep", "99M:102M:10k", "--dc", "shift", "--once",
                                              "--png", "none", "--quiet" });
        CPPUNIT_ASSERT_MESSAGE(err, status == 2 && err.find("only with --crop 51.6% or more") != std::string::npos);
    }

    /*
     * --info: what the sim reports, as text, exit 0; with --lnb-offset its
     * sky range too: from 0 Hz up where an upconverter's offset puts the
     * device's lowest below it (said on the line), refused (exit 2) where
     * it puts all of them there.
     */
    void device_info()
    {
        const auto [status, out, err] = app({ "--info", "--device", sim, "--lnb-offset", "9.75G" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
        for (const char* line :
             { "driver: gpufftsim\n", "serial: sim0\n", "RX channels: 2\n", "biastee = false", "direct_samp = 0 (one of 0, 1, 2)",
               "channel 1:\n", "sample rates: 100 kHz to 61.44 MHz\n", "frequencies: 1 MHz to 6 GHz\n",
               "sky frequencies (--lnb-offset 9.75 GHz): 9.751 GHz to 15.75 GHz\n", "LNA: 0 dB to 40 dB (step 1 dB)\n",
               "VGA: 0 dB to 30 dB (step 1 dB)\n", "bandwidths: 200 kHz to 56 MHz\n", "antennas: RX, TEST\n",
               "native CS16, full scale 2048" })
            CPPUNIT_ASSERT_MESSAGE(std::string(line) + " not in " + out, out.find(line) != std::string::npos);
        const auto [up, up_out, up_err] = app({ "--info", "--device", sim, "--lnb-offset", "-125M" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(up_err, 0, up);
        const std::string sky = "sky frequencies (--lnb-offset -125 MHz): 0 Hz to 5.875 GHz (from 0 Hz: the device's "
                                "lowest, 1 MHz, is -124 MHz on the sky side)\n";
        CPPUNIT_ASSERT_MESSAGE(up_out, up_out.find(sky) != std::string::npos);
        const auto [none, none_out, none_err] = app({ "--info", "--device", sim, "--lnb-offset", "-7G" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(none_err, 2, none);
        CPPUNIT_ASSERT_MESSAGE(none_err, none_err.find("--lnb-offset -7 GHz: the device's frequencies, 1 MHz to 6 GHz, "
                                                       "are all below 0 Hz on the sky side") != std::string::npos);
    }

    //! --version: the program's and the library's version and every backend built in.
    void version()
    {
        const auto [status, out, err] = app({ "--version" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
        CPPUNIT_ASSERT_MESSAGE(out, out.find(std::string("gpufft-spectrum ") + gpufft::version() + " (gr-gpufft)\n") == 0);
        CPPUNIT_ASSERT_MESSAGE(out, out.find(std::string("\nlibgpufft ") + gpufft::version() + "\n") != std::string::npos);
        for (const auto& b : gpufft::backends()) {
            CPPUNIT_ASSERT_MESSAGE(out, out.find("  " + b.name + ": ") != std::string::npos);
            // A device index alone says nothing: the device's name and driver, as read from it, follow.
            if (b.device_api == "opencl" && b.usable) {
                const std::string line = out.substr(out.find("  " + b.name + ": "));
                CPPUNIT_ASSERT_MESSAGE(out, line.find("variants " + b.variants.front() + " (") != std::string::npos &&
                                                line.find(", driver ") < line.find('\n'));
            }
        }
    }

    //! --linear: the -30 dBFS tone reads 1e-3 (within 1 dB) in every file output, each labelled.
    void linear_power()
    {
        const std::string csv = temp_path("linear.csv"), rows = temp_path("linear_rows.csv");
        const auto [power, text] =
            first_spectrum(sim + ",format=CF32,tones=100.1e6:-30", { "--linear", "--csv", csv, "--rtl-power", rows });
        CPPUNIT_ASSERT_MESSAGE(text, text.find("\"power_scale\":\"tone power, linear, full-scale tone = 1\"") !=
                                         std::string::npos); // the line's values are "power"
        CPPUNIT_ASSERT_MESSAGE(text, text.find("\"db_scale\"") == std::string::npos);
        const double tone = highest(power, 553, 557);
        CPPUNIT_ASSERT_MESSAGE(text, tone > 0.79e-3 && tone < 1.26e-3);
        CPPUNIT_ASSERT_MESSAGE(read_text(csv).substr(0, 100),
                               read_text(csv).find("time_s (values: tone power, linear, full-scale tone = 1),") == 0);
        double best = 0;
        for (const auto& [hz, value] : read_rtl_power(rows).bins)
            best = std::max(best, value);
        CPPUNIT_ASSERT_MESSAGE(std::to_string(best), best > 0.79e-3 && best < 1.26e-3);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_spectrum_radio);

int main(int argc, char** argv)
{
    CppUnit::TextTestRunner runner;
    CppUnit::Test* all = CppUnit::TestFactoryRegistry::getRegistry().makeTest();
    if (argc == 1)
        runner.addTest(all);
    for (int i = 1; i < argc; ++i) // tests named on the command line (the suite keeps owning them)
        runner.addTest(all->findTest(std::string("qa_spectrum_radio::") + argv[i]));
    const bool ok = runner.run("", false, true, false);
    std::filesystem::remove_all(temp_path(""));
    return ok ? 0 : 1;
}
