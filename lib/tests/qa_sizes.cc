// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft correctness suite: transform sizes (every N to 1024, powers of
 * two to 2^22, the sizes radio software uses, primes). Batch 1, out of place,
 * forward, inverse and round trip, on every target. */
#include "qa_common.h"

#include <cppunit/extensions/HelperMacros.h>

namespace qa {

namespace {

using gpufft::direction;

void check_all_ways(failures& f, const std::string& t, std::size_t n)
{
    check_transform(f, t, n, direction::forward);
    check_transform(f, t, n, direction::inverse);
    check_round_trip(f, t, n);
}

} // namespace

class qa_sizes_small : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_sizes_small);
    CPPUNIT_TEST(every_n_to_1024);
    CPPUNIT_TEST_SUITE_END();

    void every_n_to_1024()
    {
        for_each_target("every N 1..1024", targets(), [](failures& f, const std::string& t) {
            for (std::size_t n = 1; n <= 1024; ++n)
                check_all_ways(f, t, n);
        });
    }
};

class qa_sizes_pow2 : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_sizes_pow2);
    CPPUNIT_TEST(to_2_19);
    CPPUNIT_TEST(big_2_20_to_2_22);
    CPPUNIT_TEST_SUITE_END();

    void to_2_19()
    {
        for_each_target("2^0..2^19", targets(), [](failures& f, const std::string& t) {
            for (unsigned k = 0; k <= 19; ++k)
                check_all_ways(f, t, std::size_t(1) << k);
        });
    }

    // Only the widest ISA and scalar, to keep the run time down; emulated,
    // 2^20 only.
    void big_2_20_to_2_22()
    {
        for_each_target("2^20..2^22", big_size_targets(), [](failures& f, const std::string& t) {
            for (unsigned k = 20; k <= (emulated() ? 20u : 22u); ++k)
                check_all_ways(f, t, std::size_t(1) << k);
        });
    }
};

class qa_sizes_special : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_sizes_special);
    CPPUNIT_TEST(radio_sizes);
    CPPUNIT_TEST(primes);
    CPPUNIT_TEST(signals);
    CPPUNIT_TEST(big);
    CPPUNIT_TEST_SUITE_END();

    void radio_sizes()
    {
        // Sizes flowgraphs use (sample-rate derived, mixed radix), then
        // composites with large or repeated odd factors.
        static const std::size_t sizes[] = { 1000,  2400,  3000,  4410,   6000,  1536,
                                             3072,  12288, 44100, 48000,  96000, 30030,
                                             121,   169,   289,   2018,   6561,  15625,
                                             65535, 98304, 196608, 262143, 200000 };
        for_each_target("radio sizes", targets(), [](failures& f, const std::string& t) {
            for (std::size_t n : sizes)
                check_all_ways(f, t, n);
        });
    }

    void primes()
    {
        static const std::size_t sizes[] = { 11, 13, 17, 19, 23, 29, 31, 37, 97, 101, 257, 1009,
                                             4099, 8191, 12289, 65537, 131071 };
        for_each_target("primes", targets(), [](failures& f, const std::string& t) {
            for (std::size_t n : sizes)
                check_all_ways(f, t, n);
        });
    }

    // An impulse, a constant, a tone and strong DC (qa_common.h, signal):
    // trivial sizes, radices, primes as direct DFTs, by Bluestein's
    // algorithm and by Rader's; and primes whose p - 1 has only factors
    // with codelets (97, 101, 163 = 2 x 81 + 1, 65537: Rader's), where
    // FFTW float, by Rader, is exact on an impulse and Bluestein's float
    // FFTs missed the bound (101, a round trip of a constant: 1.7e-7 where
    // FFTW float's is 8.3e-8; 65537, an impulse: 1.7e-7 where it is exact).
    void signals()
    {
        for_each_target("signals", targets(), [](failures& f, const std::string& t) {
            for (std::size_t n : signal_sizes)
                check_signals(f, t, n);
            for (std::size_t n : { 101, 163, 65537 })
                check_signals(f, t, n);
        });
    }

    // 10^6 and a prime near it: only the widest ISA and scalar; emulated,
    // the prime's forward transform only (Bluestein over four-step FFTs).
    void big()
    {
        for_each_target("10^6, 999983", big_size_targets(), [](failures& f, const std::string& t) {
            if (emulated()) {
                check_transform(f, t, 999983, direction::forward);
                return;
            }
            check_all_ways(f, t, 1000000);
            check_all_ways(f, t, 999983);
        });
    }
};

CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_sizes_small, "sizes_small");
CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_sizes_pow2, "sizes_pow2");
CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_sizes_special, "sizes_special");

} // namespace qa
