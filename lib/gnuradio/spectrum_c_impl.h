// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft, GNU Radio side: gpufft.spectrum_c's implementation (internal). */
#ifndef GPUFFT_GNURADIO_SPECTRUM_C_IMPL_H
#define GPUFFT_GNURADIO_SPECTRUM_C_IMPL_H

#include <gpufft/gnuradio/spectrum_c.h>
#include <gpufft/spectrum.h>
#include <memory>
#include <mutex>
#include <vector>

namespace gr::gpufft {

class spectrum_c_impl : public spectrum_c
{
public:
    // The block's parameters as given (frame_rate and the strings kept for the getters).
    struct params {
        int fft_size;
        double sample_rate;
        double frame_rate;
        double overlap;
        std::string window;
        std::string average;
        double alpha;
        int frames_per_output;
        double ref_scale;
        bool shift;
        std::string format;
        std::string backend;
        double window_param;
        std::string scale;
        bool tune;
    };

    explicit spectrum_c_impl(const params& p);
    ~spectrum_c_impl() override;

    void set_window(const std::string& window) override;
    void set_window_param(double window_param) override;
    void set_average(const std::string& average) override;
    void set_alpha(double alpha) override;
    void set_sample_rate(double sample_rate) override;
    void set_frame_rate(double frame_rate) override;
    void set_frames_per_output(int frames_per_output) override;
    void set_ref_scale(double ref_scale) override;
    void set_scale(const std::string& scale) override;
    void set_overlap(double overlap) override;
    void set_shift(bool shift) override;

    // Every getter locks: a setter rewrites d_params as a whole, even the
    // fields it does not change.
    int fft_size() const override { return get(&params::fft_size); }
    double sample_rate() const override { return get(&params::sample_rate); }
    double frame_rate() const override { return get(&params::frame_rate); }
    std::string window() const override { return get(&params::window); }
    double window_param() const override { return get(&params::window_param); }
    std::string average() const override { return get(&params::average); }
    double alpha() const override { return get(&params::alpha); }
    double ref_scale() const override { return get(&params::ref_scale); }
    std::string scale() const override { return get(&params::scale); }
    double overlap() const override { return get(&params::overlap); }
    bool shift() const override { return get(&params::shift); }
    std::string format() const override { return get(&params::format); }
    int frames_per_output() const override;
    int hop() const override;
    std::string backend() const override;
    bool tune() const override { return get(&params::tune); }

    bool start() override;
    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override;
    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override;

private:
    // An engine with room for the outputs that do not fit the output buffer.
    struct engine {
        explicit engine(const ::gpufft::spectrum_config& c);
        ::gpufft::spectrum s;
        std::vector<float> pending; // capacity spectra of N floats
        std::size_t capacity;       // spectra
        std::size_t head = 0;       // first pending spectrum
        std::size_t count = 0;      // pending spectra
    };

    static ::gpufft::spectrum_config to_config(const params& p);
    // One parameter as last set.
    template <class T>
    T get(T params::*field) const
    {
        std::lock_guard<std::mutex> lock(d_params_mutex);
        return d_params.*field;
    }
    // Sets one parameter: rebuild() with it changed.
    template <class T, class V>
    void set(T params::*field, const V& value)
    {
        std::lock_guard<std::mutex> lock(d_params_mutex);
        params p = d_params;
        p.*field = value;
        rebuild(p);
    }
    // Builds an engine for p (throws, changing nothing, if p is bad) and
    // hands it to work(); the caller holds d_params_mutex.
    void rebuild(const params& p);
    // The upstream block is done and `seen` input items are all there is.
    bool input_ended(int seen) const;

    params d_params;                 // guarded by d_params_mutex
    mutable std::mutex d_params_mutex;
    std::unique_ptr<engine> d_engine; // used by work(); guarded by d_mutex
    std::unique_ptr<engine> d_next;   // set by setters, taken by work()
    std::unique_ptr<engine> d_retired; // freed outside work()
    std::size_t d_itemsize;
    bool d_flushed = false; // the frames of the last batch went out at end of input (work()'s thread)
    mutable std::mutex d_mutex; // work() against the setters' hand-over
};

} // namespace gr::gpufft

#endif
