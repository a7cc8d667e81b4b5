// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft, GNU Radio side: sending the core library's log lines to GNU Radio. */
#ifndef GPUFFT_GNURADIO_LOGGING_H
#define GPUFFT_GNURADIO_LOGGING_H

#include <gpufft/api.h>

namespace gr::gpufft {

/*!
 * \brief Route the core library's log lines (auto's fallbacks, tuning) to a
 * gr::logger named "gpufft" instead of standard error: warnings at warn,
 * info at info, debug lines at trace (GNU Radio's log_level = trace shows them).
 *
 * Calling it again is harmless. The Python module calls it at import; C++
 * flowgraphs and blocks call it before planning. Affects the whole process:
 * it replaces whatever gpufft::set_log_handler() installed before.
 */
GPUFFT_API void route_log_to_gnuradio();

} // namespace gr::gpufft

#endif
