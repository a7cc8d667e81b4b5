// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft correctness suite: memory layout. Batches (with gaps between
 * transforms that must stay untouched), in-place transforms, and buffers that
 * are not aligned to the vector width. */
#include "qa_common.h"

#include <cppunit/extensions/HelperMacros.h>

namespace qa {

namespace {

using gpufft::direction;

// Sizes around vector widths and radix boundaries, plus the usual ones.
const std::size_t layout_sizes[] = { 1,   2,   3,    4,    5,    7,    8,    9,    12,
                                     15,  16,  17,   31,   32,   33,   63,   64,   100,
                                     128, 255, 256,  1000, 1024, 2400, 4096, 4099, 65536 };

} // namespace

class qa_batches : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_batches);
    CPPUNIT_TEST(batches_with_gaps);
    CPPUNIT_TEST(every_n_batched);
    CPPUNIT_TEST(every_batch_to_20);
    CPPUNIT_TEST(lane_batched);
    CPPUNIT_TEST(cache_sized_batches);
    CPPUNIT_TEST(unaligned);
    CPPUNIT_TEST_SUITE_END();

    // Batches 3 and 17, contiguous and with distance > n.
    void batches_with_gaps()
    {
        for_each_target("batch 3, 17 with gaps", targets(), [](failures& f, const std::string& t) {
            for (std::size_t n : layout_sizes)
                for (std::size_t batch : { 3, 17 })
                    for (std::size_t distance : { std::size_t(0), n + 1, n + 13, 2 * n + 3 }) {
                        check_transform(f, t, n, direction::forward, batch, distance);
                        if (distance == 0 || distance == n + 1)
                            check_transform(f, t, n, direction::inverse, batch, distance);
                    }
        });
    }

    // Every size to 256 in a batch of 5 with gaps: each size's batched
    // (lane-packed) path, not only its single-transform one.
    void every_n_batched()
    {
        for_each_target("every N 1..256, batch 5", targets(), [](failures& f, const std::string& t) {
            for (std::size_t n = 1; n <= 256; ++n)
                check_transform(f, t, n, n % 2 ? direction::forward : direction::inverse, 5,
                                n + 3);
        });
    }

    // Small transforms packed several to a vector register: every batch
    // count around the group sizes, so each remainder path runs.
    void every_batch_to_20()
    {
        static const std::size_t sizes[] = { 1, 2, 3, 4, 5, 7, 8, 12, 16, 17, 32, 60, 64 };
        static const std::size_t batches[] = { 1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13,
                                               14, 15, 16, 17, 18, 19, 20, 31, 32, 33, 64, 65 };
        for_each_target("every batch 1..20", targets(), [](failures& f, const std::string& t) {
            for (std::size_t n : sizes)
                for (std::size_t batch : batches) {
                    check_transform(f, t, n, direction::forward, batch);
                    check_transform(f, t, n, direction::inverse, batch, n + 1);
                }
        });
    }

    // Sizes the planner runs one transform per lane (lane_batch.h) on some
    // instruction set, with full lane groups and a remainder (batch mod 8, 4,
    // 2), gaps between transforms, in place; n mod lanes points take the
    // path around the tile transposes (12, 15, 20, 36, 44, 250, 2205, 90,
    // 1050, 4410, 8190, 7875).
    void lane_batched()
    {
        static const std::size_t sizes[] = { 8,  12,  15,  20,  24,   32,   36,   44,   48,   56,  60,
                                             72, 90,  104, 112, 120,  250,  1050, 2205, 4410, 7875,
                                             8190 };
        for_each_target("lane-batched sizes", targets(), [](failures& f, const std::string& t) {
            for (std::size_t n : sizes)
                for (std::size_t batch : { 8, 15, 33 }) {
                    check_transform(f, t, n, direction::forward, batch);
                    check_transform(f, t, n, direction::inverse, batch, n + 3);
                    check_transform(f, t, n, direction::forward, batch, n + 1, true);
                }
        });
    }

    // Batches past the sizes where the simd backend's stores go around the
    // cache (lib/backends/simd/stockham.h: streaming_bytes, and
    // fused_streaming_bytes for sizes of one register-resident codelet):
    // 8 MiB and 33 MiB of output a call, aligned.
    void cache_sized_batches()
    {
        for_each_target("batches of 8 and 33 MiB", targets(), [](failures& f, const std::string& t) {
            for (std::size_t n : { 64, 128, 1024 })
                check_transform(f, t, n, direction::forward, (std::size_t(8) << 20) / (8 * n) + 1);
            check_transform(f, t, 64, direction::inverse, (std::size_t(33) << 20) / (8 * 64));
        });
    }

    // Buffers one element (8 bytes) past a vector boundary; nothing in the
    // API promises alignment.
    void unaligned()
    {
        static const std::size_t sizes[] = { 1, 8, 13, 64, 1000, 1024, 4096 };
        for_each_target("unaligned buffers", targets(), [](failures& f, const std::string& t) {
            for (std::size_t n : sizes)
                for (bool in_place : { false, true }) {
                    check_transform(f, t, n, direction::forward, 1, 0, in_place, 1, 1);
                    check_transform(f, t, n, direction::forward, 3, n + 1, in_place, 1, 1);
                }
        });
    }
};

class qa_inplace : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_inplace);
    CPPUNIT_TEST(in_place);
    CPPUNIT_TEST(in_place_big);
    CPPUNIT_TEST_SUITE_END();

    void in_place()
    {
        static const std::size_t extra[] = { 1000,  2400, 3000,  4410, 6000,  4096, 8192,
                                             16384, 32768, 65536, 97,  1009,  4099, 65537 };
        for_each_target("in place", targets(), [](failures& f, const std::string& t) {
            auto both = [&](std::size_t n) {
                for (direction d : { direction::forward, direction::inverse }) {
                    check_transform(f, t, n, d, 1, 0, true);
                    check_transform(f, t, n, d, 3, n + 5, true);
                }
            };
            for (std::size_t n = 1; n <= 130; ++n)
                both(n);
            for (std::size_t n = 256; n <= 2048; n *= 2)
                both(n);
            for (std::size_t n : extra)
                both(n);
        });
    }

    void in_place_big()
    {
        for_each_target("in place 2^20, 10^6", big_size_targets(), [](failures& f, const std::string& t) {
            check_transform(f, t, std::size_t(1) << 20, direction::forward, 1, 0, true);
            check_transform(f, t, 1000000, direction::inverse, 1, 0, true);
        });
    }
};

CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_batches, "batches");
CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_inplace, "inplace");

} // namespace qa
