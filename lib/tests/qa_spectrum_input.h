// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft tests: the spectrum engine's zero-copy input
 * (gpufft::spectrum::acquire() and commit()) against push_bytes() on the
 * same backend, shared by qa_spectrum (simd) and qa_opencl_spectrum. */
#ifndef GPUFFT_QA_SPECTRUM_INPUT_H
#define GPUFFT_QA_SPECTRUM_INPUT_H

#include "qa_common.h"

#include <gpufft/error.h>
#include <gpufft/spectrum.h>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace qa {

/*!
 * For each sample format, one engine fed through acquire()/commit() and one
 * through push_bytes() with the same byte counts, on `backend`: spans of odd
 * sizes up to three batches, commits of part of a span and of 0 bytes, a
 * second acquire() before the commit (same place, the bytes written stay),
 * a commit past the span (gpufft::error naming it, nothing taken, the span
 * still held), a commit with no span held, and flushes, one in the middle of
 * an average. Every call delivers as many outputs as push_bytes(), and the
 * outputs, gathered into storage poisoned with NaN first, equal push_bytes()'
 * bit for bit. Again with deferred_delivery on the acquire()/commit() side:
 * the same outputs in the same order once flushed.
 */
inline void check_zero_copy_input(failures& f, const std::string& backend)
{
    using gpufft::sample_format;
    std::size_t i = 0;
    for (bool deferred : { false, true })
    for (auto fmt : { sample_format::cf32, sample_format::cs16, sample_format::cs8, sample_format::cu8 }) {
        gpufft::spectrum_config c;
        c.fft_size = 256;
        c.format = fmt;
        c.average = gpufft::averaging(i++ % 4);
        c.alpha = 0.25;
        c.frames_per_output = 3;
        c.overlap = 0.5;
        c.batch = 4;
        c.backend = backend;
        const std::string name =
            backend + " " + gpufft::format_name(fmt) + (deferred ? " deferred" : "");
        gpufft::spectrum pushed(c);
        c.deferred_delivery = deferred;
        gpufft::spectrum zero(c);
        const std::size_t bps = gpufft::sample_bytes(fmt), n = c.fft_size;
        const std::size_t samples = 80 * zero.hop() + n;
        auto rng = rng_for(name);
        std::vector<unsigned char> raw(samples * bps);
        for (std::size_t k = 0; k < raw.size(); k += fmt == sample_format::cf32 ? 4 : 1) {
            if (fmt == sample_format::cf32) { // finite floats in [-1, 1)
                const float v = float(double(rng() >> 11) * 0x1p-52 - 1.0);
                std::memcpy(&raw[k], &v, 4);
            } else {
                raw[k] = static_cast<unsigned char>(rng());
            }
        }
        const std::size_t frames = (samples - n) / zero.hop() + 1;
        const std::size_t outputs = frames / c.frames_per_output;
        std::vector<float> got(outputs * n, std::numeric_limits<float>::quiet_NaN()), want;
        std::size_t delivered = 0;
        bool overflow = false;
        const gpufft::spectrum::sink into_got = [&](const float* p, std::size_t count) {
            if (count != n || delivered >= outputs)
                overflow = true;
            else
                std::memcpy(&got[delivered++ * n], p, n * sizeof(float));
        };
        const gpufft::spectrum::sink into_want = [&](const float* p, std::size_t count) {
            want.insert(want.end(), p, p + count);
        };

        const std::size_t batch_bytes = (3 * zero.hop() + n) * bps;
        std::size_t at = 0, call = 0;
        bool mid_average = false;
        const auto same = [&](std::size_t a, std::size_t b, const std::string& what) {
            f.checked();
            if (a != b && !deferred)
                f.add(name + ": call " + std::to_string(call) + " (" + what + ") delivered " +
                      std::to_string(a) + " outputs through commit(), " + std::to_string(b) +
                      " through push_bytes()");
            ++call;
        };
        // Writes raw[at, at + bytes) into the span and commits it.
        const auto commit = [&](const gpufft::input_span& span, std::size_t bytes, const char* what) {
            std::memcpy(span.data, raw.data() + at, bytes);
            const std::size_t a = zero.commit(bytes, into_got);
            same(a, pushed.push_bytes(raw.data() + at, bytes, into_want), what);
            at += bytes;
        };
        // Complete frames in the first `bytes` bytes.
        const auto frames_in = [&](std::size_t bytes) {
            return bytes / bps < n ? 0 : (bytes / bps - n) / zero.hop() + 1;
        };
        try {
            for (std::size_t step = 0; at < raw.size(); ++step) {
                const std::size_t left = raw.size() - at;
                const std::size_t max_bytes =
                    std::min<std::size_t>(left, 1 + 2 * (rng() % (3 * batch_bytes / 2)));
                const gpufft::input_span span = zero.acquire(max_bytes);
                if (!span.data || span.bytes == 0 || span.bytes > max_bytes) {
                    f.add(name + ": acquire(" + std::to_string(max_bytes) + ") gave " +
                          std::to_string(span.bytes) + " bytes");
                    break;
                }
                switch (step % 6) {
                case 0: { // a second acquire before the commit: same place, the bytes stay
                    const std::size_t written = span.bytes / 2 + 1;
                    std::memcpy(span.data, raw.data() + at, written);
                    const gpufft::input_span again = zero.acquire(written);
                    f.checked();
                    if (again.data != span.data || again.bytes != written ||
                        std::memcmp(again.data, raw.data() + at, written) != 0)
                        f.add(name + ": a second acquire() moved the span or lost its bytes");
                    commit(again, written, "after a second acquire");
                    break;
                }
                case 1: // a commit past the span throws and takes nothing
                    std::memcpy(span.data, raw.data() + at, span.bytes);
                    expect_error(name + ": commit past the span",
                                 [&] { zero.commit(span.bytes + 1, into_got); },
                                 { "commit", std::to_string(span.bytes + 1), "acquire" });
                    commit(span, span.bytes, "after a refused commit");
                    expect_error(name + ": commit with no span held",
                                 [&] { zero.commit(1, into_got); }, { "commit", "holds 0 bytes" });
                    break;
                case 2: // part of the span, then a commit of 0
                    commit(span, span.bytes / 3, "part of a span");
                    commit(zero.acquire(0), 0, "0 bytes");
                    break;
                case 3: { // a flush in the middle of an average where the span allows
                    std::size_t bytes = span.bytes;
                    if (frames_in(at + bytes) % c.frames_per_output == 0 && bytes > zero.hop() * bps)
                        bytes -= zero.hop() * bps; // one frame fewer
                    commit(span, bytes, "before a flush");
                    same(zero.flush(into_got), pushed.flush(into_want), "flush");
                    mid_average = mid_average || zero.frames() % c.frames_per_output != 0;
                    break;
                }
                default:
                    commit(span, span.bytes, "whole span");
                }
            }
            same(zero.flush(into_got), pushed.flush(into_want), "final flush");
        } catch (const std::exception& e) {
            f.add(name + ": " + e.what());
            continue;
        }
        f.checked();
        if (!mid_average)
            f.add(name + ": no flush fell in the middle of an average (test setup)");
        if (overflow || delivered != outputs || want.size() != got.size())
            f.add(name + ": " + std::to_string(delivered) + " outputs through commit(), " +
                  std::to_string(want.size() / n) + " through push_bytes(), want " +
                  std::to_string(outputs));
        else if (std::memcmp(got.data(), want.data(), got.size() * sizeof(float)) != 0)
            f.add(name + ": the outputs through commit() differ from push_bytes()'");
    }
}

} // namespace qa

#endif
