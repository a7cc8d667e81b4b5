// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft: the interface every backend implements. */
#ifndef GPUFFT_BACKEND_H
#define GPUFFT_BACKEND_H

#include <gpufft/api.h>
#include <gpufft/problem.h>
#include <memory>
#include <string>
#include <vector>

namespace gpufft {

//! Plan-time choices a caller may make; defaults suit streaming use.
struct GPUFFT_API plan_options {
    /*!
     * "auto", a backend name ("simd"), or a backend with a variant after a
     * colon: "simd:avx2" forces an instruction set, "opencl:1" a device.
     */
    std::string backend = "auto";
    //! Measure candidate algorithms at plan time and remember the winner in
    //! the wisdom file (GPUFFT_WISDOM, default ~/.cache/gpufft/wisdom).
    bool tune = false;
    //! Worker threads a batch is split across (the simd backend); 1 runs on
    //! the caller's thread only. At most max_threads.
    unsigned threads = 1;
    //! More threads than this is a mistake (each is an OS thread with its
    //! own stack), not a speed-up: plans refuse it.
    static constexpr unsigned max_threads = 1024;
    /*!
     * Empty, or one real weight per input point of a transform
     * (problem::points() of them, row-major over the shape): input point j
     * of every transform is multiplied by input_weights[j] before the
     * transform, e.g. a window, with an fftshift's (-1)^j folded in. c2c and
     * r2c plans only; the input buffer is not modified. The simd backend
     * multiplies in the pass that first reads the input; other backends get
     * a weighted copy made by the plan (executor::applies_input_weights).
     */
    std::vector<float> input_weights;
};

/*!
 * \brief A backend's compiled transform for one problem.
 *
 * Everything it needs (scratch, twiddles, kernels) is made in the
 * constructor; execute() allocates nothing.
 */
class GPUFFT_API executor
{
public:
    virtual ~executor();
    //! c2c: in == out is an in-place transform; buffers hold problem::span() elements.
    virtual void execute(const complex* in, complex* out) = 0;
    //! r2c: in holds problem::real_span() reals, out problem::span() elements.
    //! Backends that plan r2c override it; the plan checks the kind first.
    virtual void execute_r2c(const float* in, complex* out);
    //! c2r: in holds problem::span() elements, out problem::real_span() reals.
    virtual void execute_c2r(const complex* in, float* out);
    //! Whether execute() multiplies the input by plan_options::input_weights
    //! itself; if not, the plan hands it a weighted copy of the input.
    virtual bool applies_input_weights() const { return false; }
    //! The variant that runs it (an instruction set, a device); may be empty.
    virtual std::string variant() const = 0;
    //! One line on the algorithm chosen, e.g. "stockham 16x8, 8 lanes".
    virtual std::string describe() const = 0;
};

//! Whether a backend can run here, and why not.
struct GPUFFT_API availability {
    bool usable = false;
    std::string reason;                //!< empty when usable
    std::vector<std::string> variants; //!< e.g. instruction sets or devices, best first
    //! Empty, or one line on each variant as the hardware reports it where
    //! the variant's name does not say (an OpenCL device index: its name
    //! and driver).
    std::vector<std::string> variant_notes;
};

/*!
 * \brief One way of computing FFTs (SIMD codelets, OpenCL, QPU).
 *
 * A backend lives in its own folder under lib/backends/ and is added to the
 * table in lib/core/registry.cc.
 */
class GPUFFT_API backend
{
public:
    virtual ~backend();
    virtual std::string name() const = 0;
    virtual std::string description() const = 0;
    //! Cheap, cached by the registry: probes hardware and drivers once.
    virtual availability probe() = 0;
    /*!
     * Why this backend cannot plan the problem's kind or shape, or empty if
     * it can. "auto" skips backends that cannot; naming one throws this
     * reason. The default: 1-D complex transforms only (strided layouts are
     * gathered to packed ones by the plan, so backends never see strides).
     */
    virtual std::string unsupported(const problem& p) const;
    //! Modelled nanoseconds for the problem, used by "auto"; no measuring.
    virtual double estimate_ns(const problem& p) const = 0;
    /*!
     * The device interface its plans run on, which a pipeline of a library
     * above (the spectrum library's device chain) uses to run its own stages
     * on the same device around them: "opencl" (its device plans:
     * include/gpufft/opencl.h), or empty for host memory only.
     */
    virtual std::string device_api() const { return {}; }
    //! Throws gpufft::error if the variant is unknown or the backend fails.
    virtual std::unique_ptr<executor> make_executor(const problem& p,
                                                    const std::string& variant,
                                                    const plan_options& options) = 0;
};

} // namespace gpufft

#endif
