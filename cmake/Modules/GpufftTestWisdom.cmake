# SPDX-License-Identifier: GPL-3.0-or-later
# Tuning choices from the user's wisdom file (~/.cache/gpufft/wisdom) must
# not change what a test sees, and a test that tunes must not write there:
# every CTest test of the calling directory gets a wisdom file of its own in
# the build tree (GPUFFT_WISDOM, lib/core/wisdom.h). Call it after the
# directory's add_test()s.
function(gpufft_private_test_wisdom)
    get_property(tests DIRECTORY PROPERTY TESTS)
    foreach(test IN LISTS tests)
        set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT
            GPUFFT_WISDOM=${PROJECT_BINARY_DIR}/test-wisdom/${test})
    endforeach()
endfunction()
