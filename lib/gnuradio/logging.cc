// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft, GNU Radio side: the core library's log lines through gr::logger. */
#include <gnuradio/logger.h>
#include <gpufft/gnuradio/logging.h>
#include <gpufft/registry.h>
#include <memory>
#include <string>

namespace gr::gpufft {

void route_log_to_gnuradio()
{
    // One logger for the process; the handler keeps it alive as long as the
    // core library may call it. gr::logger is safe to use from any thread.
    static const auto log = std::make_shared<gr::logger>("gpufft");
    ::gpufft::set_log_handler([logger = log](::gpufft::log_level level, const std::string& line) {
        // "{}" so that braces in a line are not read as format fields.
        switch (level) {
        case ::gpufft::log_level::debug:
            // trace: Debian's gnuradio-runtime.conf shows debug lines
            // (log_level = debug), and these would then print on every run.
            logger->trace("{}", line);
            break;
        case ::gpufft::log_level::info:
            logger->info("{}", line);
            break;
        case ::gpufft::log_level::warning:
            logger->warn("{}", line);
            break;
        }
    });
}

} // namespace gr::gpufft
