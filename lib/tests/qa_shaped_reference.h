// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft tests: FFTW double and float for one transform of any kind and
 * rank (qa_shapes.cc, and qa_opencl.cc's device plans). */
#ifndef GPUFFT_QA_SHAPED_REFERENCE_H
#define GPUFFT_QA_SHAPED_REFERENCE_H

#include "qa_common.h"
#include <fftw3.h>
#include <algorithm>
#include <vector>

namespace qa {

/*!
 * FFTW double (the reference) and FFTW float (the yardstick) for one packed
 * transform of p's shape and kind; FFTW_ESTIMATE, so planning is cheap.
 * Input and output are packed complex, reals as complex numbers with a zero
 * imaginary part, so that l2_error compares every kind the same way.
 */
class shaped_reference
{
public:
    explicit shaped_reference(const gpufft::problem& p)
        : d_kind(p.kind), d_points(p.points()), d_complex(p.points() / p.dims.back() * (p.kind == gpufft::transform_kind::c2c ? p.dims.back() : p.dims.back() / 2 + 1))
    {
        for (std::size_t d : p.dims)
            d_dims.push_back(int(d));
        const int rank = int(d_dims.size());
        int* dims = d_dims.data();
        d_dc.resize(d_complex);
        d_fc.resize(d_complex);
        d_dr.resize(d_points);
        d_fr.resize(d_points);
        auto* dc = reinterpret_cast<fftw_complex*>(d_dc.data());
        auto* fc = reinterpret_cast<fftwf_complex*>(d_fc.data());
        switch (d_kind) {
        case gpufft::transform_kind::c2c: {
            d_dc2.resize(d_complex);
            d_fc2.resize(d_complex);
            const int sign = p.dir == gpufft::direction::forward ? FFTW_FORWARD : FFTW_BACKWARD;
            d_dplan = fftw_plan_dft(rank, dims, dc,
                                    reinterpret_cast<fftw_complex*>(d_dc2.data()), sign,
                                    FFTW_ESTIMATE);
            d_fplan = fftwf_plan_dft(rank, dims, fc,
                                     reinterpret_cast<fftwf_complex*>(d_fc2.data()), sign,
                                     FFTW_ESTIMATE);
            break;
        }
        case gpufft::transform_kind::r2c:
            d_dplan = fftw_plan_dft_r2c(rank, dims, d_dr.data(), dc, FFTW_ESTIMATE);
            d_fplan = fftwf_plan_dft_r2c(rank, dims, d_fr.data(), fc, FFTW_ESTIMATE);
            break;
        case gpufft::transform_kind::c2r:
            d_dplan = fftw_plan_dft_c2r(rank, dims, dc, d_dr.data(), FFTW_ESTIMATE);
            d_fplan = fftwf_plan_dft_c2r(rank, dims, fc, d_fr.data(), FFTW_ESTIMATE);
            break;
        }
    }
    ~shaped_reference()
    {
        fftw_destroy_plan(d_dplan);
        fftwf_destroy_plan(d_fplan);
    }
    shaped_reference(const shaped_reference&) = delete;
    shaped_reference& operator=(const shaped_reference&) = delete;

    std::size_t in_size() const { return d_kind == gpufft::transform_kind::r2c ? d_points : d_complex; }
    std::size_t out_size() const { return d_kind == gpufft::transform_kind::c2r ? d_points : d_complex; }

    //! x: in_size() packed inputs; exact, fftwf: out_size() outputs.
    void run(const cf* x, cd* exact, cf* fftwf)
    {
        // c2r plans overwrite their input (FFTW manual, "Planner Flags"): load it every time.
        switch (d_kind) {
        case gpufft::transform_kind::c2c:
            std::copy(x, x + d_complex, d_dc.begin());
            std::copy(x, x + d_complex, d_fc.begin());
            fftw_execute(d_dplan);
            fftwf_execute(d_fplan);
            std::copy(d_dc2.begin(), d_dc2.end(), exact);
            std::copy(d_fc2.begin(), d_fc2.end(), fftwf);
            break;
        case gpufft::transform_kind::r2c:
            for (std::size_t i = 0; i < d_points; ++i) {
                d_dr[i] = x[i].real();
                d_fr[i] = x[i].real();
            }
            fftw_execute(d_dplan);
            fftwf_execute(d_fplan);
            std::copy(d_dc.begin(), d_dc.end(), exact);
            std::copy(d_fc.begin(), d_fc.end(), fftwf);
            break;
        case gpufft::transform_kind::c2r:
            std::copy(x, x + d_complex, d_dc.begin());
            std::copy(x, x + d_complex, d_fc.begin());
            fftw_execute(d_dplan);
            fftwf_execute(d_fplan);
            for (std::size_t i = 0; i < d_points; ++i) {
                exact[i] = d_dr[i];
                fftwf[i] = d_fr[i];
            }
            break;
        }
    }

    //! A spectrum that is the r2c of real data, as c2r expects beyond rank 1.
    void hermitian(const std::vector<float>& reals, cf* out)
    {
        std::vector<double> r(reals.begin(), reals.end());
        std::vector<cd> c(d_complex);
        fftw_plan pl = fftw_plan_dft_r2c(int(d_dims.size()), d_dims.data(), r.data(),
                                         reinterpret_cast<fftw_complex*>(c.data()), FFTW_ESTIMATE);
        fftw_execute(pl);
        fftw_destroy_plan(pl);
        for (std::size_t i = 0; i < d_complex; ++i)
            out[i] = cf(c[i]) / float(d_points);
    }

private:
    std::vector<int> d_dims;
    gpufft::transform_kind d_kind;
    std::size_t d_points, d_complex;
    std::vector<cd> d_dc, d_dc2;
    std::vector<cf> d_fc, d_fc2;
    std::vector<double> d_dr;
    std::vector<float> d_fr;
    fftw_plan d_dplan;
    fftwf_plan d_fplan;
};

} // namespace qa

#endif
