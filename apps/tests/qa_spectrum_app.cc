// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-spectrum's suite: options, SigMF, the PNG, CSV/JSON lines and peaks
 * through its functions, and the program in subprocesses for what only a
 * process shows (signals, a closed pipe, memory on a long stream).
 *
 *   qa_spectrum_app [TEST...]    default: the whole spectrum_app suite
 *
 * Random data is fresh each run; GPUFFT_TEST_SEED reproduces one. */
#include "spectrum/app.h"
#include "spectrum/persistence.h"
#include "spectrum/plot.h"
#include "qa_common.h"

#include <nlohmann/json.hpp>
#include <png.h>
#include <cppunit/TextTestRunner.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cppunit/extensions/TestFactoryRegistry.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <functional>
#include <random>
#include <sstream>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <tuple>
#include <unistd.h>

namespace {

using gpufft::sample_format;
using gpufft::spectrum;
using gpufft::spectrum_config;

std::string temp_dir()
{
    static const std::string dir = [] {
        char tmpl[] = "/tmp/qa_spectrum_app_XXXXXX";
        const char* d = mkdtemp(tmpl);
        CPPUNIT_ASSERT_MESSAGE("mkdtemp failed", d);
        return std::string(d);
    }();
    return dir;
}

std::string write_file(const std::string& name, const std::string& bytes)
{
    const std::string path = temp_dir() + "/" + name;
    std::FILE* f = std::fopen(path.c_str(), "wb");
    CPPUNIT_ASSERT_MESSAGE(path, f);
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
    return path;
}

std::string read_file(const std::string& path)
{
    std::string s;
    if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
        char buf[4096];
        std::size_t got;
        while ((got = std::fread(buf, 1, sizeof buf, f)) > 0)
            s.append(buf, got);
        std::fclose(f);
    }
    return s;
}

//! Names in a directory that start with `prefix`.
std::vector<std::string> names_starting(const std::string& dir, const std::string& prefix)
{
    std::vector<std::string> out;
    if (DIR* d = ::opendir(dir.c_str())) {
        while (const dirent* e = ::readdir(d))
            if (std::string(e->d_name).rfind(prefix, 0) == 0)
                out.push_back(e->d_name);
        ::closedir(d);
    }
    return out;
}

//! Decodes a PNG with libpng; returns {width, height}, {0, 0} if invalid.
std::pair<unsigned, unsigned> decode_png(const std::string& path)
{
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f)
        return { 0, 0 };
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    png_infop info = png_create_info_struct(png);
    std::pair<unsigned, unsigned> size{ 0, 0 };
    if (setjmp(png_jmpbuf(png)) == 0) {
        png_init_io(png, f);
        png_read_png(png, info, PNG_TRANSFORM_IDENTITY, nullptr); // checks every CRC and row
        if (png_get_color_type(png, info) == PNG_COLOR_TYPE_RGB && png_get_bit_depth(png, info) == 8)
            size = { png_get_image_width(png, info), png_get_image_height(png, info) };
    }
    png_destroy_read_struct(&png, &info, nullptr);
    std::fclose(f);
    return size;
}

//! An 8-bit RGB PNG's pixels, row by row; empty if it is not one.
struct rgb_image {
    unsigned width = 0, height = 0;
    std::vector<unsigned char> px;
    const unsigned char* at(unsigned x, unsigned y) const { return px.data() + 3 * (std::size_t(y) * width + x); }
};
rgb_image decode_rgb(const std::string& path)
{
    rgb_image img;
    const auto [w, h] = decode_png(path);
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f || !w)
        return f ? (std::fclose(f), img) : img;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png)) == 0) {
        png_init_io(png, f);
        png_read_png(png, info, PNG_TRANSFORM_IDENTITY, nullptr);
        png_bytepp rows = png_get_rows(png, info);
        img.width = w, img.height = h;
        for (unsigned y = 0; y < h; ++y)
            img.px.insert(img.px.end(), rows[y], rows[y] + 3 * w);
    }
    png_destroy_read_struct(&png, &info, nullptr);
    std::fclose(f);
    return img;
}

//! Whether img shows text s, in white on black, with its top-left corner at
//! (x, y), every character drawn (the font has no blank glyph for it).
bool shows_text(const rgb_image& img, int x, int y, const std::string& s)
{
    gpufft_app::image want(gpufft_app::text_width(s), gpufft_app::text_height);
    const unsigned char white[3] = { 255, 255, 255 };
    want.text(0, 0, s, white);
    const int char_w = gpufft_app::text_width("00") - gpufft_app::text_width("0");
    for (int k = 0; k < int(s.size()); ++k) {
        bool drawn = false;
        for (int r = 0; r < want.height(); ++r)
            for (int c = k * char_w; c < std::min(want.width(), (k + 1) * char_w); ++c)
                drawn = drawn || want.row(r)[3 * c] != 0;
        if (!drawn)
            return false;
    }
    for (int r = 0; r < want.height(); ++r)
        for (int c = 0; c < want.width(); ++c) {
            if (unsigned(x + c) >= img.width || unsigned(y + r) >= img.height ||
                std::memcmp(img.at(unsigned(x + c), unsigned(y + r)), want.row(r) + 3 * c, 3) != 0)
                return false;
        }
    return true;
}

//! The viridis position t of a pixel (nearest of 1001 samples), or -1 if no viridis colour is that close.
double viridis_t(const unsigned char* rgb)
{
    double best = -1;
    int best_d = 12; // a trace or the black background is farther than this from every sample
    for (int i = 0; i <= 1000; ++i) {
        unsigned char c[3];
        gpufft_app::colormap(i / 1000.0, c);
        const int d = std::abs(c[0] - rgb[0]) + std::abs(c[1] - rgb[1]) + std::abs(c[2] - rgb[2]);
        if (d < best_d)
            best_d = d, best = i / 1000.0;
    }
    return best;
}

//! Runs the program in this process; returns its exit status.
int app(std::vector<std::string> args) { return gpufft_app::run(args); }

//! The program in a subprocess: its standard input, output and error are files or pipes given here.
struct child {
    pid_t pid = -1;
    rusage usage{}; //!< its resources, once it ended

    child(const std::vector<std::string>& args, int in_fd, int out_fd, int err_fd)
    {
        pid = ::fork();
        CPPUNIT_ASSERT(pid >= 0);
        if (pid == 0) {
            for (auto [from, to] : { std::pair{ in_fd, 0 }, { out_fd, 1 }, { err_fd, 2 } })
                if (from >= 0)
                    ::dup2(from, to);
            std::vector<char*> argv{ const_cast<char*>(GPUFFT_SPECTRUM_EXE) };
            for (const auto& a : args)
                argv.push_back(const_cast<char*>(a.c_str()));
            argv.push_back(nullptr);
            ::execv(argv[0], argv.data());
            ::_exit(127);
        }
    }

    //! The exit status (128 + N if killed by signal N); kills it and fails after `seconds`.
    int wait(double seconds = 60)
    {
        const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
        int status = 0;
        while (::wait4(pid, &status, WNOHANG, &usage) == 0) {
            if (std::chrono::steady_clock::now() > end) {
                ::kill(pid, SIGKILL);
                ::waitpid(pid, &status, 0);
                CPPUNIT_FAIL("gpufft-spectrum did not end in time");
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
};

//! Runs the program with standard input from `input_path` ("" for /dev/null); returns {status, stdout, stderr}.
std::tuple<int, std::string, std::string> run_exe(const std::vector<std::string>& args,
                                                  const std::string& input_path = "")
{
    const std::string out = temp_dir() + "/stdout.txt", err = temp_dir() + "/stderr.txt";
    const int in_fd = ::open(input_path.empty() ? "/dev/null" : input_path.c_str(), O_RDONLY);
    const int out_fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err_fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    child c(args, in_fd, out_fd, err_fd);
    ::close(in_fd), ::close(out_fd), ::close(err_fd);
    const int status = c.wait();
    return { status, read_file(out), read_file(err) };
}

std::string sigmf_meta(const std::string& datatype, const std::string& rate = "1.0e5",
                       const std::string& frequency = "4.33e8")
{
    return R"({"global": {"core:datatype": ")" + datatype + R"(", "core:sample_rate": )" + rate +
           R"(, "core:version": "1.0.0", "core:description": "t\u00e9st \"q\""},
               "captures": [{"core:sample_start": 0, "core:frequency": )" +
           frequency + R"(}], "annotations": []})";
}

template <typename E>
void expect_throw(const std::string& what, const std::function<void()>& fn, const std::string& word)
{
    try {
        fn();
    } catch (const E& e) {
        CPPUNIT_ASSERT_MESSAGE(what + ": \"" + e.what() + "\" does not name " + word,
                               std::string(e.what()).find(word) != std::string::npos);
        return;
    }
    CPPUNIT_FAIL(what + ": did not throw the expected error");
}

//! cu8 samples of a complex tone at `cycles_per_sample`, amplitude `amp` of full scale.
std::string cu8_tone(std::size_t samples, double cycles_per_sample, double amp)
{
    std::string data(2 * samples, '\0');
    for (std::size_t i = 0; i < samples; ++i) {
        data[2 * i] = char(std::lround(127.5 + 127.5 * amp * std::cos(2 * M_PI * cycles_per_sample * double(i))));
        data[2 * i + 1] = char(std::lround(127.5 + 127.5 * amp * std::sin(2 * M_PI * cycles_per_sample * double(i))));
    }
    return data;
}

//! cu8 samples of f(i), a complex value of full scale 1 (clipped).
std::string cu8_of(std::size_t samples, const std::function<std::complex<double>(std::size_t)>& f)
{
    std::string data(2 * samples, '\0');
    const auto byte = [](double v) { return char(std::lround(std::clamp(127.5 + 127.5 * v, 0.0, 255.0))); };
    for (std::size_t i = 0; i < samples; ++i) {
        const auto v = f(i);
        data[2 * i] = byte(v.real()), data[2 * i + 1] = byte(v.imag());
    }
    return data;
}

//! Waits until the program has read everything written to `w` and waits in poll() for more.
void wait_until_waiting(int w, pid_t pid)
{
    for (int tries = 0; tries < 400; ++tries) {
        int unread = -1;
        ::ioctl(w, FIONREAD, &unread);
        if (unread == 0 && read_file("/proc/" + std::to_string(pid) + "/wchan").find("poll") != std::string::npos)
            return;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

//! An ISO 8601 UTC time as the outputs write it: 2026-11-24T20:31:05.123456Z.
bool is_iso_utc(const std::string& t)
{
    const char* shape = "dddd-dd-ddTdd:dd:dd.ddddddZ";
    if (t.size() != std::strlen(shape))
        return false;
    for (std::size_t i = 0; i < t.size(); ++i)
        if (shape[i] == 'd' ? !std::isdigit(static_cast<unsigned char>(t[i])) : t[i] != shape[i])
            return false;
    return true;
}

std::vector<std::string> lines_of(const std::string& text)
{
    std::vector<std::string> out;
    std::istringstream s(text);
    for (std::string line; std::getline(s, line);)
        out.push_back(line);
    return out;
}

class qa_spectrum_app : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_spectrum_app);
    CPPUNIT_TEST(options_parse);
    CPPUNIT_TEST(options_ranges);
    CPPUNIT_TEST(sigmf);
    CPPUNIT_TEST(sigmf_bad_values);
    CPPUNIT_TEST(sigmf_missing_fields);
    CPPUNIT_TEST(raw_missing_settings);
    CPPUNIT_TEST(options_unused);
    CPPUNIT_TEST(bad_files);
    CPPUNIT_TEST(png_size);
    CPPUNIT_TEST(huge_center);
    CPPUNIT_TEST(csv_and_peaks);
    CPPUNIT_TEST(db_scale);
    CPPUNIT_TEST(waterfall_bounded);
    CPPUNIT_TEST(persistence_view);
    CPPUNIT_TEST(memory_on_stream);
    CPPUNIT_TEST(write_errors);
    CPPUNIT_TEST(output_names_input);
    CPPUNIT_TEST(no_partial_outputs);
    CPPUNIT_TEST(rows_as_they_come);
    CPPUNIT_TEST(shared_outputs);
    CPPUNIT_TEST(annotate_keeps_other_metadata);
    CPPUNIT_TEST(signals);
    CPPUNIT_TEST(closed_stdout);
    CPPUNIT_TEST(si_suffixes);
    CPPUNIT_TEST(strict_numbers);
    CPPUNIT_TEST(time_and_fraction_units);
    CPPUNIT_TEST(window_parameters);
    CPPUNIT_TEST(sigmf_bad_datetime);
    CPPUNIT_TEST(sigmf_dataset_not_a_file);
    CPPUNIT_TEST(utc_times);
    CPPUNIT_TEST(format_from_name);
    CPPUNIT_TEST(outputs_to_stdout);
    CPPUNIT_TEST(timestamps);
    CPPUNIT_TEST(rtl_power_signal_time);
    CPPUNIT_TEST(arrival_times);
    CPPUNIT_TEST(multi_capture);
    CPPUNIT_TEST(record_round_trip);
    CPPUNIT_TEST(annotate);
    CPPUNIT_TEST(interrupted_recording);
    CPPUNIT_TEST(record_errors);
    CPPUNIT_TEST(record_split_reads);
    CPPUNIT_TEST(size_against_input);
    CPPUNIT_TEST(non_finite_input);
    CPPUNIT_TEST(realtime_pace);
    CPPUNIT_TEST(loop_wraps);
    CPPUNIT_TEST(loop_until_stopped);
    CPPUNIT_TEST(playback_refused);
    CPPUNIT_TEST_SUITE_END();

public:
    // Every option keeps its meaning; --opt=value and negative values work.
    void options_parse()
    {
        const auto o = gpufft_app::parse_options({ "in.cu8", "--format=cs16", "--rate", "1e6", "--center=-5e3",
                                                   "--fft", "4096", "--overlap", "0.25", "--window", "kaiser:8.6",
                                                   "--average", "exponential", "--alpha", "0.5", "--fps", "10",
                                                   "--db-min", "-100", "--db-max=-10", "--png", "none",
                                                   "--width", "300", "--height", "200", "--csv", "a.csv",
                                                   "--jsonl", "b.jsonl", "--peaks", "3", "--peak-threshold", "6",
                                                   "--quiet", "--backend", "simd", "--persistence", "p.png" });
        CPPUNIT_ASSERT_EQUAL(std::string("in.cu8"), o.input);
        CPPUNIT_ASSERT(o.format == "cs16" && o.format_set && o.rate_set && o.center_set && o.fps_set);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(1e6, o.rate, 0);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(-5e3, o.center, 0);
        CPPUNIT_ASSERT_EQUAL(std::size_t(4096), o.fft);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(0.25, o.overlap, 0);
        CPPUNIT_ASSERT(o.window == "kaiser" && o.window_param == 8.6);
        CPPUNIT_ASSERT(o.average == "exponential" && o.alpha == 0.5 && o.fps == 10);
        CPPUNIT_ASSERT(o.db_min == -100 && o.db_max == -10);
        CPPUNIT_ASSERT(o.png == "none" && o.csv == "a.csv" && o.jsonl == "b.jsonl");
        CPPUNIT_ASSERT(o.width == 300 && o.height == 200 && o.peaks == 3 && o.peak_threshold == 6);
        CPPUNIT_ASSERT(o.progress == 0 && o.backend == "simd" && o.persistence == "p.png");
        const auto d = gpufft_app::parse_options({});
        CPPUNIT_ASSERT(d.input == "-" && d.fft == 2048 && d.png == "waterfall.png" && !d.rate_set);
        CPPUNIT_ASSERT(d.persistence.empty() && gpufft_app::parse_options({ "--persistence", "none" }).persistence.empty());
        CPPUNIT_ASSERT(std::isnan(d.window_param) && d.frames == 0);
        CPPUNIT_ASSERT_EQUAL(std::string("-"), gpufft_app::parse_options({ "-", "--quiet" }).input);
        CPPUNIT_ASSERT_EQUAL(std::size_t(7), gpufft_app::parse_options({ "--frames", "7" }).frames);
        const auto h = gpufft_app::parse_options({ "--help" });
        CPPUNIT_ASSERT_EQUAL(std::string("b"), gpufft_app::parse_options({ "--png", "a", "--png=b" }).png);
        for (const char* word : { "--rate", "--frames", "--peak-threshold", "Exit status", "130", "dBFS" })
            CPPUNIT_ASSERT_MESSAGE(word, h.help.find(word) != std::string::npos);
        // Rows go to the named file as measured (docs/receiver.md, "What is on disk when"):
        // the help must not say every output is renamed into place at the end.
        CPPUNIT_ASSERT_MESSAGE(h.help, h.help.find("Outputs are written under a temporary name") == std::string::npos);
        CPPUNIT_ASSERT_MESSAGE(h.help, h.help.find("rows (--csv, --jsonl, --rtl-power) are written to the named file as") !=
                                           std::string::npos);
    }

    // Each bad value is a usage error (exit status 2) naming its option.
    void options_ranges()
    {
        const std::pair<std::vector<std::string>, const char*> bad[] = {
            { { "--rate", "1e300" }, "--rate" },       { { "--rate", "0" }, "--rate" },
            { { "--rate", "-1" }, "--rate" },          { { "--rate", "nan" }, "--rate" },
            { { "--rate", "inf" }, "--rate" },         { { "--rate", "1e999" }, "--rate" },
            { { "--fps", "1e-300" }, "--fps" },        { { "--fps", "0" }, "--fps" },
            { { "--center", "1e22" }, "--center" },    { { "--fft", "0" }, "--fft" },
            { { "--fft", "1e9" }, "--fft" },           { { "--fft", "12.5" }, "--fft" },
            { { "--overlap", "0.95" }, "--overlap" },  { { "--alpha", "0" }, "--alpha" },
            { { "--alpha", "2" }, "--alpha" },         { { "--frames", "0" }, "--frames" },
            { { "--frames", "1e300" }, "--frames" },   { { "--width", "1e6" }, "--width" },
            { { "--height", "-1" }, "--height" },      { { "--peaks", "x" }, "--peaks" },
            { { "--db-min", "1e300" }, "--db-min" },   { { "--window", "kaiser:x" }, "--window" },
            { { "--window", "kaiser:1e300" }, "--window" }, { { "--format", "cs12" }, "--format" },
            { { "--average", "median" }, "--average" }, { { "--no-such-option" }, "--no-such-option" },
            { { "--rate" }, "--rate" },                { { "a", "b" }, "b" },
            { { "--db-min", "0", "--db-max", "-1" }, "--db-min" },
            { { "--window", "nope" }, "--window" },    { { "--backend", "cuda" }, "--backend" },
            { { "--backend", "" }, "--backend" },
        };
        for (const auto& [args, word] : bad) {
            std::string what;
            for (const auto& a : args)
                what += a + " ";
            expect_throw<gpufft_app::usage_error>(what, [&] { gpufft_app::parse_options(args); }, word);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what, 2, app(args));
        }
        // 0 is no size: refused with the range allowed (the default is the option left out).
        for (const std::string name : { "--width", "--height" }) {
            expect_throw<gpufft_app::usage_error>(
                name, [&] { gpufft_app::parse_options({ name, "0" }); }, name + ": 0 is out of range [1, 16384]");
            CPPUNIT_ASSERT_EQUAL_MESSAGE(name, 2, app({ name, "0" }));
        }
        // Checked when the socket is bound: an endpoint without a transport names the form expected
        // (libzmq's own message is only "Invalid argument").
        {
            const auto [status, out, err] = run_exe({ "--demo", "--png", "none", "--zmq-pub", "foo" });
            CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 2, status);
            CPPUNIT_ASSERT_MESSAGE(err, err.find("--zmq-pub foo: expected an endpoint such as tcp://HOST:PORT") !=
                                            std::string::npos);
        }
        // Checked against the frame rate: 1 Hz at 1e12 samples/s is over 1e12 frames per spectrum.
        const std::string empty = write_file("ranges.cu8", "");
        CPPUNIT_ASSERT_EQUAL(2, app({ empty, "--rate", "1e12", "--center", "0", "--fft", "1", "--fps", "1e-6", "--png",
                                      "none" }));
        CPPUNIT_ASSERT_EQUAL(2, app({ empty, "--rate", "1000", "--center", "0", "--fft", "10", "--fps", "1000",
                                      "--png", "none" }));
    }

    void sigmf()
    {
        write_file("rec.sigmf-meta", sigmf_meta("ci16_le"));
        write_file("rec.sigmf-data", std::string(4 * 100, '\0'));
        for (const char* name : { "rec", "rec.sigmf-meta", "rec.sigmf-data" }) {
            const auto src = gpufft_app::open_sigmf(temp_dir() + "/" + name);
            CPPUNIT_ASSERT(src.format == sample_format::cs16);
            CPPUNIT_ASSERT_DOUBLES_EQUAL(1e5, src.sample_rate, 0);
            CPPUNIT_ASSERT_DOUBLES_EQUAL(4.33e8, src.center_hz, 0);
            CPPUNIT_ASSERT_EQUAL(temp_dir() + "/rec.sigmf-data", src.data_path);
            CPPUNIT_ASSERT_EQUAL(temp_dir() + "/rec.sigmf-meta", src.meta_path);
        }
        const std::pair<const char*, sample_format> types[] = { { "cf32_le", sample_format::cf32 },
                                                                { "ci8", sample_format::cs8 },
                                                                { "cu8", sample_format::cu8 } };
        for (const auto& t : types) {
            write_file("rec.sigmf-meta", sigmf_meta(t.first));
            CPPUNIT_ASSERT(gpufft_app::open_sigmf(temp_dir() + "/rec").format == t.second);
        }
        // A UTF-8 byte order mark (some editors write one) is accepted.
        write_file("rec.sigmf-meta", "\xef\xbb\xbf" + sigmf_meta("cu8"));
        CPPUNIT_ASSERT(gpufft_app::open_sigmf(temp_dir() + "/rec").format == sample_format::cu8);
        // No sample rate: unknown (the program then uses --rate).
        write_file("rec.sigmf-meta", R"({"global": {"core:datatype": "cu8"}})");
        CPPUNIT_ASSERT_DOUBLES_EQUAL(0.0, gpufft_app::open_sigmf(temp_dir() + "/rec").sample_rate, 0);
    }

    // A zero, negative or huge rate or frequency is an error naming the key, not a default.
    void sigmf_bad_values()
    {
        write_file("v.sigmf-data", std::string(4096, '\0'));
        const std::tuple<std::string, std::string, const char*> bad[] = {
            { "0", "1e8", "core:sample_rate" },     { "-2.4e6", "1e8", "core:sample_rate" },
            { "1e300", "1e8", "core:sample_rate" }, { "\"fast\"", "1e8", "core:sample_rate" },
            { "1e6", "1e22", "core:frequency" },    { "1e6", "-1e22", "core:frequency" },
        };
        for (const auto& [rate, freq, word] : bad) {
            write_file("v.sigmf-meta", sigmf_meta("cu8", rate, freq));
            expect_throw<gpufft_app::app_error>(rate + " " + freq, [] { gpufft_app::open_sigmf(temp_dir() + "/v"); },
                                                word);
            CPPUNIT_ASSERT_EQUAL(1, app({ temp_dir() + "/v", "--png", "none", "--quiet" }));
        }
    }

    // An option that would not act in the run is refused, naming the conflict (exit status 2).
    void options_unused()
    {
        const std::pair<std::vector<std::string>, const char*> bad[] = {
            { { "--demo", "in.cu8" }, "--demo and an input (in.cu8) exclude each other" },
            { { "--demo", "--format", "cs16" }, "--format: the demo's samples are cf32" },
            { { "in.cu8", "--fps", "10", "--frames", "4" }, "--fps and --frames exclude each other" },
            { { "in.cu8", "--progress", "--quiet" }, "--progress and --quiet exclude each other" },
            { { "in.cu8", "--alpha", "0.5" }, "--alpha needs --average exponential" },
            { { "in.cu8", "--threshold", "6" }, "--threshold needs --annotate" },
            { { "in.cu8", "--name", "mast" }, "--name needs --serve or --zmq-pub" },
            { { "in.cu8", "--png", "none", "--width", "300" }, "--width needs a --png or --persistence image" },
            { { "in.cu8", "--png", "none", "--db-max", "0" }, "--db-max needs a --png or --persistence image" },
            { { "in.cu8", "--dwell", "0.1" }, "--dwell needs --sweep" },
            { { "in.cu8", "--interval", "10" }, "--interval needs --sweep" },
            { { "in.cu8", "--crop", "0.5" }, "--crop needs --sweep" },
            { { "in.cu8", "--settle", "0.1" }, "--settle needs --device" },
            { { "--list-devices", "--rate", "1M" }, "--list-devices lists and exits: --rate would do nothing" },
        };
        for (const auto& [args, message] : bad) {
            const auto [status, out, err] = run_exe(args, "");
            CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 2, status);
            CPPUNIT_ASSERT_MESSAGE(err + " lacks " + message, err.find(message) != std::string::npos);
        }
        // --duration cuts the demo too.
        const auto [status, out, err] = run_exe({ "--demo", "--duration", "0.5", "--png", "none" }, "");
        CPPUNIT_ASSERT_MESSAGE(out + err, out.find("gpufft-spectrum: 1200000 samples at 2400000 Hz") != std::string::npos);
    }

    /*
     * What a SigMF recording lacks is asked for, never assumed: a 1 MS/s
     * recording without core:sample_rate is not read at the 2.4 MS/s default
     * (its tone at 100.05 MHz would read 100.1195 MHz); --rate and --center
     * fill a gap and are refused where the recording says otherwise; a
     * segment without core:sample_start (required) is an error, not sample 0.
     */
    void sigmf_missing_fields()
    {
        const std::string base = temp_dir() + "/gap";
        write_file("gap.sigmf-data", cu8_tone(65536, 0.05, 0.5)); // 50 kHz at 1 MS/s
        const auto meta = [](const std::string& global, const std::string& capture, const std::string& annotations) {
            return R"({"global": {"core:datatype": "cu8", "core:version": "1.0.0")" + global +
                   R"(}, "captures": [{)" + capture + R"(}], "annotations": [)" + annotations + "]}";
        };
        const std::string start = R"("core:sample_start": 0)", freq = R"(, "core:frequency": 100e6)";
        const std::vector<std::string> engine = { "--fft", "1024", "--png", "none", "--peaks", "1", "--quiet" };
        const auto run = [&](std::vector<std::string> args) {
            args.insert(args.begin(), base);
            args.insert(args.end(), engine.begin(), engine.end());
            return run_exe(args, "");
        };
        write_file("gap.sigmf-meta", meta("", start + freq, ""));
        auto [status, out, err] = run({});
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 1, status);
        CPPUNIT_ASSERT_MESSAGE(err, err.find("gap.sigmf-meta: no core:sample_rate; give --rate") != std::string::npos);
        std::tie(status, out, err) = run({ "--rate", "1M" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
        CPPUNIT_ASSERT_MESSAGE(out, out.find("100049804.688 Hz") != std::string::npos); // the tone's bin
        write_file("gap.sigmf-meta", meta(R"(, "core:sample_rate": 1e6)", start + freq, ""));
        std::tie(status, out, err) = run({ "--rate", "2M" });
        CPPUNIT_ASSERT_MESSAGE(err, status == 2 && err.find("has core:sample_rate 1000000.0 (drop --rate)") !=
                                                        std::string::npos);
        CPPUNIT_ASSERT_EQUAL(0, std::get<0>(run({ "--rate", "1e6" }))); // saying the same is no conflict
        std::tie(status, out, err) = run({ "--center", "200M" });
        CPPUNIT_ASSERT_MESSAGE(err, status == 2 && err.find("(drop --center)") != std::string::npos);

        write_file("gap.sigmf-meta", meta(R"(, "core:sample_rate": 1e6)", start, ""));
        std::tie(status, out, err) = run({});
        CPPUNIT_ASSERT_MESSAGE(err, status == 1 && err.find("captures[0] has no core:frequency; give --center") !=
                                                        std::string::npos);
        std::tie(status, out, err) = run({ "--center", "433.92M" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
        CPPUNIT_ASSERT_MESSAGE(out, out.find("433969804.688 Hz") != std::string::npos);

        for (const auto& [capture, annotation] : { std::pair{ std::string(freq.substr(2)), std::string() },
                                                   { start + freq, R"({"core:label": "x"})" } }) {
            write_file("gap.sigmf-meta", meta(R"(, "core:sample_rate": 1e6)", capture, annotation));
            std::tie(status, out, err) = run({});
            CPPUNIT_ASSERT_MESSAGE(err, status == 1 && err.find("no core:sample_start (SigMF requires it)") !=
                                                            std::string::npos);
        }
    }

    /*
     * Raw IQ carries no metadata: its sample format (where the name does not
     * say it), rate and centre are asked for, each named with how to give it,
     * never assumed (cu8, 2.4 MS/s and 0 Hz once were); --demo and SigMF
     * carry their own.
     */
    void raw_missing_settings()
    {
        const std::string cu8 = write_file("bare.cu8", cu8_tone(65536, 0.05, 0.5)); // 50 kHz at 1 MS/s
        const std::string iq = write_file("bare.iq", cu8_tone(65536, 0.05, 0.5)), fifo = temp_dir() + "/bare.fifo";
        ::unlink(fifo.c_str());
        CPPUNIT_ASSERT(::mkfifo(fifo.c_str(), 0600) == 0); // refused before it is opened (no writer ever comes)
        const std::string format = "--format cf32, cs16, cs8 or cu8", rate = "--rate (e.g. 2.4M)",
                          center = "--center (e.g. 100M; 0 for baseband)";
        const std::vector<std::string> engine = { "--fft", "1024", "--png", "none", "--peaks", "1", "--quiet" };
        const struct {
            std::vector<std::string> args;
            std::string lacks;
            std::vector<std::string> give;
        } cases[] = {
            { {}, "standard input: raw IQ does not say its sample format, sample rate and centre frequency",
              { format, rate, center } },
            { { "-", "--format", "cu8", "--rate", "2.4M" }, "standard input: raw IQ does not say its centre frequency",
              { center } },
            { { "-", "--center", "100M", "--format", "cs8" }, "standard input: raw IQ does not say its sample rate",
              { rate } },
            { { cu8, "--center", "0" }, cu8 + ": raw IQ does not say its sample rate", { rate } },
            { { cu8 }, cu8 + ": raw IQ does not say its sample rate and centre frequency", { rate, center } },
            { { iq, "--rate", "1M", "--center", "100M" }, iq + ": raw IQ does not say its sample format", { format } },
            { { fifo, "--rate", "1M", "--center", "100M" }, fifo + ": raw IQ does not say its sample format",
              { format } },
        };
        for (const auto& [args, lacks, give] : cases) {
            std::vector<std::string> all = args;
            all.insert(all.end(), engine.begin(), engine.end());
            const auto [status, out, err] = run_exe(all, cu8);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 2, status);
            CPPUNIT_ASSERT_MESSAGE(err, err.find(lacks + "; give ") != std::string::npos);
            for (const std::string& option : { format, rate, center })
                CPPUNIT_ASSERT_MESSAGE(err, (err.find(option) != std::string::npos) ==
                                                (std::find(give.begin(), give.end(), option) != give.end()));
        }
        // Given in full, standard input and a file read the tone where it is.
        for (const auto& input : { std::string("-"), iq }) {
            std::vector<std::string> all = { input, "--format", "cu8", "--rate", "1M", "--center", "100M" };
            all.insert(all.end(), engine.begin(), engine.end());
            const auto [status, out, err] = run_exe(all, cu8);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
            CPPUNIT_ASSERT_MESSAGE(out, out.find("100049804.688 Hz") != std::string::npos); // the tone's bin
        }
        // The demo carries its own rate and centre.
        CPPUNIT_ASSERT_EQUAL(0, std::get<0>(run_exe({ "--demo", "--duration", "0.5", "--png", "none", "--quiet" })));
        const std::string help = gpufft_app::parse_options({ "--help" }).help;
        for (const char* word : { "need --rate and --center", "required for standard input", "required for raw IQ" })
            CPPUNIT_ASSERT_MESSAGE(help, help.find(word) != std::string::npos);
    }

    // Each bad file is a clear error (exit status 1) or a documented behaviour, never a crash.
    void bad_files()
    {
        const std::string png = temp_dir() + "/bad.png";
        write_file("u.sigmf-meta", sigmf_meta("ci32_le"));
        write_file("u.sigmf-data", std::string(64, '\0'));
        expect_throw<gpufft_app::app_error>("unknown datatype", [] { gpufft_app::open_sigmf(temp_dir() + "/u"); }, "ci32_le");
        write_file("m.sigmf-meta", R"({"global": {"core:datatype": "cu8",}})");
        write_file("m.sigmf-data", std::string(64, '\0'));
        expect_throw<gpufft_app::app_error>("malformed", [] { gpufft_app::open_sigmf(temp_dir() + "/m.sigmf-meta"); },
                                            "malformed JSON");
        write_file("d.sigmf-meta", sigmf_meta("cu8"));
        expect_throw<gpufft_app::app_error>("missing data", [] { gpufft_app::open_sigmf(temp_dir() + "/d"); }, "missing");
        write_file("n.sigmf-meta", "[1, 2]");
        expect_throw<gpufft_app::app_error>("not SigMF", [] { gpufft_app::open_sigmf(temp_dir() + "/n"); }, "global");
        write_file("deep.sigmf-meta", std::string(100000, '['));
        expect_throw<gpufft_app::app_error>("deep", [] { gpufft_app::open_sigmf(temp_dir() + "/deep"); }, "malformed");
        for (const char* rec : { "u", "m.sigmf-meta", "d.sigmf-data", "n" })
            CPPUNIT_ASSERT_EQUAL_MESSAGE(rec, 1, app({ temp_dir() + "/" + rec, "--png", png, "--quiet" }));

        const std::string empty = write_file("empty.cu8", "");
        CPPUNIT_ASSERT_EQUAL(1, app({ empty, "--rate", "1M", "--center", "0", "--png", png, "--quiet" }));
        CPPUNIT_ASSERT_EQUAL(1, app({ temp_dir() + "/absent.cu8", "--rate", "1M", "--center", "0", "--png", png }));
        CPPUNIT_ASSERT_EQUAL(1, app({ temp_dir(), "--png", png })); // a directory

        // A truncated final sample (odd byte count for cu8, 3 extra bytes for
        // cs16) is ignored with a warning; the complete samples are used.
        for (const auto& [name, fmt, extra] : { std::tuple<const char*, const char*, int>{ "odd.cu8", "cu8", 1 },
                                                { "trunc.cs16", "cs16", 3 } }) {
            const std::size_t bps = gpufft::sample_bytes(gpufft::parse_sample_format(fmt));
            const std::string path = write_file(name, std::string(64 * 64 * bps + extra, '\x11'));
            const std::string csv = temp_dir() + "/" + name + ".csv";
            CPPUNIT_ASSERT_EQUAL(0, app({ path, "--format", fmt, "--rate", "1M", "--center", "0", "--fft", "64",
                                          "--overlap", "0", "--frames", "1", "--png", "none", "--csv", csv,
                                          "--quiet" }));
            const std::string text = read_file(csv);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(name, std::ptrdiff_t(65), std::count(text.begin(), text.end(), '\n'));
        }
    }

    void png_size()
    {
        gpufft_app::waterfall w(100);
        std::vector<float> row(300);
        auto g = qa::rng_for("png");
        for (int r = 0; r < 37; ++r) {
            for (auto& v : row)
                v = -100.0f + float(g() % 100);
            w.add(row.data(), row.size());
        }
        CPPUNIT_ASSERT_EQUAL(std::size_t(37), w.count());
        gpufft_app::axes ax;
        ax.f_lo = 433.92e6 - 1e5;
        ax.f_hi = 433.92e6 + 1e5;
        ax.seconds = 3.7;
        ax.db_min = -100;
        ax.db_max = 0;
        for (std::size_t h : { 0, 20, 50 }) {
            const std::string path = temp_dir() + "/w" + std::to_string(h) + ".png";
            gpufft_app::output_file f(path);
            gpufft_app::write_png(f, w, ax, h);
            const auto size = decode_png(path);
            CPPUNIT_ASSERT_EQUAL(unsigned(gpufft_app::margin_left + 100 + gpufft_app::margin_right), size.first);
            CPPUNIT_ASSERT_EQUAL(unsigned(gpufft_app::margin_top + (h ? h : 37) + gpufft_app::margin_bottom), size.second);
            // The colour bar's unit, under it: every level drawn is dBFS (docs/levels.md).
            CPPUNIT_ASSERT(shows_text(decode_rgb(path), gpufft_app::margin_left + 100 + 10,
                                      gpufft_app::margin_top + int(h ? h : 37) + 8, "dBFS"));
        }
        const std::string demo = temp_dir() + "/demo.png";
        CPPUNIT_ASSERT_EQUAL(0, app({ "--demo", "--png", demo, "--width", "300", "--height", "120", "--fft", "1000",
                                      "--quiet" }));
        const auto size = decode_png(demo);
        CPPUNIT_ASSERT_EQUAL(unsigned(gpufft_app::margin_left + 300 + gpufft_app::margin_right), size.first);
        CPPUNIT_ASSERT_EQUAL(unsigned(gpufft_app::margin_top + 120 + gpufft_app::margin_bottom), size.second);
        unsigned char lo[3], hi[3];
        gpufft_app::colormap(0, lo);
        gpufft_app::colormap(1, hi);
        CPPUNIT_ASSERT(lo[0] == 68 && lo[2] == 84 && hi[0] == 253 && hi[1] == 231);
    }

    // Ticks far above their step (a 1e22 Hz centre) end: they used to loop, adding a step that did not move.
    void huge_center()
    {
        const auto t = gpufft_app::ticks(1e22 - 1.2e6, 1e22 + 1.2e6, 2e5);
        CPPUNIT_ASSERT(t.size() <= 30);
        CPPUNIT_ASSERT_EQUAL(std::size_t(11), gpufft_app::ticks(-1.0, 1.0, 0.2).size());
        CPPUNIT_ASSERT(gpufft_app::ticks(0, 1e300, 1e-300).empty());
        gpufft_app::waterfall w(16);
        std::vector<float> row(16, -50.0f);
        w.add(row.data(), row.size());
        gpufft_app::axes ax;
        ax.f_lo = 1e22 - 1.2e6;
        ax.f_hi = 1e22 + 1.2e6;
        const std::string path = temp_dir() + "/huge.png";
        gpufft_app::output_file f(path);
        gpufft_app::write_png(f, w, ax, 10);
        CPPUNIT_ASSERT(decode_png(path).first > 0);
        const auto [status, out, err] = run_exe({ "--demo", "--center", "1e22", "--png", path });
        CPPUNIT_ASSERT_EQUAL(2, status);
        CPPUNIT_ASSERT_MESSAGE(err, err.find("--center") != std::string::npos && err.find('\n') == err.size() - 1);
    }

    // A SigMF cu8 recording of a tone: the CSV's frequencies are absolute and
    // the tone is the first peak.
    void csv_and_peaks()
    {
        const std::size_t n = 128, frames = 40;
        write_file("tone.sigmf-meta", sigmf_meta("cu8"));
        write_file("tone.sigmf-data", cu8_tone(n * frames, 1.0 / 8, 100 / 127.5));
        const std::string csv = temp_dir() + "/tone.csv", jsonl = temp_dir() + "/tone.jsonl";
        CPPUNIT_ASSERT_EQUAL(0, app({ temp_dir() + "/tone", "--fft", "128", "--frames", "4", "--overlap", "0",
                                      "--csv", csv, "--jsonl", jsonl, "--png", "none", "--quiet" }));
        const std::string text = read_file(csv);
        CPPUNIT_ASSERT_EQUAL(std::ptrdiff_t(1 + frames / 4), std::count(text.begin(), text.end(), '\n'));
        CPPUNIT_ASSERT(text.rfind("time_s (values: tone dBFS),utc,center_hz,432950000.000,", 0) == 0);
        const std::string lines = read_file(jsonl);
        CPPUNIT_ASSERT_EQUAL(std::ptrdiff_t(frames / 4), std::count(lines.begin(), lines.end(), '\n'));
        const auto first = nlohmann::json::parse(lines.substr(0, lines.find('\n')));
        CPPUNIT_ASSERT_EQUAL(std::string("tone dBFS"), first["db_scale"].get<std::string>());
        const auto db = first["db"].get<std::vector<double>>();
        CPPUNIT_ASSERT_EQUAL(n, db.size());
        CPPUNIT_ASSERT_EQUAL(std::ptrdiff_t(n / 2 + n / 8), std::max_element(db.begin(), db.end()) - db.begin());

        spectrum_config c;
        c.fft_size = 64;
        c.sample_rate = 64;
        c.shift = true;
        spectrum s(c);
        std::vector<float> spec(64, -100.0f);
        spec[10] = -20, spec[11] = -30, spec[40] = -50, spec[45] = -60;
        const auto p = gpufft_app::find_peaks(spec, s, 10, 3, 10);
        CPPUNIT_ASSERT_EQUAL(std::size_t(3), p.size());
        CPPUNIT_ASSERT_DOUBLES_EQUAL(-22.0, p[0].hz, 1e-9);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(-50.0, p[1].db, 1e-9);
    }

    // A full-scale tone and one at -20 dBFS read their power in dBFS (0 and
    // -20 dB) in the CSV, the JSON lines and the peak list, whatever the window.
    void db_scale()
    {
        const std::size_t n = 1024;
        for (const double want : { 0.0, -20.0 })
            for (const char* window : { "hann", "blackmanharris", "flattop", "rectangular" }) {
                const double amp = std::pow(10.0, want / 20);
                std::vector<std::complex<float>> x(n * 8);
                for (std::size_t i = 0; i < x.size(); ++i) // on bin 100: no scalloping
                    x[i] = std::polar(float(amp), float(2 * M_PI * double(i * 100 % n) / double(n)));
                const std::string path = temp_dir() + "/tone.cf32";
                write_file("tone.cf32", std::string(reinterpret_cast<const char*>(x.data()), x.size() * sizeof x[0]));
                const std::string csv = temp_dir() + "/scale.csv", jsonl = temp_dir() + "/scale.jsonl",
                                  rtl = temp_dir() + "/scale.rtl";
                const auto [status, out, err] =
                    run_exe({ path, "--format", "cf32", "--rate", "1024", "--center", "0", "--fft", "1024", "--overlap",
                              "0", "--frames", "2", "--window", window, "--csv", csv, "--jsonl", jsonl, "--rtl-power",
                              rtl, "--png", "none", "--peaks", "1" });
                CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
                const auto rows = lines_of(read_file(csv));
                std::vector<double> values;
                std::istringstream cells(rows.at(1));
                for (std::string cell; std::getline(cells, cell, ',');)
                    values.push_back(std::stod(cell));
                const double csv_db = *std::max_element(values.begin() + 3, values.end()); // after time_s, utc, center_hz
                const auto line = nlohmann::json::parse(lines_of(read_file(jsonl)).at(0));
                const auto db = line["db"].get<std::vector<double>>();
                const double json_db = *std::max_element(db.begin(), db.end());
                double rtl_db = -300; // the values after date, time, Hz low, Hz high, Hz step, samples
                std::istringstream rtl_cells(lines_of(read_file(rtl)).at(0));
                std::size_t cell_index = 0;
                for (std::string cell; std::getline(rtl_cells, cell, ','); ++cell_index)
                    if (cell_index >= 6)
                        rtl_db = std::max(rtl_db, std::stod(cell));
                const auto at = out.find("Hz");
                CPPUNIT_ASSERT_MESSAGE(out, out.find("peaks") != std::string::npos && at != std::string::npos);
                const std::string peak_line = out.substr(out.find("peaks"));
                const double peak_db = std::stod(peak_line.substr(peak_line.find("Hz") + 2));
                const std::string what = std::string(window) + " " + std::to_string(want) + " dBFS: csv " +
                                         std::to_string(csv_db) + ", json " +
                                         std::to_string(json_db) + ", peak " + std::to_string(peak_db) + ", rtl_power " +
                                         std::to_string(rtl_db);
                CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(what, want, csv_db, 0.02);
                CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(what, want, json_db, 0.02);
                CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(what, want, peak_db, 0.02);
                CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(what, want, rtl_db, 0.02);
            }
    }

    // The rows kept stay under max_rows whatever the number of spectra; each
    // kept row is the max of the spectra it covers.
    void waterfall_bounded()
    {
        gpufft_app::waterfall w(8, 256);
        std::vector<float> s(8, -100.0f);
        const std::size_t total = 100000, spike = 54321;
        for (std::size_t k = 0; k < total; ++k) {
            s[3] = k == spike ? 0.0f : -100.0f;
            w.add(s.data(), s.size());
            CPPUNIT_ASSERT(w.count() <= 256 && w.rows.capacity() <= 8 * 256);
        }
        CPPUNIT_ASSERT_EQUAL(total, w.spectra);
        CPPUNIT_ASSERT(w.count() > 128);
        CPPUNIT_ASSERT_EQUAL((total + w.span - 1) / w.span, w.count());
        for (std::size_t r = 0; r < w.count(); ++r)
            CPPUNIT_ASSERT_EQUAL_MESSAGE(std::to_string(r), r == spike / w.span ? 0.0f : -100.0f, w.rows[r * 8 + 3]);
    }

    // A tone and white noise of known powers: in the persistence PNG the tone
    // is the highest column at the pixel its frequency maps to and its row
    // that of its dB; the noise floor's most counted row and its average
    // trace lie at the rows their dB map to.
    void persistence_view()
    {
        const std::size_t n = 256, frames = 2000, tone_bin = 64;
        const double rate = 256e3, center = 1e6, amp = 0.5, noise_power = 1e-4;
        auto g = qa::rng_for("persistence");
        std::normal_distribution<float> gauss(0, float(std::sqrt(noise_power / 2)));
        std::vector<std::complex<float>> x(n * frames);
        for (std::size_t i = 0; i < x.size(); ++i) // on a bin: no scalloping
            x[i] = std::polar(float(amp), float(2 * M_PI * double(i * tone_bin % n) / double(n))) +
                   std::complex<float>(gauss(g), gauss(g));
        const std::string in = write_file("pers.cf32", std::string(reinterpret_cast<const char*>(x.data()), x.size() * sizeof x[0]));
        const std::string png = temp_dir() + "/pers.png";
        const double db_min = -100, db_max = 0;
        const unsigned height = 200;
        const auto [status, out, err] =
            run_exe({ in, "--format", "cf32", "--rate", std::to_string(rate), "--center", std::to_string(center),
                      "--fft", std::to_string(n), "--overlap", "0", "--frames", "1", "--width", std::to_string(n),
                      "--height", std::to_string(height), "--db-min", "-100", "--db-max", "0", "--png", "none",
                      "--persistence", png, "--peaks", "0" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
        CPPUNIT_ASSERT_MESSAGE(out, out.find("persistence: " + png) != std::string::npos);
        const rgb_image img = decode_rgb(png);
        CPPUNIT_ASSERT_EQUAL(unsigned(gpufft_app::margin_left + n + gpufft_app::margin_right), img.width);
        CPPUNIT_ASSERT_EQUAL(unsigned(gpufft_app::margin_top + height + gpufft_app::margin_bottom), img.height);
        // The level axis's unit, under it (docs/levels.md).
        CPPUNIT_ASSERT(shows_text(img, gpufft_app::margin_left - 8 - gpufft_app::text_width("dBFS"),
                                  gpufft_app::margin_top + int(height) + 8, "dBFS"));
        // Pixel row (from the plot's top) of a dB value, as gpufft::display counts rows.
        const auto row_of = [&](double db) {
            const double r = std::floor((db - db_min) * height / (db_max - db_min));
            return int(height - 1) - int(std::clamp(r, 0.0, double(height - 1)));
        };
        const auto pixel = [&](unsigned col, int row) { return img.at(gpufft_app::margin_left + col, gpufft_app::margin_top + row); };
        const auto black = [](const unsigned char* p) { return p[0] == 0 && p[1] == 0 && p[2] == 0; };

        // The tone's column from its frequency and the axis (f_lo is the left edge of bin 0).
        const double df = rate / double(n), tone_hz = center + double(tone_bin) * df;
        const double f_lo = center - rate / 2 - df / 2;
        const auto tone_col = unsigned(std::floor((tone_hz - f_lo) / rate * double(n)));
        std::vector<int> top(n, int(height));
        for (unsigned c = 0; c < n; ++c)
            for (int r = 0; r < int(height); ++r)
                if (!black(pixel(c, r))) {
                    top[c] = r;
                    break;
                }
        CPPUNIT_ASSERT_EQUAL(std::ptrdiff_t(tone_col), std::min_element(top.begin(), top.end()) - top.begin());
        const double tone_db = 20 * std::log10(amp);
        CPPUNIT_ASSERT_MESSAGE(std::to_string(top[tone_col]), std::abs(top[tone_col] - row_of(tone_db)) <= 1);

        // The noise floor per bin in tone dBFS: power * sum w^2 / (sum w)^2.
        spectrum_config c;
        c.fft_size = n;
        const spectrum s(c);
        double wsum = 0, wpow = 0;
        for (float w : s.window())
            wsum += w, wpow += double(w) * w;
        const double noise_db = 10 * std::log10(noise_power * wpow / (wsum * wsum));
        std::vector<double> share(height, 0.0);
        std::size_t white_at_mean = 0, noise_cols = 0;
        // The mean of a bin's dB is 10 log10(e) * Euler's gamma (2.51 dB) below its mean power's.
        const int mean_row = row_of(noise_db - 10 * std::log10(std::exp(1.0)) * 0.5772156649);
        for (unsigned col = 0; col < n; ++col) {
            if (col + 4 >= tone_col && col <= tone_col + 4)
                continue;
            ++noise_cols;
            for (int r = 0; r < int(height); ++r) {
                const double t = viridis_t(pixel(col, r));
                if (t >= 0)
                    share[r] += std::pow(10.0, 3 * (t - 1));
            }
            for (int r = mean_row - 1; r <= mean_row + 1; ++r)
                if (pixel(col, r)[0] == 255 && pixel(col, r)[1] == 255 && pixel(col, r)[2] == 255) {
                    ++white_at_mean;
                    break;
                }
        }
        const int mode_row = int(std::max_element(share.begin(), share.end()) - share.begin());
        const std::string what = "noise " + std::to_string(noise_db) + " dB: row " + std::to_string(row_of(noise_db)) +
                                 ", most counted row " + std::to_string(mode_row);
        CPPUNIT_ASSERT_MESSAGE(what, std::abs(mode_row - row_of(noise_db)) <= 2); // 1 dB
        CPPUNIT_ASSERT_EQUAL_MESSAGE(what, noise_cols, white_at_mean);
    }

    // 200 MB of cu8 through a pipe as 780k spectra: the process stays small
    // (it kept every row, 200 MB here, and copied them at the end).
    void memory_on_stream()
    {
        int p[2];
        CPPUNIT_ASSERT(::pipe2(p, O_CLOEXEC) == 0); // the program holds only its own end
        const std::string png = temp_dir() + "/stream.png", persistence = temp_dir() + "/stream-persistence.png";
        child c({ "-", "--format", "cu8", "--center", "0", "--fft", "64", "--overlap", "0", "--frames", "1", "--rate",
                  "1e6", "--png", png, "--quiet", "--peaks", "0", "--persistence", persistence },
                p[0], -1, -1);
        ::close(p[0]);
        std::signal(SIGPIPE, SIG_IGN);
        const std::string chunk(1 << 20, '\x80');
        for (int i = 0; i < 100; ++i)
            CPPUNIT_ASSERT(::write(p[1], chunk.data(), chunk.size()) == ssize_t(chunk.size()));
        ::close(p[1]);
        CPPUNIT_ASSERT_EQUAL(0, c.wait(300));
        const rusage& ru = c.usage;
        std::printf("memory_on_stream: peak RSS %ld MB\n", ru.ru_maxrss / 1024);
#ifndef __SANITIZE_ADDRESS__ // ASan's shadow memory and quarantine inflate RSS
        CPPUNIT_ASSERT_MESSAGE(std::to_string(ru.ru_maxrss / 1024) + " MB", ru.ru_maxrss < 100 * 1024);
#endif
        CPPUNIT_ASSERT(decode_png(png).first > 0 && decode_png(persistence).first > 0);
    }

    // A failed write is an error naming the file (exit status 1), from stdio and from libpng;
    // an output that cannot be created is refused at the start.
    void write_errors()
    {
        const std::string in = write_file("full.cu8", cu8_tone(64 * 400, 0.1, 0.5));
        for (const char* option : { "--png", "--csv", "--jsonl", "--persistence" }) {
            std::vector<std::string> args{ in, "--rate", "1M", "--center", "0", "--fft", "64", "--frames", "1",
                                           "--png", "none", option, "/dev/full" };
            const auto [status, out, err] = run_exe(args);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(option, 1, status);
            CPPUNIT_ASSERT_MESSAGE(err, err.find("/dev/full") != std::string::npos &&
                                            err.find("No space left") != std::string::npos);
        }
        // A folder that does not exist, or one that is not writable: refused at the start like a
        // bad option (exit status 2), the message naming the option, the file and why.
        ::mkdir((temp_dir() + "/locked").c_str(), 0500);
        for (const std::string& path : { temp_dir() + "/absent/p.png", temp_dir() + "/locked/p.png" }) {
            const auto [status, out, err] = run_exe({ in, "--rate", "1M", "--center", "0", "--fft", "64", "--png",
                                                      "none", "--persistence", path });
            CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 2, status);
            CPPUNIT_ASSERT_MESSAGE(err, err.find("--persistence " + path + ": cannot write") != std::string::npos);
            if (::geteuid() == 0) // root writes into a read-only folder
                break;
        }
        // The report on standard output, to a full device.
        const int full = ::open("/dev/full", O_WRONLY);
        child c({ in, "--rate", "1M", "--center", "0", "--fft", "64", "--frames", "1", "--png", "none" }, -1, full, -1);
        ::close(full);
        CPPUNIT_ASSERT_EQUAL(1, c.wait());
    }

    // An output naming an input (by device and inode: another name, a hard
    // link, the SigMF metadata, standard input) is refused; the input is untouched.
    void output_names_input()
    {
        const std::string data = cu8_tone(64 * 100, 0.1, 0.5);
        const std::string in = write_file("keep.cu8", data);
        const std::string link = temp_dir() + "/keep-link.cu8";
        ::unlink(link.c_str());
        CPPUNIT_ASSERT(::link(in.c_str(), link.c_str()) == 0);
        for (const auto& [option, path] : { std::pair<std::string, std::string>{ "--csv", in },
                                            { "--jsonl", temp_dir() + "/../" + temp_dir().substr(5) + "/keep.cu8" },
                                            { "--png", link }, { "--persistence", in } }) {
            const auto [status, out, err] = run_exe({ in, "--rate", "1M", "--center", "0", "--fft", "64", option,
                                                      path });
            CPPUNIT_ASSERT_EQUAL_MESSAGE(option, 2, status);
            CPPUNIT_ASSERT_MESSAGE(err, err.find(option) != std::string::npos && err.find("input") != std::string::npos);
        }
        CPPUNIT_ASSERT(read_file(in) == data);
        const auto [status, out, err] = run_exe({ "-", "--format", "cu8", "--rate", "1M", "--center", "0", "--fft",
                                                  "64", "--csv", link }, in);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 2, status);
        CPPUNIT_ASSERT(read_file(in) == data);

        const std::string meta = sigmf_meta("cu8");
        write_file("own.sigmf-meta", meta);
        write_file("own.sigmf-data", data);
        for (const char* target : { "own.sigmf-meta", "own.sigmf-data" })
            CPPUNIT_ASSERT_EQUAL(2, app({ temp_dir() + "/own", "--fft", "64", "--jsonl", temp_dir() + "/" + target }));
        CPPUNIT_ASSERT(read_file(temp_dir() + "/own.sigmf-meta") == meta);
        CPPUNIT_ASSERT(read_file(temp_dir() + "/own.sigmf-data") == data);
    }

    // A run that fails before its first spectrum leaves no output (no
    // header-only CSV, no empty JSON lines, no temporary file), and an
    // existing output as it was: a file is emptied when its first row comes.
    void no_partial_outputs()
    {
        const std::string dir = temp_dir() + "/partial";
        ::mkdir(dir.c_str(), 0755);
        const std::string short_in = write_file("short.cu8", std::string(100, '\x80'));
        // Too short for one spectrum: refused at the start (2), before any output exists.
        CPPUNIT_ASSERT_EQUAL(2, app({ short_in, "--rate", "1M", "--center", "0", "--fft", "1024", "--csv",
                                      dir + "/a.csv", "--jsonl", dir + "/a.jsonl", "--png", dir + "/a.png",
                                      "--quiet" }));
        CPPUNIT_ASSERT(names_starting(dir, "").size() == 2); // . and ..
        write_file("partial/a.csv", "old");
        CPPUNIT_ASSERT_EQUAL(2, app({ short_in, "--rate", "1M", "--center", "0", "--fft", "1024", "--csv",
                                      dir + "/a.csv", "--quiet" }));
        CPPUNIT_ASSERT_EQUAL(std::string("old"), read_file(dir + "/a.csv"));
        const std::string in = write_file("ok.cu8", cu8_tone(64 * 100, 0.1, 0.5));
        CPPUNIT_ASSERT_EQUAL(0, app({ in, "--rate", "1M", "--center", "0", "--fft", "64", "--frames", "1", "--csv",
                                      dir + "/a.csv", "--png", dir + "/a.png", "--quiet" }));
        CPPUNIT_ASSERT(read_file(dir + "/a.csv").rfind("time_s", 0) == 0);
        CPPUNIT_ASSERT(names_starting(dir, ".").size() == 2);
        struct stat st;
        CPPUNIT_ASSERT(::stat((dir + "/a.csv").c_str(), &st) == 0);
        const mode_t mask = ::umask(0);
        ::umask(mask);
        CPPUNIT_ASSERT_EQUAL(unsigned(0666 & ~mask), unsigned(st.st_mode & 0777));
    }

    // The named outputs are the named files, each row and recorded read on
    // disk as it completes: read while the run waits for more input, then
    // after a SIGKILL, every row is whole and the recording's metadata is
    // valid JSON describing the samples in its data file.
    void rows_as_they_come()
    {
        const std::size_t n = 256;
        const std::string fifo = temp_dir() + "/rows.fifo", csv = temp_dir() + "/rows.csv",
                          jsonl = temp_dir() + "/rows.jsonl", base = temp_dir() + "/rows";
        ::unlink(fifo.c_str());
        CPPUNIT_ASSERT(::mkfifo(fifo.c_str(), 0600) == 0);
        const int err_fd = ::open((temp_dir() + "/rows.err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        child c({ fifo, "--format", "cu8", "--center", "100M", "--fft", std::to_string(n), "--overlap", "0",
                  "--frames", "1", "--rate", "1e6", "--png", temp_dir() + "/rows.png", "--csv", csv, "--jsonl", jsonl,
                  "--record", base, "--quiet" },
                -1, err_fd, err_fd);
        ::close(err_fd);
        const int w = ::open(fifo.c_str(), O_WRONLY);
        CPPUNIT_ASSERT(w >= 0);
        const std::string data = cu8_tone(n * 200, 0.125, 0.5) + "\x80"; // 200 frames and half a sample
        CPPUNIT_ASSERT(::write(w, data.data(), data.size()) == ssize_t(data.size()));
        wait_until_waiting(w, c.pid);
        const auto check = [&](const std::string& when) {
            const std::string text = read_file(csv);
            CPPUNIT_ASSERT_MESSAGE(when + ": " + csv, !text.empty() && text.back() == '\n');
            const auto rows = lines_of(text);
            CPPUNIT_ASSERT_MESSAGE(when, rows.size() >= 2 && rows[0].rfind("time_s", 0) == 0);
            for (const auto& row : rows)
                CPPUNIT_ASSERT_EQUAL_MESSAGE(when, std::ptrdiff_t(n + 2), std::count(row.begin(), row.end(), ','));
            const auto lines = lines_of(read_file(jsonl));
            CPPUNIT_ASSERT_EQUAL_MESSAGE(when, rows.size() - 1, lines.size());
            for (const auto& line : lines)
                CPPUNIT_ASSERT_EQUAL_MESSAGE(when, n, nlohmann::json::parse(line)["db"].size());
            CPPUNIT_ASSERT_MESSAGE(when, read_file(base + ".sigmf-data") == data.substr(0, data.size() - 1));
            const auto meta = nlohmann::json::parse(read_file(base + ".sigmf-meta"));
            CPPUNIT_ASSERT_EQUAL_MESSAGE(when, 100e6, meta["captures"][0]["core:frequency"].get<double>());
            const auto rec = gpufft_app::open_sigmf(base);
            CPPUNIT_ASSERT(rec.format == sample_format::cu8 && rec.sample_rate == 1e6);
            return rows.size();
        };
        int status = 0;
        CPPUNIT_ASSERT_EQUAL(0, ::waitpid(c.pid, &status, WNOHANG)); // still running
        const std::size_t rows = check("while running");
        ::kill(c.pid, SIGKILL);
        CPPUNIT_ASSERT_EQUAL(128 + SIGKILL, c.wait(30));
        ::close(w);
        CPPUNIT_ASSERT_EQUAL(rows, check("after SIGKILL"));
        CPPUNIT_ASSERT(!std::filesystem::exists(temp_dir() + "/rows.png")); // a PNG is whole or absent
    }

    // Two outputs on one file are refused (exit status 2) naming both
    // options, before anything is written: by name, through "./", "..", a
    // link, a recording's two files, standard output twice; an input is no
    // output either.
    void shared_outputs()
    {
        const std::string d = temp_dir() + "/shared";
        ::mkdir(d.c_str(), 0755);
        const std::string data = cu8_tone(64 * 100, 0.1, 0.5);
        const std::string in = write_file("shared/in.cu8", data);
        CPPUNIT_ASSERT(::symlink("target.csv", (d + "/link.csv").c_str()) == 0); // dangling: the file to be
        CPPUNIT_ASSERT(::symlink("in.cu8", (d + "/in-link.cu8").c_str()) == 0);
        const std::string up = d + "/../shared";
        const std::vector<std::pair<std::vector<std::string>, std::pair<std::string, std::string>>> cases = {
            { { "--record", d + "/rr", "--png", d + "/rr.sigmf-meta" }, { "--png", "--record" } },
            { { "--record", d + "/rr", "--csv", d + "/rr.sigmf-data" }, { "--csv", "--record" } },
            { { "--png", d + "/dup.out", "--csv", d + "/dup.out" }, { "--png", "--csv" } },
            { { "--png", d + "/dup.out", "--jsonl", d + "/./dup.out" }, { "--png", "--jsonl" } },
            { { "--persistence", d + "/p.png", "--png", up + "/p.png" }, { "--png", "--persistence" } },
            { { "--csv", d + "/link.csv", "--jsonl", d + "/target.csv" }, { "--csv", "--jsonl" } },
            { { "--csv", "-", "--jsonl", "-" }, { "--csv", "--jsonl" } },
            { { "--png", "-", "--csv", "-" }, { "--png", "--csv" } },
            { { "--csv", d + "/in.sigmf-meta", "--annotate" }, { "--csv", "--annotate" } },
            { { "--csv", d + "/in-link.cu8" }, { "--csv", "input" } },
            { { "--jsonl", up + "/./in.cu8" }, { "--jsonl", "input" } },
        };
        for (const auto& [extra, words] : cases) {
            std::vector<std::string> args{ in, "--rate", "1M", "--center", "0", "--fft", "64", "--frames", "1",
                                           "--png", "none" };
            args.insert(args.end(), extra.begin(), extra.end());
            const auto [status, out, err] = run_exe(args);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 2, status);
            CPPUNIT_ASSERT_MESSAGE(err, err.find(words.first) != std::string::npos &&
                                            err.find(words.second) != std::string::npos);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(err, std::size_t(5), names_starting(d, "").size()); // ., .., in, 2 links
            CPPUNIT_ASSERT(read_file(in) == data);
        }
        // Standard output for one output and the report (it goes to standard error); /dev/null for any number.
        const auto [status, out, err] =
            run_exe({ in, "--rate", "1M", "--center", "0", "--fft", "64", "--frames", "1", "--png", "none", "--csv",
                      "-", "--jsonl", "/dev/null", "--persistence", "/dev/null" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
    }

    // --annotate on a raw file writes NAME.sigmf-meta only where that is its
    // own: metadata of another dataset beside it (a recording
    // NAME.sigmf-data) is refused and left as it was; its own is rewritten
    // keeping every field, its mode and a link to it; a read-only one is refused.
    void annotate_keeps_other_metadata()
    {
        const std::string d = temp_dir() + "/ann-safe";
        ::mkdir(d.c_str(), 0755);
        const std::string raw = write_file("ann-safe/capture.cu8", cu8_tone(128 * 40, 0.125, 0.5));
        const std::string meta = d + "/capture.sigmf-meta";
        const std::vector<std::string> args{ raw,   "--rate", "1M",   "--center",   "100M",   "--fft", "128",
                                             "--frames", "1", "--png", "none", "--annotate", "--quiet" };
        // A recording beside the raw file: its metadata is not the raw file's.
        const std::string recording = sigmf_meta("cu8", "2e6", "4.33e8");
        write_file("ann-safe/capture.sigmf-meta", recording);
        write_file("ann-safe/capture.sigmf-data", std::string(1000, '\x80'));
        auto [status, out, err] = run_exe(args);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 2, status);
        CPPUNIT_ASSERT_MESSAGE(err, err.find("describes another dataset") != std::string::npos &&
                                        err.find("capture.sigmf-data") != std::string::npos);
        CPPUNIT_ASSERT(read_file(meta) == recording);
        // Nor is metadata that does not parse, or whose dataset is missing.
        for (const std::string& other : { std::string("not json"), sigmf_meta("cu8") }) {
            ::unlink((d + "/capture.sigmf-data").c_str());
            write_file("ann-safe/capture.sigmf-meta", other);
            std::tie(status, out, err) = run_exe(args);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 2, status);
            CPPUNIT_ASSERT(read_file(meta) == other);
        }
        // Its own (core:dataset naming it): rewritten, a field added by hand kept, its mode kept.
        ::unlink(meta.c_str());
        CPPUNIT_ASSERT_EQUAL(0, app(args));
        auto own = nlohmann::json::parse(read_file(meta));
        CPPUNIT_ASSERT_EQUAL(std::string("capture.cu8"), own["global"]["core:dataset"].get<std::string>());
        own["global"]["core:description"] = "by hand";
        write_file("ann-safe/capture.sigmf-meta", own.dump());
        ::chmod(meta.c_str(), 0640);
        CPPUNIT_ASSERT_EQUAL(0, app(args));
        own = nlohmann::json::parse(read_file(meta));
        CPPUNIT_ASSERT_EQUAL(std::string("by hand"), own["global"]["core:description"].get<std::string>());
        CPPUNIT_ASSERT(!own["annotations"].empty());
        struct stat st;
        CPPUNIT_ASSERT(::stat(meta.c_str(), &st) == 0);
        CPPUNIT_ASSERT_EQUAL(0640u, unsigned(st.st_mode & 07777));
        // Read-only: refused (even for root), left as it was.
        ::chmod(meta.c_str(), 0444);
        const std::string kept = read_file(meta);
        std::tie(status, out, err) = run_exe(args);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 2, status);
        CPPUNIT_ASSERT_MESSAGE(err, err.find("read-only") != std::string::npos);
        CPPUNIT_ASSERT(read_file(meta) == kept);
        CPPUNIT_ASSERT(::stat(meta.c_str(), &st) == 0 && (st.st_mode & 07777) == 0444);
        // A link to its own metadata: written through, still a link.
        const std::string real = d + "/real.sigmf-meta";
        CPPUNIT_ASSERT(::rename(meta.c_str(), real.c_str()) == 0);
        ::chmod(real.c_str(), 0644);
        CPPUNIT_ASSERT(::symlink("real.sigmf-meta", meta.c_str()) == 0);
        CPPUNIT_ASSERT_EQUAL(0, app(args));
        CPPUNIT_ASSERT(::lstat(meta.c_str(), &st) == 0 && S_ISLNK(st.st_mode));
        CPPUNIT_ASSERT(!nlohmann::json::parse(read_file(real))["annotations"].empty());
        CPPUNIT_ASSERT(names_starting(d, ".").size() == 2); // no temporary file
    }

    // SIGINT, SIGTERM, SIGHUP while the program waits for more input on a
    // FIFO: it writes the spectra so far in full and exits with 128 + N.
    void signals()
    {
        const std::size_t n = 256;
        for (int sig : { SIGINT, SIGTERM, SIGHUP }) {
            const std::string fifo = temp_dir() + "/in.fifo", png = temp_dir() + "/sig.png",
                              persistence = temp_dir() + "/sig-persistence.png",
                              csv = temp_dir() + "/sig.csv", jsonl = temp_dir() + "/sig.jsonl";
            ::unlink(fifo.c_str());
            for (const auto& f : { png, csv, jsonl, persistence })
                ::unlink(f.c_str());
            CPPUNIT_ASSERT(::mkfifo(fifo.c_str(), 0600) == 0);
            const int err_fd = ::open((temp_dir() + "/sig.err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            child c({ fifo, "--format", "cu8", "--center", "0", "--fft", std::to_string(n), "--overlap", "0",
                      "--frames", "1", "--rate", "1e6", "--png", png, "--csv", csv, "--jsonl", jsonl, "--persistence",
                      persistence, "--quiet" },
                    -1, err_fd, err_fd);
            ::close(err_fd);
            const int w = ::open(fifo.c_str(), O_WRONLY); // waits for the program to open it
            CPPUNIT_ASSERT(w >= 0);
            const std::string data = cu8_tone(n * 50 + n / 2, 0.125, 0.5); // 50 frames and half of one
            CPPUNIT_ASSERT(::write(w, data.data(), data.size()) == ssize_t(data.size()));
            // Signal once it has read everything and waits for more (in poll).
            for (int tries = 0; tries < 400; ++tries) {
                int unread = -1;
                ::ioctl(w, FIONREAD, &unread);
                if (unread == 0 && read_file("/proc/" + std::to_string(c.pid) + "/wchan").find("poll") != std::string::npos)
                    break;
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
            }
            ::kill(c.pid, sig);
            const int status = c.wait(30);
            ::close(w);
            const std::string what = std::string("signal ") + std::to_string(sig) + ": " +
                                     read_file(temp_dir() + "/sig.err");
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what, 128 + sig, status);
            CPPUNIT_ASSERT_MESSAGE(what, decode_png(png).first > 0);
            CPPUNIT_ASSERT_MESSAGE(what, decode_png(persistence).first > 0);
            const std::string text = read_file(csv);
            CPPUNIT_ASSERT_MESSAGE(what, !text.empty() && text.back() == '\n');
            const auto rows = lines_of(text);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what, std::size_t(51), rows.size());
            for (const auto& row : rows)
                CPPUNIT_ASSERT_EQUAL_MESSAGE(what, std::ptrdiff_t(n + 2), std::count(row.begin(), row.end(), ','));
            const auto lines = lines_of(read_file(jsonl));
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what, std::size_t(50), lines.size());
            CPPUNIT_ASSERT_EQUAL(n, nlohmann::json::parse(lines.back())["db"].size());
        }
    }

    // k/M/G suffixes: one parser for every frequency and rate; bad input a clear error.
    void si_suffixes()
    {
        const std::pair<const char*, double> good[] = {
            { "100M", 100e6 },       { "2.4M", 2.4e6 }, { "10k", 10e3 },  { "1.5G", 1.5e9 }, { "2.4e6", 2.4e6 },
            { "433.92m", 433.92e6 }, { "10K", 10e3 },   { "1g", 1e9 },    { "-5k", -5e3 },   { "0", 0 },
            { "1e3k", 1e6 },         { "250", 250 },    { ".5M", 0.5e6 },
        };
        for (const auto& [text, want] : good)
            CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(text, want, gpufft_app::parse_si(text), std::abs(want) * 1e-15);
        for (const char* bad :
             { "", "M", "k10", "1.5X", "10 k", " 1M", "1M ", "1MM", "1kHz", "nan", "1e400", "0x", "--1" })
            expect_throw<gpufft_app::usage_error>(
                bad, [&] { gpufft_app::parse_si(bad); }, std::string(bad).empty() ? "suffix" : bad);
        // Through the options, --x=v and --x v alike; a bad one names its option (exit status 2).
        const auto o = gpufft_app::parse_options({ "--rate=2.4M", "--center", "100M", "--fps=1k", "--annotate", "--threshold=6" });
        CPPUNIT_ASSERT(o.rate == 2.4e6 && o.center == 100e6 && o.fps == 1e3 && o.threshold == 6);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(-5e3, gpufft_app::parse_options({ "--center=-5k" }).center, 0);
        const std::pair<std::vector<std::string>, const char*> bad[] = {
            { { "--rate", "2.4X" }, "--rate" },
            { { "--rate=2.4MM" }, "--rate" },
            { { "--center", "2000G" }, "--center" },
            { { "--rate", "0k" }, "--rate" },
            { { "--fps=k" }, "--fps" },
            { { "--threshold", "1k" }, "--threshold" },
        };
        for (const auto& [args, word] : bad) {
            expect_throw<gpufft_app::usage_error>(
                args[0], [&] { gpufft_app::parse_options(args); }, word);
            const auto [status, out, err] = run_exe(args);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 2, status);
            CPPUNIT_ASSERT_MESSAGE(err, err.find(word) != std::string::npos && lines_of(err).size() == 1);
        }
        // Every option takes --opt=value.
        const auto e = gpufft_app::parse_options({ "--record=r", "--annotate", "--csv=-", "--jsonl=-", "--png=w.png",
                                                   "--format=cs8", "--peaks=2", "--width=10" });
        CPPUNIT_ASSERT(e.record == "r" && e.annotate && e.csv == "-" && e.jsonl == "-" && e.png == "w.png");
        CPPUNIT_ASSERT(e.format == "cs8" && e.peaks == 2 && e.width == 10);
    }

    // Numbers are decimal and nothing else: spaces, hex, an octal-looking
    // leading zero or trailing garbage is a usage error naming the option and
    // the value (exit status 2), for integers and reals alike.
    void strict_numbers()
    {
        const std::vector<std::string> options = { "--rate", "--center", "--fps", "--fft", "--frames", "--width",
                                                   "--height", "--peaks", "--overlap", "--alpha", "--db-min",
                                                   "--peak-threshold", "--threshold" };
        for (const auto& option : options)
            for (const char* value : { " 5", "5 ", "0x10", "010", "5x", "1e", "+", ".", "1..2", "1e5e5", "0b1",
                                       "1_000", "\t5", "5\n" }) {
                const std::vector<std::string> args = { option, value };
                const std::string what = option + " '" + value + "'";
                expect_throw<gpufft_app::usage_error>(what, [&] { gpufft_app::parse_options(args); }, option);
                expect_throw<gpufft_app::usage_error>(what, [&] { gpufft_app::parse_options(args); }, value);
            }
        CPPUNIT_ASSERT_EQUAL(2, app({ "--demo", "--rate", "0x10", "--png", "none", "--quiet" }));
        CPPUNIT_ASSERT_EQUAL(2, app({ "--demo", "--fft", " 512", "--png", "none", "--quiet" }));
        CPPUNIT_ASSERT_EQUAL(2, app({ "--demo", "--fft", "0512", "--png", "none", "--quiet" }));
        // What a person writes still reads: signs, a leading or trailing point,
        // exponents, 0 itself, and the SI suffixes of frequencies and rates.
        const auto o = gpufft_app::parse_options({ "--center", "-0.5", "--rate", "+2.4M", "--fft", "1e3", "--alpha",
                                                   ".5", "--average", "exponential", "--db-min", "-100.", "--db-max", "0",
                                                   "--peaks", "0" });
        CPPUNIT_ASSERT(o.center == -0.5 && o.rate == 2.4e6 && o.fft == 1000 && o.alpha == 0.5);
        CPPUNIT_ASSERT(o.db_min == -100 && o.db_max == 0 && o.peaks == 0);
        CPPUNIT_ASSERT_EQUAL(1e5, gpufft_app::parse_options({ "--rate", "0.1M" }).rate);
        CPPUNIT_ASSERT_EQUAL(1e9, gpufft_app::parse_options({ "--center", "1G" }).center);
        CPPUNIT_ASSERT_EQUAL(1e3, gpufft_app::parse_options({ "--fps", "1k" }).fps);
        for (const char* bad : { "0x10", "0x1p4", "010k", " 1M", "1M\n", "infk", "nanM" })
            expect_throw<gpufft_app::usage_error>(bad, [&] { gpufft_app::parse_si(bad); }, bad);
        // The numbers inside other values too: a --gain, a --sweep, a window's parameter.
        for (const std::vector<std::string>& args :
             { std::vector<std::string>{ "--device", "driver=x", "--center", "1M", "--gain", "0x10" },
               { "--device", "driver=x", "--center", "1M", "--gain", "LNA=0x10" },
               { "--device", "driver=x", "--sweep", "0x10M:108M:10k" }, { "--window", "kaiser:0x8" },
               { "--window", "kaiser: 8" } })
            expect_throw<gpufft_app::usage_error>(args.back(), [&] { gpufft_app::parse_options(args); },
                                                  args[args.size() - 2]);
    }

    // Durations take s, ms, m, h and d, fractions a percentage, plain
    // numbers as before (seconds, a fraction); a bad one says the syntax.
    void time_and_fraction_units()
    {
        const std::vector<std::string> sweep = { "--device", "driver=x", "--sweep", "88M:108M:10k" };
        const auto with = [&](std::vector<std::string> args) {
            args.insert(args.begin(), sweep.begin(), sweep.end());
            return gpufft_app::parse_options(args).radio;
        };
        const std::pair<std::vector<std::string>, double gpufft_app::radio_options::*> cases[] = {
            { { "--duration", "1h" }, &gpufft_app::radio_options::duration },
            { { "--interval", "10m" }, &gpufft_app::radio_options::interval },
            { { "--dwell", "1s" }, &gpufft_app::radio_options::dwell },
            { { "--settle", "50ms" }, &gpufft_app::radio_options::settle },
            { { "--crop", "20%" }, &gpufft_app::radio_options::crop },
            { { "--duration", "1.5d" }, &gpufft_app::radio_options::duration },
            { { "--duration", "2" }, &gpufft_app::radio_options::duration },
            { { "--crop=0.2" }, &gpufft_app::radio_options::crop },
            { { "--interval=1H" }, &gpufft_app::radio_options::interval }, // rtl_power's -i takes H, M, S too
        };
        const double want[] = { 3600, 600, 1, 0.05, 0.2, 1.5 * 86400, 2, 0.2, 3600 };
        for (std::size_t i = 0; i < std::size(cases); ++i) {
            const auto& [args, field] = cases[i];
            CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(args[0], want[i], with(args).*field, want[i] * 1e-15);
        }
        CPPUNIT_ASSERT_DOUBLES_EQUAL(0.25, gpufft_app::parse_options({ "--overlap", "25%" }).overlap, 1e-15);
        // A bad value names the option and says what it takes; out of range names the range.
        const std::pair<std::vector<std::string>, const char*> bad[] = {
            { { "--duration", "1x" }, "ms, s, m, h or d" },  { { "--duration", "h" }, "ms, s, m, h or d" },
            { { "--settle", "5 ms" }, "ms, s, m, h or d" },  { { "--dwell", "1hs" }, "ms, s, m, h or d" },
            { { "--interval", "-1m" }, "out of range" },     { { "--dwell", "2h" }, "out of range" },
            { { "--settle", "1m" }, "out of range" },        { { "--duration", "nan" }, "ms, s, m, h or d" },
            { { "--crop", "20" }, "out of range" },          { { "--crop", "20 %" }, "percentage" },
            { { "--crop", "%" }, "percentage" },             { { "--overlap", "95%" }, "out of range" },
            { { "--crop", "0x1%" }, "percentage" },          { { "--duration", "0x10s" }, "ms, s, m, h or d" },
        };
        for (const auto& [args, word] : bad) {
            const std::string what = args[0] + " " + args[1];
            expect_throw<gpufft_app::usage_error>(what, [&] { with(args); }, args[0]);
            expect_throw<gpufft_app::usage_error>(what, [&] { with(args); }, word);
        }
        std::vector<std::string> args = sweep;
        args.insert(args.end(), { "--duration", "1y", "--png", "none" });
        const auto [status, out, err] = run_exe(args);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 2, status);
        CPPUNIT_ASSERT_MESSAGE(err, err.find("--duration") != std::string::npos &&
                                        err.find("1h") != std::string::npos && lines_of(err).size() == 1);
        const auto h = gpufft_app::parse_options({ "--help" }).help;
        for (const char* word : { "50ms", "10m", "20%" })
            CPPUNIT_ASSERT_MESSAGE(word, h.find(word) != std::string::npos);
    }

    // A window's parameter is in its range or refused, naming the window and
    // the range; a window without one takes none.
    void window_parameters()
    {
        for (const char* bad : { "tukey:-1", "tukey:2", "gaussian:-1", "gaussian:0", "kaiser:-1e6", "kaiser:-1",
                                 "kaiser:1e400", "kaiser:701", "exponential:0", "hann:5", "rectangular:0", "blackmanharris:-1",
                                 "kaiser:", "kaiser:nan" }) {
            const std::string name = std::string(bad).substr(0, std::string(bad).find(':'));
            const std::vector<std::string> args = { "--window", bad };
            expect_throw<gpufft_app::usage_error>(bad, [&] { gpufft_app::parse_options(args); }, "--window");
            expect_throw<gpufft_app::usage_error>(bad, [&] { gpufft_app::parse_options(args); }, name);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(bad, 2, app({ "--demo", "--window", bad, "--png", "none", "--quiet" }));
        }
        const std::pair<const char*, const char*> ranges[] = { { "tukey:2", "[0, 1]" },
                                                              { "gaussian:0", "> 0" },
                                                              { "kaiser:-3", "[0, 700]" },
                                                              { "hann:5", "takes no parameter" } };
        for (const auto& [bad, range] : ranges)
            expect_throw<gpufft_app::usage_error>(bad, [&] { gpufft_app::parse_options({ "--window", bad }); },
                                                  range);
        for (const char* good : { "tukey:0", "tukey:1", "tukey:0.3", "kaiser:0", "kaiser:8.6", "kaiser:700", "gaussian:0.5",
                                  "exponential:6", "hann", "kaiser" })
            CPPUNIT_ASSERT_NO_THROW_MESSAGE(good, gpufft_app::parse_options({ "--window", good }));
    }

    // A datetime that is no time (31 February, hour 24) is an error naming
    // core:datetime, not a day in the next month.
    void sigmf_bad_datetime()
    {
        gpufft_app::utc_time t;
        for (const char* bad :
             { "2026-02-31T00:00:00Z", "2026-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
               "2026-11-24T24:00:00Z", "2026-11-24T23:60:00Z", "2026-11-24T12:00:60Z", "2026-00-10T00:00:00Z",
               "2026-11-00T00:00:00Z" })
            CPPUNIT_ASSERT_MESSAGE(bad, !gpufft_app::parse_utc(bad, t));
        for (const char* good : { "2024-02-29T00:00:00Z", "2000-02-29T12:00:00Z", "2026-12-31T23:59:60Z",
                                  "2026-01-31T23:59:59.999Z", "2026-06-30T00:00:00Z" })
            CPPUNIT_ASSERT_MESSAGE(good, gpufft_app::parse_utc(good, t));
        CPPUNIT_ASSERT(gpufft_app::parse_utc("2024-02-29T10:00:00Z", t));
        CPPUNIT_ASSERT_EQUAL(std::string("2024-02-29T10:00:00.000000Z"), gpufft_app::format_utc(t));
        write_file("dt.sigmf-data", std::string(4096, '\x80'));
        write_file("dt.sigmf-meta", R"({"global": {"core:datatype": "cu8", "core:sample_rate": 1e6},
            "captures": [{"core:sample_start": 0, "core:frequency": 1e8, "core:datetime": "2026-02-31T12:00:00Z"}]})");
        expect_throw<gpufft_app::app_error>("31 February", [] { gpufft_app::open_sigmf(temp_dir() + "/dt"); },
                                            "core:datetime");
        expect_throw<gpufft_app::app_error>("31 February", [] { gpufft_app::open_sigmf(temp_dir() + "/dt"); },
                                            "February");
        const auto [status, out, err] = run_exe({ temp_dir() + "/dt", "--png", "none", "--quiet" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 1, status);
        CPPUNIT_ASSERT_MESSAGE(err, err.find("captures[0]: core:datetime") != std::string::npos);
    }

    // A core:dataset that names a directory or a device is said to be one, not "missing".
    void sigmf_dataset_not_a_file()
    {
        std::filesystem::create_directories(temp_dir() + "/ds.dir");
        const std::pair<std::string, const char*> cases[] = {
            { temp_dir() + "/ds.dir", "is a directory" },
            { "/dev/zero", "is a character device" },
            { temp_dir() + "/ds.none", "is missing" },
        };
        for (const auto& [dataset, word] : cases) {
            write_file("ds.sigmf-meta", R"({"global": {"core:datatype": "cu8", "core:sample_rate": 1e6,
                "core:dataset": ")" + dataset + R"("}, "captures": [{"core:sample_start": 0, "core:frequency": 1e8}]})");
            expect_throw<gpufft_app::app_error>(dataset, [] { gpufft_app::open_sigmf(temp_dir() + "/ds"); }, word);
            expect_throw<gpufft_app::app_error>(dataset, [] { gpufft_app::open_sigmf(temp_dir() + "/ds"); },
                                                "core:dataset");
            const auto [status, out, err] = run_exe({ temp_dir() + "/ds", "--png", "none", "--quiet" });
            CPPUNIT_ASSERT_MESSAGE(err, status == 1 && err.find(word) != std::string::npos);
        }
    }

    void utc_times()
    {
        gpufft_app::utc_time t;
        CPPUNIT_ASSERT(gpufft_app::parse_utc("2026-11-24T20:31:05.123456Z", t));
        CPPUNIT_ASSERT_EQUAL(std::string("2026-11-24T20:31:05.123456Z"), gpufft_app::format_utc(t));
        CPPUNIT_ASSERT(gpufft_app::parse_utc("1970-01-01T00:00:01Z", t));
        CPPUNIT_ASSERT_EQUAL(std::int64_t(1000000000), std::int64_t(t.time_since_epoch().count()));
        CPPUNIT_ASSERT(gpufft_app::parse_utc("2017-02-01T11:33:17.053240428Z", t)); // nanoseconds
        CPPUNIT_ASSERT_EQUAL(std::string("2017-02-01T11:33:17.053240Z"), gpufft_app::format_utc(t));
        CPPUNIT_ASSERT(gpufft_app::parse_utc("2020-12-20T17:32:07.142626", t)); // no Z: read as UTC
        // The range of 64-bit nanoseconds, and how far an offset goes.
        CPPUNIT_ASSERT(!gpufft_app::parse_utc("9999-12-31T23:59:59Z", t) &&
                       !gpufft_app::parse_utc("1000-01-01T00:00:00Z", t));
        CPPUNIT_ASSERT(gpufft_app::parse_utc("2250-01-01T00:00:00Z", t));
        CPPUNIT_ASSERT(gpufft_app::utc_after(t, 1e30) > t && gpufft_app::utc_after(t, -1e30) < t);
        CPPUNIT_ASSERT_EQUAL(std::string("2250-01-01T00:00:01.500000Z"),
                             gpufft_app::format_utc(gpufft_app::utc_after(t, 1.5)));
        for (const char* bad : { "", "2026-11-24", "2026-13-01T00:00:00Z", "2026-11-24T20:31:05.Z",
                                 "2026-11-24T20:31:05+01:00", "yesterday", "2026-11-24 20:31:05Z" })
            CPPUNIT_ASSERT_MESSAGE(bad, !gpufft_app::parse_utc(bad, t));
        CPPUNIT_ASSERT(is_iso_utc(gpufft_app::format_utc(gpufft_app::utc_now())));
    }

    // The sample format from the name; a name and --format that disagree
    // are a usage error naming the file; .iq, .raw and streams say none.
    void format_from_name()
    {
        const std::pair<const char*, sample_format> named[] = { { "x.cu8", sample_format::cu8 },
                                                                { "x.cs8", sample_format::cs8 },
                                                                { "x.cs16", sample_format::cs16 },
                                                                { "x.cf32", sample_format::cf32 } };
        for (const auto& [name, f] : named) {
            CPPUNIT_ASSERT(gpufft_app::raw_format(name, "") == f);
            CPPUNIT_ASSERT(gpufft_app::raw_format(name, gpufft::format_name(f)) == f);
            const char* other = f == sample_format::cu8 ? "cs8" : "cu8";
            expect_throw<gpufft_app::usage_error>(
                name, [&] { gpufft_app::raw_format(name, other); }, name);
        }
        for (const char* name : { "x.iq", "x.raw", "x.bin", "capture", "x.CU8" }) {
            CPPUNIT_ASSERT_MESSAGE(name, !gpufft_app::raw_format(name, ""));
            CPPUNIT_ASSERT(gpufft_app::raw_format(name, "cs16") == sample_format::cs16);
        }
        CPPUNIT_ASSERT(!gpufft_app::raw_format("-", "")); // a stream says nothing (it once was cu8)
        CPPUNIT_ASSERT(gpufft_app::raw_format("-", "cf32") == sample_format::cf32);
        CPPUNIT_ASSERT(!gpufft_app::raw_format("/dev/null", "")); // a device is a stream

        // A .cf32 file without --format: read as cf32 (it used to be decoded as cu8: wrong peaks).
        const std::size_t n = 256;
        std::vector<std::complex<float>> x(n * 8);
        for (std::size_t i = 0; i < x.size(); ++i)
            x[i] = std::polar(0.5f, float(2 * M_PI * double(i * 32 % n) / double(n)));
        const std::string cf32 =
            write_file("named.cf32", std::string(reinterpret_cast<const char*>(x.data()), x.size() * 8));
        const auto [status, out, err] =
            run_exe({ cf32, "--rate", "256", "--center", "0", "--fft", "256", "--png", "none", "--peaks", "1" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
        CPPUNIT_ASSERT_MESSAGE(out, out.find("          32.000 Hz    -6.02 dBFS") != std::string::npos);
        const std::string iq = write_file("named.iq", std::string(x.size() * 8, '\0'));
        for (const auto& args : { std::vector<std::string>{ iq, "--rate", "256", "--center", "0" },
                                  { cf32, "--format", "cu8", "--rate", "256", "--center", "0" } }) {
            const auto [bad_status, bad_out, bad_err] = run_exe(args);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(bad_err, 2, bad_status);
            CPPUNIT_ASSERT_MESSAGE(bad_err,
                                   bad_err.find(args[0]) != std::string::npos && lines_of(bad_err).size() == 1);
        }
        CPPUNIT_ASSERT_EQUAL(
            0, app({ iq, "--format", "cf32", "--rate", "256", "--center", "0", "--fft", "256", "--frames", "1",
                     "--png", "none", "--quiet" }));
        // A SigMF datatype and another --format disagree too.
        write_file("typed.sigmf-meta", sigmf_meta("cu8"));
        write_file("typed.sigmf-data", std::string(4096, '\x80'));
        CPPUNIT_ASSERT_EQUAL(2, app({ temp_dir() + "/typed", "--format", "cf32", "--png", "none", "--quiet" }));
        CPPUNIT_ASSERT_EQUAL(0, app({ temp_dir() + "/typed", "--format", "cu8", "--fft", "64", "--frames", "1", "--png",
                                      "none", "--quiet" }));
    }

    // --csv - and --jsonl - write to standard output, nothing else does
    // (the report goes to standard error), and no file named '-' appears.
    void outputs_to_stdout()
    {
        const std::string in = write_file("out.cu8", cu8_tone(64 * 10, 0.125, 0.5));
        const std::string dash = std::filesystem::current_path() / "-";
        for (const char* option : { "--csv", "--jsonl" }) {
            const auto [status, out, err] =
                run_exe({ in, "--rate", "1M", "--center", "0", "--fft", "64", "--overlap", "0", "--frames", "1",
                          "--png", "none", option, "-" });
            CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
            const auto rows = lines_of(out);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(out, std::size_t(std::string(option) == "--csv" ? 11 : 10), rows.size());
            if (std::string(option) == "--jsonl")
                for (const auto& row : rows)
                    CPPUNIT_ASSERT_EQUAL(std::size_t(64), nlohmann::json::parse(row)["db"].size());
            CPPUNIT_ASSERT_MESSAGE(err, err.find("peaks") != std::string::npos);
            CPPUNIT_ASSERT(!std::filesystem::exists(dash));
        }
    }

    // Every CSV row and JSON line has a UTC time in ISO 8601: for a raw file
    // the time it was read; for SigMF the capture's core:datetime plus the
    // offset of the spectrum's last sample.
    /*
     * --rtl-power without a sweep on a file: the intervals are of signal
     * time, so that each row holds interval x rate / N FFTs on any machine
     * (the last one what is left); a SigMF core:datetime dates them, each
     * stamped with the second its interval ends.
     */
    void rtl_power_signal_time()
    {
        // 3.5 s at 1024 samples/s, N = 64: 16 FFTs a second.
        const std::size_t n = 64, rate = 1024, samples = rate * 7 / 2;
        const auto rows_of = [&](const std::vector<std::string>& input, const std::string& name) {
            const std::string rtl = temp_dir() + "/" + name;
            std::vector<std::string> args = input;
            for (const char* a : { "--fft", "64", "--overlap", "0", "--frames", "1", "--png", "none", "--quiet" })
                args.push_back(a);
            args.insert(args.end(), { "--rtl-power", rtl });
            const auto [status, out, err] = run_exe(args);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
            // date, time, Hz low, Hz high, Hz step, samples: the values after them are the same spectra's.
            std::vector<std::pair<std::string, std::string>> rows; // date and time; samples
            for (const auto& line : lines_of(read_file(rtl))) {
                std::vector<std::string> cells;
                std::istringstream in(line);
                for (std::string cell; std::getline(in, cell, ',');)
                    cells.push_back(cell);
                CPPUNIT_ASSERT_EQUAL_MESSAGE(line, n + 7, cells.size());
                rows.push_back({ cells[0] + "," + cells[1], cells[5] });
            }
            return rows;
        };
        const std::string raw = write_file("rows.cu8", cu8_tone(samples, 0.125, 0.5));
        const std::vector<std::string> raw_args = { raw, "--rate", std::to_string(rate), "--center", "0" };
        const auto once = rows_of(raw_args, "raw.rtl");
        const std::vector<std::string> counts = { " 16", " 16", " 16", " 8" };
        CPPUNIT_ASSERT_EQUAL(counts.size(), once.size());
        for (std::size_t k = 0; k < counts.size(); ++k)
            CPPUNIT_ASSERT_EQUAL(counts[k], once[k].second);
        // Slowed down (played at the signal's pace for a while): the same rows.
        auto paced = raw_args;
        paced.insert(paced.end(), { "--realtime", "--duration", "1.5" });
        const auto slow = rows_of(paced, "paced.rtl");
        CPPUNIT_ASSERT_EQUAL(std::size_t(2), slow.size());
        CPPUNIT_ASSERT(slow[0].second == " 16" && slow[1].second == " 8");

        write_file("rows.sigmf-meta", R"({"global": {"core:datatype": "cu8", "core:sample_rate": 1024,
            "core:version": "1.0.0"}, "captures": [{"core:sample_start": 0, "core:frequency": 1e6,
            "core:datetime": "2026-11-24T20:31:05.5Z"}]})");
        write_file("rows.sigmf-data", cu8_tone(samples, 0.125, 0.5));
        const auto dated = rows_of({ temp_dir() + "/rows" }, "dated.rtl");
        CPPUNIT_ASSERT_EQUAL(counts.size(), dated.size());
        gpufft_app::utc_time start;
        CPPUNIT_ASSERT(gpufft_app::parse_utc("2026-11-24T20:31:05.5Z", start));
        for (std::size_t k = 0; k < counts.size(); ++k) {
            // Interval k ends k + 1 s of signal after the capture's start, in local time as rtl_power writes it.
            const std::time_t t = std::chrono::system_clock::to_time_t(
                std::chrono::time_point_cast<std::chrono::system_clock::duration>(
                    start + std::chrono::seconds(k + 1)));
            std::tm local{};
            localtime_r(&t, &local);
            char when[32];
            std::strftime(when, sizeof when, "%Y-%m-%d, %H:%M:%S", &local);
            CPPUNIT_ASSERT_EQUAL(std::string(when), dated[k].first);
            CPPUNIT_ASSERT_EQUAL(counts[k], dated[k].second);
        }
    }

    void timestamps()
    {
        const std::size_t n = 64;
        const std::string in = write_file("when.cu8", cu8_tone(n * 20, 0.125, 0.5));
        const std::string csv = temp_dir() + "/when.csv";
        const auto before = gpufft_app::utc_now();
        CPPUNIT_ASSERT_EQUAL(
            0, app({ in, "--rate", "1M", "--center", "0", "--fft", "64", "--overlap", "0", "--frames", "1", "--png",
                     "none", "--csv", csv, "--quiet" }));
        const auto after = gpufft_app::utc_now();
        const auto rows = lines_of(read_file(csv));
        CPPUNIT_ASSERT_EQUAL(std::size_t(21), rows.size());
        for (std::size_t r = 1; r < rows.size(); ++r) {
            const std::string utc = rows[r].substr(rows[r].find(',') + 1, 27);
            gpufft_app::utc_time t;
            CPPUNIT_ASSERT_MESSAGE(utc, is_iso_utc(utc) && gpufft_app::parse_utc(utc, t));
            CPPUNIT_ASSERT_MESSAGE(utc, t >= before - std::chrono::microseconds(1) && t <= after);
        }

        const std::string meta =
            R"({"global": {"core:datatype": "cu8", "core:sample_rate": 1000, "core:version": "1.0.0"},
            "captures": [{"core:sample_start": 0, "core:frequency": 1e6, "core:datetime": "2026-11-24T20:31:05.5Z"}]})";
        write_file("dated.sigmf-meta", meta);
        write_file("dated.sigmf-data", cu8_tone(n * 20, 0.125, 0.5));
        const std::string jsonl = temp_dir() + "/dated.jsonl";
        CPPUNIT_ASSERT_EQUAL(0, app({ temp_dir() + "/dated", "--fft", "64", "--overlap", "0", "--frames", "2", "--png",
                                      "none", "--jsonl", jsonl, "--quiet" }));
        const auto lines = lines_of(read_file(jsonl));
        CPPUNIT_ASSERT_EQUAL(std::size_t(10), lines.size());
        gpufft_app::utc_time start;
        gpufft_app::parse_utc("2026-11-24T20:31:05.5Z", start);
        for (std::size_t k = 0; k < lines.size(); ++k) {
            const std::string utc = nlohmann::json::parse(lines[k])["utc"];
            // Spectrum k's last sample is 128 k + 127, at 1 ms a sample.
            const auto want = start + std::chrono::microseconds((128 * k + 127) * 1000);
            CPPUNIT_ASSERT_EQUAL(gpufft_app::format_utc(want), utc);
        }
        CPPUNIT_ASSERT_EQUAL(std::string("2026-11-24T20:31:05.627000Z"),
                             nlohmann::json::parse(lines[0])["utc"].get<std::string>());
    }

    // On a stream, a spectrum's time is when its last sample arrived: 20
    // spectra, a pause of 1 s, 20 more; the second 20 are a second later.
    void arrival_times()
    {
        const std::size_t n = 64;
        const std::string fifo = temp_dir() + "/live.fifo", jsonl = temp_dir() + "/live.jsonl";
        ::unlink(fifo.c_str());
        CPPUNIT_ASSERT(::mkfifo(fifo.c_str(), 0600) == 0);
        child c({ fifo, "--format", "cu8", "--rate", "2.4M", "--center", "0", "--fft", "64", "--overlap", "0",
                  "--frames", "1", "--png", "none", "--jsonl", jsonl, "--quiet" },
                -1, -1, -1);
        const int w = ::open(fifo.c_str(), O_WRONLY);
        CPPUNIT_ASSERT(w >= 0);
        const std::string half = cu8_tone(n * 20, 0.125, 0.5);
        CPPUNIT_ASSERT(::write(w, half.data(), half.size()) == ssize_t(half.size()));
        wait_until_waiting(w, c.pid);
        const auto pause = gpufft_app::utc_now();
        std::this_thread::sleep_for(std::chrono::seconds(1));
        CPPUNIT_ASSERT(::write(w, half.data(), half.size()) == ssize_t(half.size()));
        ::close(w);
        CPPUNIT_ASSERT_EQUAL(0, c.wait(30));
        const auto lines = lines_of(read_file(jsonl));
        CPPUNIT_ASSERT_EQUAL(std::size_t(40), lines.size());
        for (std::size_t k = 0; k < lines.size(); ++k) {
            gpufft_app::utc_time t;
            CPPUNIT_ASSERT(gpufft_app::parse_utc(nlohmann::json::parse(lines[k])["utc"].get<std::string>(), t));
            const auto waited = std::chrono::duration<double>(t - pause).count();
            CPPUNIT_ASSERT_MESSAGE(lines[k].substr(0, 80), k < 20 ? waited <= 0 : waited >= 0.9);
        }
    }

    // Two captures at different centres, the boundary inside a frame: each
    // spectrum has its capture's centre and time, the peaks of each are at
    // the right absolute frequency, and the annotations are reported.
    void multi_capture()
    {
        const std::size_t n = 128, boundary = 5000;
        const std::string meta =
            R"({"global": {"core:datatype": "cu8", "core:sample_rate": 1e5, "core:version": "1.0.0"},
            "captures": [{"core:sample_start": 0, "core:frequency": 1e8, "core:datetime": "2026-01-02T03:04:05Z"},
                         {"core:sample_start": 5000, "core:frequency": 2e8, "core:datetime": "2026-01-02T03:05:00.5Z"}],
            "annotations": [{"core:sample_start": 6000, "core:sample_count": 1000, "core:label": "burst",
                             "core:freq_lower_edge": 1.999e8, "core:freq_upper_edge": 2.0001e8}]})";
        write_file("hop.sigmf-meta", meta);
        write_file("hop.sigmf-data", cu8_of(2 * boundary, [&](std::size_t i) {
                       const double cycles = i < boundary ? 1.0 / 8 : -1.0 / 4;
                       return std::polar(0.5, 2 * M_PI * cycles * double(i));
                   }));
        const std::string jsonl = temp_dir() + "/hop.jsonl";
        const auto [status, out, err] = run_exe({ temp_dir() + "/hop", "--fft", "128", "--overlap", "0", "--frames",
                                                  "4", "--png", "none", "--jsonl", jsonl, "--peaks", "1" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
        const auto lines = lines_of(read_file(jsonl));
        const std::size_t per_capture = boundary / (4 * n); // 9: the rest of each capture goes into none
        CPPUNIT_ASSERT_EQUAL(2 * per_capture, lines.size());
        for (std::size_t k = 0; k < lines.size(); ++k) {
            const auto line = nlohmann::json::parse(lines[k]);
            const bool second = k >= per_capture;
            CPPUNIT_ASSERT_DOUBLES_EQUAL(second ? 2e8 : 1e8, line["center_hz"].get<double>(), 0);
            const auto db = line["db"].get<std::vector<double>>();
            const std::size_t want_bin = second ? n / 2 - n / 4 : n / 2 + n / 8;
            CPPUNIT_ASSERT_EQUAL_MESSAGE(std::to_string(k), std::ptrdiff_t(want_bin),
                                         std::max_element(db.begin(), db.end()) - db.begin());
            // Spectra of [5000, 5512), [5512, 6024), ... : the 2nd to 4th overlap the annotation's [6000, 7000).
            const std::size_t j = k - per_capture;
            const bool annotated = second && j >= 1 && j <= 3;
            CPPUNIT_ASSERT_EQUAL_MESSAGE(lines[k].substr(0, 300), annotated, line.contains("annotations"));
            if (annotated)
                CPPUNIT_ASSERT_EQUAL(std::string("burst"), line["annotations"][0]["label"].get<std::string>());
        }
        CPPUNIT_ASSERT_EQUAL(std::string("2026-01-02T03:04:05.005110Z"),
                             nlohmann::json::parse(lines[0])["utc"].get<std::string>());
        CPPUNIT_ASSERT_EQUAL(std::string("2026-01-02T03:05:00.505110Z"),
                             nlohmann::json::parse(lines[per_capture])["utc"].get<std::string>());
        // The peak list: one per centre, at the absolute frequency.
        const auto first = out.find("peaks at centre  100000000.000 Hz"),
                   second = out.find("peaks at centre  200000000.000 Hz");
        CPPUNIT_ASSERT_MESSAGE(out, first != std::string::npos && second != std::string::npos && first < second);
        CPPUNIT_ASSERT_MESSAGE(out, out.find("100012500.000 Hz", first) < second);
        CPPUNIT_ASSERT_MESSAGE(out, out.find("199975000.000 Hz", second) != std::string::npos);
        CPPUNIT_ASSERT_MESSAGE(out, out.find("burst") != std::string::npos);

        // Captures out of order, or a bad datetime, are errors naming them.
        write_file("hop.sigmf-meta", R"({"global": {"core:datatype": "cu8"}, "captures": [{"core:sample_start": 9},
                                         {"core:sample_start": 3}]})");
        expect_throw<gpufft_app::app_error>(
            "order", [] { gpufft_app::open_sigmf(temp_dir() + "/hop"); }, "captures[1]");
        write_file("hop.sigmf-meta",
                   R"({"global": {"core:datatype": "cu8"}, "captures": [{"core:sample_start": 0, "core:datetime": "noon"}]})");
        expect_throw<gpufft_app::app_error>(
            "datetime", [] { gpufft_app::open_sigmf(temp_dir() + "/hop"); }, "core:datetime");
        write_file("hop.sigmf-meta",
                   R"({"global": {"core:datatype": "cu8"}, "annotations": [{"core:sample_start": -1}]})");
        expect_throw<gpufft_app::app_error>(
            "annotation", [] { gpufft_app::open_sigmf(temp_dir() + "/hop"); }, "annotations[0]");
    }

    //! The UTC times and time_s of JSON lines.
    static std::vector<std::pair<gpufft_app::utc_time, double>> line_times(const std::string& jsonl)
    {
        std::vector<std::pair<gpufft_app::utc_time, double>> out;
        for (const auto& line : lines_of(read_file(jsonl))) {
            const auto j = nlohmann::json::parse(line);
            gpufft_app::utc_time t;
            CPPUNIT_ASSERT_MESSAGE(line.substr(0, 80), gpufft_app::parse_utc(j["utc"].get<std::string>(), t));
            out.push_back({ t, j["time_s"].get<double>() });
        }
        return out;
    }

    // --realtime: a file and the demo come at their sample rate. Their
    // spectra's times (when their samples were read) span about the signal's
    // length; checked only against being several times faster, never slower
    // (a loaded machine may be slow).
    void realtime_pace()
    {
        const std::string in = write_file("paced.cu8", cu8_tone(100000, 0.125, 0.5)); // 1 s at 100 kHz
        for (const auto& input : std::vector<std::vector<std::string>>{
                 { in, "--rate", "100k", "--center", "0", "--fft", "1000", "--overlap", "0", "--frames", "10" },
                 { "--demo", "--duration", "1", "--fft", "1024" } }) {
            const std::string jsonl = temp_dir() + "/paced.jsonl";
            std::vector<std::string> args = input;
            for (const char* a : { "--realtime", "--png", "none", "--quiet", "--jsonl" })
                args.push_back(a);
            args.push_back(jsonl);
            const auto [status, out, err] = run_exe(args);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
            const auto times = line_times(jsonl);
            CPPUNIT_ASSERT_MESSAGE(input[0], times.size() >= 10);
            const double signal = times.back().second - times.front().second,
                         wall = std::chrono::duration<double>(times.back().first - times.front().first).count();
            CPPUNIT_ASSERT_MESSAGE(input[0] + ": " + std::to_string(signal) + " s of signal took " +
                                       std::to_string(wall) + " s",
                                   signal > 0.8 && wall >= 0.5 * signal);
        }
    }

    // --loop: a file again from its start, each pass from a fresh engine, so
    // that pass p's spectra are pass 0's; the sample count and the times go
    // on increasing (a SigMF capture's core:datetime moves on by the file's
    // length each pass), for one capture and for several.
    void loop_wraps()
    {
        const std::size_t n = 64, spectra = 10;
        const std::string raw = write_file("loop.cu8", cu8_of(n * spectra, [](std::size_t i) {
                                               return std::polar(0.5, 2 * M_PI * 0.125 * double(i * i % 97));
                                           }));
        const std::vector<std::string> common{ "--fft", "64", "--overlap", "0", "--frames", "1", "--png", "none",
                                               "--quiet", "--loop" };
        const auto run_loop = [&](std::vector<std::string> args, const std::string& duration) {
            const std::string jsonl = temp_dir() + "/loop.jsonl";
            args.insert(args.end(), common.begin(), common.end());
            for (const std::string& a : { std::string("--duration"), duration, std::string("--jsonl"), jsonl })
                args.push_back(a);
            const auto [status, out, err] = run_exe(args);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
            // The peak list: a run per centre of the file, however many passes.
            const bool two = args[0].find("loop2") != std::string::npos;
            CPPUNIT_ASSERT_MESSAGE(out, (out.find("peaks at centre") != std::string::npos) == two);
            if (two)
                CPPUNIT_ASSERT_MESSAGE(out, out.find("peaks at centre", out.find("peaks at centre    2000000") + 1) ==
                                                std::string::npos);
            std::vector<nlohmann::json> lines;
            for (const auto& line : lines_of(read_file(jsonl)))
                lines.push_back(nlohmann::json::parse(line));
            return lines;
        };
        // Raw IQ at 1 kHz: 0.64 s a pass, three passes.
        const auto raw_lines = run_loop({ raw, "--rate", "1k", "--center", "0" }, "1.92");
        CPPUNIT_ASSERT_EQUAL(3 * spectra, raw_lines.size());
        for (std::size_t k = spectra; k < raw_lines.size(); ++k) {
            CPPUNIT_ASSERT_MESSAGE(std::to_string(k), raw_lines[k]["db"] == raw_lines[k % spectra]["db"]);
            CPPUNIT_ASSERT_DOUBLES_EQUAL(raw_lines[k % spectra]["time_s"].get<double>() + 0.64 * double(k / spectra),
                                         raw_lines[k]["time_s"].get<double>(), 1e-9);
        }
        CPPUNIT_ASSERT(raw_lines[0]["db"] != raw_lines[1]["db"]);

        // SigMF, one capture with a datetime: each pass 0.64 s later.
        write_file("loop1.sigmf-data", read_file(raw));
        write_file("loop1.sigmf-meta",
                   R"({"global": {"core:datatype": "cu8", "core:sample_rate": 1000, "core:version": "1.0.0"},
            "captures": [{"core:sample_start": 0, "core:frequency": 1e6, "core:datetime": "2026-11-24T23:59:59.5Z"}]})");
        // Two captures (5 spectra each), the second at another centre and time.
        write_file("loop2.sigmf-data", read_file(raw));
        write_file("loop2.sigmf-meta",
                   R"({"global": {"core:datatype": "cu8", "core:sample_rate": 1000, "core:version": "1.0.0"},
            "captures": [{"core:sample_start": 0, "core:frequency": 1e6, "core:datetime": "2026-11-24T23:59:59.5Z"},
                         {"core:sample_start": 320, "core:frequency": 2e6, "core:datetime": "2026-11-25T00:00:10Z"}]})");
        for (const char* name : { "loop1", "loop2" }) {
            const auto lines = run_loop({ temp_dir() + "/" + name }, "2.56");
            CPPUNIT_ASSERT_EQUAL_MESSAGE(name, 4 * spectra, lines.size());
            for (std::size_t k = spectra; k < lines.size(); ++k) {
                const auto& first = lines[k % spectra];
                gpufft_app::utc_time t0, t;
                CPPUNIT_ASSERT(gpufft_app::parse_utc(first["utc"].get<std::string>(), t0));
                CPPUNIT_ASSERT(gpufft_app::parse_utc(lines[k]["utc"].get<std::string>(), t));
                const auto want = t0 + std::chrono::milliseconds(640 * (k / spectra));
                CPPUNIT_ASSERT_EQUAL_MESSAGE(std::string(name) + " " + std::to_string(k), gpufft_app::format_utc(want),
                                             gpufft_app::format_utc(t));
                CPPUNIT_ASSERT(lines[k]["db"] == first["db"] && lines[k]["center_hz"] == first["center_hz"]);
            }
        }
    }

    // --loop with no --duration runs until stopped, and a signal ends it with complete outputs.
    void loop_until_stopped()
    {
        const std::string in = write_file("endless.cu8", cu8_tone(1000, 0.125, 0.5)), jsonl = temp_dir() + "/endless.jsonl";
        const std::string err_path = temp_dir() + "/endless.err";
        const int err_fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int out_fd = ::open("/dev/null", O_WRONLY);
        child c({ in, "--rate", "10k", "--center", "0", "--fft", "100", "--overlap", "0", "--frames", "1", "--png",
                  "none", "--quiet", "--loop", "--realtime", "--jsonl", jsonl },
                -1, out_fd, err_fd);
        ::close(err_fd), ::close(out_fd);
        // Three passes of 10 spectra, then SIGINT.
        for (int tries = 0; tries < 600 && lines_of(read_file(jsonl)).size() < 30; ++tries)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        ::kill(c.pid, SIGINT);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(read_file(err_path), 130, c.wait(30));
        const auto lines = lines_of(read_file(jsonl));
        CPPUNIT_ASSERT(lines.size() >= 30);
        for (const auto& line : lines)
            CPPUNIT_ASSERT_MESSAGE(line.substr(0, 80), nlohmann::json::parse(line).contains("db"));
    }

    // --realtime and --loop where they mean nothing: a bad command line (exit 2) naming the option.
    void playback_refused()
    {
        const std::string in = write_file("once.cu8", cu8_tone(1000, 0.125, 0.5));
        const std::string fifo = temp_dir() + "/once.fifo";
        ::unlink(fifo.c_str());
        CPPUNIT_ASSERT(::mkfifo(fifo.c_str(), 0600) == 0);
        const std::vector<std::string> raw{ "--rate", "10k", "--center", "0", "--png", "none", "--quiet" };
        const std::vector<std::pair<std::vector<std::string>, std::string>> refused{
            { { "--realtime", "--device", "driver=none", "--center", "100M" }, "--realtime" },
            { { "--loop", "--device", "driver=none", "--center", "100M" }, "--loop" },
            { { "--loop", "--format", "cu8", "--rate", "10k", "--center", "0" }, "--loop" }, // standard input
            { { "-", "--loop", "--format", "cu8", "--rate", "10k", "--center", "0" }, "--loop" },
            { { fifo, "--loop", "--format", "cu8", "--rate", "10k", "--center", "0" }, "--loop" },
            { { in, "--loop", "--record", temp_dir() + "/again" }, "--record" },
            { { in, "--loop", "--annotate" }, "--annotate" },
        };
        for (auto [args, word] : refused) {
            if (args[0] == in)
                args.insert(args.end(), raw.begin(), raw.end());
            const auto [status, out, err] = run_exe(args);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(args[0] + " " + args[1] + ": " + err, 2, status);
            CPPUNIT_ASSERT_MESSAGE(err, err.find(word) != std::string::npos);
        }
    }

    // --record writes the raw IQ as read and metadata that the SigMF reader
    // reads back as the same recording: same samples, same spectra.
    void record_round_trip()
    {
        const std::size_t n = 64;
        std::string raw(n * 50 * 4 + 3, '\0'); // cs16, and a partial sample (not recorded)
        auto g = qa::rng_for("record");
        for (auto& c : raw)
            c = char(g());
        const std::string in = write_file("rt.cs16", raw), base = temp_dir() + "/rt-rec";
        const std::string jsonl_a = temp_dir() + "/rt-a.jsonl", jsonl_b = temp_dir() + "/rt-b.jsonl";
        const auto before = gpufft_app::utc_now();
        CPPUNIT_ASSERT_EQUAL(
            0, app({ in, "--rate", "250k", "--center", "433.92M", "--fft", "64", "--overlap", "0", "--frames", "1",
                     "--png", "none", "--record", base, "--jsonl", jsonl_a, "--quiet" }));
        CPPUNIT_ASSERT(read_file(base + ".sigmf-data") == raw.substr(0, raw.size() - 3));
        const auto meta = nlohmann::json::parse(read_file(base + ".sigmf-meta"));
        CPPUNIT_ASSERT_EQUAL(std::string("ci16_le"), meta["global"]["core:datatype"].get<std::string>());
        CPPUNIT_ASSERT_EQUAL(250e3, meta["global"]["core:sample_rate"].get<double>());
        CPPUNIT_ASSERT_EQUAL(std::string("1.0.0"), meta["global"]["core:version"].get<std::string>());
        CPPUNIT_ASSERT_EQUAL(std::string("gpufft-spectrum"), meta["global"]["core:recorder"].get<std::string>());
        CPPUNIT_ASSERT_EQUAL(std::size_t(1), meta["captures"].size());
        CPPUNIT_ASSERT_EQUAL(433.92e6, meta["captures"][0]["core:frequency"].get<double>());
        CPPUNIT_ASSERT_EQUAL(0, meta["captures"][0]["core:sample_start"].get<int>());
        gpufft_app::utc_time t;
        CPPUNIT_ASSERT(gpufft_app::parse_utc(meta["captures"][0]["core:datetime"].get<std::string>(), t));
        CPPUNIT_ASSERT(t >= before - std::chrono::microseconds(1) && t <= gpufft_app::utc_now());
        CPPUNIT_ASSERT(meta["annotations"].is_array() && meta["annotations"].empty());
        const auto src = gpufft_app::open_sigmf(base);
        CPPUNIT_ASSERT(src.format == sample_format::cs16 && src.sample_rate == 250e3 && src.center_hz == 433.92e6);
        CPPUNIT_ASSERT(src.captures.size() == 1 && src.captures[0].datetime == t);
        CPPUNIT_ASSERT_EQUAL(0, app({ base, "--fft", "64", "--overlap", "0", "--frames", "1", "--png", "none",
                                      "--jsonl", jsonl_b, "--quiet" }));
        const auto a = lines_of(read_file(jsonl_a)), b = lines_of(read_file(jsonl_b));
        CPPUNIT_ASSERT_EQUAL(std::size_t(50), a.size());
        CPPUNIT_ASSERT_EQUAL(a.size(), b.size());
        for (std::size_t k = 0; k < a.size(); ++k)
            CPPUNIT_ASSERT(nlohmann::json::parse(a[k])["db"] == nlohmann::json::parse(b[k])["db"]);

        // A SigMF input's captures and annotations carry over; a device's description is core:hw.
        multi_capture();
        const std::string hop_meta =
            R"({"global": {"core:datatype": "cu8", "core:sample_rate": 1e5, "core:version": "1.0.0",
            "core:description": "two hops", "core:sha512": "00"},
            "captures": [{"core:sample_start": 0, "core:frequency": 1e8, "core:datetime": "2026-01-02T03:04:05Z"},
                         {"core:sample_start": 5000, "core:frequency": 2e8}],
            "annotations": [{"core:sample_start": 6000, "core:label": "burst"}]})";
        write_file("hop.sigmf-meta", hop_meta);
        CPPUNIT_ASSERT_EQUAL(
            0, app({ temp_dir() + "/hop", "--fft", "128", "--png", "none", "--record", base, "--quiet" }));
        CPPUNIT_ASSERT(read_file(base + ".sigmf-data") == read_file(temp_dir() + "/hop.sigmf-data"));
        const auto hop = gpufft_app::open_sigmf(base);
        CPPUNIT_ASSERT_EQUAL(std::size_t(2), hop.captures.size());
        CPPUNIT_ASSERT(hop.captures[1].sample_start == 5000 && hop.captures[1].center_hz == 2e8 &&
                       !hop.captures[1].datetime);
        CPPUNIT_ASSERT(hop.captures[0].datetime &&
                       gpufft_app::format_utc(*hop.captures[0].datetime) == "2026-01-02T03:04:05.000000Z");
        CPPUNIT_ASSERT(hop.annotations.size() == 1 && hop.annotations[0].label == "burst");
        CPPUNIT_ASSERT(read_file(base + ".sigmf-meta").find("two hops") != std::string::npos);
        CPPUNIT_ASSERT(read_file(base + ".sigmf-meta").find("core:sha512") == std::string::npos);

        gpufft_app::iq_source radio;
        radio.format = sample_format::cs8;
        radio.sample_rate = 2e6;
        radio.center_hz = 1e9;
        radio.hardware = "simulated radio, serial 42";
        {
            gpufft_app::sigmf_recorder r(base, radio);
            const unsigned char bytes[5] = { 1, 2, 3, 4, 5 };
            r.write(bytes, 3), r.write(bytes + 3, 2); // whole samples across writes
            r.retune(1.1e9);                          // a device's retune: a new capture at sample 2
            r.write(bytes, 1), r.write(bytes + 1, 1);
            r.commit(std::nullopt);
        }
        CPPUNIT_ASSERT_EQUAL(std::string("\x01\x02\x03\x04\x05\x01", 6), read_file(base + ".sigmf-data"));
        const auto retuned = gpufft_app::open_sigmf(base);
        CPPUNIT_ASSERT_EQUAL(std::size_t(2), retuned.captures.size());
        CPPUNIT_ASSERT(retuned.captures[0].center_hz == 1e9 && retuned.captures[1].center_hz == 1.1e9);
        CPPUNIT_ASSERT(retuned.captures[1].sample_start == 2 && retuned.captures[1].datetime);
        const auto hw = nlohmann::json::parse(read_file(base + ".sigmf-meta"));
        CPPUNIT_ASSERT_EQUAL(std::string("simulated radio, serial 42"), hw["global"]["core:hw"].get<std::string>());
        CPPUNIT_ASSERT_EQUAL(std::string("ci8"), hw["global"]["core:datatype"].get<std::string>());
    }

    // --annotate: a tone present in spectra 31 to 60 of 100 over noise is one
    // annotation: its edges around the tone, its samples those spectra's.
    void annotate()
    {
        const std::size_t n = 128, on = 30 * n, off = 60 * n;
        auto g = qa::rng_for("annotate");
        std::normal_distribution<double> noise(0, 0.01);
        const std::string data = cu8_of(100 * n, [&](std::size_t i) {
            const std::complex<double> w(noise(g), noise(g));
            return i >= on && i < off ? w + std::polar(0.3, 2 * M_PI * double(i % 8) / 8) : w;
        });
        const std::string in = write_file("ann.cu8", data), base = temp_dir() + "/ann-rec";
        const std::vector<std::string> common{ "--rate",    "100k",       "--center",    "100M", "--fft", "128",
                                               "--overlap", "0",          "--frames",    "1",    "--png", "none",
                                               "--quiet",   "--annotate", "--threshold", "20" };
        const auto check = [&](const std::string& meta_path) {
            const auto meta = nlohmann::json::parse(read_file(meta_path));
            const auto& anns = meta["annotations"];
            CPPUNIT_ASSERT_EQUAL_MESSAGE(anns.dump(), std::size_t(1), anns.size());
            const auto& a = anns[0];
            CPPUNIT_ASSERT_EQUAL(std::uint64_t(on), a["core:sample_start"].get<std::uint64_t>());
            CPPUNIT_ASSERT_EQUAL(std::uint64_t(off - on), a["core:sample_count"].get<std::uint64_t>());
            const double tone = 100e6 + 12500, bin = 100e3 / 128;
            const double lo = a["core:freq_lower_edge"], hi = a["core:freq_upper_edge"];
            CPPUNIT_ASSERT_MESSAGE(a.dump(), lo < tone - bin / 2 && hi > tone + bin / 2);
            CPPUNIT_ASSERT_MESSAGE(a.dump(), lo > tone - 8 * bin && hi < tone + 8 * bin);
            CPPUNIT_ASSERT_EQUAL(std::string("signal"), a["core:label"].get<std::string>());
            return meta;
        };
        // Into the recording's metadata.
        auto args = common;
        args.insert(args.begin(), { in, "--record", base });
        CPPUNIT_ASSERT_EQUAL(0, app(args));
        check(base + ".sigmf-meta");
        // Without --record: a .sigmf-meta next to the raw file names it in core:dataset.
        args = common;
        args.insert(args.begin(), in);
        CPPUNIT_ASSERT_EQUAL(0, app(args));
        const auto meta = check(temp_dir() + "/ann.sigmf-meta");
        CPPUNIT_ASSERT_EQUAL(std::string("ann.cu8"), meta["global"]["core:dataset"].get<std::string>());
        const auto src = gpufft_app::open_sigmf(temp_dir() + "/ann");
        CPPUNIT_ASSERT(src.data_path == in && src.annotations.size() == 1 && src.center_hz == 100e6);
        // A SigMF input: its own metadata, every other field kept.
        write_file("own-ann.sigmf-meta", sigmf_meta("cu8", "1e5", "1e8"));
        write_file("own-ann.sigmf-data", data);
        args = std::vector<std::string>(common.begin() + 4, common.end());
        args.insert(args.begin(), temp_dir() + "/own-ann");
        CPPUNIT_ASSERT_EQUAL(0, app(args));
        const auto own = check(temp_dir() + "/own-ann.sigmf-meta");
        CPPUNIT_ASSERT_EQUAL(std::string("t\u00e9st \"q\""), own["global"]["core:description"].get<std::string>());
        CPPUNIT_ASSERT(!own["global"].contains("core:dataset"));
        // Annotating again replaces this program's annotations, and keeps the others.
        CPPUNIT_ASSERT_EQUAL(0, app(args));
        check(temp_dir() + "/own-ann.sigmf-meta");
        auto foreign = nlohmann::json::parse(read_file(temp_dir() + "/own-ann.sigmf-meta"));
        foreign["annotations"].push_back({ { "core:sample_start", 1 }, { "core:label", "by hand" } });
        write_file("own-ann.sigmf-meta", foreign.dump());
        CPPUNIT_ASSERT_EQUAL(0, app(args));
        const auto both = nlohmann::json::parse(read_file(temp_dir() + "/own-ann.sigmf-meta"))["annotations"];
        CPPUNIT_ASSERT_EQUAL_MESSAGE(both.dump(), std::size_t(2), both.size());
        CPPUNIT_ASSERT_EQUAL(std::string("by hand"),
                             both[0]["core:label"].get<std::string>()); // sorted by sample_start
        // Standard input has nothing to annotate without --record.
        args = common;
        args.insert(args.begin(), { "-", "--format", "cu8" });
        const auto [status, out, err] = run_exe(args, in);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 2, status);
        CPPUNIT_ASSERT_MESSAGE(err, err.find("--annotate") != std::string::npos);
    }

    // A recording that fails to write is an error naming the file (exit
    // status 1) and leaves no metadata, one that cannot be created is refused
    // at the start (2); a data header is refused, not misread.
    void record_errors()
    {
        const std::string in = write_file("rerr.cu8", cu8_tone(64 * 100, 0.1, 0.5)), base = temp_dir() + "/full";
        ::unlink((base + ".sigmf-data").c_str());
        ::unlink((base + ".sigmf-meta").c_str());
        CPPUNIT_ASSERT(::symlink("/dev/full", (base + ".sigmf-data").c_str()) == 0);
        const auto [status, out, err] = run_exe({ in, "--rate", "1M", "--center", "0", "--fft", "64", "--frames", "1",
                                                  "--png", "none", "--record", base });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 1, status);
        CPPUNIT_ASSERT_MESSAGE(err, err.find(base + ".sigmf-data") != std::string::npos &&
                                        err.find("No space left") != std::string::npos);
        CPPUNIT_ASSERT(!std::filesystem::exists(base + ".sigmf-meta"));
        const auto [s2, o2, e2] =
            run_exe({ in, "--rate", "1M", "--center", "0", "--fft", "64", "--png", "none", "--record",
                      temp_dir() + "/no/such/dir/r" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(e2, 2, s2); // refused at the start, as a bad option
        CPPUNIT_ASSERT_MESSAGE(e2, e2.find("--record " + temp_dir() + "/no/such/dir/r.sigmf-data") != std::string::npos);
        CPPUNIT_ASSERT_EQUAL(2, app({ in, "--rate", "1M", "--center", "0", "--record", temp_dir() + "/" }));

        write_file("hdr.sigmf-meta", R"({"global": {"core:datatype": "cu8"}, "captures": [{"core:sample_start": 0,
                                        "core:header_bytes": 512}]})");
        write_file("hdr.sigmf-data", std::string(4096, '\0'));
        expect_throw<gpufft_app::app_error>(
            "header", [] { gpufft_app::open_sigmf(temp_dir() + "/hdr"); }, "core:header_bytes");
        write_file("hdr.sigmf-meta", R"({"global": {"core:datatype": "cu8", "core:num_channels": 2}})");
        expect_throw<gpufft_app::app_error>(
            "channels", [] { gpufft_app::open_sigmf(temp_dir() + "/hdr"); }, "core:num_channels");
    }

    // Reads that split samples, as a pipe or socket gives them (3 bytes of a
    // cf32 sample, then 2, then the rest; then reads of 1 to 20 bytes): the
    // recording is the input byte for byte, less a trailing partial sample.
    void record_split_reads()
    {
        auto g = qa::rng_for("record_split_reads");
        for (const auto format : { sample_format::cf32, sample_format::cs16 }) {
            std::string raw(8 * 500 + 3, '\0');
            for (auto& c : raw)
                c = char(g());
            std::vector<std::size_t> chunks{ 3, 2, raw.size() - 5 };
            const std::size_t bps = gpufft::sample_bytes(format);
            for (std::size_t at = 0; at < raw.size();) { // reads of 1 to 20 bytes
                chunks.push_back(std::min<std::size_t>(1 + g() % 20, raw.size() - at));
                at += chunks.back();
            }
            const std::size_t first_run = 3; // the issue's three reads, then the short ones, separately
            for (const auto& [from, to] : { std::pair<std::size_t, std::size_t>{ 0, first_run },
                                            { first_run, chunks.size() } }) {
                gpufft_app::iq_source src;
                src.format = format;
                src.sample_rate = 1e6;
                const std::string base = temp_dir() + "/split";
                {
                    gpufft_app::sigmf_recorder r(base, src);
                    std::size_t at = 0;
                    for (std::size_t k = from; k < to; ++k) {
                        r.write(reinterpret_cast<const unsigned char*>(raw.data()) + at, chunks[k]);
                        at += chunks[k];
                    }
                    CPPUNIT_ASSERT_EQUAL(raw.size(), at);
                    r.commit(std::nullopt);
                }
                const std::string recorded = read_file(gpufft_app::sigmf_recorder::data_name(base));
                const std::string what = gpufft_app::sigmf_datatype(format) + (from ? ", short reads" : ", 3 + 2 + rest");
                CPPUNIT_ASSERT_EQUAL_MESSAGE(what, raw.size() - raw.size() % bps, recorded.size());
                CPPUNIT_ASSERT_MESSAGE(what, recorded == raw.substr(0, recorded.size()));
            }
        }
    }

    /*
     * An --fft (with its --frames or --fps) that the input's known length,
     * or --duration's, cannot fill once is refused before anything is
     * planned: exit 2 naming the option and the samples (it took 14 GB and
     * minutes to say so at 2^28). A missing input is said before planning too.
     */
    void size_against_input()
    {
        const std::string path = write_file("short.cu8", cu8_tone(100000, 0.1, 0.5));
        const std::vector<std::string> raw = { path, "--rate", "2.4M", "--center", "0", "--png", "none", "--quiet" };
        const auto with = [&](std::vector<std::string> more) {
            more.insert(more.begin(), raw.begin(), raw.end());
            return run_exe(more);
        };
        const auto expect = [](const std::tuple<int, std::string, std::string>& r, int status,
                               const std::vector<std::string>& words) {
            const auto& [got, out, err] = r;
            CPPUNIT_ASSERT_EQUAL_MESSAGE(err, status, got);
            for (const auto& w : words)
                CPPUNIT_ASSERT_MESSAGE(err + " does not say " + w, err.find(w) != std::string::npos);
        };
        expect(with({ "--fft", "16777216" }), 2, { "--fft 16777216", "25165824 samples", "100000" }); // K = 2 (--fps)
        expect(with({ "--fft", "1024", "--frames", "1000" }), 2, { "--frames 1000", "512512 samples", "100000" });
        expect(with({ "--fft", "65536", "--frames", "1" }), 0, {});
        expect(with({ "--fft", "4096", "--frames", "1", "--duration", "0.001" }), 2, { "--duration", "2400" });
        expect(run_exe({ "--demo", "--fft", "8388608", "--png", "none" }), 2, { "--fft 8388608", "--demo" });
        expect(run_exe({ temp_dir() + "/absent.cf32", "--rate", "1M", "--center", "0", "--fft", "16777216" }), 1,
               { "absent.cf32: cannot open" });
    }

    /*
     * NaN and infinite samples (a cf32 file) are taken as 0: no spectrum
     * reads -300 dB "silence" or an infinite level, the tone reads its
     * level, the JSON line of each spectrum they touch counts them, and the
     * end report gives the total.
     */
    void non_finite_input()
    {
        const std::size_t n = 1024, samples = 64 * n;
        std::vector<std::complex<float>> x(samples);
        for (std::size_t i = 0; i < samples; ++i)
            x[i] = std::polar(0.5f, float(2 * M_PI * 0.125 * double(i % 8))); // -6.02 dBFS at fs / 8
        for (std::size_t i = 10 * n; i < 10 * n + 10; ++i)
            x[i] = { NAN, 0 };
        x[40 * n + 3] = { 0, INFINITY };
        const std::string path = write_file("nan.cf32", std::string(reinterpret_cast<const char*>(x.data()), samples * 8));
        const std::string jsonl = temp_dir() + "/nan.jsonl";
        const auto [status, out, err] = run_exe({ path, "--rate", "1M", "--center", "0", "--fft", "1024", "--overlap",
                                                  "0", "--frames", "1", "--window", "hann", "--jsonl", jsonl, "--png",
                                                  "none" });
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
        CPPUNIT_ASSERT_MESSAGE(err, err.find("11 input samples were NaN or infinite") != std::string::npos);
        CPPUNIT_ASSERT_MESSAGE(err, err.find("in the 2 spectra that hold some") != std::string::npos);
        std::istringstream lines(read_file(jsonl));
        std::size_t line = 0;
        for (std::string text; std::getline(lines, text); ++line) {
            const auto j = nlohmann::json::parse(text);
            const auto db = j["db"].get<std::vector<double>>();
            const std::size_t want = line == 10 ? 10 : line == 40 ? 1 : 0;
            CPPUNIT_ASSERT_EQUAL_MESSAGE(text.substr(0, 200), want,
                                         j.value("nonfinite_samples", std::size_t(0)));
            const double top = *std::max_element(db.begin(), db.end());
            CPPUNIT_ASSERT_MESSAGE(std::to_string(line) + ": " + std::to_string(top), top > -7 && top < -5);
        }
        CPPUNIT_ASSERT_EQUAL(std::size_t(64), line);
        CPPUNIT_ASSERT_MESSAGE(out, out.find("-6.0") != std::string::npos); // the mean spectrum's peak
    }

    // SIGINT while recording from a FIFO: the data holds every whole sample
    // read, and the metadata is complete, valid JSON (exit status 130).
    void interrupted_recording()
    {
        const std::string fifo = temp_dir() + "/rec.fifo", base = temp_dir() + "/intr";
        ::unlink(fifo.c_str());
        CPPUNIT_ASSERT(::mkfifo(fifo.c_str(), 0600) == 0);
        const int err_fd = ::open((temp_dir() + "/intr.err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        child c({ fifo, "--format", "cu8", "--fft", "256", "--frames", "1", "--rate", "1M", "--center", "100M",
                  "--png", "none",
                  "--record", base, "--annotate", "--quiet" },
                -1, err_fd, err_fd);
        ::close(err_fd);
        const int w = ::open(fifo.c_str(), O_WRONLY);
        CPPUNIT_ASSERT(w >= 0);
        const std::string data = cu8_tone(256 * 40, 0.125, 0.5) + "\x80"; // and half a sample
        CPPUNIT_ASSERT(::write(w, data.data(), data.size()) == ssize_t(data.size()));
        wait_until_waiting(w, c.pid);
        ::kill(c.pid, SIGINT);
        const int status = c.wait(30);
        ::close(w);
        const std::string err = read_file(temp_dir() + "/intr.err");
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 130, status);
        CPPUNIT_ASSERT(read_file(base + ".sigmf-data") == data.substr(0, data.size() - 1));
        const auto meta = nlohmann::json::parse(read_file(base + ".sigmf-meta"));
        CPPUNIT_ASSERT_EQUAL(std::string("cu8"), meta["global"]["core:datatype"].get<std::string>());
        CPPUNIT_ASSERT_EQUAL(100e6, meta["captures"][0]["core:frequency"].get<double>());
        CPPUNIT_ASSERT(!meta["annotations"].empty()); // the tone (and the spurs of its 8-bit samples)
        for (const auto& a : meta["annotations"])
            CPPUNIT_ASSERT(a.contains("core:sample_count") && a.contains("core:freq_upper_edge"));
        CPPUNIT_ASSERT(names_starting(temp_dir(), ".intr").empty()); // no temporary file left
    }

    // A reader that goes away ends the program quietly (no message) with 141.
    void closed_stdout()
    {
        const std::string in = write_file("long.cu8", std::string(64 << 20, '\x80'));
        int p[2];
        CPPUNIT_ASSERT(::pipe2(p, O_CLOEXEC) == 0); // the program holds only its own end
        const std::string err_path = temp_dir() + "/pipe.err";
        const int err_fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        child c({ in, "--rate", "1M", "--center", "0", "--fft", "64", "--frames", "1", "--png", "none", "--csv", "-",
                  "--quiet" }, -1, p[1], err_fd);
        ::close(p[1]);
        ::close(err_fd);
        char buf[100];
        CPPUNIT_ASSERT(::read(p[0], buf, sizeof buf) > 0); // like `| head -c 100`
        ::close(p[0]);
        const int status = c.wait(60);
        const std::string err = read_file(err_path);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 141, status);
        CPPUNIT_ASSERT_MESSAGE(err, err.find("write failed") == std::string::npos &&
                                        err.find("Broken pipe") == std::string::npos);
        // A waterfall PNG larger than a pipe holds, its reader gone after the
        // first bytes: the same quiet 141 (libpng reports the failed write).
        for (const char* option : { "--png", "--persistence" }) {
            CPPUNIT_ASSERT(::pipe2(p, O_CLOEXEC) == 0);
            const int err2_fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            std::vector<std::string> args = { in, "--rate", "1M", "--center", "0", "--fft", "4096", "--frames", "1",
                                              "--width", "4096", "--height", "2000", "--quiet", option, "-" };
            if (std::string(option) == "--persistence")
                args.insert(args.end(), { "--png", "none" });
            child png(args, -1, p[1], err2_fd);
            ::close(p[1]);
            ::close(err2_fd);
            CPPUNIT_ASSERT(::read(p[0], buf, sizeof buf) > 0);
            ::close(p[0]);
            const int png_status = png.wait(60);
            const std::string png_err = read_file(err_path);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(std::string(option) + ": " + png_err, 141, png_status);
            CPPUNIT_ASSERT_MESSAGE(png_err, png_err.find("libpng") == std::string::npos &&
                                                png_err.find("write failed") == std::string::npos);
        }
    }
};

CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_spectrum_app, "spectrum_app");

} // namespace

int main(int argc, char** argv)
{
    std::printf("qa_spectrum_app: seed %llu (GPUFFT_TEST_SEED=%llu reproduces this run)\n",
                (unsigned long long)qa::run_seed(), (unsigned long long)qa::run_seed());
    CppUnit::TextTestRunner runner;
    CppUnit::Test* all = CppUnit::TestFactoryRegistry::getRegistry("spectrum_app").makeTest();
    if (argc == 1)
        runner.addTest(all);
    // Tests named on the command line: by their name without the fixture's.
    const std::function<void(CppUnit::Test*, const std::string&)> add = [&](CppUnit::Test* t, const std::string& want) {
        const std::string name = t->getName();
        if (t->getChildTestCount() == 0 && name.size() > want.size() &&
            name.compare(name.size() - want.size() - 2, std::string::npos, "::" + want) == 0)
            runner.addTest(t);
        for (int i = 0; i < t->getChildTestCount(); ++i)
            add(t->getChildTestAt(i), want);
    };
    for (int i = 1; i < argc; ++i)
        add(all, argv[i]);
    const bool ok = runner.run("", false, true, false);
    std::filesystem::remove_all(temp_dir());
    return ok ? 0 : 1;
}
