# SPDX-License-Identifier: GPL-3.0-or-later
# Cross build for 32-bit ARMv7 hard float: Debian armhf, 32-bit Raspberry Pi OS;
# the NEON kernels need NEON + VFPv4 (Pi 2 and later), checked at run time,
# with Debian 12's arm-linux-gnueabihf toolchain (g++-arm-linux-gnueabihf) on x86-64:
#
#   ./scripts/install-arm-deps.sh
#   cmake -B build-armhf -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/arm-linux-gnueabihf.cmake
#
# Target libraries (FFTW, CppUnit, VOLK) come from Debian multiarch packages
# (libfftw3-dev:armhf, ...) in /usr/lib/arm-linux-gnueabihf, so no sysroot is needed.
# Only the core is built (GPUFFT_CORE_ONLY: no GNU Radio, no Python); the
# codelet generator is built for the build machine (gen/CMakeLists.txt).
# ctest runs the target's tests under qemu-arm (qemu-user).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR armv7-a)
set(CMAKE_C_COMPILER arm-linux-gnueabihf-gcc)
set(CMAKE_CXX_COMPILER arm-linux-gnueabihf-g++)
set(CMAKE_LIBRARY_ARCHITECTURE arm-linux-gnueabihf)
# GCC's notes that GCC 7.1 changed how some arguments are passed on ARM
# concern mixing with objects built before it; everything here is GCC 12.
set(CMAKE_CXX_FLAGS_INIT -Wno-psabi)

# pkg-config: the target's .pc files only.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/arm-linux-gnueabihf/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")

# Target programs (ctest, the codelet self-test) run under qemu-user. The
# loader and C library are the multiarch libc6 the -dev packages above pull
# in (/lib/arm-linux-gnueabihf). Not `-L /usr/arm-linux-gnueabihf` (the cross toolchain's copy): with
# Debian 12's qemu 7.2 a forked child then hangs (aarch64) or crashes (armhf),
# and the bad_input suite forks.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-arm)

set(GPUFFT_CORE_ONLY ON CACHE BOOL "Build only the core library, its tests and gpufft-bench (no GNU Radio, no Python)")
