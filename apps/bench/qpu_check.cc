// SPDX-License-Identifier: GPL-3.0-or-later
#include "qpu_check.h"
#include "common.h"

#include <gpufft/error.h>
#include <gpufft/plan.h>
#include <gpufft/registry.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>

namespace gpufft::bench {

namespace {

// On the emulator, which rounds toward zero as the QPUs do, the shaders'
// error on random input is 4 to 6.5 times that of a nearest-rounding FFT
// (qpu/shaders/README.md, "Accuracy"); past this factor a result is wrong.
constexpr double qpu_error_factor = 10.0;
constexpr double error_floor = 6e-8; // below this, float FFTs are all alike

std::string trim(std::string s)
{
    s.erase(std::remove(s.begin(), s.end(), '\0'), s.end());
    const auto first = s.find_first_not_of(" \t\r\n");
    const auto last = s.find_last_not_of(" \t\r\n");
    return first == std::string::npos ? "" : s.substr(first, last - first + 1);
}

//! Multi-line text on one line, lines joined with "; ".
std::string one_line(const std::string& text)
{
    std::istringstream in(text);
    std::string line, out;
    while (std::getline(in, line))
        if (!trim(line).empty())
            out += (out.empty() ? "" : "; ") + trim(line);
    return out;
}

//! The value of the first "key : value" line of /proc/cpuinfo.
std::string cpuinfo_field(const std::string& cpuinfo, const std::string& key)
{
    std::istringstream in(cpuinfo);
    std::string line;
    while (std::getline(in, line)) {
        const auto colon = line.find(':');
        if (colon != std::string::npos && trim(line.substr(0, colon)) == key)
            return trim(line.substr(colon + 1));
    }
    return "";
}

//! config.txt's lines that decide whether the qpu backend can run.
std::string config_lines(const std::string& config)
{
    std::istringstream in(config);
    std::string line, out;
    while (std::getline(in, line)) {
        line = trim(line);
        if (line.rfind("gpu_mem", 0) == 0 || line.rfind("dtoverlay=vc4", 0) == 0)
            out += (out.empty() ? "" : ", ") + line;
    }
    return out.empty() ? "no gpu_mem or vc4 overlay lines" : out;
}

} // namespace

pi_facts system_pi_facts()
{
    pi_facts f;
    f.read_file = [](const std::string& path) -> std::optional<std::string> {
        std::ifstream in(path, std::ios::binary);
        if (!in)
            return std::nullopt;
        std::ostringstream s;
        s << in.rdbuf();
        return s.str();
    };
    f.vcgencmd = [](const std::string& args) -> std::optional<std::string> {
        std::FILE* p = popen(("vcgencmd " + args + " 2>/dev/null").c_str(), "r");
        if (!p)
            return std::nullopt;
        std::string text;
        char buf[256];
        while (std::fgets(buf, sizeof buf, p))
            text += buf;
        return pclose(p) == 0 && !text.empty() ? std::optional<std::string>(text) : std::nullopt;
    };
    return f;
}

std::string describe_system(const pi_facts& facts)
{
    const std::string cpuinfo = facts.read_file("/proc/cpuinfo").value_or("");
    std::string board = trim(facts.read_file("/proc/device-tree/model").value_or(""));
    if (board.empty())
        board = cpuinfo_field(cpuinfo, "Model");
    if (board.empty())
        board = "unknown (no /proc/device-tree/model)";
    const std::string revision = cpuinfo_field(cpuinfo, "Revision");
    const std::string soc = cpuinfo_field(cpuinfo, "Hardware");
    if (!revision.empty())
        board += ", revision " + revision;
    if (!soc.empty())
        board += ", " + soc;

    const auto version = facts.vcgencmd("version");
    const std::string firmware =
        version ? one_line(*version) : "unknown (vcgencmd not found or failed; the kernel line below is all we know)";
    const auto gpu = facts.vcgencmd("get_mem gpu");
    const auto arm = facts.vcgencmd("get_mem arm");
    std::string memory = gpu ? trim(*gpu) : "gpu unknown (vcgencmd not found or failed)";
    if (arm)
        memory += " " + trim(*arm);
    std::optional<std::string> config = facts.read_file("/boot/firmware/config.txt");
    if (!config)
        config = facts.read_file("/boot/config.txt");
    const std::string kernel = one_line(facts.read_file("/proc/version").value_or("unknown"));

    std::string out;
    out += "board:      " + board + "\n";
    out += "firmware:   " + firmware + "\n";
    out += "memory:     " + memory + "\n";
    out += "config.txt: " + (config ? config_lines(*config) : std::string("not found")) + "\n";
    out += "kernel:     " + kernel + "\n";
    return out;
}

int qpu_check(const qpu_check_engines& engines, const pi_facts& facts, const qpu_check_config& config,
              std::FILE* out, std::FILE* err)
{
    if (!engines.qpu.usable) {
        std::fprintf(err, "gpufft-bench: --qpu-check: no usable VideoCore IV V3D here: %s\n",
                     engines.qpu.reason.c_str());
        return 3;
    }
    std::fprintf(out, "gpufft-bench --qpu-check: the qpu backend against %s\n%s", engines.reference.c_str(),
                 describe_system(facts).c_str());
    std::string variants;
    for (const auto& v : engines.qpu.variants)
        variants += (variants.empty() ? "" : ", ") + v;
    std::fprintf(out, "qpu:        usable, paths %s\n", variants.c_str());
    std::fprintf(out,
                 "Times: median of %u calls after one checked call, per transform. Errors: relative L2 vs FFTW\n"
                 "double on the first and last transform of the batch, in ppm; the qpu's must stay within %.0fx\n"
                 "the reference's.\n\n",
                 config.repeats, qpu_error_factor);
    std::fprintf(out, "%6s %5s %12s %12s %8s %10s %10s  %s\n", "log2N", "batch", "qpu us", "ref us", "qpu/ref",
                 "qpu ppm", "ref ppm", "result");
    std::fflush(out);

    std::mt19937 rng(20150301);
    std::normal_distribution<float> normal;
    unsigned passed = 0, total = 0;
    for (unsigned log2n = config.from_log2; log2n <= config.to_log2; ++log2n)
        for (std::size_t batch : config.batches) {
            ++total;
            const std::size_t n = std::size_t(1) << log2n;
            problem p{ n };
            p.batch = batch;
            std::vector<complex> in(n * batch), qpu_out(n * batch), ref_out(n * batch);
            for (auto& c : in)
                c = { normal(rng), normal(rng) };
            std::string result = "ok";
            double qpu_us = NAN, ref_us = NAN, qpu_err = NAN, ref_err = NAN;
            try {
                const transform qpu = engines.make_qpu(p);
                const transform ref = engines.make_reference(p);
                qpu(in.data(), qpu_out.data());
                ref(in.data(), ref_out.data());
                qpu_err = ref_err = 0;
                for (std::size_t j : { std::size_t(0), batch - 1 }) {
                    const std::vector<cd> exact = reference(in.data() + j * n, n, false);
                    qpu_err = std::max(qpu_err, rel_l2(qpu_out.data() + j * n, exact.data(), n));
                    ref_err = std::max(ref_err, rel_l2(ref_out.data() + j * n, exact.data(), n));
                }
                if (!(qpu_err <= qpu_error_factor * std::max(ref_err, error_floor)))
                    result = "FAILED: qpu error too large";
                std::vector<double> qpu_ms, ref_ms;
                for (unsigned r = 0; r < config.repeats; ++r) {
                    auto t0 = clock_type::now();
                    qpu(in.data(), qpu_out.data());
                    qpu_ms.push_back(ms_since(t0));
                    t0 = clock_type::now();
                    ref(in.data(), ref_out.data());
                    ref_ms.push_back(ms_since(t0));
                }
                qpu_us = 1e3 * median(qpu_ms) / double(batch);
                ref_us = 1e3 * median(ref_ms) / double(batch);
            } catch (const std::exception& e) {
                result = std::string("FAILED: ") + e.what();
            }
            passed += result == "ok";
            std::fprintf(out, "%6u %5zu %12.1f %12.1f %8.2f %10.3f %10.3f  %s\n", log2n, batch, qpu_us, ref_us,
                         qpu_us / ref_us, 1e6 * qpu_err, 1e6 * ref_err, result.c_str());
            std::fflush(out);
        }
    std::fprintf(out, "\n%u of %u passed.\n", passed, total);
    return passed == total ? 0 : 1;
}

qpu_check_engines library_engines()
{
    qpu_check_engines e;
    e.qpu.reason = "this build of gr-gpufft has no qpu backend";
    for (const backend_info& b : backends())
        if (b.name == "qpu") {
            e.qpu.usable = b.usable;
            e.qpu.reason = b.reason;
            e.qpu.variants = b.variants;
        }
    auto maker = [](const std::string& backend) {
        return [backend](const problem& p) -> transform {
            plan_options o;
            o.backend = backend;
            auto pl = std::make_shared<plan>(p, o);
            return [pl](const complex* in, complex* out) { pl->execute(in, out); };
        };
    };
    e.make_qpu = maker("qpu");
    e.make_reference = maker("simd");
    e.reference = plan(problem{ 256 }, [] {
                      plan_options o;
                      o.backend = "simd";
                      return o;
                  }()).backend();
    return e;
}

} // namespace gpufft::bench
