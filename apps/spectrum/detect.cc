// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-spectrum --annotate: signals above the noise floor, tracked from
 * spectrum to spectrum, as SigMF annotations. */
#include "app.h"

#include <algorithm>

namespace gpufft_app {

signal_detector::signal_detector(double threshold_db, std::size_t max_signals)
    : d_threshold_db(threshold_db), d_max(max_signals)
{
}

void signal_detector::add(const float* db, std::size_t n, double f0_hz, double df_hz, std::uint64_t first,
                          std::uint64_t end)
{
    if (n == 0)
        return;
    d_sorted.assign(db, db + n);
    std::nth_element(d_sorted.begin(), d_sorted.begin() + std::ptrdiff_t(n / 2), d_sorted.end());
    const double floor = d_sorted[n / 2], level = floor + d_threshold_db;
    for (auto& s : d_open)
        s.seen = false;
    std::vector<open_signal> started;
    for (std::size_t i = 0; i < n;) {
        if (!(db[i] >= level)) {
            ++i;
            continue;
        }
        std::size_t j = i;
        float peak = db[i];
        for (; j < n && db[j] >= level; ++j)
            peak = std::max(peak, db[j]);
        // A bin's edges are half a bin either side of its centre.
        const double lo = f0_hz + (double(i) - 0.5) * df_hz, hi = f0_hz + (double(j - 1) + 0.5) * df_hz;
        i = j;
        const auto same = std::find_if(d_open.begin(), d_open.end(),
                                       [&](const open_signal& s) { return lo < s.hi_hz && hi > s.lo_hz; });
        if (same == d_open.end()) {
            started.push_back({ lo, hi, peak, floor, first, end, true });
            continue;
        }
        same->lo_hz = std::min(same->lo_hz, lo), same->hi_hz = std::max(same->hi_hz, hi);
        same->peak_db = std::max<double>(same->peak_db, peak);
        same->end = end;
        same->seen = true;
    }
    // Signals not in this spectrum have ended.
    for (auto it = d_open.begin(); it != d_open.end();) {
        if (it->seen) {
            ++it;
            continue;
        }
        close(*it);
        it = d_open.erase(it);
    }
    for (const auto& s : started) {
        if (d_open.size() + d_done.size() < d_max)
            d_open.push_back(s);
        else
            ++d_dropped;
    }
}

void signal_detector::close(const open_signal& s)
{
    annotation a;
    a.sample_start = s.first;
    a.sample_count = s.end - s.first;
    a.freq_lower_edge = s.lo_hz;
    a.freq_upper_edge = s.hi_hz;
    a.label = "signal";
    char text[128];
    std::snprintf(text, sizeof text, "peak %.1f dBFS, %.1f dB over the noise floor", s.peak_db, s.peak_db - s.floor_db);
    a.comment = text;
    d_done.push_back(a);
}

std::vector<annotation> signal_detector::finish()
{
    for (const auto& s : d_open)
        close(s);
    d_open.clear();
    std::stable_sort(d_done.begin(), d_done.end(),
                     [](const annotation& a, const annotation& b) { return a.sample_start < b.sample_start; });
    return d_done;
}

} // namespace gpufft_app
