// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL suite: the spectrum chain on the device
 * (lib/spectrum/opencl/spectrum_chain.cc) against a double-precision
 * reference and against the CPU chain.
 *
 *   qa_opencl_spectrum
 *
 * The device is GPUFFT_OPENCL_DEVICE's, else the best one. Exit status 77
 * (skipped) when no OpenCL device is usable here, saying why.
 *
 * The reference decodes the raw samples by sample_format's documented
 * formula, windows them in float (as both chains do, so the FFT's input is
 * the same), transforms with FFTW double, and averages, scales, shifts and
 * takes the dB in double. Linear power outputs: the device's relative L2
 * error against it, over all outputs of a configuration, is within twice the
 * larger of the CPU chain's and that of the same computation through FFTW
 * float (each is one float FFT of the same input plus a few float operations
 * per bin, as the device's; qa_common.h's criterion), and each output within
 * transform_cap times the larger of those two. dB outputs are compared in dB: a bin
 * within 50 dB of its output's mean power carries a float relative error of
 * a few 1e-7 times sqrt(log2 N) in amplitude, under 1e-3 dB, so the bound is
 * 0.01 dB; weaker bins (one in 1e5 of random data) only within 1 dB, since
 * their relative error grows as the bin shrinks. */
#include "qa_common.h"
#include "qa_spectrum_input.h"

#include <gpufft/opencl.h>
#include <gpufft/spectrum.h>
#include <cppunit/TextTestRunner.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cppunit/extensions/TestFactoryRegistry.h>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <sstream>

namespace qa {

namespace {

using gpufft::averaging;
using gpufft::sample_format;
using gpufft::spectrum;
using gpufft::spectrum_config;

const sample_format all_formats[] = { sample_format::cf32, sample_format::cs16,
                                      sample_format::cs8, sample_format::cu8 };
const averaging all_averaging[] = { averaging::exponential, averaging::linear,
                                    averaging::peak_hold, averaging::min_hold };
const char* const windows[] = { "blackmanharris", "hann", "rectangular", "kaiser" };
const double overlaps[] = { 0.0, 0.5, 0.75 };

constexpr double db_bound = 0.01, weak_db_bound = 1.0, weak_below_mean_db = 50.0;

//! `samples` raw samples: fill_random's components quantized to the format's full scale.
std::vector<unsigned char> random_raw(sample_format f, std::size_t samples, const std::string& tag)
{
    std::vector<cf> x(samples);
    fill_random(x.data(), samples, tag);
    const float* v = reinterpret_cast<const float*>(x.data());
    std::vector<unsigned char> raw(samples * gpufft::sample_bytes(f));
    for (std::size_t i = 0; i < 2 * samples; ++i) // v[i] in [-1, 1), 24 random bits
        switch (f) {
        case sample_format::cf32:
            std::memcpy(raw.data() + 4 * i, v + i, 4);
            break;
        case sample_format::cs16: {
            const auto s = std::int16_t(std::floor(v[i] * 32768.0f));
            std::memcpy(raw.data() + 2 * i, &s, 2);
            break;
        }
        case sample_format::cs8:
            raw[i] = std::uint8_t(std::int8_t(std::floor(v[i] * 128.0f)));
            break;
        case sample_format::cu8:
            raw[i] = std::uint8_t(std::floor((v[i] + 1.0f) * 128.0f));
            break;
        }
    return raw;
}

//! Component i of the raw samples by sample_format's documented formula.
double decoded(sample_format f, const unsigned char* raw, std::size_t i)
{
    switch (f) {
    case sample_format::cf32: {
        float v;
        std::memcpy(&v, raw + 4 * i, 4);
        return v;
    }
    case sample_format::cs16: {
        std::int16_t v;
        std::memcpy(&v, raw + 2 * i, 2);
        return v / 32768.0;
    }
    case sample_format::cs8:
        return std::int8_t(raw[i]) / 128.0;
    case sample_format::cu8:
        break;
    }
    return (raw[i] - 127.5) / 127.5;
}

//! The engine's outputs for every complete frame of `raw`, computed as the file
//! comment says; with fftw_float, through FFTW float instead of FFTW double.
std::vector<double>
reference_outputs(const spectrum& s, const std::vector<unsigned char>& raw, bool fftw_float = false)
{
    const spectrum_config& c = s.config();
    const std::size_t n = s.fft_size(), k_out = s.frames_per_output();
    const std::size_t samples = raw.size() / gpufft::sample_bytes(c.format);
    const auto& w = s.window();
    double sum = 0, power = 0;
    for (float v : w)
        sum += v, power += double(v) * v;
    const double full = c.scale == gpufft::level_scale::dbfs ? sum * sum : double(n) * power;
    const double scale = 4.0 / (full * c.ref_scale * c.ref_scale) /
                         (c.average == averaging::linear ? double(k_out) : 1.0);
    reference& fft = ref_for(n, gpufft::direction::forward);
    std::vector<cf> frame(n), xf(n);
    std::vector<cd> x(n);
    std::vector<double> avg(n), out;
    std::size_t count = 0;
    for (std::size_t start = 0; start + n <= samples; start += s.hop()) {
        for (std::size_t j = 0; j < n; ++j)
            frame[j] = cf(float(decoded(c.format, raw.data(), 2 * (start + j))) * w[j],
                          float(decoded(c.format, raw.data(), 2 * (start + j) + 1)) * w[j]);
        if (fftw_float) {
            fft.fftwf(frame.data(), xf.data());
            std::copy(xf.begin(), xf.end(), x.begin());
        } else {
            fft.exact(frame.data(), x.data());
        }
        const bool first = c.average == averaging::exponential ? start == 0 : count == 0;
        for (std::size_t k = 0; k < n; ++k) {
            const double p = std::norm(x[k]);
            double& a = avg[k];
            if (first)
                a = p;
            else if (c.average == averaging::exponential)
                a = (1 - c.alpha) * a + c.alpha * p;
            else if (c.average == averaging::linear)
                a += p;
            else
                a = c.average == averaging::peak_hold ? std::max(a, p) : std::min(a, p);
        }
        if (++count < k_out)
            continue;
        count = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const double v = avg[c.shift ? (i + n - n / 2) % n : i] * scale;
            out.push_back(c.db ? 10 * std::log10(std::max(v, 1e-30)) : v);
        }
    }
    return out;
}

//! Every output of pushing `raw` in chunks of `chunk` bytes (0: at once), then flushing.
std::vector<float> run_bytes(spectrum& s, const std::vector<unsigned char>& raw, std::size_t chunk = 0)
{
    std::vector<float> out;
    const auto sink = [&](const float* p, std::size_t n) { out.insert(out.end(), p, p + n); };
    chunk = chunk ? chunk : raw.size();
    for (std::size_t i = 0; i < raw.size(); i += chunk)
        s.push_bytes(raw.data() + i, std::min(chunk, raw.size() - i), sink);
    s.flush(sink);
    return out;
}

std::string describe(const spectrum_config& c)
{
    std::ostringstream s;
    s << gpufft::format_name(c.format) << " N=" << c.fft_size << " " << c.window
      << " overlap=" << c.overlap << " avg=" << int(c.average) << " K=" << c.frames_per_output
      << " db=" << c.db << " shift=" << c.shift << " batch=" << c.batch;
    return s.str();
}

//! Relative L2 error of each output and of all together.
struct linear_error {
    l2_error all;
    std::vector<double> each;
};

linear_error linear_errors(const std::vector<float>& out, const std::vector<double>& ref, std::size_t n)
{
    linear_error e;
    std::vector<cf> o(n);
    std::vector<cd> r(n);
    for (std::size_t at = 0; at + n <= ref.size(); at += n) {
        for (std::size_t i = 0; i < n; ++i) {
            o[i] = cf(out[at + i], 0.0f);
            r[i] = cd(ref[at + i], 0.0);
        }
        e.each.push_back(e.all.add(o.data(), r.data(), n));
    }
    return e;
}

//! dB outputs against the reference: db_bound for bins near the output's mean power, weak_db_bound below.
void check_db(failures& f, const std::string& name, const std::vector<float>& got,
              const std::vector<double>& ref, std::size_t n)
{
    for (std::size_t at = 0; at < ref.size(); at += n) {
        double mean = 0;
        for (std::size_t i = at; i < at + n; ++i)
            mean += std::pow(10.0, ref[i] / 10) / double(n);
        // cppcheck-suppress invalidFunctionArg ; a mean of n >= 1 powers of ten, above 0
        const double weak = 10 * std::log10(mean) - weak_below_mean_db;
        double worst = 0;
        for (std::size_t i = at; i < at + n; ++i) {
            const double err = std::abs(got[i] - ref[i]);
            const double bound = ref[i] >= weak ? db_bound : weak_db_bound;
            worst = std::max(worst, std::isfinite(err) ? err / bound : HUGE_VAL);
            if (!(err <= bound)) {
                f.add(name + ": output " + std::to_string(at / n) + " bin " + std::to_string(i - at) +
                      " = " + std::to_string(got[i]) + " dB, want " + std::to_string(ref[i]));
                break;
            }
        }
        f.note(name + " (dB, error / bound)", worst, 1.0);
    }
}

//! Checks one configuration on the device against the reference and the CPU chain.
void check_config(failures& f, const spectrum_config& base, const std::size_t frames)
{
    spectrum_config c = base;
    c.backend = "opencl";
    spectrum dev(c);
    c.backend = "simd";
    spectrum cpu(c);
    const std::string name = describe(c);
    if (dev.backend().compare(0, 7, "opencl:") != 0) {
        f.add(name + ": the engine runs on " + dev.backend() + ", not the opencl chain");
        return;
    }
    const auto raw = random_raw(c.format, (frames - 1) * dev.hop() + c.fft_size, name);
    const auto ref = reference_outputs(dev, raw);
    const auto got = run_bytes(dev, raw), want = run_bytes(cpu, raw);
    if (got.size() != ref.size() || want.size() != ref.size()) {
        f.add(name + ": " + std::to_string(got.size()) + " values on the device, " +
              std::to_string(want.size()) + " on the CPU, want " + std::to_string(ref.size()));
        return;
    }
    const std::size_t n = c.fft_size;
    if (!c.db) {
        const auto fftwf = reference_outputs(dev, raw, true);
        const auto e_dev = linear_errors(got, ref, n), e_cpu = linear_errors(want, ref, n);
        const auto e_fftwf = linear_errors(std::vector<float>(fftwf.begin(), fftwf.end()), ref, n);
        const double bound = bound_for(std::max(e_cpu.all.rel(), e_fftwf.all.rel()));
        f.note(name, e_dev.all.rel(), bound);
        if (!(e_dev.all.rel() <= bound))
            f.add(name + ": relative error " + std::to_string(e_dev.all.rel()) + " > " +
                  std::to_string(bound) + " (CPU chain " + std::to_string(e_cpu.all.rel()) +
                  ", FFTW float " + std::to_string(e_fftwf.all.rel()) + ")");
        for (std::size_t o = 0; o < e_dev.each.size(); ++o)
            if (!(e_dev.each[o] <=
                  transform_cap * std::max({ e_cpu.each[o], e_fftwf.each[o], error_floor }))) {
                f.add(name + ": output " + std::to_string(o) + " relative error " +
                      std::to_string(e_dev.each[o]) + ", CPU chain " + std::to_string(e_cpu.each[o]));
                break;
            }
        return;
    }
    check_db(f, name, got, ref, n);
}

class qa_opencl_spectrum : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_opencl_spectrum);
    CPPUNIT_TEST(against_reference);
    CPPUNIT_TEST(chunked_and_reset);
    CPPUNIT_TEST(ragged_pushes);
    CPPUNIT_TEST(zero_copy_input);
    CPPUNIT_TEST(bad_input);
    CPPUNIT_TEST_SUITE_END();

public:
    /* Every format x averaging x K (1 and 4) x dB on/off at N = 64, 1000,
     * 4096; windows, overlaps and shift rotate through those cases so each
     * size sees each of them. N = 61 (Bluestein) and 16384 (two passes here
     * on PoCL) run each format with and without dB. A batch of 3 frames splits outputs
     * across calls, flush() runs a partial batch. */
    void against_reference()
    {
        failures f;
        std::size_t i = 0;
        const auto one = [&](std::size_t n, sample_format fmt, averaging avg, std::size_t k, bool db) {
            spectrum_config c;
            c.fft_size = n;
            c.format = fmt;
            c.average = avg;
            c.alpha = 0.25;
            c.frames_per_output = k;
            c.db = db;
            c.window = windows[i % 4];
            c.overlap = overlaps[i / 4 % 3];
            c.shift = i / 2 % 2 == 1;
            c.batch = 3;
            ++i;
            try {
                // Errors are averaged over at least min_points bins (qa_common.h).
                check_config(f, c, std::max(2 * k + 2, (min_points + n - 1) / n));
            } catch (const std::exception& e) {
                f.add(describe(c) + ": " + e.what());
            }
        };
        for (std::size_t n : { 64, 1000, 4096 })
            for (auto fmt : all_formats)
                for (auto avg : all_averaging)
                    for (std::size_t k : { 1, 4 })
                        for (bool db : { false, true })
                            one(n, fmt, avg, k, db);
        for (std::size_t n : { 61, 16384 })
            for (auto fmt : all_formats)
                for (bool db : { false, true })
                    one(n, fmt, all_averaging[i % 4], 1 + i % 3, db);
        f.report("device chain vs reference");
        QA_ASSERT_NO_FAILURES(f);
    }

    /* Any chunking of the pushes gives bit-identical outputs, the average
     * carries across calls, and reset() starts over: the outputs after it
     * equal a fresh engine's. */
    void chunked_and_reset()
    {
        failures f;
        for (auto avg : all_averaging) {
            spectrum_config c;
            c.fft_size = 1000;
            c.format = sample_format::cs16;
            c.average = avg;
            c.alpha = 0.5;
            c.frames_per_output = 3;
            c.overlap = 0.5;
            c.shift = true;
            c.batch = 4;
            c.backend = "opencl";
            const std::string name = describe(c);
            const auto raw = random_raw(c.format, 23 * 500 + 321, name);
            spectrum whole(c), chunked(c);
            const auto a = run_bytes(whole, raw);
            const auto b = run_bytes(chunked, raw, 997);
            whole.reset();
            const auto again = run_bytes(whole, raw, 4000);
            f.checked();
            if (a.empty() || a != b)
                f.add(name + ": chunked pushes give different outputs (" + std::to_string(a.size()) +
                      " and " + std::to_string(b.size()) + " values)");
            if (a != again)
                f.add(name + ": the outputs after reset() differ from a fresh engine's");
        }
        f.report("chunked and reset");
        QA_ASSERT_NO_FAILURES(f);
    }

    /* The device chain keeps several batches in flight (a ring of staging
     * buffers) yet every push and flush delivers the outputs its frames
     * complete, as the CPU chain does: pushes of odd byte counts, of one
     * sample and of one byte, and a flush in the middle of an average, many
     * times round the ring, each format. Per call the number of outputs
     * equals simd's; all outputs match the reference. */
    void ragged_pushes()
    {
        failures f;
        std::size_t i = 0;
        for (auto fmt : all_formats) {
            spectrum_config c;
            c.fft_size = 256;
            c.format = fmt;
            c.average = all_averaging[i++ % 4];
            c.alpha = 0.25;
            c.frames_per_output = 3;
            c.overlap = 0.5;
            c.batch = 4;
            const std::string name = describe(c);
            c.backend = "opencl";
            spectrum dev(c);
            c.backend = "simd";
            spectrum cpu(c);
            const std::size_t bps = gpufft::sample_bytes(fmt);
            const auto raw = random_raw(fmt, 80 * dev.hop() + c.fft_size, name);
            // Push sizes in bytes: odd ones up to three batches, a run of
            // single samples, single bytes, then a flush with 1 or 2 frames
            // of an average held; again odd sizes to the end.
            auto rng = rng_for(name);
            std::vector<std::size_t> sizes;
            std::size_t at = 0;
            const std::size_t span = (3 * dev.hop() + c.fft_size) * bps, flush_mark = 0;
            const auto add = [&](std::size_t bytes) {
                bytes = std::min(bytes, raw.size() - at);
                if (bytes) {
                    sizes.push_back(bytes);
                    at += bytes;
                }
            };
            while (at < raw.size() / 3)
                add(1 + 2 * (rng() % (3 * span / 2)));
            for (std::size_t k = 0; k < 7; ++k)
                add(1);
            const auto frames_in = [&] { return (at / bps - c.fft_size) / dev.hop() + 1; };
            for (std::size_t k = 0; k < 2 * c.fft_size || frames_in() % c.frames_per_output == 0; ++k)
                add(bps);
            sizes.push_back(flush_mark);
            while (at < raw.size())
                add(1 + 2 * (rng() % (3 * span / 2)));

            std::vector<float> got, want;
            const auto into = [](std::vector<float>& v) {
                return [&v](const float* p, std::size_t n) { v.insert(v.end(), p, p + n); };
            };
            std::size_t from = 0, call = 0;
            bool mid_average = false, in_step = true;
            for (std::size_t bytes : sizes) {
                std::size_t a, b;
                if (bytes == flush_mark) {
                    a = dev.flush(into(got));
                    b = cpu.flush(into(want));
                    mid_average = dev.frames() % c.frames_per_output != 0;
                } else {
                    a = dev.push_bytes(raw.data() + from, bytes, into(got));
                    b = cpu.push_bytes(raw.data() + from, bytes, into(want));
                    from += bytes;
                }
                f.checked();
                if (a != b || got.size() != want.size()) {
                    f.add(name + ": call " + std::to_string(call) + " (" + std::to_string(bytes) +
                          " bytes) delivered " + std::to_string(a) + " outputs on the device, " +
                          std::to_string(b) + " on the CPU");
                    in_step = false;
                    break;
                }
                ++call;
            }
            if (!in_step)
                continue;
            dev.flush(into(got));
            cpu.flush(into(want));
            if (!mid_average)
                f.add(name + ": the flush did not fall in the middle of an average (test setup)");
            const auto ref = reference_outputs(dev, raw);
            if (got.size() != ref.size() || want.size() != ref.size()) {
                f.add(name + ": " + std::to_string(got.size()) + " values on the device, " +
                      std::to_string(want.size()) + " on the CPU, want " + std::to_string(ref.size()));
                continue;
            }
            check_db(f, name, got, ref, c.fft_size);
        }
        f.report("ragged pushes");
        QA_ASSERT_NO_FAILURES(f);
    }

    //! acquire()/commit() into the ring's staging buffers equals push_bytes() (qa_spectrum_input.h).
    void zero_copy_input()
    {
        failures f;
        check_zero_copy_input(f, "opencl");
        f.report("zero-copy input");
        QA_ASSERT_NO_FAILURES(f);
    }

    void bad_input()
    {
        spectrum_config c;
        c.backend = "opencl:no such device";
        try {
            spectrum s(c);
        } catch (const gpufft::error& e) {
            CPPUNIT_ASSERT_MESSAGE(e.what(), std::string(e.what()).find("no such device") !=
                                                 std::string::npos);
            return;
        }
        CPPUNIT_FAIL("a spectrum on a device that does not exist did not throw gpufft::error");
    }
};

CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_opencl_spectrum, "opencl_spectrum");

} // namespace

} // namespace qa

int main()
{
    for (const auto& b : gpufft::backends())
        if (b.name == "opencl" && !b.usable) {
            std::printf("qa_opencl_spectrum: skipped, no usable OpenCL device: %s\n", b.reason.c_str());
            return 77;
        }
    const auto dev = gpufft::opencl::select_device("");
    std::printf("qa_opencl_spectrum: seed %llu (GPUFFT_TEST_SEED=%llu reproduces this run); "
                "device %zu: %s: %s\n",
                (unsigned long long)qa::run_seed(), (unsigned long long)qa::run_seed(), dev.index,
                dev.platform.c_str(), dev.name.c_str());
    std::fflush(stdout);
    CppUnit::TextTestRunner runner;
    runner.addTest(CppUnit::TestFactoryRegistry::getRegistry("opencl_spectrum").makeTest());
    return runner.run("", false, true, false) ? 0 : 1;
}
