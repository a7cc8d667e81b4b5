// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-power: rtl_power's command line over gpufft-spectrum's engine
 * (see apps/spectrum/rtl_power_options.cc and --help). */
#include "spectrum/rtl_power.h"

int main(int argc, char** argv)
{
    return gpufft_app::run_power(std::vector<std::string>(argv + 1, argv + argc));
}
