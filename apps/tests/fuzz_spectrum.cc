// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-spectrum's parsers under random and mutated input: the SigMF reader,
 * the IQ decoders (through the engine), the command line, the number and
 * time parsers, and the whole program (--record and --annotate included).
 * Each input must end in success or a clear error (app_error, usage_error,
 * gpufft::error; exit status 1 or 2), never a crash, another exception or a
 * hang (SIGALRM after 20 s on one input ends the run).
 *
 *   fuzz_spectrum [SECONDS]   (default 20): half with the fixed seed 1, half
 *                             with a fresh one, printed; GPUFFT_FUZZ_SEED=S
 *                             runs only seed S.
 *
 * With -DGPUFFT_LIBFUZZER=ON (clang) the same entry point, fuzz_one(), is
 * also built as a libFuzzer target, fuzz_spectrum_libfuzzer. */
#include "spectrum/app.h"
#include "spectrum/rtl_power.h"

#include <gpufft/error.h>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/common_interface_defs.h>
#endif

// The sanitizer runtimes' report stream (sanitizer/common_interface_defs.h);
// weak, so a build without sanitizers links without it.
extern "C" void __sanitizer_set_report_fd(void* fd) __attribute__((weak));

namespace {

std::string work_dir()
{
    static const std::string dir = [] {
        char tmpl[] = "/tmp/fuzz_spectrum_XXXXXX";
        if (!mkdtemp(tmpl))
            std::abort();
        return std::string(tmpl);
    }();
    return dir;
}

void write_file(const std::string& path, const std::uint8_t* data, std::size_t size)
{
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f)
        std::abort();
    std::fwrite(data, 1, size, f);
    std::fclose(f);
}

//! NUL-separated strings; stops at an empty one (two NULs in a row).
std::vector<std::string> split_args(const std::uint8_t* data, std::size_t size, std::size_t& used)
{
    std::vector<std::string> out;
    std::string cur;
    for (used = 0; used < size; ++used) {
        if (data[used] != 0) {
            cur += char(data[used]);
        } else if (cur.empty()) {
            ++used;
            break;
        } else {
            out.push_back(cur);
            cur.clear();
        }
    }
    if (!cur.empty())
        out.push_back(cur);
    return out;
}

void sigmf(const std::uint8_t* data, std::size_t size, bool with_data)
{
    const std::string base = work_dir() + "/rec";
    write_file(base + ".sigmf-meta", data, size);
    if (with_data)
        write_file(base + ".sigmf-data", data, std::min<std::size_t>(size, 64));
    else
        ::unlink((base + ".sigmf-data").c_str());
    try {
        gpufft_app::open_sigmf(base);
    } catch (const gpufft_app::app_error&) {
    }
}

void command_line(const std::uint8_t* data, std::size_t size)
{
    std::size_t used = 0;
    try {
        const auto o = gpufft_app::parse_options(split_args(data, size, used));
        // What parses is in range.
        if (o.fft < 1 || o.fft > (1u << 28) || o.width > 16384 || o.height > 16384 || !(o.rate > 0) ||
            !(std::abs(o.center) <= gpufft_app::max_frequency_hz) || !(o.overlap >= 0 && o.overlap <= 0.9))
            std::abort();
    } catch (const gpufft_app::usage_error&) {
    }
    // The same arguments as rtl_power's (gpufft-power).
    try {
        const auto r = gpufft_app::parse_rtl_power_options(split_args(data, size, used));
        const bool in_range = r.interval_s >= 1 && r.exit_s >= 0 && r.crop >= 0 && r.crop < 1 && r.upper > r.lower;
        if (r.o.help.empty() && !in_range) // -h returns at once, with the defaults
            std::abort();
    } catch (const gpufft_app::usage_error&) {
    }
}

void decoders(const std::uint8_t* data, std::size_t size)
{
    if (size < 3)
        return;
    gpufft::spectrum_config c;
    c.format = gpufft::sample_format(data[0] % 4);
    c.fft_size = 1 + data[1] % 64;
    c.overlap = double(data[2] % 10) / 10;
    c.frames_per_output = 1 + data[2] % 3;
    c.average = gpufft::averaging(data[2] % 4);
    c.batch = 1 + data[1] % 5;
    try {
        gpufft::spectrum s(c);
        std::size_t at = 3, step = 1 + data[1] % 17;
        while (at < size) {
            const std::size_t len = std::min(step, size - at);
            s.push_bytes(data + at, len, [&](const float*, std::size_t n) {
                if (n != c.fft_size)
                    std::abort();
            });
            at += len;
            step = step * 3 % 97 + 1;
        }
        s.flush(nullptr);
    } catch (const gpufft::error&) {
    }
}

//! parse_si and parse_utc: a value or a usage error; a time read is written back as read (to the microsecond).
void units(const std::uint8_t* data, std::size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        if (std::isnan(gpufft_app::parse_si(text)))
            std::abort();
    } catch (const gpufft_app::usage_error&) {
    }
    gpufft_app::utc_time t, again;
    const auto us = [](gpufft_app::utc_time u) { return u.time_since_epoch() / std::chrono::microseconds(1); };
    if (gpufft_app::parse_utc(text, t) &&
        (!gpufft_app::parse_utc(gpufft_app::format_utc(t), again) || us(again) != us(t)))
        std::abort();
}

//! The program on a file: the arguments, then (after two NULs) the file's bytes.
void program(const std::uint8_t* data, std::size_t size)
{
    std::size_t used = 0;
    std::vector<std::string> args = split_args(data, size, used);
    const std::string input = work_dir() + "/input";
    write_file(input, data + used, size - used);
    // Raw IQ needs its format (the name has no extension), rate and centre;
    // the fuzzed arguments, later, may give others.
    args.insert(args.begin(), { input, "--format", "cu8", "--rate", "2.4M", "--center", "0" });
    // Last one counts: keep each run small (the sizes themselves are the command line's target).
    for (const char* a : { "--fft", "64", "--width", "64", "--height", "64", "--quiet", "--png" })
        args.push_back(a);
    args.push_back(size > 0 && (data[0] & 1) == 0 ? work_dir() + "/out.png" : "none");
    if (size > 0 && (data[0] & 2)) { // the persistence view too, on the same random spectra and dB ranges
        args.push_back("--persistence");
        args.push_back(work_dir() + "/persistence.png");
    }
    const int status = gpufft_app::run(args);
    ::unlink((input + ".sigmf-meta").c_str()); // --annotate's: the next input is raw again
    if (status != 0 && status != 1 && status != 2)
        std::abort();
}

} // namespace

//! One input: the first byte picks the target.
void fuzz_one(const std::uint8_t* data, std::size_t size)
{
    if (size == 0)
        return;
    switch (data[0] % 6) {
    case 0:
        return sigmf(data + 1, size - 1, true);
    case 1:
        return sigmf(data + 1, size - 1, false);
    case 2:
        return command_line(data + 1, size - 1);
    case 3:
        return decoders(data + 1, size - 1);
    case 5:
        return units(data + 1, size - 1);
    default:
        return program(data + 1, size - 1);
    }
}

#ifdef GPUFFT_LIBFUZZER
extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    return ::chdir(work_dir().c_str()); // outputs with random names land there
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    fuzz_one(data, size);
    return 0;
}
#else

namespace {

using bytes = std::vector<std::uint8_t>;

bytes of(std::uint8_t target, const std::string& s)
{
    bytes b{ target };
    b.insert(b.end(), s.begin(), s.end());
    return b;
}

std::string args(std::initializer_list<std::string> list)
{
    std::string s;
    for (const auto& a : list)
        s += a + '\0';
    return s;
}

//! Valid inputs to mutate, one or more per target.
std::vector<bytes> seeds()
{
    const std::string meta = R"({"global": {"core:datatype": "cu8", "core:sample_rate": 2.4e6, "core:version": "1.0.0"},
                                 "captures": [{"core:sample_start": 0, "core:frequency": 1.0e8}], "annotations": []})";
    std::string iq(4096, '\0');
    for (std::size_t i = 0; i < iq.size(); ++i)
        iq[i] = char(i * 37 % 256);
    return {
        of(0, meta),
        of(0, "\xef\xbb\xbf" + meta),
        of(1, meta),
        of(0, R"({"global": {"core:datatype": "ci16_le", "core:sample_rate": 1e6, "core:dataset": "x.cs16"},
                  "captures": [{"core:sample_start": 0, "core:frequency": 1e8, "core:datetime": "2026-11-24T20:31:05.5Z"},
                               {"core:sample_start": 100, "core:frequency": 2e8}],
                  "annotations": [{"core:sample_start": 5, "core:sample_count": 9, "core:label": "a",
                                   "core:freq_lower_edge": 1e8, "core:freq_upper_edge": 1.1e8}]})"),
        of(2, args({ "--format", "cs16", "--rate=1e6", "--center", "-5e3", "--fft", "4096", "--overlap", "0.25",
                     "--window", "kaiser:8.6", "--average", "peak", "--fps", "10", "--db-min", "-100" })),
        of(2, args({ "--frames", "3", "--average", "exponential", "--alpha", "0.5", "--width", "300", "--height", "200", "--peaks", "3",
                     "--peak-threshold", "6", "--csv", "a.csv", "--jsonl", "b.jsonl", "-" })),
        of(3, std::string("\x01\x20\x05", 3) + iq),
        of(3, std::string("\x03\x3f\x02", 3) + iq),
        of(4, args({ "--format", "cu8", "--frames", "1", "--overlap", "0" }) + '\0' + iq),
        of(4, args({ "--format", "cs8", "--rate", "1e3", "--fps", "1", "--average", "min" }) + '\0' + iq),
        of(4, args({ "--rate=2.4M", "--center", "100M", "--frames", "1", "--record", "rec", "--annotate", "--threshold",
                     "3", "--jsonl", "-" }) + '\0' + iq),
        of(2, args({ "--rate", "10k", "--center=1.5G", "--fps", "0.5k", "--record=r", "--annotate" })),
        of(2, args({ "-f", "88M:108M:125k", "-i", "5m", "-e", "1h", "-c", "20%", "-1P", "-w", "youssef", "-g", "30",
                     "-p", "-2", "-d", "1", "out.csv" })),
        of(5, "2.4M"),
        of(5, "2026-11-24T20:31:05.123456789Z"),
    };
}

// Tokens that parsers trip on.
const char* const tokens[] = { "1e400", "-0", "1e-400", "NaN", "inf", "\"", "{", "}", "[", "]", ",", ":", "\\u0000",
                               "\\ud800", "\xef\xbb\xbf", "\xff", "=", "--", "-", "--rate", "--fft", "--fps",
                               "--center", "--window", "kaiser:", "1e22", "0", "-1", "4294967296", "1e300",
                               "core:sample_rate", "core:frequency", "core:datatype", "ci16_le", "cf32_le", "null",
                               "true", "k", "M", "G", "--record", "--annotate", "core:datetime", "core:sample_start",
                               "core:dataset", "captures", "annotations", "T", "Z", ".", "60", "99" };

void mutate(bytes& b, std::mt19937_64& g)
{
    const int edits = 1 + int(g() % 8);
    for (int e = 0; e < edits; ++e) {
        const std::size_t at = b.size() > 1 ? 1 + g() % (b.size() - 1) : 1; // keep the target byte
        switch (g() % 6) {
        case 0: // flip a bit
            if (at < b.size())
                b[at] ^= std::uint8_t(1u << (g() % 8));
            break;
        case 1: // insert a random byte
            b.insert(b.begin() + std::ptrdiff_t(std::min(at, b.size())), std::uint8_t(g()));
            break;
        case 2: // delete a range
            if (at < b.size())
                b.erase(b.begin() + std::ptrdiff_t(at),
                        b.begin() + std::ptrdiff_t(std::min(b.size(), at + 1 + g() % 16)));
            break;
        case 3: { // insert a token
            const std::string t = tokens[g() % (sizeof tokens / sizeof *tokens)];
            b.insert(b.begin() + std::ptrdiff_t(std::min(at, b.size())), t.begin(), t.end());
            break;
        }
        case 4: // duplicate a range
            if (at < b.size()) {
                const bytes part(b.begin() + std::ptrdiff_t(at),
                                 b.begin() + std::ptrdiff_t(std::min(b.size(), at + 1 + g() % 64)));
                b.insert(b.begin() + std::ptrdiff_t(at), part.begin(), part.end());
            }
            break;
        default: // overwrite with a random byte
            if (at < b.size())
                b[at] = std::uint8_t(g());
        }
    }
}

//! Runs for `seconds` from `seed`; returns the inputs tried.
std::size_t fuzz(std::uint64_t seed, double seconds, int report_fd)
{
    std::mt19937_64 g(seed);
    const auto corpus = seeds();
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    const std::string last = work_dir() + "/last-input";
    std::size_t runs = 0;
    while (std::chrono::steady_clock::now() < end) {
        bytes b;
        if (g() % 8 == 0) { // random bytes
            b.resize(1 + g() % 512);
            for (auto& x : b)
                x = std::uint8_t(g());
        } else {
            b = corpus[g() % corpus.size()];
            mutate(b, g);
        }
        write_file(last, b.data(), b.size()); // what to replay if this one fails
        alarm(20);
        try {
            fuzz_one(b.data(), b.size());
        } catch (const std::exception& e) {
            dprintf(report_fd, "fuzz_spectrum: seed %llu, input %zu (%s): unexpected exception: %s\n",
                    (unsigned long long)seed, runs, last.c_str(), e.what());
            std::exit(1);
        }
        alarm(0);
        ++runs;
    }
    return runs;
}

} // namespace

int main(int argc, char** argv)
{
    const double seconds = argc > 1 ? std::atof(argv[1]) : 20;
    // The program's own messages (thousands of expected errors) go to /dev/null.
    const int report_fd = ::dup(2);
#ifdef __SANITIZE_ADDRESS__
    // ASan's and UBSan's reports too, which went to /dev/null with the rest.
    __sanitizer_set_report_fd(reinterpret_cast<void*>(std::intptr_t(report_fd)));
#endif
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1), ::dup2(null, 2);
    if (__sanitizer_set_report_fd) // a sanitizer's finding is not one of those
        __sanitizer_set_report_fd(reinterpret_cast<void*>(std::intptr_t(report_fd)));
    std::signal(SIGALRM, SIG_DFL); // a hang ends the run
    if (::chdir(work_dir().c_str()) != 0) // outputs with random names land here
        return 1;

    std::vector<std::uint64_t> seeds_run;
    if (const char* env = std::getenv("GPUFFT_FUZZ_SEED")) {
        seeds_run = { std::strtoull(env, nullptr, 0) };
    } else {
        std::random_device rd;
        seeds_run = { 1, (std::uint64_t(rd()) << 32) ^ rd() };
    }
    for (const auto seed : seeds_run) {
        dprintf(report_fd, "fuzz_spectrum: seed %llu (GPUFFT_FUZZ_SEED=%llu replays it) for %.0f s\n",
                (unsigned long long)seed, (unsigned long long)seed, seconds / double(seeds_run.size()));
        const std::size_t runs = fuzz(seed, seconds / double(seeds_run.size()), report_fd);
        dprintf(report_fd, "fuzz_spectrum: seed %llu: %zu inputs, all ended in success or a clear error\n",
                (unsigned long long)seed, runs);
    }
    std::filesystem::remove_all(work_dir()); // kept on a failure: it holds the last input
    return 0;
}
#endif
