/* gpufft-spectrum's suite: options, SigMF, the PNG, CSV/JSON lines and peaks
 * through its functions, and the program in subprocesses for what only a
 * process shows (signals, a closed pipe, memory on a long stream).
 *
 *   qa_spectrum_app [TEST...]    default: the whole spectrum_app suite
 *
 * Random data is fresh each run; GPUFFT_TEST_SEED reproduces one. */
#include "spectrum/app.h"
#include "spectrum/persistence.h"
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
    CPPUNIT_TEST(signals);
    CPPUNIT_TEST(closed_stdout);
    CPPUNIT_TEST_SUITE_END();

public:
    // Every option keeps its meaning; --opt=value and negative values work.
    void options_parse()
    {
        const auto o = gpufft_app::parse_options({ "in.cu8", "--format=cs16", "--rate", "1e6", "--center=-5e3",
                                                   "--fft", "4096", "--overlap", "0.25", "--window", "kaiser:8.6",
                                                   "--average", "peak", "--alpha", "0.5", "--fps", "10",
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
        CPPUNIT_ASSERT(o.average == "peak" && o.alpha == 0.5 && o.fps == 10);
        CPPUNIT_ASSERT(o.db_min == -100 && o.db_max == -10);
        CPPUNIT_ASSERT(o.png == "none" && o.csv == "a.csv" && o.jsonl == "b.jsonl");
        CPPUNIT_ASSERT(o.width == 300 && o.height == 200 && o.peaks == 3 && o.peak_threshold == 6);
        CPPUNIT_ASSERT(o.progress == 0 && o.backend == "simd" && o.persistence == "p.png");
        const auto d = gpufft_app::parse_options({});
        CPPUNIT_ASSERT(d.input == "-" && d.fft == 2048 && d.png == "waterfall.png" && !d.rate_set);
        CPPUNIT_ASSERT(d.persistence.empty() && gpufft_app::parse_options({ "--persistence", "none" }).persistence.empty());
        CPPUNIT_ASSERT(std::isnan(d.window_param) && d.frames == 0);
        CPPUNIT_ASSERT_EQUAL(std::string("-"), gpufft_app::parse_options({ "-", "--demo" }).input);
        CPPUNIT_ASSERT_EQUAL(std::size_t(7), gpufft_app::parse_options({ "--frames", "7" }).frames);
        const auto h = gpufft_app::parse_options({ "--help" });
        CPPUNIT_ASSERT_EQUAL(std::string("b"), gpufft_app::parse_options({ "--png", "a", "--png=b" }).png);
        for (const char* word : { "--rate", "--frames", "--peak-threshold", "Exit status", "130", "dBFS" })
            CPPUNIT_ASSERT_MESSAGE(word, h.help.find(word) != std::string::npos);
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
        };
        for (const auto& [args, word] : bad) {
            std::string what;
            for (const auto& a : args)
                what += a + " ";
            expect_throw<gpufft_app::usage_error>(what, [&] { gpufft_app::parse_options(args); }, word);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what, 2, app(args));
        }
        // Checked against the frame rate: 1 Hz at 1e12 samples/s is over 1e12 frames per spectrum.
        const std::string empty = write_file("ranges.cu8", "");
        CPPUNIT_ASSERT_EQUAL(2, app({ empty, "--rate", "1e12", "--fft", "1", "--fps", "1e-6", "--png", "none" }));
        CPPUNIT_ASSERT_EQUAL(2, app({ empty, "--rate", "1000", "--fft", "10", "--fps", "1000", "--png", "none" }));
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
        CPPUNIT_ASSERT_EQUAL(1, app({ empty, "--png", png, "--quiet" }));
        CPPUNIT_ASSERT_EQUAL(1, app({ temp_dir() + "/absent.cu8", "--png", png }));
        CPPUNIT_ASSERT_EQUAL(1, app({ temp_dir(), "--png", png })); // a directory
        CPPUNIT_ASSERT_EQUAL(1, app({ empty, "--window", "nope" }));

        // A truncated final sample (odd byte count for cu8, 3 extra bytes for
        // cs16) is ignored with a warning; the complete samples are used.
        for (const auto& [name, fmt, extra] : { std::tuple<const char*, const char*, int>{ "odd.cu8", "cu8", 1 },
                                                { "trunc.cs16", "cs16", 3 } }) {
            const std::size_t bps = gpufft::sample_bytes(gpufft::parse_sample_format(fmt));
            const std::string path = write_file(name, std::string(64 * 64 * bps + extra, '\x11'));
            const std::string csv = temp_dir() + "/" + name + ".csv";
            CPPUNIT_ASSERT_EQUAL(0, app({ path, "--format", fmt, "--fft", "64", "--overlap", "0", "--frames", "1",
                                          "--png", "none", "--csv", csv, "--quiet" }));
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
            gpufft_app::write_png(path, w, ax, h);
            const auto size = decode_png(path);
            CPPUNIT_ASSERT_EQUAL(unsigned(gpufft_app::margin_left + 100 + gpufft_app::margin_right), size.first);
            CPPUNIT_ASSERT_EQUAL(unsigned(gpufft_app::margin_top + (h ? h : 37) + gpufft_app::margin_bottom), size.second);
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
        gpufft_app::write_png(path, w, ax, 10);
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
        CPPUNIT_ASSERT(text.rfind("time_s (values: tone dBFS),432950000.000,", 0) == 0);
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

    // A tone of known power reads the same dB (its power in dBFS) in the
    // CSV, the JSON lines and the peak list, whatever the window.
    void db_scale()
    {
        const std::size_t n = 1024;
        const double amp = 0.5, want = 20 * std::log10(amp); // -6.02 dBFS
        std::vector<std::complex<float>> x(n * 8);
        for (std::size_t i = 0; i < x.size(); ++i) // on bin 100: no scalloping
            x[i] = std::polar(float(amp), float(2 * M_PI * double(i * 100 % n) / double(n)));
        const std::string path = temp_dir() + "/tone.cf32";
        write_file("tone.cf32", std::string(reinterpret_cast<const char*>(x.data()), x.size() * sizeof x[0]));
        for (const char* window : { "hann", "blackmanharris", "flattop", "rectangular" }) {
            const std::string csv = temp_dir() + "/scale.csv", jsonl = temp_dir() + "/scale.jsonl";
            const auto [status, out, err] =
                run_exe({ path, "--format", "cf32", "--rate", "1024", "--fft", "1024", "--overlap", "0",
                          "--frames", "2", "--window", window, "--csv", csv, "--jsonl", jsonl, "--png", "none",
                          "--peaks", "1" });
            CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 0, status);
            const auto rows = lines_of(read_file(csv));
            std::vector<double> values;
            std::istringstream cells(rows.at(1));
            for (std::string cell; std::getline(cells, cell, ',');)
                values.push_back(std::stod(cell));
            const double csv_db = *std::max_element(values.begin() + 1, values.end());
            const auto line = nlohmann::json::parse(lines_of(read_file(jsonl)).at(0));
            const auto db = line["db"].get<std::vector<double>>();
            const double json_db = *std::max_element(db.begin(), db.end());
            const auto at = out.find("Hz");
            CPPUNIT_ASSERT_MESSAGE(out, out.find("peaks") != std::string::npos && at != std::string::npos);
            const std::string peak_line = out.substr(out.find("peaks"));
            const double peak_db = std::stod(peak_line.substr(peak_line.find("Hz") + 2));
            const std::string what = std::string(window) + ": csv " + std::to_string(csv_db) + ", json " +
                                     std::to_string(json_db) + ", peak " + std::to_string(peak_db);
            CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(what, want, csv_db, 0.02);
            CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(what, want, json_db, 0.02);
            CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(what, want, peak_db, 0.02);
        }
        std::vector<float> hann(n);
        for (std::size_t i = 0; i < n; ++i)
            hann[i] = float(0.5 - 0.5 * std::cos(2 * M_PI * double(i) / double(n)));
        CPPUNIT_ASSERT_DOUBLES_EQUAL(10 * std::log10(2.0 / 3), gpufft_app::tone_gain_db(hann), 1e-3); // -1.76 dB
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
        const double noise_db = 10 * std::log10(noise_power / double(n)) - gpufft_app::tone_gain_db(s.window());
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
        child c({ "-", "--fft", "64", "--overlap", "0", "--frames", "1", "--rate", "1e6", "--png", png, "--quiet",
                  "--peaks", "0", "--persistence", persistence },
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

    // A failed write is an error naming the file (exit status 1), from stdio and from libpng.
    void write_errors()
    {
        const std::string in = write_file("full.cu8", cu8_tone(64 * 400, 0.1, 0.5));
        for (const char* option : { "--png", "--csv", "--jsonl", "--persistence" }) {
            std::vector<std::string> args{ in, "--fft", "64", "--frames", "1", "--png", "none", option, "/dev/full" };
            const auto [status, out, err] = run_exe(args);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(option, 1, status);
            CPPUNIT_ASSERT_MESSAGE(err, err.find("/dev/full") != std::string::npos &&
                                            err.find("No space left") != std::string::npos);
        }
        // A folder that does not exist, or one that is not writable: the message names the file and why.
        ::mkdir((temp_dir() + "/locked").c_str(), 0500);
        for (const std::string& path : { temp_dir() + "/absent/p.png", temp_dir() + "/locked/p.png" }) {
            const auto [status, out, err] = run_exe({ in, "--fft", "64", "--png", "none", "--persistence", path });
            CPPUNIT_ASSERT_EQUAL_MESSAGE(err, 1, status);
            CPPUNIT_ASSERT_MESSAGE(err, err.find(path + ": cannot write") != std::string::npos);
            if (::geteuid() == 0) // root writes into a read-only folder
                break;
        }
        // The report on standard output, to a full device.
        const int full = ::open("/dev/full", O_WRONLY);
        child c({ in, "--fft", "64", "--frames", "1", "--png", "none" }, -1, full, -1);
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
            const auto [status, out, err] = run_exe({ in, "--fft", "64", option, path });
            CPPUNIT_ASSERT_EQUAL_MESSAGE(option, 2, status);
            CPPUNIT_ASSERT_MESSAGE(err, err.find(option) != std::string::npos && err.find("input") != std::string::npos);
        }
        CPPUNIT_ASSERT(read_file(in) == data);
        const auto [status, out, err] = run_exe({ "-", "--fft", "64", "--csv", link }, in);
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

    // A failed run leaves no output (no header-only CSV, no empty JSON
    // lines, no temporary file); an existing output is replaced only on success.
    void no_partial_outputs()
    {
        const std::string dir = temp_dir() + "/partial";
        ::mkdir(dir.c_str(), 0755);
        const std::string short_in = write_file("short.cu8", std::string(100, '\x80'));
        CPPUNIT_ASSERT_EQUAL(1, app({ short_in, "--fft", "1024", "--csv", dir + "/a.csv", "--jsonl", dir + "/a.jsonl",
                                      "--png", dir + "/a.png", "--quiet" }));
        CPPUNIT_ASSERT(names_starting(dir, "").size() == 2); // . and ..
        write_file("partial/a.csv", "old");
        CPPUNIT_ASSERT_EQUAL(1, app({ short_in, "--fft", "1024", "--csv", dir + "/a.csv", "--quiet" }));
        CPPUNIT_ASSERT_EQUAL(std::string("old"), read_file(dir + "/a.csv"));
        const std::string in = write_file("ok.cu8", cu8_tone(64 * 100, 0.1, 0.5));
        CPPUNIT_ASSERT_EQUAL(0, app({ in, "--fft", "64", "--frames", "1", "--csv", dir + "/a.csv", "--png",
                                      dir + "/a.png", "--quiet" }));
        CPPUNIT_ASSERT(read_file(dir + "/a.csv").rfind("time_s", 0) == 0);
        CPPUNIT_ASSERT(names_starting(dir, ".").size() == 2);
        struct stat st;
        CPPUNIT_ASSERT(::stat((dir + "/a.csv").c_str(), &st) == 0);
        const mode_t mask = ::umask(0);
        ::umask(mask);
        CPPUNIT_ASSERT_EQUAL(unsigned(0666 & ~mask), unsigned(st.st_mode & 0777));
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
            child c({ fifo, "--fft", std::to_string(n), "--overlap", "0", "--frames", "1", "--rate", "1e6", "--png",
                      png, "--csv", csv, "--jsonl", jsonl, "--persistence", persistence, "--quiet" },
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
                CPPUNIT_ASSERT_EQUAL_MESSAGE(what, std::ptrdiff_t(n), std::count(row.begin(), row.end(), ','));
            const auto lines = lines_of(read_file(jsonl));
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what, std::size_t(50), lines.size());
            CPPUNIT_ASSERT_EQUAL(n, nlohmann::json::parse(lines.back())["db"].size());
        }
    }

    // A reader that goes away ends the program quietly (no message) with 141.
    void closed_stdout()
    {
        const std::string in = write_file("long.cu8", std::string(64 << 20, '\x80'));
        int p[2];
        CPPUNIT_ASSERT(::pipe2(p, O_CLOEXEC) == 0); // the program holds only its own end
        const std::string err_path = temp_dir() + "/pipe.err";
        const int err_fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        child c({ in, "--fft", "64", "--frames", "1", "--png", "none", "--csv", "-", "--quiet" }, -1, p[1], err_fd);
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
