# SPDX-License-Identifier: GPL-3.0-or-later
# Cross build for 64-bit ARM (AArch64): Debian arm64, 64-bit Raspberry Pi OS;
# Pi 3/4/5, Zero 2 W, Rockchip and Allwinner boards,
# with Debian 12's aarch64-linux-gnu toolchain (g++-aarch64-linux-gnu) on x86-64:
#
#   ./scripts/install-arm-deps.sh
#   cmake -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
#
# Target libraries (FFTW, CppUnit, VOLK) come from Debian multiarch packages
# (libfftw3-dev:arm64, ...) in /usr/lib/aarch64-linux-gnu, so no sysroot is needed.
# Only the core is built (GPUFFT_CORE_ONLY: no GNU Radio, no Python); the
# codelet generator is built for the build machine (gen/CMakeLists.txt).
# ctest runs the target's tests under qemu-aarch64 (qemu-user).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# pkg-config: the target's .pc files only.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")

# Target programs (ctest, the codelet self-test) run under qemu-user. The
# loader and C library are the multiarch libc6 the -dev packages above pull
# in (/lib/aarch64-linux-gnu). Not `-L /usr/aarch64-linux-gnu` (the cross toolchain's copy): with
# Debian 12's qemu 7.2 a forked child then hangs (aarch64) or crashes (armhf),
# and the bad_input suite forks.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)

set(GPUFFT_CORE_ONLY ON CACHE BOOL "Build only the core library, its tests and gpufft-bench (no GNU Radio, no Python)")
