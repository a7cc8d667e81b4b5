/* gpufft-spectrum: a headless receiver on the spectrum engine (internal API,
 * shared by the program and its tests). */
#ifndef GPUFFT_APPS_SPECTRUM_APP_H
#define GPUFFT_APPS_SPECTRUM_APP_H

#include <gpufft/spectrum.h>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gpufft_app {

//! Exit statuses (also in --help and README.md).
enum exit_status : int {
    exit_ok = 0,
    exit_failure = 1, //!< bad input, a failed read or write, or the demo's check failed
    exit_usage = 2,   //!< bad command line
    // 128 + N: stopped by signal N (SIGINT 130, SIGTERM 143, SIGHUP 129) with
    // complete outputs, or 141 (128 + SIGPIPE) when standard output closed.
};

//! Bad input (files, metadata, data): the program prints it and exits with 1.
struct app_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};
//! A bad command line: the program prints it and exits with 2.
struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

//! The command line.
struct options {
    std::string input = "-";
    std::string help; //!< the --help text, if asked for
    bool demo = false;
    std::string format = "cu8";
    double rate = 2.4e6, center = 0;
    bool rate_set = false, center_set = false, format_set = false, fps_set = false;
    std::string backend = "auto", window = "blackmanharris", average = "linear";
    double window_param = NAN; //!< P of --window NAME:P; NaN if none
    std::size_t fft = 2048, frames = 0, width = 0, height = 0, peaks = 10;
    double overlap = 0.5, alpha = 0.1, fps = 0, peak_threshold = 10;
    double db_min = NAN, db_max = NAN;
    std::string png = "waterfall.png", csv, jsonl;
    std::string persistence; //!< the persistence PNG, if any
    int progress = -1; //!< -1: on a terminal
};
//! Parses the arguments (without the program name); throws usage_error naming the option.
options parse_options(const std::vector<std::string>& args);

//! Frequencies and rates the program accepts (Hz), so that bins stay resolvable in double.
constexpr double max_frequency_hz = 1e12, max_sample_rate_hz = 1e12;

//! Where samples come from and what they are.
struct iq_source {
    std::string data_path; //!< "-" is standard input
    std::string meta_path; //!< the SigMF metadata, if any
    gpufft::sample_format format = gpufft::sample_format::cu8;
    double sample_rate = 0; //!< Hz; 0 if unknown
    double center_hz = 0;
};

/*!
 * Reads a SigMF recording given its .sigmf-meta, its .sigmf-data or the
 * name without extension: global core:datatype (cf32_le, ci16_le, ci8, cu8;
 * anything else is refused), core:sample_rate (optional, > 0), and the first
 * capture's core:frequency. The data file must exist.
 */
iq_source open_sigmf(const std::string& path);
//! True if `path` names a SigMF recording (by extension, or a base name with a .sigmf-meta).
bool is_sigmf(const std::string& path);

/*!
 * SIGINT, SIGTERM and SIGHUP set a flag that pump() and the demo check
 * (a second one kills the program as usual); SIGPIPE is ignored, so that a
 * closed standard output is a write error (EPIPE) that stops the run.
 */
void install_stop_handlers();
//! The signal that asked the run to stop (SIGPIPE: standard output closed), or 0.
int stop_signal();
void request_stop(int signal);

/*!
 * Pushes the input on `fd` into the engine until its end or stop_signal(),
 * then flushes; returns the bytes read. A signal also ends a read that waits
 * for data. A trailing partial sample is left unused.
 */
std::size_t pump(int fd, gpufft::spectrum& s, const gpufft::spectrum::sink& out,
                 const std::function<void(std::size_t bytes)>& progress = nullptr);

/*!
 * An output file: written under a temporary name in its directory and
 * renamed by commit(), so that a failed run leaves nothing behind; removed if
 * never committed. "-" is standard output, and a path that is not a regular
 * file (a FIFO, /dev/null) is written directly. Every write failure is an
 * app_error naming the file, except a closed standard output, which stops
 * the run (request_stop(SIGPIPE)).
 */
class output_file
{
public:
    explicit output_file(const std::string& path);
    ~output_file();
    output_file(const output_file&) = delete;
    output_file& operator=(const output_file&) = delete;

    std::FILE* get() const { return d_file; }
    const std::string& path() const { return d_path; }
    //! Throws if a write so far failed.
    void check();
    //! Flushes, closes and renames into place.
    void commit();

private:
    std::string d_path, d_temp;
    std::FILE* d_file = nullptr;
};

/*!
 * Throws usage_error if an output path names the same file (device and
 * inode) as an input; "-" and "none" are not files.
 */
void refuse_overwriting_inputs(const std::vector<std::string>& inputs,
                               const std::vector<std::pair<std::string, std::string>>& outputs);

/*!
 * The waterfall's rows, each a spectrum reduced to `width` columns (max of
 * the bins a column covers). At most max_rows rows are kept: when full, pairs
 * of rows merge (max), and each later row covers twice as many spectra.
 */
struct waterfall {
    explicit waterfall(std::size_t width, std::size_t max_rows = 2048);
    std::size_t width;
    std::size_t max_rows;
    std::size_t spectra = 0; //!< added so far
    std::size_t span = 1;    //!< spectra per row (the last row may hold fewer)
    std::vector<float> rows; //!< row-major, dB
    std::size_t count() const { return width ? rows.size() / width : 0; }
    void add(const float* spectrum, std::size_t n);
};

//! What the waterfall's axes say.
struct axes {
    double f_lo = 0, f_hi = 1; //!< Hz at the left and right edges
    double seconds = 1;        //!< time from the top row to the bottom row
    double db_min = -120, db_max = 0;
};

//! Margins around the plot (pixels): the PNG is (left + width + right) x (top + height + bottom).
constexpr int margin_left = 64, margin_right = 84, margin_top = 12, margin_bottom = 40;

/*!
 * Writes the waterfall as an RGB PNG: `height` pixel rows (0: one per
 * row), viridis colours over [db_min, db_max], frequency ticks below,
 * time ticks left, a dB scale bar right.
 */
void write_png(const std::string& path, const waterfall& w, const axes& a, std::size_t height = 0);

//! Viridis at t in [0, 1] (clamped), interpolated from control points.
void colormap(double t, unsigned char rgb[3]);

//! Tick values, the multiples of step in [lo, hi] (at most 1000).
std::vector<double> ticks(double lo, double hi, double step);

struct peak {
    double hz;
    double db;
};
/*!
 * Local maxima of a spectrum at least `threshold_db` above its median, at
 * least `min_sep` bins apart, strongest first, at most `count`.
 */
std::vector<peak> find_peaks(const std::vector<float>& db, const gpufft::spectrum& s,
                             double threshold_db, std::size_t min_sep, std::size_t count);

/*!
 * 10 log10((sum w)^2 / (N sum w^2)): the engine's dB (logpwrfft's scale,
 * |X|^2 / (N sum w^2)) minus this is a tone's power in dBFS, |X|^2 / (sum w)^2.
 */
double tone_gain_db(const std::vector<float>& window);

//! The program: parses options and runs; returns the exit status.
int run(const std::vector<std::string>& args);

} // namespace gpufft_app

#endif
