# SPDX-License-Identifier: GPL-3.0-or-later
# gpufft_install_rpath(<install dir> <target>...): the <target>s, installed
# to <install dir> (relative to the prefix), find libgpufft and
# libgnuradio-gpufft through an install RPATH relative to their own location
# ($ORIGIN, ld.so(8)), so a private prefix (-DCMAKE_INSTALL_PREFIX=$HOME/sdr)
# needs no LD_LIBRARY_PATH and still works when moved as a whole. Libraries
# outside the prefix that the build linked from a non-system directory (GNU
# Radio in a prefix of its own) are added as absolute paths
# (INSTALL_RPATH_USE_LINK_PATH). Nothing is added where the library
# directory is one the linker searches anyway (a /usr install, as Debian
# packages build it: lintian's binary-or-shlib-defines-rpath).
# GPUFFT_SYSTEM_LIBRARY_DIR: true where the prefix's library directory is such a one.
list(FIND CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES ${CMAKE_INSTALL_PREFIX}/${GR_LIBRARY_DIR} in_cxx_dirs)
list(FIND CMAKE_PLATFORM_IMPLICIT_LINK_DIRECTORIES ${CMAKE_INSTALL_PREFIX}/${GR_LIBRARY_DIR} in_platform_dirs)
if(in_cxx_dirs EQUAL -1 AND in_platform_dirs EQUAL -1)
    set(GPUFFT_SYSTEM_LIBRARY_DIR FALSE)
else()
    set(GPUFFT_SYSTEM_LIBRARY_DIR TRUE)
endif()

function(gpufft_install_rpath install_dir)
    if(GPUFFT_SYSTEM_LIBRARY_DIR)
        return()
    endif()
    file(RELATIVE_PATH to_lib /prefix/${install_dir} /prefix/${GR_LIBRARY_DIR})
    foreach(target IN LISTS ARGN)
        if(TARGET ${target})
            set_target_properties(${target} PROPERTIES
                INSTALL_RPATH "$ORIGIN/${to_lib}"
                INSTALL_RPATH_USE_LINK_PATH ON)
        endif()
    endforeach()
endfunction()
