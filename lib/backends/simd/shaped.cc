// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft simd backend: real and multi-dimensional problems.
 *
 * A rank-k transform is k passes of batched 1-D transforms (the DFT is
 * separable): rows along the contiguous last dimension first (r2c rows for
 * r2c), then each other dimension. Those columns are strided; the codelets
 * read contiguous vectors, so a column pass gathers a block of columns into
 * a small buffer (a cache-blocked transpose of a strip), runs them there
 * as one batch of contiguous transforms, and scatters them back. Each
 * column pass thus reads and writes memory once, against three sweeps for a
 * whole-array transpose, transform, transpose back; the block is 16
 * columns (128 bytes, two cache lines, per row) and stays in L2 for
 * columns up to 2048 points. c2r runs the columns first, on a copy of the
 * input (which stays unwritten), then c2r rows into the output.
 */
#include "shaped.h"
#include "planner.h"
#include "real.h"
#include "worker_pool.h"
#include <algorithm>
#include <cstring>
#include <functional>
#include <map>

namespace gpufft::simd {

namespace {

// Columns gathered per block: 16 (two cache lines of each row), fewer for
// columns so long that the block would outgrow a 256 KiB L2 share.
std::size_t column_block(std::size_t length)
{
    return std::clamp<std::size_t>(32768 / length, 1, 16);
}

// Bytes of rows a row pass transforms in one call (see run_share).
constexpr std::size_t rows_bytes = std::size_t(1) << 20;

// Elements between the block's columns: one cache line more than the
// length, so that the 16 elements a gathered row writes (one per column)
// fall in 16 different L1 sets. Without it a power-of-two length puts them
// all in one set, which holds 12 lines here: every write evicted a line
// one element into being filled.
std::size_t column_pitch(std::size_t length) { return length + 64 / sizeof(complex); }

// What one worker owns: its transforms and its buffers.
struct worker_state {
    std::map<std::size_t, std::unique_ptr<transform>> columns; //!< by length
    std::unique_ptr<transform> rows;                            //!< c2c last dimension
    std::unique_ptr<real_transform> real_rows;                  //!< r2c/c2r last dimension
    std::vector<complex> block;                                 //!< gathered columns
    std::vector<complex> copy;                                  //!< c2r: the input's copy
};

class shaped_executor final : public executor
{
public:
    shaped_executor(const problem& p, const std::vector<const isa_kernels*>& isas, unsigned threads)
        : d_problem(p),
          d_complex_stride(p.stride()),
          d_real_stride(p.real_stride()),
          d_shape(p.shape()),
          d_isa(isas.front()->name),
          d_kernels(*isas.front()),
          // Rank > 1: fewer transforms than threads split each transform.
          d_pool(unsigned(p.rank() > 1 ? threads : std::min<std::size_t>(threads, p.batch)))
    {
        const bool forward = p.dir == direction::forward;
        const std::size_t last = d_shape.back();
        d_complex_shape = d_shape;
        if (p.kind != transform_kind::c2c)
            d_complex_shape.back() = last / 2 + 1;
        d_complex_points = 1;
        for (std::size_t d : d_complex_shape)
            d_complex_points *= d;
        for (unsigned w = 0; w < d_pool.size(); ++w) {
            worker_state s;
            if (p.kind == transform_kind::c2c)
                s.rows = make_transform(isas, last, forward);
            else
                s.real_rows = std::make_unique<real_transform>(isas, last, forward);
            std::size_t block = 0;
            for (std::size_t d = 0; d + 1 < d_shape.size(); ++d) {
                const std::size_t length = d_shape[d];
                if (length == 1)
                    continue;
                if (!s.columns.count(length))
                    s.columns[length] = make_transform(isas, length, forward);
                block = std::max(block, column_pitch(length) * column_block(length));
            }
            s.block.resize(block);
            if (p.kind == transform_kind::c2r && d_shape.size() > 1)
                s.copy.resize(d_complex_points);
            d_workers.push_back(std::move(s));
        }
        d_job = [this](unsigned worker) { run_share(worker); };
        d_step_job = [this](unsigned worker) { run_step(worker); };
    }

    void execute(const complex* in, complex* out) override { run(in, out); }
    void execute_r2c(const float* in, complex* out) override { run(in, out); }
    void execute_c2r(const complex* in, float* out) override { run(in, out); }

    std::string variant() const override { return d_isa; }

    std::string describe() const override
    {
        const worker_state& s = d_workers.front();
        std::string text = d_problem.kind == transform_kind::c2c ? s.rows->describe()
                                                                  : s.real_rows->describe();
        text = "rows " + text;
        for (const auto& [length, t] : s.columns)
            text += ", columns of " + std::to_string(length) + " in blocks of " +
                    std::to_string(column_block(length)) + " (" + t->describe() + ")";
        return text + (d_pool.size() > 1 ? ", " + std::to_string(d_pool.size()) + " threads" : "");
    }

private:
    void run(const void* in, void* out)
    {
        d_in = in;
        d_out = out;
        if (d_problem.batch >= d_pool.size())
            d_pool.run(d_job);
        else
            for (std::size_t b = 0; b < d_problem.batch; ++b)
                run_split(b);
    }

    // One transform on every worker: each step (rows, then an axis) is
    // split among them, and the pool's return is the barrier between steps.
    enum class step_kind { copy, rows, slabs, axis };

    void run_split(std::size_t b)
    {
        const std::size_t rank = d_shape.size();
        d_split_in = static_cast<const char*>(d_in) + b * in_bytes();
        d_split_out = static_cast<char*>(d_out) + b * out_bytes();
        // Where the column passes run: the output, or for c2r a copy of the input.
        d_split_data = d_problem.kind == transform_kind::c2r ? d_workers.front().copy.data()
                                                             : static_cast<complex*>(d_split_out);
        auto step = [&](step_kind k, std::size_t axis) {
            d_step = k;
            d_step_axis = axis;
            d_pool.run(d_step_job);
        };
        // Rank 3 and up: slabs (rows and the second-to-last axis together,
        // as in run_share) shared out, then the outer axes; rank 2 has one
        // slab, so its rows and then its columns are shared out.
        if (d_problem.kind == transform_kind::c2r) {
            step(step_kind::copy, 0);
            for (std::size_t d = 0; d + 2 < rank; ++d)
                step(step_kind::axis, d);
            if (rank > 2) {
                step(step_kind::slabs, 0);
            } else {
                step(step_kind::axis, 0);
                step(step_kind::rows, 0);
            }
        } else {
            if (rank > 2) {
                step(step_kind::slabs, 0);
            } else {
                step(step_kind::rows, 0);
                step(step_kind::axis, 0);
            }
            for (std::size_t d = rank - 2; d-- > 0;)
                step(step_kind::axis, d);
        }
    }

    // Worker w's share of the current step.
    void run_step(unsigned worker)
    {
        const std::size_t workers = d_pool.size();
        auto share = [&](std::size_t items, std::size_t& from, std::size_t& to) {
            from = items * worker / workers;
            to = items * (worker + 1) / workers;
        };
        worker_state& s = d_workers[worker];
        const std::size_t row = d_shape.back(), complex_row = d_complex_shape.back();
        const std::size_t rows = d_complex_points / complex_row;
        std::size_t from, to;
        switch (d_step) {
        case step_kind::copy: {
            share(d_complex_points, from, to);
            const auto* in = static_cast<const complex*>(d_split_in);
            std::copy(in + from, in + to, d_split_data + from);
            break;
        }
        case step_kind::rows:
            share(rows, from, to);
            if (from == to)
                break;
            if (d_problem.kind == transform_kind::c2c) {
                const auto* in = static_cast<const complex*>(d_split_in);
                auto* out = static_cast<complex*>(d_split_out);
                // In calls under the streaming size, as in run_share.
                const std::size_t chunk = std::max<std::size_t>(1, rows_bytes / (row * sizeof(complex)));
                for (std::size_t r = from; r < to; r += chunk)
                    s.rows->run(in + r * row, out + r * row, std::min(chunk, to - r), row);
            } else if (d_problem.kind == transform_kind::r2c) {
                s.real_rows->r2c(static_cast<const float*>(d_split_in) + from * row,
                                 static_cast<complex*>(d_split_out) + from * complex_row, to - from,
                                 row, complex_row);
            } else {
                s.real_rows->c2r(d_split_data + from * complex_row,
                                 static_cast<float*>(d_split_out) + from * row, to - from,
                                 complex_row, row);
            }
            break;
        case step_kind::slabs: {
            share(product(0, d_complex_shape.size() - 2), from, to);
            for (std::size_t l = from; l < to; ++l)
                slab(s, d_split_in, d_split_out, d_split_data, l);
            break;
        }
        case step_kind::axis: {
            // Items: (outer array, block of columns) pairs.
            const std::size_t d = d_step_axis, length = d_complex_shape[d];
            if (length == 1)
                break;
            const std::size_t inner = product(d + 1, d_complex_shape.size());
            const std::size_t width = column_block(length);
            const std::size_t blocks = (inner + width - 1) / width;
            share(product(0, d) * blocks, from, to);
            for (std::size_t i = from; i < to; ++i) {
                const std::size_t c0 = i % blocks * width;
                column_block_pass(*s.columns.at(length), s.block.data(),
                                  d_split_data + i / blocks * length * inner + c0, length, inner,
                                  std::min(width, inner - c0));
            }
            break;
        }
        }
    }

    // Worker w takes a contiguous share of the batch.
    void run_share(unsigned worker)
    {
        const std::size_t workers = d_pool.size();
        const std::size_t first = d_problem.batch * worker / workers;
        const std::size_t last = d_problem.batch * (worker + 1) / workers;
        worker_state& s = d_workers[worker];
        const std::size_t cd = d_complex_stride, rd = d_real_stride;
        // A slab is the last two axes: its rows and its columns are done
        // together while it is in cache, then the other axes (rank 3 and up).
        const std::size_t rank = d_complex_shape.size();
        if (rank == 1) { // real rows: one call for the whole share
            if (d_problem.kind == transform_kind::r2c)
                s.real_rows->r2c(static_cast<const float*>(d_in) + first * rd,
                                 static_cast<complex*>(d_out) + first * cd, last - first, rd, cd);
            else
                s.real_rows->c2r(static_cast<const complex*>(d_in) + first * cd,
                                 static_cast<float*>(d_out) + first * rd, last - first, cd, rd);
            return;
        }
        const std::size_t slabs = product(0, rank - 2);
        const bool c2r = d_problem.kind == transform_kind::c2r;
        for (std::size_t b = first; b < last; ++b) {
            const char* in = static_cast<const char*>(d_in) + b * in_bytes();
            char* out = static_cast<char*>(d_out) + b * out_bytes();
            complex* data = c2r ? s.copy.data() : reinterpret_cast<complex*>(out);
            if (c2r) {
                const auto* from = reinterpret_cast<const complex*>(in);
                std::copy(from, from + d_complex_points, data);
                for (std::size_t d = 0; d + 2 < rank; ++d)
                    axis_pass(s, data, d, product(0, d));
            }
            for (std::size_t l = 0; l < slabs; ++l)
                slab(s, in, out, data, l);
            if (!c2r)
                for (std::size_t d = rank - 2; d-- > 0;)
                    axis_pass(s, data, d, product(0, d));
        }
    }

    // Bytes between transforms on the input and the output side.
    std::size_t in_bytes() const
    {
        return d_problem.kind == transform_kind::r2c ? d_real_stride * sizeof(float)
                                                     : d_complex_stride * sizeof(complex);
    }
    std::size_t out_bytes() const
    {
        return d_problem.kind == transform_kind::c2r ? d_real_stride * sizeof(float)
                                                     : d_complex_stride * sizeof(complex);
    }

    // Slab l of one transform (in, out: the transform's buffers; data: where
    // its column passes run): rows and the second-to-last axis, or for c2r
    // that axis and then the c2r rows.
    void slab(worker_state& s, const void* in, void* out, complex* data, std::size_t l)
    {
        const std::size_t rank = d_complex_shape.size(), slab_rows = d_complex_shape[rank - 2];
        const std::size_t row = d_shape.back(), complex_row = d_complex_shape.back();
        const std::size_t first_row = l * slab_rows;
        complex* columns = data + first_row * complex_row;
        switch (d_problem.kind) {
        case transform_kind::c2c: {
            const complex* from = static_cast<const complex*>(in) + first_row * row;
            complex* to = static_cast<complex*>(out) + first_row * row;
            // Calls of at most rows_bytes, below the size from which the
            // transforms store past the cache (stockham.h, use_streaming):
            // the column passes read the rows right back. Streamed rows
            // made 1024x1024 1.7x slower.
            const std::size_t chunk = std::max<std::size_t>(1, rows_bytes / (row * sizeof(complex)));
            for (std::size_t r = 0; r < slab_rows; r += chunk)
                s.rows->run(from + r * row, to + r * row, std::min(chunk, slab_rows - r), row);
            axis_pass(s, columns, rank - 2, 1);
            break;
        }
        case transform_kind::r2c:
            s.real_rows->r2c(static_cast<const float*>(in) + first_row * row, columns, slab_rows,
                             row, complex_row);
            axis_pass(s, columns, rank - 2, 1);
            break;
        case transform_kind::c2r:
            axis_pass(s, columns, rank - 2, 1);
            s.real_rows->c2r(columns, static_cast<float*>(out) + first_row * row, slab_rows,
                             complex_row, row);
            break;
        }
    }

    // Product of the complex shape's dimensions [from, to).
    std::size_t product(std::size_t from, std::size_t to) const
    {
        std::size_t p = 1;
        for (std::size_t d = from; d < to; ++d)
            p *= d_complex_shape[d];
        return p;
    }

    // Transforms axis d of `outer` consecutive arrays of the complex shape's
    // axes [d, rank), in place.
    void axis_pass(worker_state& s, complex* data, std::size_t d, std::size_t outer)
    {
        const std::size_t length = d_complex_shape[d];
        const std::size_t inner = product(d + 1, d_complex_shape.size());
        if (length > 1)
            for (std::size_t o = 0; o < outer; ++o)
                columns(*s.columns.at(length), s.block.data(), data + o * length * inner, length,
                        inner);
    }

    // The length-point transform down each of the `inner` columns of a
    // length x inner row-major matrix, a block of columns at a time.
    void columns(transform& t, complex* block, complex* matrix, std::size_t length,
                 std::size_t inner) const
    {
        const std::size_t width = column_block(length);
        for (std::size_t c0 = 0; c0 < inner; c0 += width)
            column_block_pass(t, block, matrix + c0, length, inner, std::min(width, inner - c0));
    }

    // Columns [0, w) of such a matrix: moved to the block, transformed, moved back.
    void column_block_pass(transform& t, complex* block, complex* matrix, std::size_t length,
                           std::size_t inner, std::size_t w) const
    {
        const std::size_t pitch = column_pitch(length);
        d_kernels.move_columns(matrix, inner, length, w, block, pitch, true);
        t.run(block, block, w, pitch);
        d_kernels.move_columns(matrix, inner, length, w, block, pitch, false);
    }

    problem d_problem;
    // Elements between transforms, read at plan time: problem::stride() and
    // real_stride() build the shape, a heap allocation.
    std::size_t d_complex_stride, d_real_stride;
    std::vector<std::size_t> d_shape, d_complex_shape;
    std::size_t d_complex_points = 0;
    std::string d_isa;
    const isa_kernels& d_kernels; //!< the widest allowed: its move_columns
    worker_pool d_pool;
    std::vector<worker_state> d_workers;
    std::function<void(unsigned)> d_job, d_step_job;
    const void* d_in = nullptr;
    void* d_out = nullptr;
    // run_split's current transform and step.
    const void* d_split_in = nullptr;
    void* d_split_out = nullptr;
    complex* d_split_data = nullptr;
    step_kind d_step = step_kind::rows;
    std::size_t d_step_axis = 0;
};

} // namespace

std::unique_ptr<executor> make_shaped_executor(const problem& p,
                                               const std::vector<const isa_kernels*>& isas,
                                               unsigned threads)
{
    return std::make_unique<shaped_executor>(p, isas, threads);
}

} // namespace gpufft::simd
