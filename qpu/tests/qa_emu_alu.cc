// SPDX-License-Identifier: GPL-3.0-or-later
/* Emulator: every ALU op with edge cases, flags and conditions, pack and
 * unpack, small immediates, per-element loads, rotation, r5, SFU, floats. */
#include "qa_qpu_tools.h"

#include <cmath>
#include <cstdio>
#include <limits>

using namespace qa_qpu;

namespace {

struct outcome {
    uint32_t value;
    bool z, n, c;
};

/*! `op.setf r0, ra0, rb0` (add ops) or `nop ; op.setf r0, ra0, rb0` (mul
 * ops) with ra0 = a and rb0 = b in every element; element 0 of r0. */
outcome run_op(const std::string& op, uint32_t a, uint32_t b, bool mul = false,
               qpu::emu::config cfg = small_config())
{
    bool unary = op == "ftoi" || op == "itof" || op == "not" || op == "clz";
    std::string operands = unary ? " r0, ra0" : " r0, ra0, rb0";
    std::string src = "ldi ra0, " + hex(a) + "\nldi rb0, " + hex(b) + "\nnop\n" +
                      (mul ? "nop ; " : "") + op + ".setf" + operands + "\n" + END;
    qpu::emu::emulator::registers r = run_one(src, {}, cfg);
    return {r.acc[0][0], r.z[0], r.n[0], r.c[0]};
}

void expect(const std::string& op, uint32_t a, uint32_t b, uint32_t want, bool mul = false)
{
    outcome o = run_op(op, a, b, mul);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(op + " " + hex(a) + ", " + hex(b), hex(want), hex(o.value));
}

void expect_float(const std::string& op, float a, float b, float want, bool mul = false)
{
    expect(op, bits(a), bits(b), bits(want), mul);
}

} // namespace

class qa_emu_alu : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(qa_emu_alu);
    CPPUNIT_TEST(float_ops);
    CPPUNIT_TEST(integer_ops);
    CPPUNIT_TEST(byte_ops);
    CPPUNIT_TEST(flags);
    CPPUNIT_TEST(conditions_per_element);
    CPPUNIT_TEST(float_modes);
    CPPUNIT_TEST(pack);
    CPPUNIT_TEST(unpack);
    CPPUNIT_TEST(immediates);
    CPPUNIT_TEST(rotation);
    CPPUNIT_TEST(r5_writes);
    CPPUNIT_TEST(sfu);
    CPPUNIT_TEST_SUITE_END();

public:
    void float_ops()
    {
        expect_float("fadd", 1.5f, 2.25f, 3.75f);
        expect_float("fsub", 1.5f, 2.25f, -0.75f);
        expect_float("fmin", -1.0f, 2.0f, -1.0f);
        expect_float("fmax", -1.0f, 2.0f, 2.0f);
        expect_float("fminabs", -1.0f, 2.0f, 1.0f);
        expect_float("fmaxabs", -3.0f, 2.0f, 3.0f);
        expect_float("fmul", 1.5f, -4.0f, -6.0f, true);
        expect("ftoi", bits(-3.7f), 0, uint32_t(-3));
        expect("ftoi", bits(3.99f), 0, 3);
        expect("ftoi", bits(std::numeric_limits<float>::quiet_NaN()), 0, 0);
        expect("ftoi", bits(3e9f), 0, 0);
        expect("itof", uint32_t(-5), 0, bits(-5.0f));
        expect("itof", 16777217, 0, bits(16777216.0f)); // nearest even
    }

    void integer_ops()
    {
        expect("add", 0xFFFFFFFF, 2, 1);
        expect("sub", 3, 5, uint32_t(-2));
        expect("shr", 0x80000000, 4, 0x08000000);
        expect("shr", 0x80000000, 33, 0x40000000); // the shift count is 5 bits
        expect("asr", 0x80000000, 4, 0xF8000000);
        expect("ror", 0x00000011, 4, 0x10000001);
        expect("shl", 0x00000011, 4, 0x00000110);
        expect("min", uint32_t(-7), 3, uint32_t(-7));
        expect("max", uint32_t(-7), 3, 3);
        expect("and", 0xF0F0, 0xFF00, 0xF000);
        expect("or", 0xF0F0, 0xFF00, 0xFFF0);
        expect("xor", 0xF0F0, 0xFF00, 0x0FF0);
        expect("not", 0xF0F0F0F0, 0, 0x0F0F0F0F);
        expect("clz", 0, 0, 32);
        expect("clz", 1, 0, 31);
        expect("clz", 0x80000000, 0, 0);
        expect("mul24", 0x01000003, 0x00000005, 15, true); // bits above 23 ignored
        expect("mul24", 0x00FFFFFF, 0x00FFFFFF, 0xFE000001, true);
    }

    void byte_ops()
    {
        expect("v8adds", 0x01F08010, 0x01208020, 0x02FFFF30);
        expect("v8subs", 0x01F08010, 0x02208020, 0x00D00000);
        expect("v8adds", 0x01F08010, 0x01208020, 0x02FFFF30, true);
        expect("v8subs", 0x01F08010, 0x02208020, 0x00D00000, true);
        expect("v8min", 0x01F08010, 0x02208020, 0x01208010, true);
        expect("v8max", 0x01F08010, 0x02208020, 0x02F08020, true);
        expect("v8muld", 0xFF80FF00, 0xFFFF80FF, 0xFF808000, true);
    }

    void flags()
    {
        outcome zero = run_op("add", 0xFFFFFFFF, 1);
        CPPUNIT_ASSERT(zero.z && !zero.n && zero.c); // carry out
        outcome negative = run_op("sub", 3, 5);
        CPPUNIT_ASSERT(!negative.z && negative.n && negative.c); // borrow
        outcome positive = run_op("fsub", bits(2.0f), bits(1.0f));
        CPPUNIT_ASSERT(!positive.z && !positive.n && positive.c);
        outcome fneg = run_op("fmul", bits(2.0f), bits(-1.0f), true); // add is nop: mul sets flags
        CPPUNIT_ASSERT(!fneg.z && fneg.n && !fneg.c);
        outcome fzero = run_op("fadd", bits(-2.0f), bits(2.0f));
        CPPUNIT_ASSERT(fzero.z && !fzero.n);
        // With a non-nop add op, the add ALU's result sets the flags.
        auto r = run_one("ldi ra0, 5\nnop\nsub.setf r0, ra0, 5 ; fmul r1, ra0, ra0\n" + END);
        CPPUNIT_ASSERT(r.z[0] && !r.n[0]);
    }

    void conditions_per_element()
    {
        // N set for elements 0..7; each condition picks its elements.
        auto r = run_one("sub.setf r0, elem_num, 8\n"
                         "ldi r1, 0\nldi r2, 0\nldi r3, 0\n"
                         "mov.ifn r1, 1\nmov.ifnn r2, 1\nmov.ifz r3, 1 ; mov.ifnz r0, 1\n"
                         "ldi.never r1, 7\n" + END);
        for (unsigned e = 0; e < 16; ++e) {
            CPPUNIT_ASSERT_EQUAL(e < 8 ? 1u : 0u, r.acc[1][e]);
            CPPUNIT_ASSERT_EQUAL(e < 8 ? 0u : 1u, r.acc[2][e]);
            CPPUNIT_ASSERT_EQUAL(e == 8 ? 1u : 0u, r.acc[3][e]);
            CPPUNIT_ASSERT_EQUAL(e == 8 ? 0u : 1u, r.acc[0][e]);
        }
        // Flags change only where the condition passes.
        auto f = run_one("sub.setf r0, elem_num, 8\nsub.ifn.setf r1, elem_num, 4\n" + END);
        for (unsigned e = 0; e < 16; ++e) {
            CPPUNIT_ASSERT_EQUAL(e < 4, f.n[e]);
            CPPUNIT_ASSERT_EQUAL(e == 4 || e == 8, f.z[e]);
        }
    }

    // Each op against results worked out by hand, under round-toward-zero
    // (the default) and nearest-even. Values are bit patterns: 0x3F800000 is
    // 1.0, and one ulp of a float in [1, 2) is 2^-23.
    void float_modes()
    {
        qpu::emu::config rne = small_config();
        rne.float_rounding = qpu::emu::rounding::nearest_even;
        CPPUNIT_ASSERT(small_config().float_rounding == qpu::emu::rounding::toward_zero);
        struct {
            const char* op;
            uint32_t a, b, toward_zero, nearest_even;
            bool mul;
        } cases[] = {
            // 1 + 0.75 ulp: truncated to 1; nearest is 1 + 1 ulp.
            { "fadd", 0x3F800000, 0x33C00000, 0x3F800000, 0x3F800001, false },
            // (1 + 1 ulp) + 0.5 ulp, a tie: truncated to 1 + 1 ulp; to even, 1 + 2 ulp.
            { "fadd", 0x3F800001, 0x33800000, 0x3F800001, 0x3F800002, false },
            // 1 + 0.25 ulp: both 1.
            { "fadd", 0x3F800000, 0x33000000, 0x3F800000, 0x3F800000, false },
            // -1 - 0.75 ulp: toward zero is -1, nearest is -(1 + 1 ulp).
            { "fsub", 0xBF800000, 0x33C00000, 0xBF800000, 0xBF800001, false },
            // 1 - 2^-30: below 1 floats are 2^-24 apart; truncated to
            // 1 - 2^-24 (0x3F7FFFFF), nearest is 1.
            { "fsub", 0x3F800000, 0x30800000, 0x3F7FFFFF, 0x3F800000, false },
            // 3.75 - 1.5 = 2.25, exact in both.
            { "fsub", 0x40700000, 0x3FC00000, 0x40100000, 0x40100000, false },
            // FLT_MAX + FLT_MAX: toward zero stays at FLT_MAX; nearest overflows.
            { "fadd", 0x7F7FFFFF, 0x7F7FFFFF, 0x7F7FFFFF, 0x7F800000, false },
            // 1.5 * 2^-126 - 2^-126 = 2^-127, a denormal: flushed to +0 in both.
            { "fsub", 0x00C00000, 0x00800000, 0x00000000, 0x00000000, false },
            // 3 * (1 + 1 ulp) = 3 + 3 * 2^-23 = 2 * (1.5 + 1.5 ulp): truncated
            // to 2 * (1.5 + 1 ulp) = 0x40400001; the tie goes to even, 0x40400002.
            { "fmul", 0x40400000, 0x3F800001, 0x40400001, 0x40400002, true },
            { "fmul", 0xC0400000, 0x3F800001, 0xC0400001, 0xC0400002, true },
            // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: 2^-24 is half an ulp, a tie
            // with an even lower neighbour, so both give 1 + 2^-11.
            { "fmul", 0x3F800800, 0x3F800800, 0x3F801000, 0x3F801000, true },
            // (1 + 1 ulp)(1 + 2^-12) = 1 + 2^-12 + 2^-23 + 2^-35: truncated to
            // 0x3F800801; nearest too (the tail is below half an ulp).
            { "fmul", 0x3F800001, 0x3F800800, 0x3F800801, 0x3F800801, true },
            // (1 - 2^-24)(1 + 2^-23) = 1 + 2^-24 - 2^-47, just below 1 + half
            // an ulp: 1 in both.
            { "fmul", 0x3F7FFFFF, 0x3F800001, 0x3F800000, 0x3F800000, true },
            // 2 * FLT_MAX: FLT_MAX toward zero, infinity to nearest.
            { "fmul", 0x40000000, 0x7F7FFFFF, 0x7F7FFFFF, 0x7F800000, true },
            // 2^-70 * 2^-70 underflows: +0 in both.
            { "fmul", 0x1C800000, 0x1C800000, 0x00000000, 0x00000000, true },
            // itof 2^24 + 3: truncated to 2^24 + 2 (0x4B800001); nearest is
            // a tie between 2^24 + 2 and 2^24 + 4, to even: 0x4B800002.
            { "itof", 16777219, 0, 0x4B800001, 0x4B800002, false },
            { "itof", uint32_t(-16777219), 0, 0xCB800001, 0xCB800002, false },
            // itof 2^31 - 1: truncated to 2^31 - 128 (0x4EFFFFFF), nearest 2^31.
            { "itof", 0x7FFFFFFF, 0, 0x4EFFFFFF, 0x4F000000, false },
            { "itof", uint32_t(-5), 0, 0xC0A00000, 0xC0A00000, false },
            // ftoi truncates in both modes: 2.7 -> 2, -2.7 -> -2.
            { "ftoi", 0x402CCCCD, 0, 2, 2, false },
            { "ftoi", 0xC02CCCCD, 0, uint32_t(-2), uint32_t(-2), false },
            // min/max pick an input unchanged: 1 + 1 ulp and -(1 + 3 ulp).
            { "fmin", 0x3F800001, 0xBF800003, 0xBF800003, 0xBF800003, false },
            { "fmax", 0x3F800001, 0xBF800003, 0x3F800001, 0x3F800001, false },
            { "fminabs", 0x3F800001, 0xBF800003, 0x3F800001, 0x3F800001, false },
            { "fmaxabs", 0x3F800001, 0xBF800003, 0x3F800003, 0x3F800003, false },
        };
        for (const auto& c : cases) {
            const std::string what = std::string(c.op) + " " + hex(c.a) + ", " + hex(c.b);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what + " toward zero", hex(c.toward_zero),
                                         hex(run_op(c.op, c.a, c.b, c.mul).value));
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what + " nearest even", hex(c.nearest_even),
                                         hex(run_op(c.op, c.a, c.b, c.mul, rne).value));
        }
        // The SFU gives the float nearest the exact value in both modes (the
        // hardware's approximation is not modelled): 1/3 = 0x3EAAAAAB.
        for (const qpu::emu::config& cfg : { small_config(), rne }) {
            auto r = run_one("ldi r0, 3.0\nmov sfu_recip, r0\nnop\nnop\nmov r1, r4\n" + END, {}, cfg);
            CPPUNIT_ASSERT_EQUAL(hex(0x3EAAAAAB), hex(r.acc[1][0]));
        }
        // Denormals flush to zero, or not.
        qpu::emu::config keep = small_config();
        keep.flush_denormals = false;
        uint32_t denormal = run_op("fmul", bits(std::ldexp(1.0f, -100)), bits(std::ldexp(1.0f, -30)), true, keep).value;
        CPPUNIT_ASSERT_EQUAL(hex(bits(std::ldexp(1.0f, -130))), hex(denormal));
        CPPUNIT_ASSERT_EQUAL(0u, run_op("fadd", 1, 0).value); // denormal input flushed
    }

    void pack()
    {
        auto r = run_one("ldi ra1, 0x11223344\nldi ra2, 0x11223344\nldi ra3, 0x11223344\nldi ra4, 0\n"
                         "ldi r0, 0xABCD\nldi r1, -200\nldi r2, 1.5\n"
                         "mov ra1.16b, r0\nmov ra2.8c, r0\nmov ra3.8888, r0\nmov ra4.8as, r1\n"
                         "fadd ra5.16a, r2, 0\n" + END);
        CPPUNIT_ASSERT_EQUAL(hex(0xABCD3344), hex(r.ra[1][0]));
        CPPUNIT_ASSERT_EQUAL(hex(0x11CD3344), hex(r.ra[2][0]));
        CPPUNIT_ASSERT_EQUAL(hex(0xCDCDCDCD), hex(r.ra[3][0]));
        CPPUNIT_ASSERT_EQUAL(hex(0), hex(r.ra[4][0]));          // -200 saturates to 0
        CPPUNIT_ASSERT_EQUAL(hex(0x3E00), hex(r.ra[5][0] & 0xFFFF)); // 1.5 as half
        auto s = run_one("ldi r0, 100000\nmov ra6.16as, r0\nldi r1, 0.5\nnop\nfmul r2.8b, r1, r1\n"
                         "ldi r3, 2.0\nnop\nfmul r3.8888, r3, r3\n" + END);
        CPPUNIT_ASSERT_EQUAL(hex(0x7FFF), hex(s.ra[6][0] & 0xFFFF));
        CPPUNIT_ASSERT_EQUAL(hex(64u << 8), hex(s.acc[2][0] & 0xFF00)); // 0.25 * 255 rounded
        CPPUNIT_ASSERT_EQUAL(hex(0xFFFFFFFF), hex(s.acc[3][0]));       // 4.0 clamps to 1.0
    }

    void unpack()
    {
        auto r = run_one("ldi ra1, 0x3E00C000\nldi ra2, 0x8081FF40\nnop\n"
                         "fadd r0, ra1.16a, 0\nfadd r1, ra1.16b, 0\nadd r2, ra1.16a, 0\n"
                         "fadd r3, ra2.8c, 0\nadd ra3, ra2.8dr, 0\nadd ra4, ra2.8a, 0\n" + END);
        CPPUNIT_ASSERT_EQUAL(-2.0f, real(r.acc[0][0]));
        CPPUNIT_ASSERT_EQUAL(1.5f, real(r.acc[1][0]));
        CPPUNIT_ASSERT_EQUAL(hex(0xFFFFC000), hex(r.acc[2][0])); // sign-extended for integer ops
        CPPUNIT_ASSERT_EQUAL(hex(bits(129.0f / 255.0f)), hex(r.acc[3][0]));
        CPPUNIT_ASSERT_EQUAL(hex(0x80808080), hex(r.ra[3][0]));
        CPPUNIT_ASSERT_EQUAL(hex(0x40), hex(r.ra[4][0]));
        // pm = 1: r4 unpacks (r4 holds an SFU result here).
        auto s = run_one("ldi r0, 0.5\nmov sfu_recip, r0\nnop\nnop\nfadd r1, r4.16b, 0\nadd r2, r4.8d, 0\n" + END);
        CPPUNIT_ASSERT_EQUAL(2.0f, real(s.acc[1][0])); // 2.0 = 0x40000000: its high half is 2.0 in f16
        CPPUNIT_ASSERT_EQUAL(hex(0x40), hex(s.acc[2][0]));
    }

    void immediates()
    {
        auto r = run_one("ldi r1, 3.0\nnop\nfmul r0, r1, 0.5\nadd r2, elem_num, -16\nfadd r3, r1, 128.0\n"
                         "ldis r1, [0, 1, -1, -2, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, -1]\n"
                         "ldiu ra1, [0, 1, 2, 3, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 3]\n" + END);
        CPPUNIT_ASSERT_EQUAL(1.5f, real(r.acc[0][0]));
        CPPUNIT_ASSERT_EQUAL(uint32_t(5 - 16), r.acc[2][5]);
        CPPUNIT_ASSERT_EQUAL(131.0f, real(r.acc[3][0]));
        const int want_s[16] = {0, 1, -1, -2, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, -1};
        const unsigned want_u[16] = {0, 1, 2, 3, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 3};
        for (unsigned e = 0; e < 16; ++e) {
            CPPUNIT_ASSERT_EQUAL(uint32_t(want_s[e]), r.acc[1][e]);
            CPPUNIT_ASSERT_EQUAL(want_u[e], r.ra[1][e]);
        }
    }

    void rotation()
    {
        // out[i] = in[(i - n) mod 16] for accumulators; per quad for others.
        auto r = run_one("mov r0, elem_num\nmov ra1, elem_num\nnop\nnop ; mov.rot3 r1, r0\n"
                         "nop ; mov.rot13 r2, r0\nldi r5, 6\nnop\nnop ; mov.rotr5 r3, r0\n"
                         "nop ; mov.rot1 rb2, ra1\n" + END);
        for (unsigned e = 0; e < 16; ++e) {
            CPPUNIT_ASSERT_EQUAL((e - 3) & 15, r.acc[1][e]);
            CPPUNIT_ASSERT_EQUAL((e - 13) & 15, r.acc[2][e]);
            CPPUNIT_ASSERT_EQUAL((e - 6) & 15, r.acc[3][e]);
            CPPUNIT_ASSERT_EQUAL((e & ~3u) | ((e - 1) & 3), r.rb[2][e]);
        }
    }

    void r5_writes()
    {
        // Through regfile A: per quad (elements 0, 4, 8, 12); through B: broadcast.
        auto r = run_one("mov r0, elem_num\nnop\nmov r5quad, r0\nmov ra1, r5\nmov r5, r0\nmov ra2, r5\n" + END);
        for (unsigned e = 0; e < 16; ++e) {
            CPPUNIT_ASSERT_EQUAL(e & ~3u, r.ra[1][e]);
            CPPUNIT_ASSERT_EQUAL(0u, r.ra[2][e]);
        }
    }

    void sfu()
    {
        auto r = run_one("ldi r0, 4.0\nmov sfu_recip, r0\nnop\nnop\nmov r1, r4 ; mov sfu_recipsqrt, r0\nnop\nnop\n"
                         "mov r2, r4 ; mov sfu_exp, r0\nnop\nnop\nmov r3, r4 ; mov sfu_log, r0\nnop\nnop\nmov ra0, r4\n" + END);
        CPPUNIT_ASSERT_EQUAL(0.25f, real(r.acc[1][0]));
        CPPUNIT_ASSERT_EQUAL(0.5f, real(r.acc[2][0]));
        CPPUNIT_ASSERT_EQUAL(16.0f, real(r.acc[3][0]));
        CPPUNIT_ASSERT_EQUAL(2.0f, real(r.ra[0][0]));
    }
};

CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_emu_alu, "emu_alu");
