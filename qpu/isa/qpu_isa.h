// SPDX-License-Identifier: GPL-3.0-or-later
/* VideoCore IV QPU instruction set as data: the fields of the 64-bit
 * instruction word, their enumerations and names. One header shared by the
 * assembler, the disassembler, the emulator and the hazard checker.
 *
 * Bit positions follow the VideoCore IV 3D Architecture Reference Guide
 * (section 3, "QPU Instruction Encoding", pp. 26-29); they were cross-checked
 * against Mesa's src/gallium/drivers/vc4/vc4_qpu_defines.h and by decoding
 * GPU_FFT's annotated shader hex (raspberrypi/userland,
 * host_applications/linux/apps/hello_pi/hello_fft/hex/). */
#ifndef QPU_ISA_H
#define QPU_ISA_H

#include <cstdint>

namespace qpu::isa {

/*! A bit field of the instruction word: `width` bits starting at `shift`. */
struct field {
    unsigned shift;
    unsigned width;

    constexpr uint64_t mask() const { return ((uint64_t(1) << width) - 1) << shift; }
    constexpr uint32_t get(uint64_t word) const
    {
        return uint32_t((word & mask()) >> shift);
    }
    constexpr bool fits(uint64_t value) const { return (value >> width) == 0; }
    /*! Sets the field; the caller checks fits() first (values are masked). */
    constexpr void set(uint64_t& word, uint64_t value) const
    {
        word = (word & ~mask()) | ((value << shift) & mask());
    }
};

// ALU instructions (sig 0..13).
constexpr field SIG{60, 4};
constexpr field UNPACK{57, 3};
constexpr field PM{56, 1};
constexpr field PACK{52, 4};
constexpr field COND_ADD{49, 3};
constexpr field COND_MUL{46, 3};
constexpr field SF{45, 1};
constexpr field WS{44, 1};
constexpr field WADDR_ADD{38, 6};
constexpr field WADDR_MUL{32, 6};
constexpr field OP_MUL{29, 3};
constexpr field OP_ADD{24, 5};
constexpr field RADDR_A{18, 6};
constexpr field RADDR_B{12, 6}; // the small immediate when sig == small_imm
constexpr field ADD_A{9, 3};
constexpr field ADD_B{6, 3};
constexpr field MUL_A{3, 3};
constexpr field MUL_B{0, 3};
// Load immediate / semaphore (sig 14): UNPACK holds the load mode.
constexpr field LDI_MODE{57, 3};
constexpr field IMMEDIATE{0, 32};
constexpr field SEMA_ID{0, 4};
constexpr field SEMA_ACQUIRE{4, 1};
// Branch (sig 15).
constexpr field COND_BR{52, 4};
constexpr field BRANCH_REL{51, 1};
constexpr field BRANCH_REG{50, 1};
constexpr field BRANCH_RADDR_A{45, 5};

enum sig : uint32_t {
    SIG_BREAK = 0,
    SIG_NONE = 1,
    SIG_THREAD_SWITCH = 2,
    SIG_PROG_END = 3, // thread end: two delay slots follow
    SIG_WAIT_SCOREBOARD = 4,
    SIG_SCOREBOARD_UNLOCK = 5,
    SIG_LAST_THREAD_SWITCH = 6,
    SIG_COVERAGE_LOAD = 7,
    SIG_COLOR_LOAD = 8,
    SIG_COLOR_LOAD_END = 9,
    SIG_LOAD_TMU0 = 10,
    SIG_LOAD_TMU1 = 11,
    SIG_ALPHA_MASK_LOAD = 12,
    SIG_SMALL_IMM = 13,
    SIG_LOAD_IMM = 14,
    SIG_BRANCH = 15,
};

enum ldi_mode : uint32_t {
    LDI_32 = 0,
    LDI_PER_ELEMENT_SIGNED = 1,
    LDI_PER_ELEMENT_UNSIGNED = 3,
    LDI_SEMAPHORE = 4,
};

enum cond : uint32_t {
    COND_NEVER = 0,
    COND_ALWAYS = 1,
    COND_ZS = 2,
    COND_ZC = 3,
    COND_NS = 4,
    COND_NC = 5,
    COND_CS = 6,
    COND_CC = 7,
};

enum cond_br : uint32_t {
    BR_ALL_Z = 0,
    BR_ALL_NZ = 1,
    BR_ANY_Z = 2,
    BR_ANY_NZ = 3,
    BR_ALL_N = 4,
    BR_ALL_NN = 5,
    BR_ANY_N = 6,
    BR_ANY_NN = 7,
    BR_ALL_C = 8,
    BR_ALL_NC = 9,
    BR_ANY_C = 10,
    BR_ANY_NC = 11,
    BR_ALWAYS = 15,
};

enum add_op : uint32_t {
    A_NOP = 0,
    A_FADD = 1,
    A_FSUB = 2,
    A_FMIN = 3,
    A_FMAX = 4,
    A_FMINABS = 5,
    A_FMAXABS = 6,
    A_FTOI = 7,
    A_ITOF = 8,
    A_ADD = 12,
    A_SUB = 13,
    A_SHR = 14,
    A_ASR = 15,
    A_ROR = 16,
    A_SHL = 17,
    A_MIN = 18,
    A_MAX = 19,
    A_AND = 20,
    A_OR = 21,
    A_XOR = 22,
    A_NOT = 23,
    A_CLZ = 24,
    A_V8ADDS = 30,
    A_V8SUBS = 31,
};

enum mul_op : uint32_t {
    M_NOP = 0,
    M_FMUL = 1,
    M_MUL24 = 2,
    M_V8MULD = 3,
    M_V8MIN = 4,
    M_V8MAX = 5,
    M_V8ADDS = 6,
    M_V8SUBS = 7,
};

/*! Input muxes: accumulators r0..r5, or the A/B register file read port. */
enum mux : uint32_t { MUX_R0 = 0, MUX_R4 = 4, MUX_R5 = 5, MUX_A = 6, MUX_B = 7 };

/*! Read addresses (raddr_a / raddr_b); 0..31 are the register files. */
enum raddr : uint32_t {
    R_UNIF = 32,
    R_VARY = 35,
    R_ELEM_QPU = 38, // A: element number, B: QPU number
    R_NOP = 39,
    R_XY_COORD = 41,
    R_MS_REV_FLAGS = 42,
    R_VPM = 48,
    R_VPM_BUSY = 49, // A: VPM read busy, B: VPM write busy
    R_VPM_WAIT = 50, // A: wait for VDR DMA, B: wait for VDW DMA
    R_MUTEX = 51,
};

/*! Write addresses (waddr_add / waddr_mul); 0..31 are the register files. */
enum waddr : uint32_t {
    W_R0 = 32,
    W_R1 = 33,
    W_R2 = 34,
    W_R3 = 35,
    W_TMU_NOSWAP = 36,
    W_R5 = 37, // A: per quad, B: broadcast (replicate)
    W_HOST_INT = 38,
    W_NOP = 39,
    W_UNIF_ADDR = 40,
    W_QUAD_XY = 41,
    W_MS_FLAGS = 42,
    W_TLB_STENCIL = 43,
    W_TLB_Z = 44,
    W_TLB_COLOR_MS = 45,
    W_TLB_COLOR_ALL = 46,
    W_TLB_ALPHA_MASK = 47,
    W_VPM = 48,
    W_VPM_SETUP = 49, // A: VPM read setup (and VDR), B: VPM write setup (and VDW)
    W_VPM_ADDR = 50,  // A: VDR memory address (starts the load), B: VDW address
    W_MUTEX_RELEASE = 51,
    W_SFU_RECIP = 52,
    W_SFU_RECIPSQRT = 53,
    W_SFU_EXP = 54,
    W_SFU_LOG = 55,
    W_TMU0_S = 56,
    W_TMU0_T = 57,
    W_TMU0_R = 58,
    W_TMU0_B = 59,
    W_TMU1_S = 60,
    W_TMU1_T = 61,
    W_TMU1_R = 62,
    W_TMU1_B = 63,
};

/*! Pack codes with pm = 0 (applied to a regfile-A write). */
enum pack_a : uint32_t {
    PACK_NOP = 0,
    PACK_16A = 1,
    PACK_16B = 2,
    PACK_8888 = 3,
    PACK_8A = 4,
    PACK_8B = 5,
    PACK_8C = 6,
    PACK_8D = 7,
    PACK_32_SAT = 8,
    PACK_16A_SAT = 9,
    PACK_16B_SAT = 10,
    PACK_8888_SAT = 11,
    PACK_8A_SAT = 12,
    PACK_8B_SAT = 13,
    PACK_8C_SAT = 14,
    PACK_8D_SAT = 15,
};

/*! Unpack codes (regfile-A reads with pm = 0, r4 reads with pm = 1). The
 * guide's table 8 is wrong here; these are the corrected values (Idein/py-videocore,
 * APPENDIX.rst). */
enum unpack : uint32_t {
    UNPACK_NOP = 0,
    UNPACK_16A = 1,
    UNPACK_16B = 2,
    UNPACK_8D_REP = 3,
    UNPACK_8A = 4,
    UNPACK_8B = 5,
    UNPACK_8C = 6,
    UNPACK_8D = 7,
};

/*! Small immediate codes 48..63 rotate the mul result (the operand then
 * reads as -16..-1). 48 rotates by r5 element 0, 49..63 by 1..15. */
constexpr uint32_t SMALL_IMM_ROTATE_R5 = 48;
constexpr uint32_t SMALL_IMM_ROTATE_1 = 49;

/*! Value of a small immediate code 0..47 as read by an ALU input. */
constexpr uint32_t small_immediate_value(uint32_t code)
{
    if (code < 16)
        return code;
    if (code < 32 || code >= 48)
        return uint32_t(int32_t(code & 15) - 16); // 16..31 and 48..63: -16..-1
    if (code < 40)
        return uint32_t(127 + (code - 32)) << 23; // 1.0 .. 128.0
    return uint32_t(127 - 8 + (code - 40)) << 23; // 1/256 .. 1/2
}

constexpr uint32_t NUM_SEMAPHORES = 16;
constexpr uint32_t SIMD_WIDTH = 16;
constexpr uint32_t INSTRUCTION_BYTES = 8;
/*! Branch targets are relative to the instruction after the 3 delay slots. */
constexpr uint32_t BRANCH_DELAY_SLOTS = 3;
/*! Instructions that still run after a thread end (thrend). */
constexpr uint32_t THREAD_END_DELAY_SLOTS = 2;

// Mnemonics, indexed by the field value; nullptr where the code is unused.
extern const char* const add_op_names[32];
extern const char* const mul_op_names[8];
extern const char* const sig_names[16];
extern const char* const cond_names[8];    // "" for always
extern const char* const cond_br_names[16]; // "" for always
extern const char* const pack_a_names[16];
extern const char* const pack_mul_names[16];
extern const char* const unpack_names[8];

/*! Operand count of an add op (0 for nop, 1 for unary ops, else 2). */
unsigned add_op_operands(uint32_t op);
unsigned mul_op_operands(uint32_t op);

/*! Names of read addresses 32..63 for port A and B; nullptr if none. */
const char* read_name(uint32_t addr, bool file_b);
/*! Names of write addresses 32..63 for file A and B; nullptr if none. */
const char* write_name(uint32_t addr, bool file_b);

} // namespace qpu::isa

#endif
