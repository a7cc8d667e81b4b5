// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-power: rtl_power's command line over gpufft-spectrum's engine
 * (internal API, shared by the program and its tests). */
#ifndef GPUFFT_APPS_SPECTRUM_RTL_POWER_H
#define GPUFFT_APPS_SPECTRUM_RTL_POWER_H

#include "app.h"

#include <cstddef>
#include <string>
#include <vector>

namespace gpufft_app {

//! What rtl_power's options ask for, beyond what `options` holds.
struct rtl_power_request {
    options o; //!< --device, --gain, --ppm and --rtl-power's path as gpufft-spectrum has them
    long long lower = 0, upper = 0, max_bin = 0; //!< -f lower:upper:bin_size, Hz (whole, as rtl_power)
    double crop = 0;                             //!< -c, a fraction in [0, 1)
    std::string window = "rectangle";            //!< -w, one of rtl_power's names
    bool peak_hold = false, single = false;      //!< -P, -1
    long long interval_s = 10, exit_s = 0;       //!< -i (whole seconds, at least 1), -e (0: none)
    std::string device_index;                    //!< -d as a number: the index among the devices found
};

//! rtl_power's -i and -e: a number with an optional s, m, h or d suffix; seconds. Throws usage_error naming `option`.
double rtl_power_seconds(const std::string& text, const std::string& option);
//! rtl_power's -c: a fraction (0.2) or a percentage (20%). Throws usage_error naming -c.
double rtl_power_fraction(const std::string& text);
//! rtl_power's window (-w) of n taps, as rtl_power.c defines each; throws usage_error for an unknown name.
std::vector<float> rtl_power_window(const std::string& name, std::size_t n);

//! Parses rtl_power's arguments (without the program name); throws usage_error naming the option.
rtl_power_request parse_rtl_power_options(const std::vector<std::string>& args);

/*!
 * rtl_power.c's frequency_range(): how it covers -f lower:upper:bin_size.
 * Hops of `rate` Hz centred at `centers`; each an FFT of `bins` bins
 * (`downsample` x more at the device rate when the band is narrower than
 * 1 MHz, of which the middle `bins` are the band), keeping bins
 * first..last; one bin of the whole hop's power (rms) for bins of 1 MHz and more.
 */
struct rtl_power_plan {
    std::vector<double> centers;
    double rate = 0;            //!< the device's sample rate, Hz
    std::size_t bins = 0;       //!< rtl_power's FFT length, 2^bin_e
    std::size_t downsample = 1; //!< rtl_power's boxcar factor
    double crop = 0;            //!< in force (rtl_power drops it for giant bins)
    std::size_t first = 0, last = 0; //!< kept bins, of `bins`
    std::size_t ffts_per_visit = 1;  //!< FFTs rtl_power takes per visit of a hop (16384-byte reads)
    double bin_hz() const { return rate / double(bins * downsample); }
    bool rms() const { return bins == 1; }
    //! The FFT length at the device rate.
    std::size_t fft_size() const { return bins * downsample; }
    //! rtl_power's Hz low and Hz high of hop h (its CSV's columns 3 and 4).
    long long hz_low(std::size_t h) const;
    long long hz_high(std::size_t h) const;
};
//! Throws usage_error naming -f or -c where rtl_power.c would refuse or misbehave.
rtl_power_plan plan_rtl_power(long long lower, long long upper, long long max_bin, double crop);

//! Runs a parsed request: integrates every FFT over each -i interval, a CSV row per hop; returns the exit status.
int run_rtl_power(const rtl_power_request& r);

//! The program gpufft-power: parses and runs; returns the exit status.
int run_power(const std::vector<std::string>& args);

} // namespace gpufft_app

#endif
