// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft, GNU Radio side: gpufft.iq_replay_source, a recording in a loop or the demo signal. */
#include "iq_replay_source_impl.h"
#include <gnuradio/io_signature.h>
#include <gpufft/error.h>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace gr::gpufft {

namespace {

[[noreturn]] void fail(const std::string& what)
{
    throw ::gpufft::error("gpufft.iq_replay_source: " + what);
}

::gpufft::sample_format pick_format(const std::string& format, const std::string& filename)
{
    if (format == "auto") {
        const auto dot = filename.rfind('.');
        const std::string ext = dot == std::string::npos ? "" : filename.substr(dot + 1);
        for (const char* f : { "cu8", "cs8", "cs16" })
            if (ext == f)
                return ::gpufft::parse_sample_format(f);
        return ::gpufft::sample_format::cf32;
    }
    try {
        return ::gpufft::parse_sample_format(format);
    } catch (const ::gpufft::error&) {
        fail(std::string("format must be auto, cf32, cs16, cs8 or cu8 (got \"") + format + "\")");
    }
}

double checked_rate(double rate)
{
    if (!(rate > 0) || !std::isfinite(rate))
        fail("sample_rate must be > 0 (got " + std::to_string(rate) + ")");
    return rate;
}

// Samples per work() call: enough to amortize the call, few enough to pace smoothly.
constexpr std::size_t chunk = 1 << 14;

} // namespace

iq_replay_source::sptr iq_replay_source::make(
    const std::string& filename, const std::string& format, double sample_rate, bool throttle, bool repeat)
{
    return gnuradio::make_block_sptr<iq_replay_source_impl>(filename, format, sample_rate, throttle, repeat);
}

iq_replay_source_impl::iq_replay_source_impl(
    const std::string& filename, const std::string& format, double sample_rate, bool throttle, bool repeat)
    : gr::sync_block("iq_replay_source",
                     gr::io_signature::make(0, 0, 0),
                     gr::io_signature::make(1, 1, sizeof(gr_complex))),
      d_format(pick_format(format, filename)),
      d_rate(checked_rate(sample_rate)),
      d_throttle(throttle),
      d_repeat(repeat),
      d_file(nullptr, std::fclose)
{
    if (filename.empty()) {
        d_demo = std::make_unique<::gpufft::demo_signal>(sample_rate);
        return;
    }
    struct stat st;
    if (::stat(filename.c_str(), &st) != 0)
        fail("filename: cannot open \"" + filename + "\": " + std::strerror(errno));
    if (S_ISDIR(st.st_mode))
        fail("filename: \"" + filename + "\" is a directory, not a recording");
    const std::size_t bps = ::gpufft::sample_bytes(d_format);
    d_raw.resize(chunk * bps);
    // A FIFO or a device is read as it comes, once, to its end. Opening a
    // FIFO waits for its writer, so that happens in work().
    if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
        if (::access(filename.c_str(), R_OK) != 0)
            fail("filename: cannot open \"" + filename + "\": " + std::strerror(errno));
        d_stream_path = filename;
        return;
    }
    d_file.reset(std::fopen(filename.c_str(), "rb"));
    if (!d_file)
        fail("filename: cannot open \"" + filename + "\": " + std::strerror(errno));
    if (std::fseek(d_file.get(), 0, SEEK_END) != 0)
        fail("filename: cannot seek in \"" + filename + "\" (a regular file is needed)");
    const long bytes = std::ftell(d_file.get());
    d_file_samples = bytes > 0 ? std::size_t(bytes) / bps : 0;
    if (d_file_samples == 0)
        fail("filename: \"" + filename + "\" holds no whole " + ::gpufft::format_name(d_format) +
             " sample (" + std::to_string(bytes) + " bytes)");
    std::rewind(d_file.get());
}

bool iq_replay_source_impl::start()
{
    d_start = std::chrono::steady_clock::now();
    d_sent = 0;
    return gr::sync_block::start();
}

std::size_t iq_replay_source_impl::read(gr_complex* out, std::size_t count)
{
    const std::size_t bps = ::gpufft::sample_bytes(d_format);
    std::size_t done = 0;
    while (done < count) {
        if (d_position == d_file_samples) {
            if (!d_repeat)
                break;
            std::rewind(d_file.get());
            d_position = 0;
        }
        const std::size_t want = std::min({ count - done, chunk, d_file_samples - d_position });
        const std::size_t got = std::fread(d_raw.data(), bps, want, d_file.get());
        if (got == 0) {
            d_logger->error("{}: read failed at sample {}", name(), d_position);
            break;
        }
        ::gpufft::convert_samples(d_format, d_raw.data(), out + done, got);
        done += got;
        d_position += got;
    }
    return done;
}

std::size_t iq_replay_source_impl::read_stream(gr_complex* out, std::size_t count)
{
    if (!d_file) {
        d_file.reset(std::fopen(d_stream_path.c_str(), "rb"));
        if (!d_file) {
            d_logger->error("{}: cannot open \"{}\": {}", name(), d_stream_path, std::strerror(errno));
            return 0;
        }
    }
    const std::size_t got = std::fread(d_raw.data(), ::gpufft::sample_bytes(d_format), count, d_file.get());
    if (got < count && std::ferror(d_file.get()))
        d_logger->error("{}: read failed after sample {}", name(), d_position);
    ::gpufft::convert_samples(d_format, d_raw.data(), out, got);
    d_position += got;
    return got;
}

int iq_replay_source_impl::work(int noutput_items,
                                gr_vector_const_void_star&,
                                gr_vector_void_star& output_items)
{
    auto* out = static_cast<gr_complex*>(output_items[0]);
    std::size_t count = std::min(std::size_t(noutput_items), chunk);
    if (d_throttle) {
        // At most 10 ms of signal per call, sent when its time has come.
        count = std::min(count, std::max<std::size_t>(1, std::size_t(d_rate / 100)));
        const auto due = d_start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                       std::chrono::duration<double>(d_sent / d_rate));
        std::this_thread::sleep_until(due);
    }
    if (d_demo)
        d_demo->generate(out, count);
    else if (!d_stream_path.empty())
        count = read_stream(out, count);
    else
        count = read(out, count);
    d_sent += double(count);
    return count == 0 ? WORK_DONE : int(count);
}

} // namespace gr::gpufft
