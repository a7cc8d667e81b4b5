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
};

//! Every compiled-in backend, usable or not, in registration order.
GPUFFT_API std::vector<backend_info> backends();

//! Names of usable backends, comma separated (for error messages).
GPUFFT_API std::string usable_backend_names();

/*!
 * \brief Where the library's log lines go (auto's fallbacks, tuning).
 * Default: standard error, prefixed "gpufft: ". An empty function silences it.
 */
GPUFFT_API void set_log_handler(std::function<void(const std::string&)> handler);

} // namespace gpufft

#endif
