/* gpufft-bench --display: the display pipeline's CPU stages on one thread.
 *
 * Input: 256 distinct dB frames (noise around -60 dB with a tone), pushed
 * over and over in calls of --display-batch frames. One timed run pushes
 * about a quarter second's worth of frames; the figure is the median of
 * --repeats runs after one warm-up run. The read-out (histogram, both
 * traces, one waterfall row: what a display fetches per drawn picture) is
 * timed apart, as the median of 50. */
#include "display_mode.h"

#include <gpufft/display.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
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

display_row bench_one(const options& o, std::size_t n, display_resample mode)
{
    display_config c;
    c.n = n;
    c.width = o.display_width;
    c.height = o.display_height;
    c.resample = mode;
    display d(c);

    constexpr std::size_t distinct = 256;
    std::vector<float> frames(distinct * n);
    std::mt19937 g(1);
    std::exponential_distribution<float> power(1.0f);
    for (std::size_t i = 0; i < frames.size(); ++i)
        frames[i] = i % n == n / 3 ? -10.0f : -60.0f + 10.0f * std::log10(power(g));

    const std::size_t batch = std::min(o.display_batch, distinct);
    const auto push_run = [&](std::size_t total) {
        for (std::size_t done = 0; done < total; done += batch)
            d.push(frames.data() + (done % distinct) * n, std::min(batch, total - done));
    };
    // Size a run to about 0.25 s from a first pass of 256 frames.
    auto t0 = clock_type::now();
    push_run(distinct);
    const double ms = std::max(ms_since(t0), 1e-3);
    const std::size_t per_run = std::max<std::size_t>(distinct, std::size_t(250.0 / ms * double(distinct)) / distinct * distinct);
    push_run(per_run); // warm-up
    std::vector<double> rates;
    for (unsigned r = 0; r < o.repeats; ++r) {
        t0 = clock_type::now();
        push_run(per_run);
        rates.push_back(double(per_run) / (ms_since(t0) / 1e3));
    }
    std::vector<float> out(c.width * c.height);
    std::vector<double> reads;
    for (int r = 0; r < 50; ++r) {
        t0 = clock_type::now();
        d.read_histogram(out.data());
        d.read_average(out.data());
        d.read_max_hold(out.data());
        d.read_waterfall(out.data(), 1);
        reads.push_back(ms_since(t0) * 1e3);
    }
    display_row row;
    row.n = n;
    row.resample = mode == display_resample::max ? "max" : "mean";
    row.frames_per_run = per_run;
    row.frames_per_s = median(rates);
    row.readout_us = median(reads);
    return row;
}

void write_json(const std::string& path, const options& o, const std::vector<display_row>& rows)
{
    std::ofstream f(path);
    if (!f)
        throw std::runtime_error("cannot write " + path);
    f << "{\n  \"header\": {\"tool\": \"gpufft-bench\", \"mode\": \"display\", \"date\": "
      << json_string(utc_now()) << ", \"cpu\": " << json_string(cpu_model()) << ", \"threads\": 1"
      << ", \"width\": " << o.display_width << ", \"height\": " << o.display_height
      << ", \"frames_per_push\": " << o.display_batch << ", \"repeats\": " << o.repeats
      << ", \"statistic\": \"median\"},\n  \"display\": [";
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& r = rows[i];
        f << (i ? ",\n    " : "\n    ") << "{\"n\": " << r.n << ", \"resample\": " << json_string(r.resample)
          << ", \"frames_per_run\": " << r.frames_per_run << ", \"frames_per_s\": " << json_number(r.frames_per_s)
          << ", \"ns_per_frame\": " << json_number(1e9 / r.frames_per_s)
          << ", \"readout_us\": " << json_number(r.readout_us) << "}";
    }
    f << "\n  ]\n}\n";
    if (!f)
        throw std::runtime_error("error writing " + path);
}

} // namespace

void run_display_mode(const options& o)
{
    std::printf("display pipeline, one thread: width %zu, height %zu, %zu frames per push, median of %u runs\n",
                o.display_width, o.display_height, o.display_batch, o.repeats);
    std::printf("%10s %8s %14s %12s %12s\n", "n", "resample", "frames/s", "ns/frame", "readout us");
    std::vector<display_row> rows;
    for (std::size_t n : o.display_sizes)
        for (auto mode : { display_resample::max, display_resample::mean }) {
            rows.push_back(bench_one(o, n, mode));
            const auto& r = rows.back();
            std::printf("%10zu %8s %14.0f %12.0f %12.1f\n", r.n, r.resample.c_str(), r.frames_per_s,
                        1e9 / r.frames_per_s, r.readout_us);
            std::fflush(stdout);
            if (!o.json.empty())
                write_json(o.json, o, rows);
        }
}

} // namespace gpufft::bench
