// SPDX-License-Identifier: GPL-3.0-or-later
/* The built-in FFT shader table: the host side of fft.qasm.
 *
 * One program, fft.qasm, serves every size: these uniforms
 * describe its Stockham passes (a first pass of radix 16A, A = 1..16, then
 * radix 16) and its tables (twiddles, and the first pass's lane tables) are
 * computed here in double. README.md here describes the algorithm. */
#include "shader_table.h"
#include <qpu/shaders/fft.h>
#include <algorithm>
#include <cmath>
#include <cstring>

namespace gpufft::qpu {

namespace {

constexpr unsigned LANES = 16;
constexpr unsigned GROUP_POINTS = LANES * 16; // 16 lanes x 16 registers
constexpr unsigned MAX_QPUS = 16;          // VPM rows: 8 per QPU
constexpr unsigned VPM_ROWS_PER_QPU = 8;   // first pass: 4 outputs x (re, im); else two slots of (re, im, re)
constexpr unsigned FIRST_PASS_OUTPUTS_PER_DMA = 4;
constexpr unsigned QPUS_PER_LAUNCH = 12;   // every QPU of a Pi
constexpr unsigned MIN_QUARTERING_QPUS = 10; // fft_uniforms: quarters below two groups a QPU
constexpr unsigned MIN_LOG2N = 8, MAX_LOG2N = 22;

// Padding in the intermediate buffers (between passes) from 2^15 on: 256
// bytes after each block of N/16 points. A cross-lane pass's 16 lanes read
// one point of each block (N/2 bytes apart, a multiple of the 32 KiB that
// a 4-way 128 KiB L2 of 64-byte lines maps onto its 512 sets), so without
// it all 16 lanes' lines fall into one or two sets and evict each other
// before the next registers' loads reuse them (qpu/shaders/README.md,
// "Padding"); with it lane r's lines are 4r sets on. 15 blocks' padding
// (3840 bytes) fits in the guard page after each buffer (the backend's and
// the tools' buffers are 8N bytes rounded up to 4 KiB, plus 4 KiB). The
// block of N/16 points is what a cross-lane pass's lanes step by; a pass's
// VDW rows never straddle two blocks but in the last pass, which writes
// the unpadded output, so the row strides need no padding. fft.qasm's
// group_setup pads the output offset (shift 8 there).
constexpr unsigned PAD_BYTES = 256;
constexpr unsigned MIN_PADDED_LOG2N = 15;

struct pass {
    unsigned log2_radix;
    std::size_t stride; // s: points already combined
    std::size_t twiddle_offset; // complex entries before this pass's table
};

// log2 of each pass's radix, per size: radix 16A first (A = 2^a), then 16
// or 64 (a pass of radix 64 needs its lanes, 32 s bytes apart, to fit the
// 16-bit VDW stride: s <= 2048). Every pass costs a VDW write of each
// point, so as few passes as that allows (2^8 is one radix-256 pass), with
// one exception for the L2 (qpu/shaders/README.md, "Model figures"): a
// first pass of radix 16A holds 16/A consecutive p of each input row, and
// from 2^16 its registers' rows are N/2 bytes apart, all in one set of a
// 4-way L2, so an input line (8 p) that A >= 8 groups share is evicted
// before the next group reads it. From 2^16 the first pass is radix 32 or
// 64 where the pass count allows (2^18 keeps 256: the SDRAM has room there),
// and 2^22 takes five passes rather than a first pass of 256.
const unsigned char pass_radices[MAX_LOG2N - MIN_LOG2N + 1][5] = {
    { 8 }, // 2^8
    { 4, 5 }, // 2^9: an on-chip pair
    { 4, 6 }, // 2^10: an on-chip pair
    { 7, 4 }, // 2^11
    { 8, 4 }, // 2^12
    { 7, 6 }, // 2^13
    { 8, 6 }, // 2^14
    { 7, 4, 4 }, // 2^15
    { 6, 6, 4 }, // 2^16
    { 5, 6, 6 }, // 2^17
    { 8, 6, 4 }, // 2^18
    { 5, 6, 4, 4 }, // 2^19
    { 6, 6, 4, 4 }, // 2^20
    { 5, 6, 6, 4 }, // 2^21
    { 6, 4, 4, 4, 4 }, // 2^22
};

// 2^9 and 2^10 run as on-chip pairs (README.md, "On-chip pairs"): radix 16
// with lanes on p, its outputs written to the VPM (2^10: 8 KB, all 128
// rows) rather than memory, then radix 32 or 64 across lanes reading them
// back, so the points pass the shared VDW engine once instead of twice.
// A launch runs the pair once per job.
bool on_chip_pair(unsigned log2n) { return log2n == 9 || log2n == 10; }
constexpr unsigned VPM_ROWS_PER_GROUP = 32; // 16 registers, re and im rows

// 2^11 on 12 QPUs or more keeps its intermediate on chip too (README.md,
// "On-chip exchange"): radix 16 on 8 QPUs, whose outputs stay in their
// registers and pass through the VPM in two rounds of 8 KB to the 8 groups
// of a radix-128 pass 2 (on QPUs 8-11, then 0-3), so each point passes the
// VDW engine once. With fewer QPUs it takes the plan above (128x16).
constexpr unsigned EXCHANGE_QPUS = 12;
bool exchanged(unsigned log2n, unsigned qpus) { return log2n == 11 && qpus >= EXCHANGE_QPUS; }
bool kept_on_chip(unsigned log2n, unsigned qpus) { return on_chip_pair(log2n) || exchanged(log2n, qpus); }
const unsigned char exchange_radices[5] = { 4, 7 };

// 2^12 at batch 1 on 12 QPUs or more is 256x16 with half of pass 1's
// groups kept in registers (README.md, "Hybrid exchange"): the holders,
// QPUs 0-7, keep the even groups t and pass them to pass 2 through the
// VPM in four rounds (pass 2's quads); the readers, QPUs 8-11, write the
// odd groups to memory, from where pass 2's lanes 8..15 read them. Both
// compute pass 2. So 1.5 VDW writes a point, not 2. Batch 10 keeps the
// plan above (its VDW engine is busy from the first job's first VDW on).
constexpr unsigned HYBRID_READERS = 4, HYBRID_HOLDERS = 8;
// The odd groups go to memory with each lane's quad in a 64-byte line of
// its own (lanes 256 bytes apart, odd group t at (t >> 1) 4 KiB), so that
// round k gathers only lines that hold quad k: no line is read (into the
// L2 or a TMU cache) before its last VDW write.
constexpr unsigned HYBRID_QUAD_BYTES = 64;
bool hybrid(unsigned log2n, std::size_t jobs, unsigned qpus)
{
    return log2n == 12 && jobs == 1 && qpus >= HYBRID_READERS + HYBRID_HOLDERS;
}

std::vector<pass> passes_for(unsigned log2n, unsigned qpus)
{
    std::vector<pass> passes;
    std::size_t s = 1, offset = 0;
    const unsigned char(&radices)[5] = exchanged(log2n, qpus) ? exchange_radices : pass_radices[log2n - MIN_LOG2N];
    for (unsigned lr : radices) {
        if (!lr)
            break;
        passes.push_back({ lr, s, offset });
        offset += (std::size_t(1) << log2n) / s; // n = N/s entries: m rows of R
        s <<= lr;
    }
    return passes;
}

// Padding before point block r (of N/16 points) in an intermediate buffer.
std::uint32_t block_padding(unsigned log2n, std::size_t r)
{
    return log2n >= MIN_PADDED_LOG2N ? std::uint32_t(PAD_BYTES * r) : 0;
}

unsigned log2_of(std::size_t v)
{
    unsigned l = 0;
    while ((std::size_t(1) << l) < v)
        ++l;
    return l;
}

unsigned bit_reverse(unsigned v, unsigned bits)
{
    unsigned r = 0;
    for (unsigned b = 0; b < bits; ++b)
        r |= ((v >> b) & 1) << (bits - 1 - b);
    return r;
}

void push_complex(std::vector<std::uint32_t>& words, double angle)
{
    const float re = float(std::cos(angle)), im = float(std::sin(angle));
    std::uint32_t w[2];
    std::memcpy(&w[0], &re, 4);
    std::memcpy(&w[1], &im, 4);
    words.push_back(w[0]);
    words.push_back(w[1]);
}

// Lane vectors of 16 words each re then im: exp(-2 pi i turns(L)) per lane.
template <typename F>
void push_lane_vector(std::vector<std::uint32_t>& words, F turns)
{
    float v[2][LANES];
    for (unsigned lane = 0; lane < LANES; ++lane) {
        v[0][lane] = float(std::cos(-2.0 * M_PI * turns(lane)));
        v[1][lane] = float(std::sin(-2.0 * M_PI * turns(lane)));
    }
    for (const auto& part : v)
        for (float f : part) {
            std::uint32_t w;
            std::memcpy(&w, &f, 4);
            words.push_back(w);
        }
}

// Where the tables are, in words from the start of the twiddle buffer:
// T[p][j] = exp(-2 pi i j p / n) for every pass, then the lane tables.
struct table_layout {
    std::size_t lanes_on_q = 0;  // LANE_IN = 8 lane
    std::size_t first_pass = 0;  // LANE_IN, then lane twiddles (shader's rb26 + 64)
    std::size_t across = 0;      // LANE_IN, then the cross-lane steps' twiddles
    std::size_t radix64 = 0;     // LANE_IN, the steps' twiddles, then W64^(r_lo j_a)
    std::size_t radix32 = 0;     // LANE_IN, the steps' twiddles, then W32^(r_lo)
    std::size_t radix128 = 0;    // LANE_IN, the steps' twiddles, then W128^(r_lo j_a)
    std::size_t hybrid = 0;      // LANE_IN, the steps' twiddles (2^12's hybrid, pass 2)
};

constexpr std::size_t LANE_STEP_WORDS = 4 * 2 * LANES;
constexpr std::size_t FIRST_PASS_WORDS = LANES + 16 * 2 * LANES + LANE_STEP_WORDS;
constexpr std::size_t ACROSS_WORDS = LANES + LANE_STEP_WORDS;

table_layout layout_of(unsigned log2n, unsigned qpus)
{
    std::size_t words = 0;
    for (const pass& ps : passes_for(log2n, qpus))
        words += 2 * ((std::size_t(1) << log2n) / ps.stride);
    const std::size_t across = words + LANES + FIRST_PASS_WORDS;
    const std::size_t radix64 = across + ACROSS_WORDS;
    const std::size_t radix32 = radix64 + ACROSS_WORDS + 4 * 2 * LANES;
    const std::size_t radix128 = radix32 + ACROSS_WORDS + 2 * LANES;
    return { words, words + LANES, across, radix64, radix32, radix128, radix128 + ACROSS_WORDS + 16 * LANES };
}

// The across-lane radix-2 steps of spans 1, 2, 4, 8 within blocks of A lanes:
// the upper lane of each pair times W_2h^(L mod h).
void push_lane_steps(std::vector<std::uint32_t>& words, unsigned A)
{
    for (unsigned h = 1; h < 16; h <<= 1)
        push_lane_vector(words, [&](unsigned lane) {
            return h < A && (lane & h) ? double(lane % h) / double(2 * h) : 0.0;
        });
}

// A later pass with lanes on r (16 outputs j, 8 s R/16 bytes apart) where
// that fits the VDW stride: radix 16 (across_group) or 64 (radix64_group).
bool lanes_across(const pass& ps)
{
    return ps.stride >= LANES && 8 * ps.stride * (std::size_t(1) << ps.log2_radix) / 16 - 32 <= 0xFFFF;
}

std::vector<std::uint32_t> twiddle_table(unsigned log2n, unsigned qpus)
{
    const std::size_t N = std::size_t(1) << log2n;
    const std::vector<pass> passes = passes_for(log2n, qpus);
    std::vector<std::uint32_t> words;
    for (const pass& ps : passes) {
        const std::size_t n = N / ps.stride, R = std::size_t(1) << ps.log2_radix, m = n / R;
        // An on-chip pair's pass 1 reads row p0 + L for lane L, which holds
        // p = p0 + bitrev4(L).
        const bool lanes_reversed = kept_on_chip(log2n, qpus) && ps.stride == 1;
        for (std::size_t row = 0; row < m; ++row) {
            const std::size_t p = lanes_reversed ? (row & ~std::size_t(15)) | bit_reverse(row & 15, 4) : row;
            for (std::size_t j = 0; j < R; ++j)
                push_complex(words, -2.0 * M_PI * double((j * p) % n) / double(n));
        }
    }
    for (unsigned lane = 0; lane < LANES; ++lane)
        words.push_back(8 * lane);
    // First pass, radix 16A: lane L of a block of A takes inputs
    // r = A r_b + bitrev(L mod A) of p = p0 + L / A; in an on-chip pair
    // (A = 1) p = p0 + bitrev4(L), the order pass 2's lanes read.
    const unsigned a = passes[0].log2_radix - 4, A = 1u << a;
    const std::size_t m = N >> passes[0].log2_radix;
    for (unsigned lane = 0; lane < LANES; ++lane)
        words.push_back(kept_on_chip(log2n, qpus)
                            ? std::uint32_t(8 * bit_reverse(lane, 4))
                            : std::uint32_t(8 * (lane / A) + 8 * m * bit_reverse(lane % A, a)));
    // Register k holds j_lo = bitrev4(k): times W_16A^(r_a j_lo).
    for (unsigned k = 0; k < 16; ++k)
        push_lane_vector(words, [&](unsigned lane) {
            return double(bit_reverse(lane % A, a) * bit_reverse(k, 4)) / double(16 * A);
        });
    push_lane_steps(words, A);
    // Radix 16 across the lanes: lane L takes input r = bitrev4(L), block r.
    for (unsigned lane = 0; lane < LANES; ++lane)
        words.push_back(std::uint32_t(N / 2 * bit_reverse(lane, 4)) + block_padding(log2n, bit_reverse(lane, 4)));
    push_lane_steps(words, 16);
    // Radix 64: lane L takes r = 16 r_hi + bitrev4(L); block j_a is times
    // W64^(bitrev4(L) j_a).
    for (unsigned lane = 0; lane < LANES; ++lane)
        words.push_back(std::uint32_t(N / 8 * bit_reverse(lane, 4)) + block_padding(log2n, bit_reverse(lane, 4) / 4));
    push_lane_steps(words, 16);
    for (unsigned j_a = 0; j_a < 4; ++j_a)
        push_lane_vector(words, [&](unsigned lane) { return double(bit_reverse(lane, 4) * j_a) / 64.0; });
    // Radix 32 (2^9's pair): block j_a = 1 is times W32^(bitrev4(L)).
    for (unsigned lane = 0; lane < LANES; ++lane)
        words.push_back(0); // LANE_IN: its inputs come from the VPM
    push_lane_steps(words, 16);
    push_lane_vector(words, [&](unsigned lane) { return double(bit_reverse(lane, 4)) / 32.0; });
    // Radix 128 (2^11's exchange): block j_a is times W128^(bitrev4(L) j_a).
    for (unsigned lane = 0; lane < LANES; ++lane)
        words.push_back(0); // LANE_IN: its inputs come from the VPM
    push_lane_steps(words, 16);
    for (unsigned j_a = 0; j_a < 8; ++j_a)
        push_lane_vector(words, [&](unsigned lane) { return double(bit_reverse(lane, 4) * j_a) / 128.0; });
    // 2^12's hybrid, pass 2: lanes 8..15 read input r = bitrev4(L) from
    // memory (odd group r at (r >> 1) 4 KiB: HYBRID_QUAD_BYTES), lanes
    // 0..7 (from the VPM) the same lines as lane L + 8.
    for (unsigned lane = 0; lane < LANES; ++lane)
        words.push_back(std::uint32_t(2 * 8 * GROUP_POINTS * (bit_reverse(lane | 8, 4) / 2)));
    push_lane_steps(words, 16);
    return words;
}

// VDW of 16 units (lanes, VPM columns) of `depth` words from VPM row `row`.
std::uint32_t output_dma_setup(unsigned row, unsigned depth)
{
    return 0x80000000u | (16u << 23) | (depth << 16) | (row << 7);
}

// Generic VPM write setup: horizontal 32-bit rows from `row`, `stride` rows apart.
std::uint32_t vpm_write_setup(unsigned row, unsigned stride = 1) { return (stride << 12) | 0xA00u | row; }

std::uint32_t dma_stride_setup(std::uint32_t bytes) { return 0xC0000000u | bytes; }

// One pass of a launch as QPU q runs it: which pass of the plan, for which
// job (an on-chip pair's passes take one job each), q's first work item,
// and the barriers at its end (fft.qasm, pass_end).
struct launch_pass {
    std::size_t pass, job;
    std::uint32_t first_item, item_end, sync;
    std::uint32_t pair_flags; // a pipelined on-chip pair's pass 1 (rb28, first_pass_vpm_group)
    unsigned split = 0;       // a pipelined on-chip pair's pass 2: QPUs a group (2 halves or 4 quarters)
    std::uint32_t body = 0;   // 2^11's exchange: one of its steps (below); 0: the pass's own body
    unsigned round = 0;       // 2^12's hybrid: pass 2's quad (its input and output 32 bytes a round on)
    bool signal_quads = false; // 2^12's hybrid: a reader's second odd group signals each quad written
};
// The steps of 2^11's exchange (fft.qasm's bodies 7 to 12), with
// semaphores rather than barriers of every QPU: QPUs 0-7 run pass 1
// (radix 16, one group each) and write the outputs of pass 2's groups 0-3
// to the VPM (all 128 rows), as an on-chip pair's pass 1 does
// (first_pass_vpm_group: once the previous job's VDWs have left the rows,
// then semaphore 12 for the readers); QPUs 8-11 read those groups into
// their registers (semaphore 13 for the writers) and compute pass 2
// (radix 128) on them; QPUs 0-7 write the rest (groups 4-7) from their
// registers, meet, read them, two a group (halves), and meet again (QPU 0
// then releases 12 for 8-11); the twelve store pass 2's outputs, the VDWs
// staged in rows 8q, and free the rows for the next job's pass 1
// (semaphore 8). The last job ends in a barrier of every QPU.
constexpr std::uint32_t EXCHANGE_FIRST = 7, EXCHANGE_SECOND = 8, EXCHANGE_READ = 9, EXCHANGE_COMBINE = 10,
                        EXCHANGE_READ_MATH = 11, EXCHANGE_STORES = 12;
// pass_end's uniform (fft.qasm): a barrier of every QPU; in pipelined
// pairs, a QPU of pass 2 signals that its VPM rows are free, waits for
// pass 1's writes, or takes back the signal of 2^9's last pass 2.
constexpr std::uint32_t END_BARRIER = 2, ROWS_FREE = 1, WAIT_WRITES = 4, TAKE_BACK_ROWS_FREE = 8;
// 2^11's exchange: wait for the first round's readers (semaphore 13); QPUs
// 0 to n - 1 meet (n: bits 8..15; semaphores 6/7, or 14/15 for the second
// meet of a job), then QPU 0 releases semaphore 12 m times (bits 16..).
constexpr std::uint32_t WAIT_READS = 16, MEET = 32, SECOND_MEET = 64;
constexpr std::uint32_t meet(std::uint32_t n, std::uint32_t signals = 0) { return MEET | n << 8 | signals << 16; }
// pair_flags: wait for every QPU of pass 2 to free its rows (not before
// the first job), signal the writes, the writers' other semaphore pair.
constexpr std::uint32_t WAIT_ROWS_FREE = 1, SIGNAL_WRITES = 2, ODD_JOB = 4;
// Pipelined on-chip pairs (12 QPUs or more at 2^10, 10 at 2^9): QPUs 0-7
// run pass 2 of job k - 1 (2^10: half a group each, 2^9: a quarter; the
// instructions of a whole group took longer than the VDW engine) while
// QPUs 8-11 (2^9: 8-9) run pass 1 of job k
// into their registers; those wait for pass 2 to have read the VPM and its
// VDWs to have left it, then write it, and pass 2 of job k waits for that
// (semaphores, not barriers of every QPU: first_pass_vpm_group). So the
// VDW engine, which bounds pass 2, no longer idles while pass 1 computes.
// Fewer QPUs run the pairs one after the other, each pass on every QPU.
// 2^9's pass 2 stages its VDWs in rows pass 1 does not write, so it may
// split its groups in quarters; 2^10's halves share their group's rows.
unsigned pair_split(unsigned log2n) { return log2n == 9 ? 4 : 2; }

// The steps of 2^12's hybrid (fft.qasm's bodies 13 to 28, README.md,
// "Hybrid exchange"): pass 1's odd groups to memory (the readers, QPUs
// 8-11), a holder's pass 1 (QPUs 0-7), its writes of round k (HYBRID_WRITE
// + k), a reader's reads of a round (two of pass 2's groups, one quad each)
// and its stores, a holder's reads of round k (one group) and its stores.
constexpr std::uint32_t HYBRID_MEMORY = 13, HYBRID_HOLD = 14, HYBRID_WRITE = 15, HYBRID_READ = 19,
                        HYBRID_STORES = 20, HYBRID_HOLDER_READ = 21, HYBRID_HOLDER_STORES = 25;
constexpr unsigned HYBRID_ROUNDS = 4;

// Per QPU. The holders meet (QPU 0 collects) once round k is written (A_k,
// then QPU 0 signals each reader, semaphore 12) and once it is read (B_k,
// QPU 0 having taken a semaphore 13 from each reader first), on
// alternating semaphore pairs; before A_k QPU 0 takes a semaphore 8 + k
// from each reader: quad k of pass 1's odd groups is in memory (one
// semaphore a quad, so a reader ahead cannot stand in for one behind). No one waits
// for a VDW between the rounds (the next stores do), and the readers wait
// only for A_k, so the engine has work queued across a round's change.
// Holders: group 2h, round 0's writes, A_0; each round the reads of group
// 8 + h, the stores, B_k, round k + 1's writes, A_k+1. Readers: their odd
// groups 2i + 1 and 2i + 9 (the second signals each quad), wait for A_0;
// each round the reads of groups 2i and 2i + 1, semaphore 13, the stores,
// wait for A_k+1. Every QPU has the same number of entries, so the last
// barrier's semaphore pair agrees.
std::vector<launch_pass> hybrid_order(unsigned q)
{
    std::vector<launch_pass> order;
    const launch_pass idle{ 0, 0, 0, 0, 0, 0 };
    const std::uint32_t written = meet(HYBRID_HOLDERS, HYBRID_READERS), read = meet(HYBRID_HOLDERS) | SECOND_MEET;
    if (q < HYBRID_HOLDERS) {
        const std::uint32_t t = 2 * q, g = 8 + q;
        order.push_back({ 0, 0, t, t + 1, 0, 0, 0, HYBRID_HOLD });
        order.push_back({ 0, 0, t, t + 1, written, 0, 0, HYBRID_WRITE });
        for (unsigned k = 0; k < HYBRID_ROUNDS; ++k) {
            const bool last = k + 1 == HYBRID_ROUNDS;
            order.push_back({ 1, 0, g, g + 1, 0, 0, 0, HYBRID_HOLDER_READ + k, k });
            order.push_back({ 1, 0, g, g + 1, last ? END_BARRIER : read, 0, 0,
                              HYBRID_HOLDER_STORES + k, k });
            if (!last)
                order.push_back({ 0, 0, t, t + 1, written, 0, 0, HYBRID_WRITE + k + 1 });
        }
    } else if (q < HYBRID_HOLDERS + HYBRID_READERS) {
        const std::uint32_t i = q - HYBRID_HOLDERS;
        order.assign(3, idle);
        order.push_back({ 0, 0, 2 * i + 1, 2 * i + 2, 0, 0, 0, HYBRID_MEMORY });
        order.push_back({ 0, 0, 2 * i + 9, 2 * i + 10, WAIT_WRITES, 0, 0, HYBRID_MEMORY, 0, true });
        for (unsigned k = 0; k < HYBRID_ROUNDS; ++k) {
            const bool last = k + 1 == HYBRID_ROUNDS;
            order.push_back({ 1, 0, 2 * i, 2 * i + 1, 0, 0, 0, HYBRID_READ, k });
            order.push_back(
                { 1, 0, 2 * i, 2 * i + 1, last ? END_BARRIER : WAIT_WRITES, 0, 0, HYBRID_STORES, k });
        }
    } else {
        order.assign(13, idle);
        order.back().sync = END_BARRIER;
    }
    return order;
}

std::vector<launch_pass> launch_order(unsigned log2n, std::size_t jobs, unsigned qpus, unsigned q)
{
    std::vector<launch_pass> order;
    const std::size_t passes = passes_for(log2n, qpus).size();
    const std::uint32_t groups = std::uint32_t((std::size_t(1) << log2n) / GROUP_POINTS);
    if (hybrid(log2n, jobs, qpus))
        return hybrid_order(q);
    if (exchanged(log2n, qpus)) {
        // QPUs 0-7: pass 1 (group q), then half h = q >> 2 of pass 2's group
        // 4 + (q & 3) (work item 4G + 2h); QPUs 8-11: pass 2's group q - 8,
        // computed as soon as read, stored once the second round is read.
        const bool writer = q < groups, reader = q >= groups && q < EXCHANGE_QPUS;
        const std::uint32_t readers = EXCHANGE_QPUS - groups;
        const std::uint32_t w_item = writer ? q : 0, half_item = writer ? 4 * (4 + q % 4) + 2 * (q / 4) : 0,
                            r_item = reader ? q - groups : 0;
        const unsigned halves = writer ? 2 : 0;
        const auto end = [](std::uint32_t first, bool mine) { return mine ? first + 1 : first; };
        for (std::size_t k = 0; k < jobs; ++k) {
            order.push_back({ 0, k, w_item, end(w_item, writer), reader ? WAIT_WRITES : 0,
                              (k > 0 ? WAIT_ROWS_FREE : 0) | SIGNAL_WRITES | (k % 2 ? ODD_JOB : 0), 0,
                              EXCHANGE_FIRST });
            order.push_back({ 1, k, r_item, end(r_item, reader), writer ? WAIT_READS : 0, 0, 0,
                              EXCHANGE_READ_MATH });
            order.push_back({ 0, k, w_item, end(w_item, writer), writer ? meet(groups) : 0, 0, 0, EXCHANGE_SECOND });
            order.push_back({ 1, k, half_item, end(half_item, writer),
                              writer ? meet(groups, readers) | SECOND_MEET : reader ? WAIT_WRITES : 0, 0, halves,
                              EXCHANGE_READ });
            const std::uint32_t done = k + 1 == jobs ? END_BARRIER : writer || reader ? ROWS_FREE : 0;
            if (reader)
                order.push_back({ 1, k, r_item, r_item + 1, done, 0, 0, EXCHANGE_STORES });
            else
                order.push_back({ 1, k, half_item, end(half_item, writer), done, 0, halves, EXCHANGE_COMBINE });
        }
        return order;
    }
    if (!on_chip_pair(log2n)) {
        for (std::size_t i = 0; i < passes; ++i)
            order.push_back({ i, 0, q, ~0u, END_BARRIER, 0 });
        return order;
    }
    const unsigned split = pair_split(log2n);
    if (qpus < (split + 1) * groups) {
        for (std::size_t job = 0; job < jobs; ++job)
            for (std::size_t i = 0; i < passes; ++i)
                order.push_back({ i, job, q, groups, END_BARRIER, 0 });
        return order;
    }
    // Work items W = 4 G + 2 h in halves, 4 G + quad in quarters, one per QPU.
    const bool pass2_qpu = q < split * groups, pass1_qpu = q >= split * groups && q < (split + 1) * groups;
    const std::uint32_t split_item = 4 / split * q, pass1_item = q - split * groups;
    for (std::size_t k = 0; k <= jobs; ++k) {
        if (k > 0)
            order.push_back({ 1, k - 1, pass2_qpu ? split_item : 0, pass2_qpu ? split_item + 1 : 0,
                              // (2^9's quarters free their rows once read: radix32_vpm_group)
                              k == jobs ? END_BARRIER | (pass2_qpu && split == 4 ? TAKE_BACK_ROWS_FREE : 0)
                              : pass2_qpu && split == 2 ? ROWS_FREE : 0, 0, split });
        if (k < jobs)
            order.push_back({ 0, k, pass1_qpu ? pass1_item : 0, pass1_qpu ? pass1_item + 1 : 0,
                              pass2_qpu ? WAIT_WRITES : 0,
                              (k > 0 ? WAIT_ROWS_FREE : 0) | SIGNAL_WRITES | (k % 2 ? ODD_JOB : 0) });
    }
    return order;
}

std::vector<std::uint32_t> fft_uniforms(unsigned log2n, const launch_layout& l, unsigned q)
{
    const std::size_t N = std::size_t(1) << log2n;
    const std::vector<pass> passes = passes_for(log2n, l.qpus);
    const table_layout tables = layout_of(log2n, l.qpus);
    const bool inverse = l.dir == direction::inverse;
    const std::size_t groups = N / GROUP_POINTS; // per transform, every pass
    // An on-chip pair or exchange runs once per job (its passes see one job
    // each); otherwise each pass takes every job's groups.
    const bool on_chip = kept_on_chip(log2n, l.qpus), exchange = exchanged(log2n, l.qpus);
    const std::size_t jobs = on_chip ? 1 : l.input.size();
    const std::vector<launch_pass> order = launch_order(log2n, l.input.size(), l.qpus, q);
    const bool mixed = hybrid(log2n, l.input.size(), l.qpus);
    const bool holder = mixed && q < HYBRID_HOLDERS;
    std::vector<std::uint32_t> u = { q, l.qpus, std::uint32_t(order.size()), l.step_bytes, q == 0 ? 1u : 0u };
    for (const launch_pass& lp : order) {
        const std::size_t i = lp.pass, job = lp.job;
        const pass& ps = passes[i];
        const std::size_t s = ps.stride;
        const bool first = i == 0, last = i + 1 == passes.size();
        // 2^12's hybrid: pass 2's round k reads quad k of the odd groups
        // (HYBRID_QUAD_BYTES apart) and writes quad k, 32 bytes apart; pass
        // 1 writes odd group t at (t >> 1) 4 KiB, the group offset being t 2 KiB.
        const bool quads_apart = mixed && i == 1;
        const std::uint32_t from = (i % 2 ? l.output[job] : l.input[job]) +
                                   (quads_apart ? HYBRID_QUAD_BYTES * lp.round : 0);
        const std::uint32_t to = (i % 2 && !on_chip ? l.input[job] : l.output[job]) +
                                 (quads_apart ? 32 * lp.round : mixed ? 0u - 8 * GROUP_POINTS : 0u);
        const std::uint32_t twiddles = std::uint32_t(l.twiddles + 8 * ps.twiddle_offset);
        const bool across = !first && lanes_across(ps);
        // Lanes on r: R = 16 B, registers on Q = 16 / B consecutive q.
        const std::size_t R = std::size_t(1) << ps.log2_radix, B = across ? R / LANES : 1, Q = LANES / B;
        // Few groups (small sizes, small batches): each group is dealt out
        // as four work items, one quad (VDW) of its outputs each: where
        // there are at most a quarter as many groups as QPUs, and on 10
        // QPUs or more (where the shared VDW engine bounds the time) where
        // whole groups would leave some QPUs a second group while the
        // others wait (2^12 at batch 1: 16 groups on 12 QPUs; README.md,
        // "Model figures"). Quarters each load and combine their whole
        // group, so fewer QPUs lose by it. Not in an on-chip pair, whose
        // pass 2 stages its VDWs in its group's own VPM rows, which other
        // quarters would still be reading.
        const std::size_t items = jobs * groups;
        const bool quarters = !on_chip && !mixed && (first || across) &&
                              (4 * items <= l.qpus || (l.qpus >= MIN_QUARTERING_QPUS && items < 2 * l.qpus));
        const bool split_items = quarters || lp.split; // work items W = 4 G + quad (quarters) or 2 half
        const std::size_t lane_table = first   ? tables.first_pass
                                       : mixed ? tables.hybrid
                                       : across ? (B == 8   ? tables.radix128
                                                   : B == 4 ? tables.radix64
                                                   : B == 2 ? tables.radix32
                                                            : tables.across)
                                                : tables.lanes_on_q;
        // VPM rows: 8 per QPU for its VDWs. 2^10's pass 2 stages them in
        // the rows of the group QPU q takes first (q mod 4: groups are
        // dealt round-robin, and those rows were all read before the first
        // VDW), in halves QPU 2u + h in rows 8h of group u's. 2^9's pass 1
        // leaves rows 16k + 8.. unwritten: QPU q of pass 2 stages in k = q mod 8.
        // 2^11's pass 2 stages them in rows 8q, read before (EXCHANGE_COMBINE).
        // 2^12's hybrid stages them in the rows no holder writes, rows 8..15
        // of each 16-row block: reader i in block 2i, holder q (4 rows) in
        // the first or second half of block 2 (q >> 1) + 1.
        const unsigned row = mixed ? (holder                                 ? 32 * (q / 2) + 24 + 4 * (q % 2)
                                      : q < HYBRID_HOLDERS + HYBRID_READERS ? 32 * (q - HYBRID_HOLDERS) + 8
                                                                             : 0)
                             : exchange             ? VPM_ROWS_PER_QPU * q
                             : on_chip && B == 2 ? 16 * (q % 8) + VPM_ROWS_PER_QPU
                             : lp.split         ? VPM_ROWS_PER_GROUP * (q / 2) + VPM_ROWS_PER_QPU * (q % 2)
                             : on_chip          ? VPM_ROWS_PER_GROUP * (q % groups)
                                                : VPM_ROWS_PER_QPU * q;
        const std::uint32_t common[] = {
            lp.body  ? lp.body
            : on_chip ? (first ? 4u : B == 4 ? 5u : 6u)
            : first   ? 1u
            : across  ? (B > 1 ? 3u : 2u)
                      : 0u,
            first ? 7u - (ps.log2_radix - 4) : log2_of(mixed ? 2 * 8 * Q : 8 * Q),
            std::uint32_t(l.twiddles + 4 * lane_table),
            from + (inverse && first ? 4u : 0u),
            inverse && first ? std::uint32_t(-4) : 4u,
            to,
            first || across ? twiddles : twiddles + 8, // lanes on q: j = 0 needs none
            lp.item_end == ~0u ? std::uint32_t(jobs * groups * (quarters ? 4 : 1)) : lp.item_end,
            log2_of(groups) + (split_items ? 2 : 0),
            quarters || lp.split == 4 ? 3u : lp.split == 2 ? 2u : lp.signal_quads ? 1u : 0u,
            std::uint32_t(groups - 1),
        };
        u.insert(u.end(), std::begin(common), std::end(common));
        // First pass: group g covers p = 16g/A.., 256 contiguous outputs.
        // Later passes: g = p * (s/Q) + qb, q = Q qb + (lane or register).
        const std::size_t q_blocks = first ? 1 : s / Q;
        const bool wide = first || across; // 4 outputs (8 VPM rows) per VDW
        // outputs of a lane per VDW: radix 128's quads hold two blocks (j_a) of two q, a VDW each
        // (and 2^12's holders' quads two VDWs of two q)
        const unsigned lane_points = B == 8 || (holder && !first) ? 2 : FIRST_PASS_OUTPUTS_PER_DMA;
        const std::uint32_t wide_step = 8 * lane_points;
        const std::uint32_t lane_twiddles = std::uint32_t(l.twiddles + 4 * lane_table) + (first ? 64 : 4 * LANES);
        const unsigned out_row = row + (inverse && last && !wide ? 1 : 0);
        const std::uint32_t pair_readers = std::uint32_t(pair_split(log2n) * groups);
        const std::uint32_t pass_uniforms[] = {
            log2_of(q_blocks),
            std::uint32_t(q_blocks - 1),
            first ? 0 : log2_of(Q * 8),
            // bits 5 and up: log2 of a padding block's bytes (31: unpadded output)
            log2_of(first ? 8 * GROUP_POINTS : s * R * 8) | (last || !block_padding(log2n, 1) ? 31u : log2n - 1) << 5,
            log2_of(first ? 8 * GROUP_POINTS : R * 8),
            first ? 8 * LANES : across ? std::uint32_t(8 * B) : 0, // twiddle bytes per lane
            // bytes between VDWs: radix 64's quads are its j_a, s points apart
            // (an on-chip pair's pass 1: the QPUs of pass 2 when pipelined,
            // 8, a multiple of the 4 first_pass_vpm_group counts at a time)
            // (2^11's exchange: its 12 QPUs of pass 2; its radix 128: none,
            // two_vdws places them)
            on_chip && first ? (exchange ? EXCHANGE_QPUS : pair_readers)
            // (2^12's hybrid: a reader's two groups, 128 bytes apart; its
            // odd groups' quads HYBRID_QUAD_BYTES apart)
            : mixed ? (first ? HYBRID_QUAD_BYTES : holder ? wide_step : 8 * LANES)
            : wide ? (B == 8 ? 0 : B > 1 ? std::uint32_t(8 * s) : wide_step) : std::uint32_t(s * 8),
            // bytes between registers' inputs (radix 64: between its r_hi
            // blocks, 16/B blocks of N/16 points apart)
            across ? (B > 1 ? std::uint32_t(8 * N / B) + block_padding(log2n, LANES / B) : 8u)
                   : std::uint32_t(8 * N / 16) + (first ? 0 : block_padding(log2n, 1)),
            // (2^12's hybrid: a holder's rounds write rows bitrev4(t) + 32i, im 16 on)
            lp.body >= HYBRID_WRITE && lp.body < HYBRID_READ
                ? vpm_write_setup(bit_reverse(lp.first_item, 4), 16)
                : output_dma_setup(out_row, wide ? 2 * lane_points : 2),
            // an on-chip pass 1: the QPUs that wait for its writes (semaphore 12)
            on_chip && first ? (exchange ? std::uint32_t(EXCHANGE_QPUS - groups) : pair_readers)
            : wide ? lane_twiddles : output_dma_setup(out_row + 3, 2),
            // an on-chip pair's pass 1: its flags when pipelined (first_pass_vpm_group)
            on_chip && first ? lp.pair_flags
            : dma_stride_setup(first ? (mixed ? 4 * HYBRID_QUAD_BYTES : 8 * LANES) - wide_step
                               : across ? std::uint32_t(8 * s * B) - wide_step
                                        : 0),
            // an on-chip pair's pass 1: re and im rows 16 apart from row 0
            on_chip && first ? vpm_write_setup(0, 16) : vpm_write_setup(row),
            // wide: store (im, re); an on-chip pair's pass 1: its QPUs, when pipelined
            on_chip && first ? std::uint32_t(groups)
            : wide ? (inverse && last ? 1 : 0) : vpm_write_setup(row + 3),
        };
        u.insert(u.end(), std::begin(pass_uniforms), std::end(pass_uniforms));
        u.push_back(lp.first_item);
        u.push_back(lp.sync); // read at the pass's end
    }
    return u;
}

std::string describe_passes(unsigned log2n, unsigned qpus)
{
    std::string s = "radix ";
    const std::vector<pass> passes = passes_for(log2n, qpus);
    for (std::size_t i = 0; i < passes.size(); ++i)
        s += (i ? "x" : "") + std::to_string(1u << passes[i].log2_radix);
    return s + " Stockham, " + std::to_string(passes.size()) + (kept_on_chip(log2n, qpus) ? " passes (VPM)" : " passes");
}

} // namespace

fft_shader make_fft_shader(unsigned log2n, unsigned qpus)
{
    if (log2n < MIN_LOG2N || log2n > MAX_LOG2N)
        throw std::invalid_argument("gpufft: qpu FFT shader sizes are 2^" + std::to_string(MIN_LOG2N) + " to 2^" +
                                    std::to_string(MAX_LOG2N));
    if (qpus < 1 || qpus > MAX_QPUS)
        throw std::invalid_argument("gpufft: qpu FFT shaders run on 1 to 16 QPUs");
    fft_shader s;
    s.log2n = log2n;
    s.qpus = qpus;
    s.code.assign(::qpu::shaders::fft, ::qpu::shaders::fft + ::qpu::shaders::fft_size);
    s.twiddles = [log2n, qpus](direction) { return twiddle_table(log2n, qpus); };
    s.uniforms = [log2n](const launch_layout& l, unsigned q) { return fft_uniforms(log2n, l, q); };
    // An on-chip pair's pass 1 writes no memory: pass 2 writes the output.
    s.result_in_output = kept_on_chip(log2n, qpus) || passes_for(log2n, qpus).size() % 2 == 1;
    s.describe = describe_passes(log2n, qpus);
    // The emulator's model is bound by the shared VDW engine: 30 clocks of
    // setup and about 2.5 a word, for 64 points a write (16 in a radix-16
    // pass with lanes on q), at 250 MHz; or, where a pass moves more bytes
    // than that, by the SDRAM (8 bytes a clock, qpu/README.md, "Memory
    // model"): 8 bytes a point written and 8 read, but a whole 64-byte L2
    // line read a point in a first pass of radix 128 or 256 from 2^16 (its
    // groups share input lines that a 4-way L2 evicts between them:
    // pass_radices). qpu-fft-model measures it (qpu/shaders/README.md).
    // (32 points a write in 2^11's radix-128 pass 2)
    const double wide = (30.0 + 128 * 2.5) / 64, narrow = (30.0 + 32 * 2.5) / LANES, half = (30.0 + 64 * 2.5) / 32;
    const double sdram_bytes_per_clock = 8, line_bytes = 64;
    double clocks_per_point = 0;
    for (const pass& ps : passes_for(log2n, qpus)) {
        if (kept_on_chip(log2n, qpus) && ps.stride == 1)
            continue; // an on-chip pass 1 writes the VPM, not memory
        const bool shares_evicted_lines = ps.stride == 1 && ps.log2_radix >= 7 && log2n >= 16;
        const double read_bytes = shares_evicted_lines ? line_bytes : 8;
        const double vdw = ps.stride > 1 && ps.log2_radix == 7 ? half
                           : ps.stride == 1 || lanes_across(ps) ? wide
                                                                : narrow;
        clocks_per_point += std::max(vdw, (8 + read_bytes) / sdram_bytes_per_clock);
    }
    s.model_ns = clocks_per_point * double(std::size_t(1) << log2n) / 0.25;
    return s;
}

const shader_table& fft_shaders()
{
    static const shader_table table = [] {
        shader_table t;
        for (unsigned log2n = MIN_LOG2N; log2n <= MAX_LOG2N; ++log2n)
            t.push_back(make_fft_shader(log2n, QPUS_PER_LAUNCH));
        return t;
    }();
    return table;
}

} // namespace gpufft::qpu
