# SPDX-License-Identifier: GPL-3.0-or-later
# Test tiers (docs/testing.md): every CTest test carries the label `quick`
# or `full`. `ctest -L quick` is what runs on every change, in under two
# minutes natively with -j2; `full` is the rest (CI runs both).
#
# The full tier, each test with the seconds it takes natively on two cores
# (CTest's COST: `ctest -j` starts the costliest first, and a fresh clone has
# no measured costs yet, so without these a long suite could start last).
set(GPUFFT_FULL_TESTS
    qa_opencl_candidates 220
    qa_qpu_shaders_qpu_shader_large 100
    qa_qpu_shaders_qpu_shader_sizes 100
    qa_spectrum_live 90
    qa_opencl_search 60
    qa_opencl_search_h100 50
    qa_opencl_search_mali 50
    qa_opencl_sizes_h100 30
    qa_opencl_sizes_mali 30
    qa_opencl_layout_search 30
    qa_opencl_device_search 30
    qa_qpu_shaders_qpu_shader_signals 50
    qa_qpu_shaders_qpu_shader_interleave_batches 50
    qa_examples 45
    qa_qpu_shaders_qpu_shader_interleave 35
    qa_examples_cpp 25
    qa_opencl_shapes 25
    qa_opencl_sizes 22
    fuzz_spectrum_app 20)

# Quick-tier suites that take minutes under qemu-user (scripts/test-arm.sh),
# with a COST below the full tier's: a fresh cross build starts them first
# (armhf, replaying its last times: 321 s instead of 340, qa_opencl_planner
# started last), while natively they still follow the full tier.
set(GPUFFT_QUICK_COSTS
    qa_gpufft_sizes_special 11
    qa_gpufft_batches 9
    qa_gpufft_threads 4
    qa_gpufft_sizes_small 4
    qa_opencl_planner 4
    qa_gpufft_sizes_pow2 3
    qa_gpufft_inplace 2
    qa_gpufft_hot_path 1
    qa_gpufft_multidim 1
    gen_codelets 1)

# gpufft_test_tiers(): labels the tests of the calling folder; called at the
# end of every CMakeLists.txt that adds tests (the test_tiers test finds one
# that was not).
function(gpufft_test_tiers)
    get_property(tests DIRECTORY PROPERTY TESTS)
    foreach(test IN LISTS tests)
        list(FIND GPUFFT_FULL_TESTS ${test} i)
        if(i EQUAL -1)
            set_property(TEST ${test} APPEND PROPERTY LABELS quick)
            list(FIND GPUFFT_QUICK_COSTS ${test} i)
            if(NOT i EQUAL -1)
                math(EXPR i "${i} + 1")
                list(GET GPUFFT_QUICK_COSTS ${i} seconds)
                set_property(TEST ${test} PROPERTY COST ${seconds})
            endif()
        else()
            math(EXPR i "${i} + 1")
            list(GET GPUFFT_FULL_TESTS ${i} seconds)
            set_property(TEST ${test} APPEND PROPERTY LABELS full)
            set_property(TEST ${test} PROPERTY COST ${seconds})
        endif()
    endforeach()
endfunction()
