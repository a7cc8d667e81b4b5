/* gr-gpufft spectrum engine suite: tones, averaging, framing, sample formats
 * and bad input, against references computed here in double precision.
 *
 *   qa_spectrum [SUITE...]    suites: spectrum, spectrum_app (default: both)
 *
 * spectrum_app tests the gpufft-spectrum app, built only with libpng
 * (GPUFFT_QA_SPECTRUM_APP); without it that suite is empty.
 *
 * Random data is fresh each run; GPUFFT_TEST_SEED reproduces one. */
#include "qa_common.h"

#include <gpufft/spectrum.h>
#ifdef GPUFFT_QA_SPECTRUM_APP
#include "spectrum/app.h"
#include <png.h>
#endif
#include <cppunit/TextTestRunner.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cppunit/extensions/TestFactoryRegistry.h>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <tuple>

namespace qa {

namespace {

using gpufft::averaging;
using gpufft::sample_format;
using gpufft::spectrum;
using gpufft::spectrum_config;

std::mt19937_64 rng_for(const std::string& tag)
{
    std::seed_seq seq(tag.begin(), tag.end());
    std::mt19937_64 g(seq);
    g.seed(g() ^ run_seed());
    return g;
}

//! Every output of pushing `x`, then flushing, concatenated.
std::vector<float> run_all(spectrum& s, const std::vector<cf>& x, std::size_t chunk = 0)
{
    std::vector<float> out;
    const auto sink = [&](const float* p, std::size_t n) { out.insert(out.end(), p, p + n); };
    if (chunk == 0)
        chunk = x.size();
    for (std::size_t i = 0; i < x.size(); i += chunk)
        s.push(x.data() + i, std::min(chunk, x.size() - i), sink);
    s.flush(sink);
    return out;
}

//! |DFT|^2 of one windowed frame, in double.
std::vector<double> dft_power(const cf* x, const std::vector<float>& w)
{
    const std::size_t n = w.size();
    std::vector<double> p(n);
    for (std::size_t k = 0; k < n; ++k) {
        cd acc = 0;
        for (std::size_t j = 0; j < n; ++j)
            acc += cd(x[j]) * double(w[j]) * std::polar(1.0, -2 * M_PI * double(j * k % n) / double(n));
        p[k] = std::norm(acc);
    }
    return p;
}

//! The engine's outputs recomputed in double from the configuration.
std::vector<double> reference(const spectrum_config& c, const spectrum& s, const std::vector<cf>& x)
{
    const std::size_t n = c.fft_size, hop = s.hop(), k_out = s.frames_per_output();
    const auto& w = s.window();
    double power = 0;
    for (float v : w)
        power += double(v) * v;
    const double scale = 4.0 / (double(n) * power * c.ref_scale * c.ref_scale);
    std::vector<double> out, avg(n);
    std::size_t count = 0, seen = 0;
    for (std::size_t start = 0; start + n <= x.size(); start += hop, ++seen) {
        const auto p = dft_power(x.data() + start, w);
        for (std::size_t i = 0; i < n; ++i) {
            const bool first = c.average == averaging::exponential ? seen == 0 : count == 0;
            double& a = avg[i];
            switch (c.average) {
            case averaging::exponential:
                a = first ? p[i] : (1 - c.alpha) * a + c.alpha * p[i];
                break;
            case averaging::linear:
                a = first ? p[i] : a + p[i];
                break;
            case averaging::peak_hold:
                a = first ? p[i] : std::max(a, p[i]);
                break;
            case averaging::min_hold:
                a = first ? p[i] : std::min(a, p[i]);
                break;
            }
        }
        if (++count == k_out) {
            count = 0;
            const double div = c.average == averaging::linear ? double(k_out) : 1.0;
            for (std::size_t i = 0; i < n; ++i) {
                const std::size_t src = c.shift ? (i + n - n / 2) % n : i;
                const double v = avg[src] * scale / div;
                out.push_back(c.db ? 10 * std::log10(v) : v);
            }
        }
    }
    return out;
}

std::string describe(const spectrum_config& c)
{
    std::ostringstream s;
    s << "N=" << c.fft_size << " window=" << c.window << " overlap=" << c.overlap
      << " avg=" << int(c.average) << " K=" << c.frames_per_output << " db=" << c.db
      << " shift=" << c.shift << " batch=" << c.batch;
    return s.str();
}

void expect_error(const std::string& what, const std::function<void()>& fn, const std::string& word)
{
    try {
        fn();
    } catch (const gpufft::error& e) {
        CPPUNIT_ASSERT_MESSAGE(what + ": message \"" + e.what() + "\" does not name " + word,
                               std::string(e.what()).find(word) != std::string::npos);
        return;
    }
    CPPUNIT_FAIL(what + ": did not throw gpufft::error");
}

class qa_spectrum : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_spectrum);
    CPPUNIT_TEST(tones_every_window);
    CPPUNIT_TEST(averaging_against_reference);
    CPPUNIT_TEST(framing_and_chunking);
    CPPUNIT_TEST(formats_exact);
    CPPUNIT_TEST(output_rate_and_bins);
    CPPUNIT_TEST(bad_input);
    CPPUNIT_TEST_SUITE_END();

public:
    // A tone on bin k reads 20 log10(A) plus the window's coherent/power gain ratio.
    void tones_every_window()
    {
        auto g = rng_for("tones");
        std::string fails;
        std::size_t checks = 0;
        for (const auto& name : gpufft::window_names())
            for (std::size_t n : { 64, 63, 1000, 243 })
                for (bool shift : { false, true }) {
                    spectrum_config c;
                    c.fft_size = n;
                    c.window = name;
                    c.shift = shift;
                    c.sample_rate = 1e6;
                    c.batch = 2; // the third frame comes from flush()
                    spectrum s(c);
                    const std::size_t bin = g() % n;
                    const double amp = std::pow(10.0, -double(g() % 60) / 20), phase = double(g() % 1000);
                    std::vector<cf> x(3 * n);
                    for (std::size_t j = 0; j < x.size(); ++j)
                        x[j] = cf(std::polar(amp, phase + 2 * M_PI * double(j * bin % n) / double(n)));
                    const auto out = run_all(s, x);
                    const std::size_t got = out.size() / n;
                    double sum = 0, power = 0;
                    for (float w : s.window())
                        sum += w, power += double(w) * w;
                    const double want = 20 * std::log10(amp) + 10 * std::log10(sum * sum / (double(n) * power));
                    for (std::size_t f = 0; f < std::min<std::size_t>(got, 3); ++f) {
                        const float* p = out.data() + f * n;
                        const std::size_t peak = std::max_element(p, p + n) - p;
                        const double hz = s.bin_hz(peak), want_hz = (bin < (n + 1) / 2 ? double(bin) : double(bin) - double(n)) * 1e6 / double(n);
                        ++checks;
                        if (out.size() != 3 * n || std::abs(p[peak] - want) > 0.1 || std::abs(hz - want_hz) > 1e-6) {
                            std::ostringstream m;
                            m << describe(c) << " bin " << bin << ": peak " << peak << " at " << hz << " Hz, "
                              << p[peak] << " dB; want " << want_hz << " Hz, " << want << " dB, 3 outputs (got " << got << ")\n";
                            fails += m.str();
                        }
                    }
                }
        std::printf("tones: %zu checks\n", checks);
        CPPUNIT_ASSERT_MESSAGE(fails, fails.empty());
    }

    void averaging_against_reference()
    {
        std::string fails;
        for (auto avg : { averaging::exponential, averaging::linear, averaging::peak_hold, averaging::min_hold })
            for (std::size_t n : { 60, 33 })
                for (bool db : { false, true }) {
                    spectrum_config c;
                    c.fft_size = n;
                    c.average = avg;
                    c.alpha = 0.3;
                    c.frames_per_output = 4;
                    c.overlap = 0.5;
                    c.db = db;
                    c.shift = n == 33;
                    c.window = "hann";
                    c.batch = 3;
                    spectrum s(c);
                    std::vector<cf> x(40 * n + 7);
                    fill_random(x.data(), x.size(), "avg " + describe(c));
                    const auto out = run_all(s, x, 17);
                    const auto ref = reference(c, s, x);
                    if (out.size() != ref.size()) {
                        fails += describe(c) + ": " + std::to_string(out.size()) + " values, want " +
                                 std::to_string(ref.size()) + "\n";
                        continue;
                    }
                    for (std::size_t o = 0; o < ref.size(); o += n) {
                        const double top = *std::max_element(ref.begin() + o, ref.begin() + o + n);
                        for (std::size_t i = o; i < o + n; ++i) {
                            const double err = std::abs(out[i] - ref[i]);
                            if (!(db ? err < 0.01 : err < 1e-5 * top)) {
                                fails += describe(c) + ": value " + std::to_string(i) + " = " + std::to_string(out[i]) +
                                         ", want " + std::to_string(ref[i]) + "\n";
                                break;
                            }
                        }
                    }
                }
        CPPUNIT_ASSERT_MESSAGE(fails, fails.empty());
    }

    // Exact frame and output counts; any chunking gives bit-identical outputs.
    void framing_and_chunking()
    {
        auto g = rng_for("framing");
        for (double overlap : { 0.0, 0.25, 0.5, 0.75, 0.9 })
            for (std::size_t n : { 16, 100, 37 }) {
                spectrum_config c;
                c.fft_size = n;
                c.overlap = overlap;
                c.average = averaging::linear;
                c.frames_per_output = 1 + g() % 4;
                c.batch = 1 + g() % 5;
                const std::size_t total = n * (20 + g() % 20) + g() % n;
                std::vector<cf> x(total);
                fill_random(x.data(), x.size(), "framing " + describe(c));
                spectrum whole(c), chunked(c);
                const auto a = run_all(whole, x);
                std::vector<float> b;
                for (std::size_t i = 0; i < total;) {
                    const std::size_t len = std::min<std::size_t>(g() % (3 * n), total - i);
                    chunked.push(x.data() + i, len, [&](const float* p, std::size_t k) { b.insert(b.end(), p, p + k); });
                    i += len;
                }
                chunked.flush([&](const float* p, std::size_t k) { b.insert(b.end(), p, p + k); });
                const std::size_t hop = n - std::size_t(std::lround(overlap * double(n)));
                const std::size_t frames = (total - n) / hop + 1;
                const std::string what = describe(c) + " samples=" + std::to_string(total);
                CPPUNIT_ASSERT_EQUAL_MESSAGE(what, hop, whole.hop());
                CPPUNIT_ASSERT_EQUAL_MESSAGE(what, frames, whole.frames());
                CPPUNIT_ASSERT_EQUAL_MESSAGE(what, frames, chunked.frames());
                CPPUNIT_ASSERT_EQUAL_MESSAGE(what, frames / c.frames_per_output * n, a.size());
                CPPUNIT_ASSERT_MESSAGE(what + ": chunked pushes differ", a == b);
                whole.reset();
                CPPUNIT_ASSERT_EQUAL_MESSAGE(what, std::size_t(0), whole.frames());
            }
    }

    // Each integer format through the engine equals cf32 samples decoded here
    // by the documented formula, bit for bit; bytes may arrive one at a time.
    void formats_exact()
    {
        auto g = rng_for("formats");
        const std::size_t n = 8, samples = 8 * 256;
        for (auto f : { sample_format::cs16, sample_format::cs8, sample_format::cu8 }) {
            const std::size_t bytes = samples * gpufft::sample_bytes(f);
            std::vector<unsigned char> raw(bytes);
            for (std::size_t i = 0; i < bytes; ++i) // every byte value, shuffled order
                raw[i] = std::uint8_t(i);
            std::shuffle(raw.begin(), raw.end(), g);
            std::vector<cf> ref(samples);
            for (std::size_t i = 0; i < samples; ++i) {
                float v[2];
                for (int k = 0; k < 2; ++k) {
                    const std::size_t at = i * gpufft::sample_bytes(f) + k * gpufft::sample_bytes(f) / 2;
                    switch (f) {
                    case sample_format::cs16:
                        v[k] = float(double(std::int16_t(raw[at] | raw[at + 1] << 8)) / 32768.0);
                        break;
                    case sample_format::cs8:
                        v[k] = float(double(std::int8_t(raw[at])) / 128.0);
                        break;
                    default:
                        v[k] = float((double(raw[at]) - 127.5) / 127.5);
                    }
                }
                ref[i] = cf(v[0], v[1]);
            }
            spectrum_config c;
            c.fft_size = n;
            c.window = "rectangular";
            c.db = false;
            c.batch = 5;
            spectrum want(c);
            const auto a = run_all(want, ref);
            c.format = f;
            spectrum got(c);
            std::vector<float> b(a.size(), std::numeric_limits<float>::quiet_NaN());
            std::size_t at = 0;
            const auto sink = [&](const float* p, std::size_t k) {
                std::copy(p, p + k, b.begin() + std::ptrdiff_t(at));
                at += k;
            };
            for (std::size_t i = 0; i < bytes; ++i)
                got.push_bytes(raw.data() + i, 1, sink);
            got.flush(sink);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(gpufft::format_name(f), a.size(), at);
            CPPUNIT_ASSERT_MESSAGE(gpufft::format_name(f) + " decodes differently", a == b);
        }
        CPPUNIT_ASSERT(gpufft::parse_sample_format("cu8") == sample_format::cu8);
        CPPUNIT_ASSERT_EQUAL(std::size_t(4), gpufft::sample_bytes(sample_format::cs16));
    }

    void output_rate_and_bins()
    {
        spectrum_config c;
        c.fft_size = 10;
        c.sample_rate = 1000; // 100 frames/s
        c.output_rate = 10;
        c.shift = true;
        spectrum s(c);
        CPPUNIT_ASSERT_EQUAL(std::size_t(10), s.frames_per_output());
        CPPUNIT_ASSERT_DOUBLES_EQUAL(-500.0, s.bin_hz(0), 1e-9);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(0.0, s.bin_hz(5), 1e-9);
        c.overlap = 0.5; // 200 frames/s
        c.output_rate = 200;
        CPPUNIT_ASSERT_EQUAL(std::size_t(1), spectrum(c).frames_per_output());
        c.shift = false;
        c.fft_size = 5;
        c.output_rate = 0;
        spectrum odd(c);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(400.0, odd.bin_hz(2), 1e-9);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(-400.0, odd.bin_hz(3), 1e-9);
    }

    void bad_input()
    {
        const auto with = [](const std::function<void(spectrum_config&)>& edit) {
            return [edit] {
                spectrum_config c;
                edit(c);
                spectrum s(c);
            };
        };
        expect_error("fft size 0", with([](auto& c) { c.fft_size = 0; }), "fft_size");
        // 2^40, or 2^30 with a 32-bit size_t (armhf).
        constexpr std::size_t huge = std::size_t(1) << (sizeof(std::size_t) >= 8 ? 40 : 30);
        expect_error("fft size 2^40", with([](auto& c) { c.fft_size = huge; }), "fft_size");
        expect_error("huge batch", with([](auto& c) { c.batch = huge; }), "batch");
        expect_error("short window", with([](auto& c) { c.user_window.assign(10, 1.0f); }), "window length");
        expect_error("zero window", with([](auto& c) { c.user_window.assign(c.fft_size, 0.0f); }), "window");
        expect_error("overlap 0.95", with([](auto& c) { c.overlap = 0.95; }), "overlap");
        expect_error("overlap -0.1", with([](auto& c) { c.overlap = -0.1; }), "overlap");
        expect_error("overlap NaN", with([](auto& c) { c.overlap = std::nan(""); }), "overlap");
        expect_error("alpha 0", with([](auto& c) { c.alpha = 0; }), "alpha");
        expect_error("alpha 1.5", with([](auto& c) { c.alpha = 1.5; }), "alpha");
        expect_error("K 0", with([](auto& c) { c.frames_per_output = 0; }), "frames_per_output");
        expect_error("rate < 0", with([](auto& c) { c.output_rate = -1; }), "output_rate");
        // K = frame rate / output_rate would not fit (it came out as 2^63).
        expect_error("rate 1e-300", with([](auto& c) { c.output_rate = 1e-300; }), "output_rate");
        expect_error("K 2^31", with([](auto& c) { c.frames_per_output = std::size_t(1) << 31; }),
                     "frames_per_output");
        expect_error("rate too high", with([](auto& c) { c.sample_rate = 1024 * 10; c.output_rate = 11; }), "output_rate");
        expect_error("sample rate 0", with([](auto& c) { c.sample_rate = 0; }), "sample_rate");
        expect_error("ref scale 0", with([](auto& c) { c.ref_scale = 0; }), "ref_scale");
        expect_error("window name", with([](auto& c) { c.window = "hanning-ish"; }), "hanning-ish");
        expect_error("backend", with([](auto& c) { c.backend = "nope"; }), "nope");
        expect_error("format", [] { gpufft::parse_sample_format("ci12"); }, "ci12");
        expect_error("averaging", [] { gpufft::parse_averaging("median"); }, "median");
        expect_error("push cf32 into cu8", [] {
            spectrum_config c;
            c.format = sample_format::cu8;
            spectrum s(c);
            cf x[4];
            s.push(x, 4, nullptr);
        }, "cf32");
        expect_error("null data", [] {
            spectrum s{ spectrum_config() };
            s.push_bytes(nullptr, 8, nullptr);
        }, "null");
    }
};

CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_spectrum, "spectrum");

#ifdef GPUFFT_QA_SPECTRUM_APP
// ---------------------------------------------------------------------------
// gpufft-spectrum: input files, SigMF, JSON, the PNG (through its functions).

std::string temp_dir()
{
    static const std::string dir = [] {
        char tmpl[] = "/tmp/qa_spectrum_XXXXXX";
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

//! Runs the program; returns its exit status.
int app(std::vector<std::string> args) { return gpufft_app::run(args); }

std::string sigmf_meta(const std::string& datatype)
{
    return R"({"global": {"core:datatype": ")" + datatype +
           R"(", "core:sample_rate": 1.0e5, "core:version": "1.0.0", "core:description": "t\u00e9st \"q\""},
               "captures": [{"core:sample_start": 0, "core:frequency": 4.33e8}], "annotations": []})";
}

void expect_app_error(const std::string& what, const std::function<void()>& fn, const std::string& word)
{
    try {
        fn();
    } catch (const gpufft_app::app_error& e) {
        CPPUNIT_ASSERT_MESSAGE(what + ": \"" + e.what() + "\" does not name " + word,
                               std::string(e.what()).find(word) != std::string::npos);
        return;
    }
    CPPUNIT_FAIL(what + ": did not throw app_error");
}

class qa_spectrum_app : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_spectrum_app);
    CPPUNIT_TEST(json_parser);
    CPPUNIT_TEST(sigmf);
    CPPUNIT_TEST(bad_files);
    CPPUNIT_TEST(png_size);
    CPPUNIT_TEST(csv_and_peaks);
    CPPUNIT_TEST_SUITE_END();

public:
    void json_parser()
    {
        const auto j = gpufft_app::parse_json(R"( {"a": [1, -2.5e3, true, false, null], "b": {"c": "x\ny\u00e9\ud83d\ude00"}} )");
        CPPUNIT_ASSERT(j.find("a") && j.find("a")->array.size() == 5);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(-2500.0, j.find("a")->array[1].number, 0);
        CPPUNIT_ASSERT(j.find("a")->array[2].boolean && !j.find("a")->array[3].boolean);
        CPPUNIT_ASSERT_EQUAL(std::string("x\ny\xc3\xa9\xf0\x9f\x98\x80"), j.find("b")->find("c")->string);
        for (const char* bad : { "", "{", "{\"a\" 1}", "[1,]", "{\"a\":01}", "\"abc", "[1] x", "tru",
                                 "{\"a\":\"\\q\"}", "-", "1.", "[\"\\ud800\\u0041\"]" })
            expect_app_error(std::string("JSON ") + bad, [&] { gpufft_app::parse_json(bad); }, "malformed JSON");
        expect_app_error("deep nesting", [] { gpufft_app::parse_json(std::string(100000, '[')); }, "nested");
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
        }
        const std::pair<const char*, sample_format> types[] = { { "cf32_le", sample_format::cf32 },
                                                                { "ci8", sample_format::cs8 },
                                                                { "cu8", sample_format::cu8 } };
        for (const auto& t : types) {
            write_file("rec.sigmf-meta", sigmf_meta(t.first));
            CPPUNIT_ASSERT(gpufft_app::open_sigmf(temp_dir() + "/rec").format == t.second);
        }
    }

    // Each bad file is a clear error (exit status 1) or a documented behaviour, never a crash.
    void bad_files()
    {
        const std::string png = temp_dir() + "/bad.png";
        write_file("u.sigmf-meta", sigmf_meta("ci32_le"));
        write_file("u.sigmf-data", std::string(64, '\0'));
        expect_app_error("unknown datatype", [] { gpufft_app::open_sigmf(temp_dir() + "/u"); }, "ci32_le");
        write_file("m.sigmf-meta", R"({"global": {"core:datatype": "cu8",}})");
        write_file("m.sigmf-data", std::string(64, '\0'));
        expect_app_error("malformed", [] { gpufft_app::open_sigmf(temp_dir() + "/m.sigmf-meta"); }, "malformed JSON");
        write_file("d.sigmf-meta", sigmf_meta("cu8"));
        expect_app_error("missing data", [] { gpufft_app::open_sigmf(temp_dir() + "/d"); }, "missing");
        write_file("n.sigmf-meta", "[1, 2]");
        expect_app_error("not SigMF", [] { gpufft_app::open_sigmf(temp_dir() + "/n"); }, "global");
        for (const char* rec : { "u", "m.sigmf-meta", "d.sigmf-data", "n" })
            CPPUNIT_ASSERT_EQUAL_MESSAGE(rec, 1, app({ temp_dir() + "/" + rec, "--png", png, "--quiet" }));

        const std::string empty = write_file("empty.cu8", "");
        CPPUNIT_ASSERT_EQUAL(1, app({ empty, "--png", png, "--quiet" }));
        CPPUNIT_ASSERT_EQUAL(1, app({ temp_dir() + "/absent.cu8", "--png", png }));
        CPPUNIT_ASSERT_EQUAL(1, app({ empty, "--fft", "0" }));
        CPPUNIT_ASSERT_EQUAL(1, app({ empty, "--window", "kaiser:x" }));
        CPPUNIT_ASSERT_EQUAL(1, app({ empty, "--no-such-option" }));
        CPPUNIT_ASSERT_EQUAL(1, app({ empty, "--format", "cs12" }));

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
        gpufft_app::waterfall w;
        w.width = 100;
        std::vector<float> row(300);
        auto g = rng_for("png");
        for (int r = 0; r < 37; ++r) {
            for (auto& v : row)
                v = -100.0f + float(g() % 100);
            w.add(row.data(), row.size());
        }
        CPPUNIT_ASSERT_EQUAL(std::size_t(37), w.count());
        gpufft_app::axes ax;
        ax.f_lo = 433.92e6 - 1e5;
        ax.f_hi = 433.92e6 + 1e5;
        ax.seconds_per_row = 0.1;
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

    // A SigMF cu8 recording of a tone: the CSV's frequencies are absolute and
    // the tone is the first peak.
    void csv_and_peaks()
    {
        const std::size_t n = 128, frames = 40;
        std::string data(2 * n * frames, '\0');
        for (std::size_t i = 0; i < n * frames; ++i) { // 1/8 of the rate above the centre
            data[2 * i] = char(std::lround(127.5 + 100 * std::cos(2 * M_PI * double(i) / 8)));
            data[2 * i + 1] = char(std::lround(127.5 + 100 * std::sin(2 * M_PI * double(i) / 8)));
        }
        write_file("tone.sigmf-meta", sigmf_meta("cu8"));
        write_file("tone.sigmf-data", data);
        const std::string csv = temp_dir() + "/tone.csv", jsonl = temp_dir() + "/tone.jsonl";
        CPPUNIT_ASSERT_EQUAL(0, app({ temp_dir() + "/tone", "--fft", "128", "--frames", "4", "--overlap", "0",
                                      "--csv", csv, "--jsonl", jsonl, "--png", "none", "--quiet" }));
        const std::string text = read_file(csv);
        CPPUNIT_ASSERT_EQUAL(std::ptrdiff_t(1 + frames / 4), std::count(text.begin(), text.end(), '\n'));
        CPPUNIT_ASSERT(text.rfind("time_s,432950000.000,", 0) == 0);
        const std::string lines = read_file(jsonl);
        CPPUNIT_ASSERT_EQUAL(std::ptrdiff_t(frames / 4), std::count(lines.begin(), lines.end(), '\n'));
        const auto first = gpufft_app::parse_json(lines.substr(0, lines.find('\n')));
        const auto& db = first.find("db")->array;
        CPPUNIT_ASSERT_EQUAL(n, db.size());
        const auto peak = std::max_element(db.begin(), db.end(), [](const auto& a, const auto& b) { return a.number < b.number; });
        CPPUNIT_ASSERT_EQUAL(std::ptrdiff_t(n / 2 + n / 8), peak - db.begin());

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
};

CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_spectrum_app, "spectrum_app");
#endif // GPUFFT_QA_SPECTRUM_APP

} // namespace

} // namespace qa

int main(int argc, char** argv)
{
    std::printf("qa_spectrum: seed %llu (GPUFFT_TEST_SEED=%llu reproduces this run)\n",
                (unsigned long long)qa::run_seed(), (unsigned long long)qa::run_seed());
    CppUnit::TextTestRunner runner;
    std::vector<std::string> suites(argv + 1, argv + argc);
    if (suites.empty())
        suites = { "spectrum", "spectrum_app" };
    for (const auto& s : suites)
        runner.addTest(CppUnit::TestFactoryRegistry::getRegistry(s).makeTest());
    return runner.run("", false, true, false) ? 0 : 1;
}
