# SPDX-License-Identifier: GPL-3.0-or-later
# The project's warning flags, on every C and C++ target of every build
# (core-only and cross builds too): included from the top level before any
# target. GPUFFT_WERROR makes them errors; its default comes from the
# environment variable of the same name, which .ci/run sets for the native
# build, so a change that adds a warning fails there (docs/testing.md).
#
# -Wall -Wextra and the extra warnings the code already passes; not (yet)
# -Wshadow, -Wdouble-promotion, -Wformat=2 or -Wmissing-declarations, which
# it does not, nor -Wnull-dereference, whose findings depend on the
# optimizer's inlining, -Wcast-align, which only ARMv7 builds would check,
# or -Wzero-as-null-pointer-constant, which Boost.Asio's default arguments
# trip in our calls.
# GNU Radio's GrCompilerSettings adds -Wno-uninitialized to module builds;
# core-only builds keep the uninitialized-variable warnings.
if(DEFINED ENV{GPUFFT_WERROR})
    set(gpufft_werror_default $ENV{GPUFFT_WERROR})
else()
    set(gpufft_werror_default OFF)
endif()
option(GPUFFT_WERROR "Treat compiler warnings as errors (on in CI)" ${gpufft_werror_default})

# -Wextra's missing-field-initializers is off: gpufft::problem is an
# aggregate whose trailing fields have defaults, and problem{ n, dir, batch }
# is its documented use (docs/cpp.md).
set(GPUFFT_WARNINGS -Wall -Wextra -Wno-missing-field-initializers
    -Wpedantic -Wundef -Wvla -Wcast-qual -Wredundant-decls)
# C++ only: on a C file GCC would warn that they do not apply.
set(GPUFFT_CXX_WARNINGS -Wnon-virtual-dtor -Woverloaded-virtual -Wsuggest-override -Wextra-semi)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    list(APPEND GPUFFT_WARNINGS -Wlogical-op -Wduplicated-cond -Wduplicated-branches)
endif()
if(GPUFFT_WERROR)
    list(APPEND GPUFFT_WARNINGS -Werror)
endif()
add_compile_options(${GPUFFT_WARNINGS})
foreach(flag IN LISTS GPUFFT_CXX_WARNINGS)
    add_compile_options($<$<COMPILE_LANGUAGE:CXX>:${flag}>)
endforeach()
