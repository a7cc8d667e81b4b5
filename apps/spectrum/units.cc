// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-spectrum: numbers with SI suffixes (100M, 2.4M, 10k) and UTC times
 * in ISO 8601, for every option and output that takes or gives one. */
#include "app.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <ctime>

namespace gpufft_app {

double parse_si(const std::string& text)
{
    const auto bad = [&] {
        return usage_error("expected a number with an optional k, M or G suffix (e.g. 2.4M, 10k, 1.5G, 100e6), got \"" +
                           text + "\"");
    };
    char* end = nullptr;
    errno = 0;
    double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end == text.c_str() || std::isspace(static_cast<unsigned char>(text[0])) || std::isnan(v))
        throw bad();
    const std::string suffix(end);
    // As rtl_power reads its frequencies (a lower-case m is mega there too,
    // never milli, which no frequency or rate here needs).
    if (suffix == "k" || suffix == "K")
        v *= 1e3;
    else if (suffix == "M" || suffix == "m")
        v *= 1e6;
    else if (suffix == "G" || suffix == "g")
        v *= 1e9;
    else if (!suffix.empty())
        throw bad();
    if (errno == ERANGE || std::isinf(v))
        throw usage_error(text + " is out of range");
    return v;
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
