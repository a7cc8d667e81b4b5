// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft, GNU Radio side: gpufft.fft_vcc's and fft_vfc's implementation (internal). */
#ifndef GPUFFT_GNURADIO_FFT_V_IMPL_H
#define GPUFFT_GNURADIO_FFT_V_IMPL_H

#include <gpufft/gnuradio/fft_v.h>
#include <gpufft/plan.h>
#include <atomic>
#include <mutex>
#include <string>
#include <vector>

namespace gr::gpufft {

template <class T>
class fft_v_impl : public fft_v<T>
{
public:
    fft_v_impl(int fft_size,
                 bool forward,
                 const std::vector<float>& window,
                 bool shift,
                 int nthreads,
                 const std::string& backend,
                 int batch,
                 bool tune);

    using fft_v<T>::set_window;
    bool set_window(const std::vector<float>& window) override;
    void set_nthreads(int n) override;
    int fft_size() const override { return int(d_n); }
    int nthreads() const override { return d_nthreads.load(); }
    int batch() const override { return int(d_batch); }
    std::string backend() const override { return d_backend; }
    bool tune() const override { return d_tune; }

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    // window, if empty or N taps; else an error naming the block.
    const std::vector<float>& checked_window(const std::vector<float>& window) const;
    // The taps multiplied into the input, with a forward shift of even N
    // folded in as (-1)^j; empty when the input goes to the FFT as it is.
    std::vector<float> taps_for(const std::vector<float>& window) const;
    // fft_vcc: the taps in the order its plans read the input (rotated by
    // an inverse shift), for them to apply (plan_options::input_weights);
    // fft_vfc: none (its load() applies them).
    std::vector<float> plan_weights(std::vector<float> taps) const;
    // fft_vcc: out[j] = in[j]; fft_vfc: out[j] = in[j] * taps[first + j]
    // (in[j] as it is without taps), for j < count.
    void load(const T* in, std::size_t first, std::size_t count, gr_complex* out) const;
    // Plans of 2^k < d_batch vectors, largest first.
    std::vector<::gpufft::plan> make_rest(int threads, const std::vector<float>& weights) const;
    // New plans for these threads and taps, swapped in against work().
    void replan(int threads, std::vector<float> taps);
    // Runs `count` vectors starting at in/out through the plans.
    void transform(const gr_complex* in, gr_complex* out, std::size_t count);

    const std::size_t d_n;
    const bool d_forward;
    const bool d_shift;
    std::atomic<int> d_nthreads;
    const std::size_t d_batch;
    const bool d_tune;
    std::string d_backend;       // with its variant, as the first plan chose it
    std::vector<float> d_taps;   // see taps_for()
    ::gpufft::plan d_plan_batch; // d_batch vectors
    // Plans of 2^k < d_batch vectors, largest first, for what is left of a
    // work call after whole batches (in as few calls as its binary digits).
    std::vector<::gpufft::plan> d_plan_rest;
    std::mutex d_mutex;          // new plans and taps against work()
    std::mutex d_setter_mutex;   // set_window() against set_nthreads()
};

} // namespace gr::gpufft

#endif
