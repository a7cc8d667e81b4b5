// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-bench --qpu-check: on a Raspberry Pi 0-3, the qpu backend against
 * the simd backend at every size it supports, and a report a user can paste
 * into a bug report (board, firmware, memory split, results). */
#ifndef GPUFFT_BENCH_QPU_CHECK_H
#define GPUFFT_BENCH_QPU_CHECK_H

#include <gpufft/backend.h>
#include <gpufft/problem.h>

#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gpufft::bench {

//! Where the report's facts come from; tests pass fakes.
struct pi_facts {
    //! A file's contents, or nothing if it cannot be read.
    std::function<std::optional<std::string>(const std::string& path)> read_file;
    //! vcgencmd's output for its arguments ("version", "get_mem gpu"), or
    //! nothing if vcgencmd is missing or fails.
    std::function<std::optional<std::string>(const std::string& args)> vcgencmd;
};

//! The running system's files and vcgencmd.
pi_facts system_pi_facts();

//! One transform engine: runs a problem's whole batch, out of place.
using transform = std::function<void(const complex* in, complex* out)>;

struct qpu_check_engines {
    availability qpu;      //!< the qpu backend's probe
    std::string reference; //!< the simd backend's name and variant, "simd:neon"
    std::function<transform(const problem&)> make_qpu, make_reference;
};

struct qpu_check_config {
    unsigned from_log2 = 8, to_log2 = 20;
    std::vector<std::size_t> batches{ 1, 10 };
    unsigned repeats = 3; //!< timed calls per engine; the median is reported
};

//! The report's header lines: board, firmware, memory split, kernel.
std::string describe_system(const pi_facts& facts);

/*!
 * Runs the check and prints the report to `out`. Returns the exit status:
 * 0 every size passed, 1 a size failed (an error or a result off), 3 the
 * qpu backend is not usable here (then only one line saying why, on `err`).
 */
int qpu_check(const qpu_check_engines& engines, const pi_facts& facts, const qpu_check_config& config,
              std::FILE* out, std::FILE* err);

//! The engines of this process's library: the qpu and simd backends.
qpu_check_engines library_engines();

} // namespace gpufft::bench

#endif
