// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-spectrum: --realtime and --loop, a recording or the demo played as a
 * radio delivers its samples, so that the live outputs can be tried without one. */
#include "app.h"

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <sys/stat.h>

namespace gpufft_app {

void add_playback_options(CLI::App& app, options& o)
{
    app.add_flag("--realtime", o.realtime,
                 "play the input file or the demo at its sample rate, as a radio delivers it (default: as fast as "
                 "it is read)");
    app.add_flag("--loop", o.loop,
                 "play the input file again from its start each time it ends, until --duration or a signal (the "
                 "sample count and times go on); with --demo: a demo without end");
    for (const char* name : { "--realtime", "--loop" })
        app.get_option(name)->group("Playback (without a radio)");
}

void check_playback_options(const CLI::App& app, const options& o)
{
    const auto given = [&](const char* name) { return app.get_option(name)->count() > 0; };
    if (!o.radio.device.empty())
        for (const char* name : { "--realtime", "--loop" })
            if (given(name))
                throw usage_error(std::string(name) +
                                  ": a --device delivers its samples at its own rate and does not end (drop " + name +
                                  ")");
    if (!o.loop)
        return;
    if (!o.demo && o.input == "-")
        throw usage_error("--loop needs an input file to play again: standard input cannot be rewound");
    // A recording of a loop would hold the file many times over; the input's
    // annotations, or new ones, describe one pass of its samples.
    if (!o.record.empty())
        throw usage_error("--loop and --record exclude each other (it would record the input again and again)");
    if (o.annotate)
        throw usage_error("--loop and --annotate exclude each other (annotations describe one pass of the input)");
}

void refuse_unplayable(const options& o, const iq_source& src)
{
    if (!o.loop || o.demo)
        return;
    struct stat st;
    if (::stat(src.data_path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
        throw usage_error("--loop needs an input file to play again: " + src.data_path +
                          " is not a regular file and cannot be rewound");
}

std::size_t realtime_chunk(double sample_rate)
{
    // 20 ms of samples a read: the spectra come as smoothly as from a radio.
    return std::size_t(std::clamp(sample_rate / 50, 1.0, double(1 << 16)));
}

void pacer::wait(std::uint64_t samples)
{
    const auto now = std::chrono::steady_clock::now();
    if (!d_start)
        d_start = now;
    const auto due = *d_start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                    std::chrono::duration<double>(double(samples) / d_rate));
    // A stop signal ends the sleep (nanosleep is never restarted: signal(7)).
    while (!stop_signal()) {
        const auto left = due - std::chrono::steady_clock::now();
        if (left <= std::chrono::steady_clock::duration::zero())
            return;
        const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
        const timespec ts{ time_t(ns / 1000000000), long(ns % 1000000000) };
        ::nanosleep(&ts, nullptr);
    }
}

} // namespace gpufft_app
