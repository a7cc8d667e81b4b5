// SPDX-License-Identifier: GPL-3.0-or-later
/* ALU ops, flags, pack/unpack and SFU for one element.
 *
 * Float behaviour (vc4asm's doc/VideoCoreIV-addendum.html): denormal inputs
 * and results flush to zero when configured (the hardware does). fadd, fsub,
 * fmul and itof round toward zero (the default: see `rounding` in
 * emulator.h) or to nearest-even. Round-toward-zero is exact: the rounding
 * error of the nearest-even result is computed exactly (TwoSum, fma) and the
 * result stepped toward zero when it was rounded away from zero; a finite
 * sum or product past the largest float gives the largest float, as IEEE 754
 * round-toward-zero does (assumed for the QPU). fmin/fmax/fminabs/fmaxabs
 * return an input, ftoi truncates, so neither depends on the mode.
 *
 * Flags: Z and N come from the result. C (assumed, not from the guide): the
 * unsigned carry of add, the unsigned borrow of sub, a > b for integer
 * min/max, and result > 0 for float ops. */
#include "alu.h"

#include "../isa/qpu_isa.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace qpu::emu {

using namespace qpu::isa;

namespace {

float as_float(uint32_t u)
{
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

uint32_t as_bits(float f)
{
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

float flush(float f, const float_mode& mode)
{
    uint32_t u = as_bits(f);
    if (mode.flush_denormals && (u & 0x7F800000) == 0)
        return as_float(u & 0x80000000);
    return f;
}

/*! Steps the nearest-even `result` toward zero if the exact value, result +
 * error, lies closer to zero. */
float toward_zero(float result, float error)
{
    if (error == 0 || std::isinf(result) || std::isnan(result))
        return result;
    if ((result > 0 && error < 0) || (result < 0 && error > 0))
        return std::nextafter(result, 0.0f);
    return result;
}

/*! Toward zero, an overflow of finite inputs stops at the largest float. */
bool overflowed(float result, float a, float b)
{
    return std::isinf(result) && std::isfinite(a) && std::isfinite(b);
}

float add_rounded(float a, float b, const float_mode& mode)
{
    float s = a + b;
    if (mode.round == rounding::toward_zero) {
        if (overflowed(s, a, b))
            return std::copysign(std::numeric_limits<float>::max(), s);
        // TwoSum: s + e == a + b exactly.
        float bb = s - a;
        float e = (a - (s - bb)) + (b - bb);
        s = toward_zero(s, e);
    }
    return s;
}

float mul_rounded(float a, float b, const float_mode& mode)
{
    float p = a * b;
    if (mode.round == rounding::toward_zero) {
        if (overflowed(p, a, b))
            return std::copysign(std::numeric_limits<float>::max(), p);
        p = toward_zero(p, std::fma(a, b, -p));
    }
    return p;
}

alu_result float_result(float f, const float_mode& mode)
{
    f = flush(f, mode);
    alu_result r;
    r.value = as_bits(f);
    r.z = f == 0.0f;
    r.n = f < 0.0f;
    r.c = f > 0.0f;
    return r;
}

alu_result int_result(uint32_t v, bool carry = false)
{
    alu_result r;
    r.value = v;
    r.z = v == 0;
    r.n = (v >> 31) != 0;
    r.c = carry;
    return r;
}

/*! Per-byte operation on four unsigned 8-bit lanes. */
template <typename F>
uint32_t bytewise(uint32_t a, uint32_t b, F f)
{
    uint32_t out = 0;
    for (int i = 0; i < 4; ++i) {
        uint32_t x = (a >> (8 * i)) & 0xFF, y = (b >> (8 * i)) & 0xFF;
        out |= (uint32_t(f(x, y)) & 0xFF) << (8 * i);
    }
    return out;
}

uint32_t saturate_byte(int v) { return uint32_t(std::clamp(v, 0, 255)); }

} // namespace

alu_result integer_flags(uint32_t value) { return int_result(value); }

bool add_op_reads_float(uint32_t op) { return op >= A_FADD && op <= A_FTOI; }
bool add_op_writes_float(uint32_t op) { return (op >= A_FADD && op <= A_FMAXABS) || op == A_ITOF; }
bool mul_op_reads_float(uint32_t op) { return op == M_FMUL; }
bool mul_op_writes_float(uint32_t op) { return op == M_FMUL; }

static inline alu_result add_alu_element(uint32_t op, uint32_t a, uint32_t b, const float_mode& mode)
{
    float fa = flush(as_float(a), mode), fb = flush(as_float(b), mode);
    int32_t ia = int32_t(a), ib = int32_t(b);
    unsigned shift = b & 31;
    switch (op) {
    case A_FADD: return float_result(add_rounded(fa, fb, mode), mode);
    case A_FSUB: return float_result(add_rounded(fa, -fb, mode), mode);
    case A_FMIN: return float_result(fa < fb ? fa : fb, mode);
    case A_FMAX: return float_result(fa > fb ? fa : fb, mode);
    case A_FMINABS: return float_result(std::min(std::fabs(fa), std::fabs(fb)), mode);
    case A_FMAXABS: return float_result(std::max(std::fabs(fa), std::fabs(fb)), mode);
    case A_FTOI: {
        // Toward zero; NaN and out-of-range inputs give 0 (assumed).
        if (!(std::fabs(fa) < 2147483648.0f))
            return int_result(0);
        return int_result(uint32_t(int32_t(fa)));
    }
    case A_ITOF: {
        float f = float(ia);
        if (mode.round == rounding::toward_zero && int64_t(f) != int64_t(ia))
            f = toward_zero(f, float(int64_t(ia) - int64_t(f)));
        return float_result(f, mode);
    }
    case A_ADD: return int_result(a + b, (uint64_t(a) + b) >> 32);
    case A_SUB: return int_result(a - b, a < b);
    case A_SHR: return int_result(a >> shift);
    case A_ASR: return int_result(uint32_t(ia >> shift));
    case A_ROR: return int_result(shift ? (a >> shift) | (a << (32 - shift)) : a);
    case A_SHL: return int_result(a << shift);
    case A_MIN: return int_result(uint32_t(std::min(ia, ib)), ia > ib);
    case A_MAX: return int_result(uint32_t(std::max(ia, ib)), ia > ib);
    case A_AND: return int_result(a & b);
    case A_OR: return int_result(a | b);
    case A_XOR: return int_result(a ^ b);
    case A_NOT: return int_result(~a);
    case A_CLZ: return int_result(a ? uint32_t(__builtin_clz(a)) : 32);
    case A_V8ADDS: return int_result(bytewise(a, b, [](int x, int y) { return saturate_byte(x + y); }));
    case A_V8SUBS: return int_result(bytewise(a, b, [](int x, int y) { return saturate_byte(x - y); }));
    default: return int_result(0);
    }
}

static inline alu_result mul_alu_element(uint32_t op, uint32_t a, uint32_t b, const float_mode& mode)
{
    switch (op) {
    case M_FMUL: return float_result(mul_rounded(flush(as_float(a), mode), flush(as_float(b), mode), mode), mode);
    case M_MUL24: return int_result((a & 0xFFFFFF) * (b & 0xFFFFFF));
    // x * y / 255 rounded (assumed; the guide gives no exact formula).
    case M_V8MULD: return int_result(bytewise(a, b, [](int x, int y) { return (x * y + 127) / 255; }));
    case M_V8MIN: return int_result(bytewise(a, b, [](int x, int y) { return std::min(x, y); }));
    case M_V8MAX: return int_result(bytewise(a, b, [](int x, int y) { return std::max(x, y); }));
    case M_V8ADDS: return int_result(bytewise(a, b, [](int x, int y) { return saturate_byte(x + y); }));
    case M_V8SUBS: return int_result(bytewise(a, b, [](int x, int y) { return saturate_byte(x - y); }));
    default: return int_result(0);
    }
}

void add_alu(uint32_t op, const uint32_t* a, const uint32_t* b, const float_mode& mode, alu_result* out)
{
    for (unsigned e = 0; e < SIMD_WIDTH; ++e)
        out[e] = add_alu_element(op, a[e], b[e], mode);
}

void mul_alu(uint32_t op, const uint32_t* a, const uint32_t* b, const float_mode& mode, alu_result* out)
{
    for (unsigned e = 0; e < SIMD_WIDTH; ++e)
        out[e] = mul_alu_element(op, a[e], b[e], mode);
}

uint32_t f32_to_f16(float f)
{
    uint32_t x = as_bits(f);
    uint32_t sign = (x >> 16) & 0x8000;
    int exponent = int((x >> 23) & 0xFF) - 127 + 15;
    uint32_t mantissa = x & 0x7FFFFF;
    if (((x >> 23) & 0xFF) == 0xFF)
        return sign | 0x7C00 | (mantissa ? 0x200 : 0);
    if (exponent >= 31)
        return sign | 0x7C00;
    if (exponent <= 0)
        return sign; // half denormals flush to zero
    uint32_t h = sign | uint32_t(exponent << 10) | (mantissa >> 13);
    uint32_t rest = mantissa & 0x1FFF;
    if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
        ++h; // nearest even; a carry into the exponent is still correct
    return h;
}

float f16_to_f32(uint32_t h)
{
    uint32_t sign = (h & 0x8000) << 16;
    uint32_t exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
    if (exponent == 0)
        return as_float(sign); // denormal halves flush to zero
    if (exponent == 31)
        return as_float(sign | 0x7F800000 | (mantissa << 13));
    return as_float(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

uint32_t unpack_value(uint32_t code, uint32_t v, bool as_float_value)
{
    auto byte_of = [&](int i) { return (v >> (8 * i)) & 0xFF; };
    auto byte_value = [&](uint32_t byte) {
        return as_float_value ? as_bits(float(byte) / 255.0f) : byte;
    };
    switch (code) {
    case UNPACK_16A:
    case UNPACK_16B: {
        uint32_t half = code == UNPACK_16A ? v & 0xFFFF : v >> 16;
        return as_float_value ? as_bits(f16_to_f32(half)) : uint32_t(int32_t(int16_t(half)));
    }
    case UNPACK_8D_REP: return as_float_value ? byte_value(byte_of(3)) : byte_of(3) * 0x01010101u;
    case UNPACK_8A: return byte_value(byte_of(0));
    case UNPACK_8B: return byte_value(byte_of(1));
    case UNPACK_8C: return byte_value(byte_of(2));
    case UNPACK_8D: return byte_value(byte_of(3));
    default: return v;
    }
}

uint32_t pack_regfile_a(uint32_t code, uint32_t old, uint32_t v, bool is_float)
{
    bool saturate = code >= PACK_32_SAT;
    uint32_t base = saturate ? code - 8 : code;
    int32_t iv = int32_t(v);
    auto insert = [&](unsigned shift, unsigned bits, uint32_t x) {
        uint32_t mask = ((1u << bits) - 1) << shift;
        return (old & ~mask) | ((x << shift) & mask);
    };
    auto byte = [&]() { return saturate ? saturate_byte(iv) : (v & 0xFF); };
    switch (base) {
    case PACK_NOP: return v; // 32s: a 32-bit result cannot overflow here
    case PACK_16A:
    case PACK_16B: {
        uint32_t half = is_float ? f32_to_f16(as_float(v))
                                 : saturate ? uint32_t(std::clamp(iv, -32768, 32767)) & 0xFFFF : v & 0xFFFF;
        return insert(base == PACK_16A ? 0 : 16, 16, half);
    }
    case PACK_8888: return byte() * 0x01010101u;
    default: return insert(8 * (base - PACK_8A), 8, byte()); // 8a..8d
    }
}

uint32_t pack_mul_colour(uint32_t code, uint32_t old, uint32_t v)
{
    float f = std::clamp(as_float(v), 0.0f, 1.0f);
    uint32_t byte = uint32_t(std::lround(f * 255.0f));
    if (code == PACK_8888)
        return byte * 0x01010101u;
    unsigned shift = 8 * (code - PACK_8A);
    return (old & ~(0xFFu << shift)) | (byte << shift);
}

uint32_t sfu(uint32_t waddr, uint32_t value, const float_mode& mode)
{
    float x = flush(as_float(value), mode), y = 0;
    switch (waddr) {
    case W_SFU_RECIP: y = 1.0f / x; break;
    case W_SFU_RECIPSQRT: y = 1.0f / std::sqrt(x); break;
    case W_SFU_EXP: y = std::exp2(x); break;
    case W_SFU_LOG: y = std::log2(x); break;
    }
    return as_bits(flush(y, mode));
}

} // namespace qpu::emu
