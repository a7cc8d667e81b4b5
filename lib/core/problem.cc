/* gr-gpufft: checking a problem before any backend sees it. */
#include <gpufft/error.h>
#include <gpufft/problem.h>
#include <limits>
#include <sstream>

namespace gpufft {

void problem::validate() const
{
    if (n == 0)
        throw error("gpufft: FFT size must be at least 1 (got 0)");
    if (batch == 0)
        throw error("gpufft: batch must be at least 1 (got 0)");
    if (distance != 0 && distance < n) {
        std::ostringstream msg;
        msg << "gpufft: distance between transforms (" << distance
            << ") is smaller than the FFT size (" << n << ")";
        throw error(msg.str());
    }
    // span() must not overflow, and byte counts of it must fit a size_t.
    const std::size_t limit = std::numeric_limits<std::size_t>::max() / sizeof(complex);
    if ((batch - 1) > (limit - n) / stride()) {
        std::ostringstream msg;
        msg << "gpufft: batch " << batch << " of size " << n
            << " does not fit in memory addresses";
        throw error(msg.str());
    }
}

std::string problem::describe() const
{
    std::ostringstream s;
    s << "n=" << n << (dir == direction::forward ? " forward" : " inverse")
      << " batch=" << batch;
    if (distance && distance != n)
        s << " distance=" << distance;
    return s.str();
}

} // namespace gpufft
