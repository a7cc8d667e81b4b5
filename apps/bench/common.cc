// SPDX-License-Identifier: GPL-3.0-or-later
#include "common.h"
#include "text.h"

#include <fftw3.h>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <limits>

namespace gpufft::bench {

std::size_t parse_size(const std::string& flag, const std::string& s)
{
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
        throw usage_error(flag + ": \"" + s + "\" is not a non-negative integer");
    errno = 0;
    const unsigned long long v = std::strtoull(s.c_str(), nullptr, 10);
    if (errno == ERANGE)
        throw usage_error(flag + ": \"" + s + "\" is too large");
    return std::size_t(v);
}

std::size_t parse_positive(const std::string& flag, const std::string& s)
{
    const std::size_t v = parse_size(flag, s);
    if (v == 0)
        throw usage_error(flag + " must be at least 1");
    return v;
}

std::vector<std::size_t> parse_sizes(const std::string& flag, const std::string& s)
{
    std::vector<std::size_t> sizes;
    for (const auto& item : gpufft::apps::split_commas(s))
        sizes.push_back(parse_positive(flag, item));
    if (sizes.empty())
        throw usage_error(flag + ": no size given");
    return sizes;
}

double ms_since(clock_type::time_point t0)
{
    return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

double median(std::vector<double> v)
{
    if (v.empty())
        return std::numeric_limits<double>::quiet_NaN();
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

double rel_l2(const cf* out, const cd* ref, std::size_t n)
{
    double num = 0, den = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (!std::isfinite(out[i].real()) || !std::isfinite(out[i].imag()))
            return std::numeric_limits<double>::infinity();
        num += std::norm(cd(out[i]) - ref[i]);
        den += std::norm(ref[i]);
    }
    return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

std::vector<cd> reference(const cf* in, std::size_t n, bool inverse)
{
    std::vector<cd> ref(n);
    fftw_complex* a = fftw_alloc_complex(n);
    fftw_complex* b = fftw_alloc_complex(n);
    fftw_plan p =
        fftw_plan_dft_1d(int(n), a, b, inverse ? FFTW_BACKWARD : FFTW_FORWARD, FFTW_ESTIMATE);
    for (std::size_t i = 0; i < n; ++i) {
        a[i][0] = in[i].real();
        a[i][1] = in[i].imag();
    }
    fftw_execute(p);
    for (std::size_t i = 0; i < n; ++i)
        ref[i] = cd(b[i][0], b[i][1]);
    fftw_destroy_plan(p);
    fftw_free(a);
    fftw_free(b);
    return ref;
}

std::vector<cd> shaped_reference(const void* in, const gpufft::problem& p, std::size_t t)
{
    std::vector<int> len;
    for (std::size_t d : p.shape())
        len.push_back(int(d));
    const int rank = int(len.size());
    const std::size_t points = p.points(), extent = p.complex_extent();
    fftw_plan plan;
    std::vector<cd> out;
    switch (p.kind) {
    case gpufft::transform_kind::r2c: {
        out.resize(extent);
        const float* x = static_cast<const float*>(in) + t * points;
        std::vector<double> r(x, x + points);
        plan = fftw_plan_dft_r2c(rank, len.data(), r.data(), reinterpret_cast<fftw_complex*>(out.data()),
                                 FFTW_ESTIMATE);
        fftw_execute(plan);
        break;
    }
    case gpufft::transform_kind::c2r: {
        const cf* x = static_cast<const cf*>(in) + t * extent;
        std::vector<cd> c(x, x + extent);
        std::vector<double> r(points);
        plan = fftw_plan_dft_c2r(rank, len.data(), reinterpret_cast<fftw_complex*>(c.data()), r.data(),
                                 FFTW_ESTIMATE);
        fftw_execute(plan);
        out.assign(r.begin(), r.end());
        break;
    }
    case gpufft::transform_kind::c2c:
    default: {
        out.resize(points);
        const cf* x = static_cast<const cf*>(in) + t * points;
        std::vector<cd> c(x, x + points);
        plan = fftw_plan_dft(rank, len.data(), reinterpret_cast<fftw_complex*>(c.data()),
                             reinterpret_cast<fftw_complex*>(out.data()),
                             p.dir == gpufft::direction::inverse ? FFTW_BACKWARD : FFTW_FORWARD,
                             FFTW_ESTIMATE);
        fftw_execute(plan);
        break;
    }
    }
    fftw_destroy_plan(plan);
    return out;
}

std::string json_string(const std::string& s)
{
    std::string out = "\"";
    for (char c : s) {
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
            } else {
                out += c;
            }
        }
    }
    return out + "\"";
}

std::string json_number(double v)
{
    if (!std::isfinite(v))
        return "null";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

std::string utc_now()
{
    const std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

std::string cpu_model()
{
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line))
        if (line.compare(0, 10, "model name") == 0 && line.find(':') != std::string::npos) {
            std::string m = line.substr(line.find(':') + 1);
            m.erase(0, m.find_first_not_of(" \t"));
            return m;
        }
    return "unknown";
}

} // namespace gpufft::bench
