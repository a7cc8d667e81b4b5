// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-spectrum --rtl-power: rows as rtl_power (rtl-sdr's wide-band
 * power logger) writes them, so that its heatmap tools read them unchanged.
 * rtl_power.c (rtl-sdr, csv_dbm() and main()) writes each row as
 *   "%Y-%m-%d, %H:%M:%S, " (local time), "Hz low, Hz high, Hz step, samples, "
 * with Hz low and high whole numbers, the step with two decimals, samples the
 * FFTs averaged, then one "%.2f" dB value per bin, ", " between them, and the
 * last bin's value once more: bins + 1 values, (Hz high - Hz low) / step + 1.
 * Bin i is centred at Hz low + i * step and Hz high = Hz low + bins * step,
 * so that readers spreading a row's values evenly from Hz low to Hz high
 * (heatmap tools, radiosonde_auto_rx) put each bin where it is. */
#include "app.h"

#include <cmath>
#include <ctime>

namespace gpufft_app {

rtl_power_csv::rtl_power_csv(const std::string& path)
    : d_out(std::make_unique<output_file>(path, output_file::kind::streamed)) // rtl_power writes its file as it goes
{
}

rtl_power_csv::~rtl_power_csv() = default;

void rtl_power_csv::row(std::chrono::system_clock::time_point when, double hz_low, double step, std::size_t frames,
                        const float* db, std::size_t n)
{
    const std::time_t t = std::chrono::system_clock::to_time_t(when);
    std::tm local{};
    localtime_r(&t, &local);
    char date[32];
    std::strftime(date, sizeof date, "%Y-%m-%d, %H:%M:%S", &local);
    std::FILE* f = d_out->get();
    std::fprintf(f, "%s, %lld, %lld, %.2f, %zu", date, std::llround(hz_low),
                 std::llround(hz_low + double(n) * step), step, frames);
    // --linear, as soapy_power --linear: the power itself (a full-scale tone is 1).
    const auto value = [&](float v) {
        if (d_linear)
            std::fprintf(f, ", %.4e", std::pow(10.0, double(v) / 10));
        else
            std::fprintf(f, ", %.2f", v);
    };
    for (std::size_t i = 0; i < n; ++i)
        value(db[i]);
    if (n) // rtl_power.c's csv_dbm() writes the last bin twice
        value(db[n - 1]);
    std::fputc('\n', f);
    d_out->flush();
}

void rtl_power_csv::flush()
{
    std::fflush(d_out->get());
    d_out->check();
}

void rtl_power_csv::commit() { d_out->commit(); }

} // namespace gpufft_app
