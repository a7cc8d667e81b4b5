// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft: checking a problem before any backend sees it. */
#include <gpufft/error.h>
#include <gpufft/problem.h>
#include <algorithm>
#include <limits>
#include <numeric>
#include <sstream>

namespace gpufft {

namespace {

// Byte counts of any buffer must fit a size_t.
constexpr std::size_t max_elements = std::numeric_limits<std::size_t>::max() / sizeof(complex);

// a * b, or max_elements + 1 when it exceeds max_elements (checked by validate()).
std::size_t capped_product(std::size_t a, std::size_t b)
{
    return b != 0 && a > max_elements / b ? max_elements + 1 : a * b;
}

std::string joined(const std::vector<std::size_t>& v, const char* sep)
{
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i)
        s += (i ? sep : "") + std::to_string(v[i]);
    return s;
}

// The complex side's shape: the real kinds keep d/2 + 1 of the last dimension.
std::vector<std::size_t> complex_shape(const problem& p)
{
    auto s = p.shape();
    if (p.kind != transform_kind::c2c)
        s.back() = s.back() / 2 + 1;
    return s;
}

std::size_t product(const std::vector<std::size_t>& v)
{
    return std::accumulate(v.begin(), v.end(), std::size_t(1), capped_product);
}

} // namespace

const char* kind_name(transform_kind k)
{
    switch (k) {
    case transform_kind::c2c:
        return "c2c";
    case transform_kind::r2c:
        return "r2c";
    case transform_kind::c2r:
        return "c2r";
    }
    return "";
}

std::vector<std::size_t> problem::shape() const
{
    return dims.empty() ? std::vector<std::size_t>{ n } : dims;
}

std::size_t problem::points() const { return product(shape()); }

bool problem::is_1d_c2c() const
{
    return kind == transform_kind::c2c && rank() == 1 && strides.empty();
}

std::size_t problem::complex_extent() const
{
    const auto s = complex_shape(*this);
    if (strides.empty())
        return product(s);
    std::size_t last = 0;
    for (std::size_t d = 0; d < s.size(); ++d)
        last += capped_product(s[d] - 1, strides[d]);
    return std::min(last, max_elements) + 1;
}

std::size_t problem::real_extent() const { return kind == transform_kind::c2c ? 0 : points(); }

void problem::validate() const
{
    if (dims.empty() && n == 0)
        throw error("gpufft: FFT size must be at least 1 (got 0)");
    for (std::size_t d = 0; d < dims.size(); ++d)
        if (dims[d] == 0)
            throw error("gpufft: dimension " + std::to_string(d) + " of dims (" +
                        joined(dims, "x") + ") is 0; every dimension must be at least 1");
    if (!dims.empty() && n != 0 && n != points())
        throw error("gpufft: n (" + std::to_string(n) + ") is neither 0 nor the product of dims (" +
                    joined(dims, "x") + " = " + std::to_string(points()) + ")");
    if (batch == 0)
        throw error("gpufft: batch must be at least 1 (got 0)");
    if (kind == transform_kind::r2c && dir != direction::forward)
        throw error("gpufft: an r2c transform is forward (use c2r for the inverse)");
    if (kind == transform_kind::c2r && dir != direction::inverse)
        throw error("gpufft: a c2r transform is inverse (use r2c for the forward one)");
    if (points() > max_elements)
        throw error("gpufft: dims " + joined(shape(), "x") + " do not fit in memory addresses");
    if (!strides.empty()) {
        if (kind != transform_kind::c2c)
            throw error(std::string("gpufft: strides are for c2c transforms only; ") +
                        kind_name(kind) + " takes packed rows, distance and real_distance apart");
        if (strides.size() != rank())
            throw error("gpufft: strides has " + std::to_string(strides.size()) +
                        " entries for a rank " + std::to_string(rank()) + " shape");
        // Sorted by stride, each dimension (the batch as one more) must step
        // over the whole extent of the finer ones, or two elements share an address.
        std::vector<std::pair<std::size_t, std::size_t>> steps; // stride, size
        const auto s = shape();
        for (std::size_t d = 0; d < s.size(); ++d)
            if (s[d] > 1)
                steps.emplace_back(strides[d], s[d]);
        if (batch > 1)
            steps.emplace_back(stride(), batch);
        std::sort(steps.begin(), steps.end());
        std::size_t covered = 1;
        for (const auto& [step, size] : steps) {
            if (step < covered) {
                std::ostringstream msg;
                msg << "gpufft: strides (" << joined(strides, ", ") << ") with distance "
                    << stride() << " overlap: a stride of " << step
                    << " revisits elements of the finer dimensions, which span " << covered;
                throw error(msg.str());
            }
            covered = capped_product(step, size);
        }
    } else if (distance != 0 && distance < complex_extent()) {
        std::ostringstream msg;
        msg << "gpufft: distance between transforms (" << distance << ") is smaller than the "
            << (is_1d_c2c() ? "FFT size" : "complex elements of one transform") << " ("
            << complex_extent() << ")";
        throw error(msg.str());
    }
    if (kind != transform_kind::c2c && real_distance != 0 && real_distance < real_extent()) {
        std::ostringstream msg;
        msg << "gpufft: real_distance between transforms (" << real_distance
            << ") is smaller than the real elements of one transform (" << real_extent() << ")";
        throw error(msg.str());
    }
    // span() must not overflow, and byte counts of it must fit a size_t.
    const std::size_t widest = std::max(stride(), real_stride());
    const std::size_t extent = std::max(complex_extent(), real_extent());
    if (extent > max_elements || (batch - 1) > (max_elements - extent) / widest) {
        std::ostringstream msg;
        msg << "gpufft: batch " << batch << " of size " << joined(shape(), "x")
            << " does not fit in memory addresses";
        throw error(msg.str());
    }
}

std::string problem::describe() const
{
    std::ostringstream s;
    if (kind != transform_kind::c2c)
        s << kind_name(kind) << " ";
    s << (dims.empty() ? "n=" + std::to_string(n) : "dims=" + joined(dims, "x"))
      << (dir == direction::forward ? " forward" : " inverse") << " batch=" << batch;
    if (!strides.empty())
        s << " strides=" << joined(strides, ",");
    if (distance && distance != complex_extent())
        s << " distance=" << distance;
    if (real_distance && real_distance != real_extent())
        s << " real_distance=" << real_distance;
    return s.str();
}

} // namespace gpufft
