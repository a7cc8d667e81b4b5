/* gr-gpufft qpu backend: the built-in FFT shader table.
 *
 * One program, qpu/shaders/fft.qasm, serves every size: these uniforms
 * describe its Stockham passes (radix 16, the last one 8, 4 or 2 when log2 N
 * is not a multiple of 4) and the twiddle tables are computed here in
 * double. qpu/README.md describes the algorithm. */
#include "shaders.h"
#include <qpu/shaders/fft.h>
#include <cmath>
#include <cstring>

namespace gpufft::qpu {

namespace {

constexpr unsigned LANES = 16;
constexpr unsigned MAX_QPUS = 16;          // VPM rows: 6 per QPU
constexpr unsigned VPM_ROWS_PER_QPU = 6;   // two slots of (re, im, re)
constexpr unsigned QPUS_PER_LAUNCH = 12;   // every QPU of a Pi

struct pass {
    unsigned log2_radix;
    std::size_t stride; // s: points already combined
    std::size_t twiddle_offset; // complex entries before this pass's table
};

std::vector<pass> passes_for(unsigned log2n)
{
    std::vector<pass> passes;
    std::size_t s = 1, offset = 0;
    for (unsigned done = 0; done < log2n;) {
        const unsigned lr = log2n - done >= 4 ? 4 : log2n - done;
        passes.push_back({ lr, s, offset });
        offset += (std::size_t(1) << log2n) / s; // n = N/s entries: m rows of R
        s <<= lr;
        done += lr;
    }
    return passes;
}

unsigned log2_of(std::size_t v)
{
    unsigned l = 0;
    while ((std::size_t(1) << l) < v)
        ++l;
    return l;
}

// T[p][j] = exp(-2 pi i j p / n) for every pass, rounded once from double.
std::vector<std::uint32_t> twiddle_table(unsigned log2n)
{
    const std::size_t N = std::size_t(1) << log2n;
    std::vector<std::uint32_t> words;
    for (const pass& ps : passes_for(log2n)) {
        const std::size_t n = N / ps.stride, R = std::size_t(1) << ps.log2_radix, m = n / R;
        for (std::size_t p = 0; p < m; ++p)
            for (std::size_t j = 0; j < R; ++j) {
                const double angle = -2.0 * M_PI * double((j * p) % n) / double(n);
                const float re = float(std::cos(angle)), im = float(std::sin(angle));
                std::uint32_t w[2];
                std::memcpy(&w[0], &re, 4);
                std::memcpy(&w[1], &im, 4);
                words.push_back(w[0]);
                words.push_back(w[1]);
            }
    }
    return words;
}

// VDW of one output: 16 units (lanes, VPM columns) of 2 words (rows y, y+1).
std::uint32_t output_dma_setup(unsigned row)
{
    return 0x80000000u | (16u << 23) | (2u << 16) | (row << 7);
}

// Generic VPM write setup: horizontal 32-bit rows from `row`, stride 1.
std::uint32_t vpm_write_setup(unsigned row) { return 0x1A00u | row; }

std::vector<std::uint32_t> fft_uniforms(unsigned log2n, const launch_layout& l, unsigned q)
{
    const std::size_t N = std::size_t(1) << log2n;
    const std::vector<pass> passes = passes_for(log2n);
    const bool inverse = l.dir == direction::inverse;
    const std::size_t jobs = l.input.size();
    std::vector<std::uint32_t> u = { q, l.qpus, std::uint32_t(passes.size()), l.step_bytes,
                                     q == 0 ? 1u : 0u };
    for (std::size_t i = 0; i < passes.size(); ++i) {
        const pass& ps = passes[i];
        const std::size_t R = std::size_t(1) << ps.log2_radix, s = ps.stride;
        const std::size_t groups = N / (LANES * R); // per transform
        const bool first = i == 0, last = i + 1 == passes.size();
        const bool lanes_on_q = s >= LANES;
        const std::uint32_t from = i % 2 ? l.output[0] : l.input[0];
        const std::uint32_t to = i % 2 ? l.input[0] : l.output[0];
        // Lanes on q: g = p * (s/16) + qb; lanes on p (s = 1): p = 16 g + lane.
        const unsigned kshift = lanes_on_q ? log2_of(s / LANES) : 0;
        const std::uint32_t qmask = lanes_on_q ? std::uint32_t(s / LANES - 1) : 0;
        const unsigned lg_a = lanes_on_q ? log2_of(LANES * 8) : 0;
        const unsigned lg_b = log2_of((lanes_on_q ? s : LANES) * R * 8);
        const unsigned lg_c = log2_of((lanes_on_q ? 1 : LANES) * R * 8);
        const std::uint32_t tw_lane = lanes_on_q ? 0 : std::uint32_t(R * 8);
        const std::uint32_t j_step = std::uint32_t(s * 8);
        const std::uint32_t lane_gap = lanes_on_q ? 0 : std::uint32_t(R * 8 - 8);
        const unsigned row = VPM_ROWS_PER_QPU * q + (inverse && last ? 1 : 0);
        const std::uint32_t pass_uniforms[] = {
            ps.log2_radix,
            from + (inverse && first ? 4u : 0u),
            inverse && first ? std::uint32_t(-4) : 4u,
            to,
            std::uint32_t(l.twiddles + 8 * ps.twiddle_offset + 8), // j = 1
            std::uint32_t(jobs * groups),
            log2_of(groups),
            std::uint32_t(groups - 1),
            kshift,
            qmask,
            lg_a,
            lg_b,
            lg_c,
            tw_lane,
            j_step,
            std::uint32_t(8 * N / R),
            output_dma_setup(row),
            output_dma_setup(row + 3),
            0xC0000000u | lane_gap,
            vpm_write_setup(VPM_ROWS_PER_QPU * q),
            vpm_write_setup(VPM_ROWS_PER_QPU * q + 3),
        };
        u.insert(u.end(), std::begin(pass_uniforms), std::end(pass_uniforms));
    }
    return u;
}

std::string describe_passes(unsigned log2n)
{
    std::string s = "radix ";
    const std::vector<pass> passes = passes_for(log2n);
    for (std::size_t i = 0; i < passes.size(); ++i)
        s += (i ? "x" : "") + std::to_string(1u << passes[i].log2_radix);
    return s + " Stockham, " + std::to_string(passes.size()) + " passes";
}

} // namespace

fft_shader make_fft_shader(unsigned log2n, unsigned qpus)
{
    if (log2n < 8 || log2n > 20)
        throw std::invalid_argument("gpufft: qpu FFT shader sizes are 2^8 to 2^20");
    if (qpus < 1 || qpus > MAX_QPUS)
        throw std::invalid_argument("gpufft: qpu FFT shaders run on 1 to 16 QPUs");
    fft_shader s;
    s.log2n = log2n;
    s.qpus = qpus;
    s.code.assign(::qpu::shaders::fft, ::qpu::shaders::fft + ::qpu::shaders::fft_size);
    s.twiddles = [log2n](direction) { return twiddle_table(log2n); };
    s.uniforms = [log2n](const launch_layout& l, unsigned q) { return fft_uniforms(log2n, l, q); };
    s.result_in_output = passes_for(log2n).size() % 2 == 1;
    s.describe = describe_passes(log2n);
    // The emulator's model is bound by the shared VDW engine: one 32-word
    // write (30 clocks of setup, about 2.5 a word) per 16 points per pass,
    // at 250 MHz. qpu-fft-model measures it (qpu/shaders/README.md).
    const double clocks_per_point_pass = (30.0 + 32 * 2.5) / LANES;
    s.model_ns = double(passes_for(log2n).size()) * double(std::size_t(1) << log2n) * clocks_per_point_pass / 0.25;
    return s;
}

const shader_table& fft_shaders()
{
    static const shader_table table = [] {
        shader_table t;
        for (unsigned log2n = 8; log2n <= 20; ++log2n)
            t.push_back(make_fft_shader(log2n, QPUS_PER_LAUNCH));
        return t;
    }();
    return table;
}

} // namespace gpufft::qpu
