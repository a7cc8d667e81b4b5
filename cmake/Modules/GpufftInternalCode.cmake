# SPDX-License-Identifier: GPL-3.0-or-later
# gpufft_internal_code(<target>): code linked into libgpufft or
# libgpufft-spectrum (lib/, and the QPU shaders of qpu/): position
# independent, and its symbols hidden unless include/gpufft/api.h exports them.
function(gpufft_internal_code target)
    set_target_properties(${target} PROPERTIES
        POSITION_INDEPENDENT_CODE ON
        CXX_VISIBILITY_PRESET hidden
        VISIBILITY_INLINES_HIDDEN ON)
endfunction()
