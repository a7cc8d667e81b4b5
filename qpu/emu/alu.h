// SPDX-License-Identifier: GPL-3.0-or-later
/* The QPU's ALU operations, pack/unpack and SFU, on one 32-bit element. */
#ifndef QPU_EMU_ALU_H
#define QPU_EMU_ALU_H

#include "emulator.h"

#include <cstdint>

namespace qpu::emu {

struct float_mode {
    bool flush_denormals = true;
    rounding round = rounding::toward_zero;
};

/*! A result and the flags it would set (Z zero, N negative, C carry). */
struct alu_result {
    uint32_t value = 0;
    bool z = false, n = false, c = false;
};

/*! One op on the 16 elements of a and b. */
void add_alu(uint32_t op, const uint32_t* a, const uint32_t* b, const float_mode& mode, alu_result* out);
void mul_alu(uint32_t op, const uint32_t* a, const uint32_t* b, const float_mode& mode, alu_result* out);
/*! Flags of a value loaded by ldi (integer view). */
alu_result integer_flags(uint32_t value);

/*! True if the op reads its inputs as floats (unpack converts for them). */
bool add_op_reads_float(uint32_t op);
bool mul_op_reads_float(uint32_t op);
bool add_op_writes_float(uint32_t op);
bool mul_op_writes_float(uint32_t op);

/*! Unpacks a regfile-A or r4 value for an op reading floats or integers. */
uint32_t unpack_value(uint32_t code, uint32_t value, bool as_float);
/*! Packs `value` into the regfile-A word `old` (pm = 0 codes). */
uint32_t pack_regfile_a(uint32_t code, uint32_t old, uint32_t value, bool is_float);
/*! Packs a mul ALU float result in [0, 1] to 8-bit colour (pm = 1 codes). */
uint32_t pack_mul_colour(uint32_t code, uint32_t old, uint32_t value);

/*! SFU function of a write address (W_SFU_RECIP...): the float nearest the
 * exact value in either rounding mode, not the hardware's approximation. */
uint32_t sfu(uint32_t waddr, uint32_t value, const float_mode& mode);

uint32_t f32_to_f16(float f);
float f16_to_f32(uint32_t h);

} // namespace qpu::emu

#endif
