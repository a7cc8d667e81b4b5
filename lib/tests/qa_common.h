// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft correctness suite: shared helpers (random data, FFTW references,
 * error measures, the list of backends to test, failure collection). */
#ifndef GPUFFT_QA_COMMON_H
#define GPUFFT_QA_COMMON_H

#include <gpufft/gpufft.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace qa {

using cf = std::complex<float>;
using cd = std::complex<double>;

/*!
 * The accuracy criterion: our relative L2 error against FFTW double is within
 * twice FFTW float's error on the same inputs, where both errors are taken
 * over at least `min_points` points of independent random transforms (a
 * batch, or several calls), i.e. as an RMS over many transforms.
 *
 * Why not one transform at a time: for small N one transform's error is a
 * noisy sample of few roundings. Measured with this library's mixed-radix
 * N = 9, whose RMS error equals FFTW float's within 4%, 98 of 85000 single
 * transforms still exceeded 2 * max(FFTW float's error on that input, floor):
 * a per-transform bound fails correct code about once in a thousand draws.
 * Over 4096 points the ratio's noise is a few percent.
 *
 * Error floor, about float epsilon / 2 (the unit roundoff, 5.96e-8): rounding
 * the exact result to float already costs about that much, and for trivial
 * sizes (N = 1, 2, 4) FFTW float can be exact or nearly so; twice a near-zero
 * error would demand more than a float can hold.
 *
 * Each single transform must also stay within transform_cap times
 * max(FFTW float's error on it, floor): far beyond rounding noise (single
 * transforms of correct code reach about 3x), so it flags a broken transform
 * (a wrong lane, a missed tail) that an average over many could hide.
 */
constexpr double error_floor = 6e-8;
constexpr double transform_cap = 8.0;
constexpr std::size_t min_points = 4096;
inline double bound_for(double err_fftwf) { return 2.0 * std::max(err_fftwf, error_floor); }

/*!
 * GPUFFT_TEST_EMULATED=1 (scripts/test-arm.sh sets it for qemu-user, which
 * runs this suite tens of times slower than the host, and
 * scripts/test-sanitizers.sh for the ASan build, whose every size the plain
 * build checks in full): every suite and every code path still runs,
 * trimmed. Errors are averaged over emulated_min_points points instead of
 * min_points (the ratio to FFTW float's error is then noisier by about 2x,
 * still far inside the factor 2 of the bound), and the biggest sizes are
 * fewer: 2^20 but not 2^21, 2^22; 999983 forward only, not 10^6; in the
 * 4 M point thread test, 2^20 x 1 and 1024 x 4096 only. Each suite's
 * comment says what it cuts.
 */
bool emulated();
constexpr std::size_t emulated_min_points = 1024;

//! Seed of this run: GPUFFT_TEST_SEED if set, else from std::random_device.
std::uint64_t run_seed();

//! "" where planning n points is refused with gpufft::error, else what went
//! wrong (qa_bad_input; `qa_gpufft --plan-verdict N` prints it).
std::string plan_verdict(std::size_t n);

//! A generator whose stream depends only on the run seed and `tag`.
std::mt19937_64 rng_for(const std::string& tag);

//! Uniform complex data in [-1, 1)^2. The stream depends only on the run seed
//! and `tag` (the case's name), so one failing case reproduces alone.
void fill_random(cf* x, std::size_t count, const std::string& tag);

/*!
 * Inputs besides noise, where uniform noise hides lost digits: an impulse;
 * a spike, noise under a first element of about 5 times the noise's L2
 * norm (the inverse of a spectrum with a strong DC bin); a constant; a
 * strong DC, a constant with noise of 1% its amplitude; a full-scale tone
 * (n / 3 cycles). Each is held to the bound noise is (bound_for), which is
 * about twice scipy's single precision (pocketfft) on them: at 233 and 431
 * points FFTW float is off by 1.7e-7 to 2.3e-7 and scipy by 1.7e-7 to
 * 2.3e-7; where scipy is exact or nearly (an impulse at 53 or 97 points),
 * the floor holds.
 */
enum class signal { noise, impulse, spike, constant, dc, tone };
//! "noise", "impulse", ...
const char* signal_name(signal s);

//! Fills one transform of n points with s, its noise from `tag`'s stream.
void fill_signal(cf* x, std::size_t n, signal s, const std::string& tag);

//! Fills with quiet NaN, so an element the library never wrote is caught.
void poison(cf* x, std::size_t count);

//! Sentinel stored in the gaps between transforms (distance > n).
cf sentinel(std::size_t index);

//! Sums of squares for relative L2 errors ||out - ref|| / ||ref||, one
//! transform or many.
struct l2_error {
    double err2 = 0, ref2 = 0;
    //! Adds one transform; returns its own relative error (infinity if out
    //! is not finite).
    double add(const cf* out, const cd* ref, std::size_t n);
    double rel() const;
};

//! Index of the first non-finite element in [0, n), or n if none.
std::size_t first_nonfinite(const cf* x, std::size_t n);

/*!
 * FFTW references for one size and direction, planned once with
 * FFTW_ESTIMATE: FFTW double (the reference) and FFTW float (the yardstick).
 * Not thread safe (FFTW's planner is not); the suite plans on one thread.
 */
class reference
{
public:
    reference(std::size_t n, gpufft::direction dir);
    ~reference();
    reference(const reference&) = delete;
    reference& operator=(const reference&) = delete;
    std::size_t size() const { return d_n; }
    //! FFTW double's DFT of x (the reference).
    void exact(const cf* x, cd* out);
    //! FFTW float's DFT of x.
    void fftwf(const cf* x, cf* out);

private:
    std::size_t d_n;
    void* d_dplan;
    void* d_fplan;
    cd* d_din;
    cd* d_dout;
    cf* d_fin;
    cf* d_fout;
};

//! Reference for (n, dir), cached; the cache is emptied when it grows large.
reference& ref_for(std::size_t n, gpufft::direction dir);

/*!
 * Backends the suites test: every variant of the simd backend, as
 * "simd:<isa>", best first. GPUFFT_TEST_BACKENDS (comma separated, e.g.
 * "simd:avx2,opencl") replaces the list; "all" there adds every other usable
 * backend by name.
 */
std::vector<std::string> targets();
//! simd variants the library reports here, best first.
std::vector<std::string> simd_variants();
//! First and last of targets() (the widest ISA and scalar by default), where
//! the big sizes (2^20..2^22, 10^6) run.
std::vector<std::string> big_size_targets();

std::string dir_name(gpufft::direction d);

//! "simd:avx2 n=1000 forward batch=3 distance=1007 in-place"
std::string case_name(const std::string& backend,
                      std::size_t n,
                      gpufft::direction dir,
                      std::size_t batch = 1,
                      std::size_t distance = 0,
                      bool in_place = false);

/*!
 * Collects the failures of one test method, so a sweep reports every failing
 * case and not only the first, and remembers the case closest to its bound.
 */
class failures
{
public:
    failures();
    void add(const std::string& what);
    //! Records a checked error against its bound.
    void note(const std::string& name, double err, double bound);
    //! Counts a check that has no error bound (an exact comparison).
    void checked() { ++d_checks; }
    bool empty() const { return d_count == 0; }
    //! Failure lines (the first 30) and the seed that reproduces them.
    std::string summary() const;
    //! One progress line: checks, worst err/bound, failures, seconds.
    void report(const std::string& label) const;

private:
    std::vector<std::string> d_lines;
    std::size_t d_count = 0;
    std::size_t d_checks = 0;
    double d_worst = 0;
    std::string d_worst_case;
    double d_start_s;
};

//! Fails unless `text` contains every one of `words` (case-insensitive).
void expect_words(const std::string& what, const std::string& text, const std::vector<std::string>& words);

//! Fails unless fn throws gpufft::error whose message contains every one of
//! `words` (case-insensitive); any other outcome fails with `what`.
void expect_error(const std::string& what,
                  const std::function<void()>& fn,
                  const std::vector<std::string>& words);

/*!
 * Plans `backend` for (n, dir, batch, distance) with `threads` and runs it,
 * out of place or in place, on fresh random data, as many calls as it takes
 * to reach min_points points. Checks: the plan reports the forced backend;
 * every output element is written (outputs are poisoned with NaN first); the
 * gaps between transforms stay untouched; out of place, the input is
 * unchanged; the error vs FFTW double meets the criterion above. `offset`
 * shifts both buffers by that many elements (misalignment). Failures,
 * exceptions included, go to `f`. With `weights` (n of them) the plan gets
 * them as plan_options::input_weights and the references transform each
 * input point times its weight, the product rounded to float as the
 * library forms it (one IEEE multiply).
 */
void check_transform(failures& f,
                     const std::string& backend,
                     std::size_t n,
                     gpufft::direction dir,
                     std::size_t batch = 1,
                     std::size_t distance = 0,
                     bool in_place = false,
                     unsigned threads = 1,
                     std::size_t offset = 0,
                     const std::vector<float>& weights = {});

/*!
 * inverse(forward(x)) == n * x, batch 1, with the same criterion against
 * FFTW float's forward-then-inverse on the same x.
 */
void check_round_trip(failures& f, const std::string& backend, std::size_t n);

/*!
 * check_transform forward and inverse and check_round_trip with each
 * signal but noise as the input, batch 1 (one transform each where the
 * signal has no noise).
 */
void check_signals(failures& f, const std::string& backend, std::size_t n);
//! The criterion over all transforms of a case: ours within bound_for(FFTW
//! float's), noted in f.
void check_total(failures& f, const std::string& name, const l2_error& ours, const l2_error& fftwf);
//! The sizes a size suite checks check_signals at.
extern const std::vector<std::size_t> signal_sizes;

//! Seconds since the process started, for progress lines.
double elapsed_s();

/*!
 * Runs fn(failures&, target) for each target, prints a progress line for
 * each, and fails the current CppUnit test with every target's summary.
 */
template <class F>
void for_each_target(const std::string& label, const std::vector<std::string>& ts, F fn)
{
    std::string msg;
    for (const auto& t : ts) {
        failures f;
        fn(f, t);
        f.report(label + " " + t);
        if (!f.empty())
            msg += t + ": " + f.summary() + "\n";
    }
    CPPUNIT_ASSERT_MESSAGE(msg, msg.empty());
}

} // namespace qa

//! Fails the current CppUnit test with the collected summary, if any.
#define QA_ASSERT_NO_FAILURES(f) CPPUNIT_ASSERT_MESSAGE((f).summary(), (f).empty())

namespace qa {

//! Runs fn(failures&) and reports its failures under `label`.
template <class F>
void run_checks(const std::string& label, F fn)
{
    failures f;
    fn(f);
    f.report(label);
    QA_ASSERT_NO_FAILURES(f);
}

} // namespace qa

#endif
