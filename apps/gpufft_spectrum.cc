// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-spectrum: a headless receiver on gr-gpufft's spectrum engine
 * (see apps/spectrum/app.cc and --help). */
#include "spectrum/app.h"

int main(int argc, char** argv)
{
    return gpufft_app::run(std::vector<std::string>(argv + 1, argv + argc));
}
