# SPDX-License-Identifier: GPL-3.0-or-later
# Turns OpenCL kernel sources into C++ string definitions at build time.
#   cmake -DKERNELS="a.cl|b.cl" -DTEMPLATE=in.cc.in -DOUTPUT=out.cc -P embed_kernels.cmake
# Each kernels/<name>.cl becomes `const char* const <name>_cl`.
string(REPLACE "|" ";" kernel_files "${KERNELS}")
set(GPUFFT_KERNEL_DEFINITIONS "")
foreach(file IN LISTS kernel_files)
    get_filename_component(name "${file}" NAME_WE)
    file(READ "${file}" text)
    string(APPEND GPUFFT_KERNEL_DEFINITIONS
           "const char* const ${name}_cl = R\"gpufft_cl(${text})gpufft_cl\";\n\n")
endforeach()
configure_file("${TEMPLATE}" "${OUTPUT}" @ONLY)
