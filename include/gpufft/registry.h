// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft: runtime discovery of backends. */
#ifndef GPUFFT_REGISTRY_H
#define GPUFFT_REGISTRY_H

#include <gpufft/api.h>
#include <gpufft/backend.h>
#include <functional>
#include <string>
#include <vector>

namespace gpufft {

//! What the library knows of one backend on this machine.
struct GPUFFT_API backend_info {
    std::string name;
    std::string description;
    bool usable = false;
    std::string reason;                //!< why not usable
    std::vector<std::string> variants; //!< best first
    std::string device_api;            //!< backend::device_api(): "opencl", or empty
    std::vector<std::string> variant_notes; //!< availability::variant_notes
};

//! Every compiled-in backend, usable or not, in registration order.
GPUFFT_API std::vector<backend_info> backends();

//! Names of usable backends, comma separated (for error messages).
GPUFFT_API std::string usable_backend_names();

//! How much a log line matters.
enum class log_level {
    debug,  //!< why a backend is not usable here (every run on most machines)
    info,   //!< what tuning chose
    warning //!< something failed and the library went on (a fallback, an unwritable wisdom file)
};

/*!
 * \brief Where the library's log lines go.
 * Default: standard error, prefixed "gpufft: ", info and warning lines only.
 * An empty function silences it.
 */
GPUFFT_API void set_log_handler(std::function<void(log_level, const std::string&)> handler);

/*!
 * Sends one line to that handler: the libraries built on this one (the
 * spectrum library) log through it, so that one handler takes every line.
 */
GPUFFT_API void log_line(log_level level, const std::string& line);

} // namespace gpufft

#endif
