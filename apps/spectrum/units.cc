// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-spectrum: strict decimal numbers, with SI suffixes (100M, 2.4M,
 * 10k), time units (50ms, 10m, 1h) or a percentage (20%), and UTC times in
 * ISO 8601, for every option and output that takes or gives one. */
#include "app.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <initializer_list>
#include <string>

namespace gpufft_app {

bool parse_decimal(const std::string& text, double& value)
{
    // strtod alone also reads leading spaces, hex ("0x10" is 16), inf and
    // nan, and "010" as ten where C and the shells read eight.
    std::size_t i = 0;
    const auto digits = [&] {
        const std::size_t from = i;
        while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
            ++i;
        return i - from;
    };
    if (i < text.size() && (text[i] == '+' || text[i] == '-'))
        ++i;
    const std::size_t whole_at = i, whole = digits();
    std::size_t fraction = 0;
    if (i < text.size() && text[i] == '.') {
        ++i;
        fraction = digits();
    }
    if (whole + fraction == 0 || (whole > 1 && text[whole_at] == '0'))
        return false;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        if (i < text.size() && (text[i] == '+' || text[i] == '-'))
            ++i;
        if (digits() == 0)
            return false;
    }
    if (i != text.size())
        return false;
    errno = 0;
    value = std::strtod(text.c_str(), nullptr);
    if (errno == ERANGE) // too large or too small for a double: out of every range
        value = text[0] == '-' ? -HUGE_VAL : HUGE_VAL;
    return true;
}

double scaled(const std::string& text, std::initializer_list<unit> units, const std::string& expected)
{
    double v = 0, scale = 1;
    bool ok = parse_decimal(text, v);
    for (const unit& u : units) { // longest suffix first where one ends another ("ms", "s")
        const std::size_t n = std::strlen(u.suffix);
        if (ok || text.size() <= n || text.compare(text.size() - n, n, u.suffix) != 0)
            continue;
        ok = parse_decimal(text.substr(0, text.size() - n), v);
        scale = u.scale;
    }
    if (!ok)
        throw usage_error(expected + ", got \"" + text + "\"");
    v *= scale;
    if (std::isinf(v))
        throw usage_error(text + " is out of range");
    return v;
}

double parse_si(const std::string& text)
{
    // As rtl_power reads its frequencies (a lower-case m is mega there too,
    // never milli, which no frequency or rate here needs).
    return scaled(text, { { "k", 1e3 }, { "K", 1e3 }, { "M", 1e6 }, { "m", 1e6 }, { "G", 1e9 }, { "g", 1e9 } },
                  "expected a number with an optional k, M or G suffix (e.g. 2.4M, 10k, 1.5G, 100e6)");
}

double parse_seconds(const std::string& text)
{
    // rtl_power's -i and -e take s, m and h in either case; d for a survey of days.
    return scaled(text,
                  { { "ms", 1e-3 }, { "s", 1 }, { "S", 1 }, { "m", 60 }, { "M", 60 }, { "h", 3600 }, { "H", 3600 },
                    { "d", 86400 }, { "D", 86400 } },
                  "expected a time: seconds, or a number with a unit ms, s, m, h or d (e.g. 50ms, 1.5, 10m, 1h)");
}

double parse_fraction(const std::string& text)
{
    return scaled(text, { { "%", 0.01 } }, "expected a fraction or a percentage (e.g. 0.2 or 20%)");
}

std::string format_utc(utc_time t)
{
    const auto since = t.time_since_epoch().count();
    const std::int64_t second = 1000000000;
    std::int64_t s = since / second, ns = since % second;
    if (ns < 0)
        ns += second, s -= 1;
    const std::time_t tt = std::time_t(s);
    std::tm tm{};
    gmtime_r(&tt, &tm);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                  tm.tm_hour, tm.tm_min, tm.tm_sec, int(ns / 1000));
    return buf;
}

bool parse_utc(const std::string& text, utc_time& out, std::string* why)
{
    // RFC 3339 date-time with the offset Z (SigMF Specification v1.0.0,
    // "The datetime Pair"); a missing Z, which some recorders write, is read as UTC.
    const char* shape = "dddd-dd-ddTdd:dd:dd";
    for (std::size_t i = 0; shape[i]; ++i)
        if (i >= text.size() ||
            (shape[i] == 'd' ? !std::isdigit(static_cast<unsigned char>(text[i])) : text[i] != shape[i]))
            return false;
    int year, mon, day, hour, min, sec, used = 0;
    if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &year, &mon, &day, &hour, &min, &sec, &used) != 6 ||
        used != 19)
        return false;
    // The Gregorian calendar's days, and a leap second only where UTC puts one.
    static const int month_days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    static const char* const month_names[12] = { "January", "February", "March",     "April",   "May",      "June",
                                                 "July",    "August",   "September", "October", "November", "December" };
    const bool leap_year = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    const auto refuse = [&](const std::string& reason) {
        if (why)
            *why = reason;
        return false;
    };
    if (mon < 1 || mon > 12)
        return refuse("no month " + std::to_string(mon));
    if (day < 1 || day > month_days[mon - 1] + (mon == 2 && leap_year))
        return refuse("no day " + std::to_string(day) + " in " + month_names[mon - 1] + " " + std::to_string(year));
    if (hour > 23 || min > 59 || sec > 60 || (sec == 60 && (hour != 23 || min != 59)))
        return refuse("no time " + text.substr(11, 8) + " (hours 00-23, minutes 00-59, seconds 00-59, or 60 in a "
                                                        "leap second at 23:59)");
    std::int64_t ns = 0;
    std::size_t at = 19;
    if (at < text.size() && text[at] == '.') {
        std::int64_t scale = 100000000;
        for (++at; at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])); ++at, scale /= 10)
            ns += scale * (text[at] - '0');
        if (scale == 100000000) // a '.' and no digit
            return false;
    }
    if (at < text.size() && (text[at] == 'Z' || text[at] == 'z'))
        ++at;
    if (at != text.size())
        return false;
    std::tm tm{};
    tm.tm_year = year - 1900, tm.tm_mon = mon - 1, tm.tm_mday = day;
    tm.tm_hour = hour, tm.tm_min = min, tm.tm_sec = sec;
    const std::time_t s = timegm(&tm);
    // utc_time counts nanoseconds in 64 bits: years 1678 to 2261.
    if (s < -max_utc_seconds || s > max_utc_seconds)
        return refuse("beyond the years 1678 to 2261");
    out = utc_time(std::chrono::nanoseconds(std::int64_t(s) * 1000000000 + ns));
    return true;
}

utc_time utc_after(utc_time t, double seconds)
{
    const double limit = double(max_utc_seconds) * 1e9;
    const auto ns = std::int64_t(std::llround(std::clamp(seconds * 1e9, -limit, limit)));
    const std::int64_t since = t.time_since_epoch().count();
    std::int64_t sum;
    if (__builtin_add_overflow(since, ns, &sum)) // saturate instead
        sum = ns > 0 ? INT64_MAX : INT64_MIN;
    return utc_time(std::chrono::nanoseconds(sum));
}

utc_time utc_now() { return std::chrono::time_point_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now()); }

} // namespace gpufft_app
