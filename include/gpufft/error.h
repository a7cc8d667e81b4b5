// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft: the one exception type the core library throws. */
#ifndef GPUFFT_ERROR_H
#define GPUFFT_ERROR_H

#include <gpufft/api.h>
#include <stdexcept>
#include <string>

namespace gpufft {

/*!
 * \brief Thrown for bad arguments (size, batch, distance, buffer, backend name)
 * and for backends that cannot start. The message names the problem.
 *
 * Derives from std::invalid_argument so callers that already catch standard
 * exceptions (and pybind11, which maps it to Python's ValueError) handle it.
 */
class GPUFFT_API error : public std::invalid_argument
{
public:
    explicit error(const std::string& what) : std::invalid_argument(what) {}
};

} // namespace gpufft

#endif
