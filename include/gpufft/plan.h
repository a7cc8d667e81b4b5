// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft: the plan, the library's main object. */
#ifndef GPUFFT_PLAN_H
#define GPUFFT_PLAN_H

#include <gpufft/api.h>
#include <gpufft/backend.h>
#include <gpufft/problem.h>
#include <memory>
#include <string>

namespace gpufft {

/*!
 * \brief A batched float FFT, planned once and executed many times.
 *
 * \code
 *   gpufft::plan p(1024, gpufft::direction::forward, 64);   // 64 transforms
 *   p.execute(in.data(), out.data());                       // in == out: in place
 *
 *   gpufft::problem r2c;                                    // 480 x 640 reals
 *   r2c.kind = gpufft::transform_kind::r2c;                 // -> 480 x 321 complex
 *   r2c.dims = { 480, 640 };
 *   gpufft::plan q(r2c);
 *   q.execute_r2c(image.data(), spectrum.data());
 * \endcode
 *
 * Real transforms run out of place only.
 *
 * Thread safety: constructing plans is safe from any number of threads.
 * A plan owns scratch memory, so one plan must not execute on two threads at
 * once; give each thread its own plan (plans of the same problem are cheap).
 * execute() allocates nothing.
 */
class GPUFFT_API plan
{
public:
    explicit plan(const problem& p, const plan_options& options = plan_options());
    explicit plan(std::size_t n,
         direction dir = direction::forward,
         std::size_t batch = 1,
         std::size_t distance = 0,
         const std::string& backend = "auto");
    ~plan();
    plan(plan&&) noexcept;
    plan& operator=(plan&&) noexcept;

    //! Unchecked hot path (c2c): both buffers hold problem().span() elements.
    void execute(const complex* in, complex* out);
    //! Checked: throws gpufft::error for null or short buffers.
    void execute(const complex* in, std::size_t in_len, complex* out, std::size_t out_len);
    //! r2c: in holds problem().real_span() reals, out problem().span() elements.
    //! (Named apart from execute() so that execute(nullptr, ...) stays unambiguous.)
    void execute_r2c(const float* in, complex* out);
    void execute_r2c(const float* in, std::size_t in_len, complex* out, std::size_t out_len);
    //! c2r: in holds problem().span() elements, out problem().real_span() reals.
    void execute_c2r(const complex* in, float* out);
    void execute_c2r(const complex* in, std::size_t in_len, float* out, std::size_t out_len);

    const gpufft::problem& problem() const;
    //! The backend that runs it, with its variant: "simd:avx512".
    const std::string& backend() const;
    //! The algorithm the backend chose.
    std::string describe() const;

private:
    struct impl;
    std::unique_ptr<impl> d_impl;
};

} // namespace gpufft

#endif
