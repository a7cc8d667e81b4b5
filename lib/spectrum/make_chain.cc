// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft spectrum engine: which chain runs a setup. */
#include "chain.h"
#include <gpufft/error.h>
#include <gpufft/registry.h>
#ifdef GPUFFT_WITH_OPENCL
#include "opencl/spectrum_chain.h"
#endif

namespace gpufft::detail {

namespace {

/*!
 * The device chain for a backend's device interface (backend::device_api,
 * in the backend registry); adding a device interface adds a line.
 */
struct device_chain {
    const char* device_api;
    std::unique_ptr<chain> (*make)(const chain_setup&);
};

const std::vector<device_chain> device_chains = {
#ifdef GPUFFT_WITH_OPENCL
    { "opencl", make_opencl_chain },
#endif
};

//! The device chain of a backend spec ("opencl", "opencl:1"), or nullptr.
const device_chain* device_chain_for(const std::string& spec)
{
    const std::string name = spec.substr(0, spec.find(':'));
    for (const backend_info& b : backends()) {
        if (b.name != name)
            continue;
        for (const device_chain& d : device_chains)
            if (b.device_api == d.device_api)
                return &d;
    }
    return nullptr;
}

//! A device chain's FFT has callbacks, which the plan-time search does not
//! time (gpufft/opencl.h): tune there would do nothing, so it is refused.
void refuse_tune(const chain_setup& setup, const device_chain& d, const std::string& backend)
{
    if (setup.plan.tune)
        throw error("spectrum: tune: on backend \"" + backend + "\" the chain runs on the " + d.device_api +
                    " device, whose FFT carries the window and |X|^2 as callbacks: their kernel shapes "
                    "are not searched; tune takes a CPU backend (simd)");
}

} // namespace

std::unique_ptr<chain> make_chain(const chain_setup& setup)
{
    const std::string& wanted = setup.plan.backend;
    if (const device_chain* d = device_chain_for(wanted)) {
        refuse_tune(setup, *d, wanted);
        return d->make(setup);
    }
    std::unique_ptr<chain> cpu = make_cpu_chain(setup);
    if (!wanted.empty() && wanted != "auto")
        return cpu;
    // auto chose the FFT's backend; a device backend then takes the whole chain.
    const device_chain* d = device_chain_for(cpu->backend());
    if (!d)
        return cpu;
    refuse_tune(setup, *d, cpu->backend());
    chain_setup on_device = setup;
    on_device.plan.backend = cpu->backend();
    try {
        return d->make(on_device);
    } catch (const std::exception& e) {
        log_line(log_level::warning, std::string("spectrum: the ") + d->device_api + " chain failed (" +
                                         e.what() + "); the stages around the FFT run on the CPU");
        return cpu;
    }
}

} // namespace gpufft::detail
