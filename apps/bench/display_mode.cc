// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-bench --display: the display pipeline, two ways.
 *
 * 1. The CPU stages alone (gpufft::display) on one thread. Input: 256
 *    distinct dB frames (noise around -60 dB with a tone), pushed over and
 *    over in calls of --display-batch frames.
 * 2. The whole pipeline from raw I/Q (gpufft::spectrum_display) on each
 *    backend of --backends: convert and window, FFT, |X|^2, dB, shift and
 *    the display stages, on the device for opencl (only the read-outs come
 *    back), on the CPU after the FFT elsewhere. Input: 2^21 distinct cf32
 *    samples (noise and a tone), pushed over and over in calls of
 *    --display-batch frames (at most 2^21 samples), no overlap.
 *
 * One timed run pushes about a quarter second's worth of frames; the
 * figure is the median of --repeats runs after one warm-up run. The
 * read-out (histogram, both traces, one waterfall row: what a display
 * fetches per drawn picture) is timed apart, as the median of 50. */
#include "display_mode.h"

#include <gpufft/display.h>
#include <gpufft/spectrum_display.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <random>
#include <stdexcept>

namespace gpufft::bench {

namespace {

struct display_row {
    std::size_t n = 0;
    std::string resample;
    std::size_t frames_per_run = 0;
    double frames_per_s = 0; // median over runs
    double readout_us = 0;   // median
};

struct pipeline_row {
    std::string backend; // what the engine reports, e.g. "opencl:0"
    std::size_t n = 0;
    std::size_t frames_per_run = 0;
    double frames_per_s = 0; // median over runs
    double readout_us = 0;   // median
};

/*!
 * Frames per second of push_run(frames), which pushes that many frames:
 * runs sized to about 0.25 s from a first pass of `first` frames, one
 * warm-up run, the median of `repeats` runs. `frames_per_run` gets the size.
 */
double frame_rate(const std::function<void(std::size_t)>& push_run, std::size_t first, unsigned repeats,
                  std::size_t& frames_per_run)
{
    auto t0 = clock_type::now();
    push_run(first);
    const double ms = std::max(ms_since(t0), 1e-3);
    frames_per_run = std::max<std::size_t>(first, std::size_t(250.0 / ms * double(first)) / first * first);
    push_run(frames_per_run); // warm-up
    std::vector<double> rates;
    for (unsigned r = 0; r < repeats; ++r) {
        t0 = clock_type::now();
        push_run(frames_per_run);
        rates.push_back(double(frames_per_run) / (ms_since(t0) / 1e3));
    }
    return median(rates);
}

//! Microseconds of one read-out of everything a drawn picture needs (median of 50).
template <class Display>
double readout_us(const Display& d, const display_config& c)
{
    std::vector<float> out(c.width * c.height);
    std::vector<double> reads;
    for (int r = 0; r < 50; ++r) {
        const auto t0 = clock_type::now();
        d.read_histogram(out.data());
        d.read_average(out.data());
        d.read_max_hold(out.data());
        d.read_waterfall(out.data(), 1);
        reads.push_back(ms_since(t0) * 1e3);
    }
    return median(reads);
}

display_config config_for(const options& o, std::size_t n, display_resample mode)
{
    display_config c;
    c.n = n;
    c.width = o.display_width;
    c.height = o.display_height;
    c.resample = mode;
    return c;
}

display_row bench_stages(const options& o, std::size_t n, display_resample mode)
{
    const display_config c = config_for(o, n, mode);
    display d(c);

    constexpr std::size_t distinct = 256;
    std::vector<float> frames(distinct * n);
    std::mt19937 g(1);
    std::exponential_distribution<float> power(1.0f);
    for (std::size_t i = 0; i < frames.size(); ++i)
        frames[i] = i % n == n / 3 ? -10.0f : -60.0f + 10.0f * std::log10(power(g));

    const std::size_t batch = std::min(o.display_batch, distinct);
    display_row row;
    row.frames_per_s = frame_rate(
        [&](std::size_t total) {
            for (std::size_t done = 0; done < total; done += batch)
                d.push(frames.data() + (done % distinct) * n, std::min(batch, total - done));
        },
        distinct, o.repeats, row.frames_per_run);
    row.n = n;
    row.resample = mode == display_resample::max ? "max" : "mean";
    row.readout_us = readout_us(d, c);
    return row;
}

pipeline_row bench_pipeline(const options& o, const std::string& backend, std::size_t n,
                            const std::vector<complex>& signal)
{
    spectrum_config s;
    s.fft_size = n;
    s.backend = backend;
    const display_config c = config_for(o, n, display_resample::max);
    spectrum_display d(s, c);

    // Whole frames a push, cycling through the signal.
    const std::size_t frames_in_signal = signal.size() / n;
    const std::size_t per_push = std::min(o.display_batch, frames_in_signal);
    std::size_t next = 0; // the signal's frame the next push starts at
    pipeline_row row;
    row.frames_per_s = frame_rate(
        [&](std::size_t total) {
            for (std::size_t done = 0; done < total;) {
                const std::size_t k = std::min({ per_push, total - done, frames_in_signal - next });
                d.push(signal.data() + next * n, k * n);
                next = (next + k) % frames_in_signal;
                done += k;
            }
        },
        std::max<std::size_t>(8, 2 * d.spectrum_settings().batch), o.repeats, row.frames_per_run);
    row.backend = d.backend();
    row.n = n;
    row.readout_us = readout_us(d, c);
    return row;
}

void write_json(const std::string& path, const options& o, const std::vector<display_row>& rows,
                const std::vector<pipeline_row>& pipeline)
{
    std::ofstream f(path);
    if (!f)
        throw std::runtime_error("cannot write " + path);
    f << "{\n  \"header\": {\"tool\": \"gpufft-bench\", \"mode\": \"display\", \"date\": "
      << json_string(utc_now()) << ", \"cpu\": " << json_string(cpu_model()) << ", \"threads\": 1"
      << ", \"width\": " << o.display_width << ", \"height\": " << o.display_height
      << ", \"frames_per_push\": " << o.display_batch << ", \"repeats\": " << o.repeats
      << ", \"statistic\": \"median\", \"pipeline_format\": \"cf32\", \"pipeline_resample\": \"max\"},\n"
      << "  \"display\": [";
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& r = rows[i];
        f << (i ? ",\n    " : "\n    ") << "{\"n\": " << r.n << ", \"resample\": " << json_string(r.resample)
          << ", \"frames_per_run\": " << r.frames_per_run << ", \"frames_per_s\": " << json_number(r.frames_per_s)
          << ", \"ns_per_frame\": " << json_number(1e9 / r.frames_per_s)
          << ", \"readout_us\": " << json_number(r.readout_us) << "}";
    }
    f << "\n  ],\n  \"spectrum_display\": [";
    for (std::size_t i = 0; i < pipeline.size(); ++i) {
        const auto& r = pipeline[i];
        f << (i ? ",\n    " : "\n    ") << "{\"backend\": " << json_string(r.backend) << ", \"n\": " << r.n
          << ", \"frames_per_run\": " << r.frames_per_run << ", \"frames_per_s\": " << json_number(r.frames_per_s)
          << ", \"samples_per_s\": " << json_number(r.frames_per_s * double(r.n))
          << ", \"readout_us\": " << json_number(r.readout_us) << "}";
    }
    f << "\n  ]\n}\n";
    if (!f)
        throw std::runtime_error("error writing " + path);
}

} // namespace

void run_display_mode(const options& o, const std::vector<std::string>& backends)
{
    std::printf("display stages on the CPU (gpufft::display), one thread: width %zu, height %zu, "
                "%zu frames per push, median of %u runs\n",
                o.display_width, o.display_height, o.display_batch, o.repeats);
    std::printf("%10s %8s %14s %12s %12s\n", "n", "resample", "frames/s", "ns/frame", "readout us");
    std::vector<display_row> rows;
    std::vector<pipeline_row> pipeline;
    const auto save = [&] {
        if (!o.json.empty())
            write_json(o.json, o, rows, pipeline);
    };
    for (std::size_t n : o.display_sizes)
        for (auto mode : { display_resample::max, display_resample::mean }) {
            rows.push_back(bench_stages(o, n, mode));
            const auto& r = rows.back();
            std::printf("%10zu %8s %14.0f %12.0f %12.1f\n", r.n, r.resample.c_str(), r.frames_per_s,
                        1e9 / r.frames_per_s, r.readout_us);
            std::fflush(stdout);
            save();
        }

    std::vector<complex> signal(std::size_t(1) << 21);
    std::mt19937 g(2);
    std::normal_distribution<float> noise(0.0f, 0.01f);
    for (std::size_t j = 0; j < signal.size(); ++j)
        signal[j] = complex(noise(g), noise(g)) + std::polar(0.5f, float(0.61 * double(j % 1000000)));
    std::printf("\nraw cf32 I/Q to display images (gpufft::spectrum_display): width %zu, height %zu, "
                "resample max, %zu frames per push, median of %u runs\n",
                o.display_width, o.display_height, o.display_batch, o.repeats);
    std::printf("%-14s %10s %14s %14s %12s\n", "backend", "n", "frames/s", "MS/s", "readout us");
    for (const auto& b : backends)
        for (std::size_t n : o.display_sizes) {
            if (n > signal.size())
                throw std::runtime_error("--display-sizes: " + std::to_string(n) + " is above the " +
                                         std::to_string(signal.size()) + " samples of the pipeline's input");
            pipeline.push_back(bench_pipeline(o, b, n, signal));
            const auto& r = pipeline.back();
            std::printf("%-14s %10zu %14.0f %14.2f %12.1f\n", r.backend.c_str(), r.n, r.frames_per_s,
                        r.frames_per_s * double(r.n) / 1e6, r.readout_us);
            std::fflush(stdout);
            save();
        }
}

} // namespace gpufft::bench
