/* gpufft-spectrum: a headless receiver on the spectrum engine (internal API,
 * shared by the program and its tests). */
#ifndef GPUFFT_APPS_SPECTRUM_APP_H
#define GPUFFT_APPS_SPECTRUM_APP_H

#include <gpufft/spectrum.h>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gpufft_app {

//! Bad input (files, metadata, options): the program prints it and exits with 1.
struct app_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

//! A parsed JSON value (RFC 8259; numbers as double; objects keep their order).
struct json {
    enum class kind { null, boolean, number, string, array, object } type = kind::null;
    bool boolean = false;
    double number = 0;
    std::string string;
    std::vector<json> array;
    std::vector<std::pair<std::string, json>> object;
    //! The member `key` of an object, or nullptr.
    const json* find(const std::string& key) const;
};
//! Throws app_error with the byte offset of the first problem; nesting is limited to 200.
json parse_json(const std::string& text);

//! Where samples come from and what they are.
struct iq_source {
    std::string data_path; //!< "-" is standard input
    gpufft::sample_format format = gpufft::sample_format::cu8;
    double sample_rate = 0; //!< Hz; 0 if unknown
    double center_hz = 0;
};

/*!
 * Reads a SigMF recording given its .sigmf-meta, its .sigmf-data or the
 * name without extension: global core:datatype (cf32_le, ci16_le, ci8, cu8;
 * anything else is refused), core:sample_rate, and the first capture's
 * core:frequency. The data file must exist.
 */
iq_source open_sigmf(const std::string& path);
//! True if `path` names a SigMF recording (by extension, or a base name with a .sigmf-meta).
bool is_sigmf(const std::string& path);

/*!
 * Pushes a whole input into the engine, in chunks; returns the bytes read.
 * A trailing partial sample is left unused (see trailing_bytes).
 */
std::size_t pump(std::FILE* in, gpufft::spectrum& s, const gpufft::spectrum::sink& out,
                 const std::function<void(std::size_t bytes)>& progress = nullptr);

//! One row per output spectrum, each reduced to `width` columns (max of the bins a column covers).
struct waterfall {
    std::size_t width = 0;
    std::vector<float> rows; //!< row-major, dB
    std::size_t count() const { return width ? rows.size() / width : 0; }
    void add(const float* spectrum, std::size_t n);
};

//! What the waterfall's axes say.
struct axes {
    double f_lo = 0, f_hi = 1;    //!< Hz at the left and right edges
    double seconds_per_row = 1;
    double db_min = -120, db_max = 0;
};

//! Margins around the plot (pixels): the PNG is (left + width + right) x (top + height + bottom).
constexpr int margin_left = 64, margin_right = 84, margin_top = 12, margin_bottom = 40;

/*!
 * Writes the waterfall as an RGB PNG: `height` pixel rows (0: one per
 * spectrum), viridis colours over [db_min, db_max], frequency ticks below,
 * time ticks left, a dB scale bar right.
 */
void write_png(const std::string& path, const waterfall& w, const axes& a, std::size_t height = 0);

//! Viridis at t in [0, 1] (clamped), interpolated from control points.
void colormap(double t, unsigned char rgb[3]);

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

//! The program: parses options and runs; returns the exit status.
int run(const std::vector<std::string>& args);

} // namespace gpufft_app

#endif
