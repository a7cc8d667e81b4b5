# SPDX-License-Identifier: GPL-3.0-or-later
# gpufft_host_tool(<target> <override> <var>): the build-time tool <target>
# (an executable of the current source folder) for the build machine.
# Sets <var> to the command and <var>_DEPENDS to what a custom command
# running it depends on:
#   <override> (a path, -D by the user): that binary;
#   a cross build: the current source folder configured again as a small
#     CMake project of its own with the build machine's default compiler (the
#     toolchain file is not passed on), in <binary dir>/host/, and built
#     (a no-op when up to date) on every build so edits reach it;
#   a native build: the target itself.
# The folder's CMakeLists.txt must build <target> alone when it is the
# top-level project (CMAKE_SOURCE_DIR STREQUAL CMAKE_CURRENT_SOURCE_DIR).
function(gpufft_host_tool target override var)
    if(override)
        set(${var} ${override} PARENT_SCOPE)
        set(${var}_DEPENDS ${override} PARENT_SCOPE)
    elseif(CMAKE_CROSSCOMPILING)
        include(ExternalProject)
        set(host_dir ${CMAKE_CURRENT_BINARY_DIR}/host)
        ExternalProject_Add(${target}_host
            SOURCE_DIR ${CMAKE_CURRENT_SOURCE_DIR}
            BINARY_DIR ${host_dir}
            CMAKE_ARGS -DCMAKE_BUILD_TYPE=Release
            INSTALL_COMMAND ""
            BUILD_ALWAYS ON
            BUILD_BYPRODUCTS ${host_dir}/${target})
        set(${var} ${host_dir}/${target} PARENT_SCOPE)
        set(${var}_DEPENDS ${target}_host ${host_dir}/${target} PARENT_SCOPE)
    else()
        set(${var} $<TARGET_FILE:${target}> PARENT_SCOPE)
        set(${var}_DEPENDS ${target} PARENT_SCOPE)
    endif()
endfunction()
