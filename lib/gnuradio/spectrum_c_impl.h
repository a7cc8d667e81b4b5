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
    };

    explicit spectrum_c_impl(const params& p);
    ~spectrum_c_impl() override;

    void set_window(const std::string& window) override;
    void set_average(const std::string& average) override;
    void set_alpha(double alpha) override;
    void set_frame_rate(double frame_rate) override;
    void set_frames_per_output(int frames_per_output) override;
    void set_ref_scale(double ref_scale) override;

    int fft_size() const override { return d_params.fft_size; }
    double sample_rate() const override { return d_params.sample_rate; }
    double frame_rate() const override;
    std::string window() const override;
    std::string average() const override;
    double alpha() const override;
    double ref_scale() const override;
    int frames_per_output() const override;
    int hop() const override;
    std::string backend() const override;

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
    // Builds an engine for p (throws, changing nothing, if p is bad) and
    // hands it to work(); the caller holds d_params_mutex.
    void rebuild(const params& p);

    params d_params;                 // guarded by d_params_mutex
    mutable std::mutex d_params_mutex;
    std::unique_ptr<engine> d_engine; // used by work(); guarded by d_mutex
    std::unique_ptr<engine> d_next;   // set by setters, taken by work()
    std::unique_ptr<engine> d_retired; // freed outside work()
    std::size_t d_itemsize;
    mutable std::mutex d_mutex; // work() against the setters' hand-over
};

} // namespace gr::gpufft

#endif
