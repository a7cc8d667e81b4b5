// SPDX-License-Identifier: GPL-3.0-or-later
/* Mnemonic tables for the fields declared in qpu_isa.h. */
#include "qpu_isa.h"

namespace qpu::isa {

const char* const add_op_names[32] = {
    "nop", "fadd", "fsub", "fmin", "fmax", "fminabs", "fmaxabs", "ftoi",
    "itof", nullptr, nullptr, nullptr, "add", "sub", "shr", "asr",
    "ror", "shl", "min", "max", "and", "or", "xor", "not",
    "clz", nullptr, nullptr, nullptr, nullptr, nullptr, "v8adds", "v8subs",
};

const char* const mul_op_names[8] = {
    "nop", "fmul", "mul24", "v8muld", "v8min", "v8max", "v8adds", "v8subs",
};

const char* const sig_names[16] = {
    "bkpt", nullptr, "thrsw", "thrend", "sbwait", "sbdone", "lthrsw", "loadcv",
    "loadc", "ldcend", "ldtmu0", "ldtmu1", "loadam", nullptr, nullptr, nullptr,
};

const char* const cond_names[8] = {"never", "", "ifz", "ifnz", "ifn", "ifnn", "ifc", "ifnc"};

const char* const cond_br_names[16] = {
    "allz", "allnz", "anyz", "anynz", "alln", "allnn", "anyn", "anynn",
    "allc", "allnc", "anyc", "anync", nullptr, nullptr, nullptr, "",
};

const char* const pack_a_names[16] = {
    "", "16a", "16b", "8888", "8a", "8b", "8c", "8d",
    "32s", "16as", "16bs", "8888s", "8as", "8bs", "8cs", "8ds",
};

// With pm = 1 the mul ALU output packs float [0, 1] to 8-bit colour.
const char* const pack_mul_names[16] = {
    "", nullptr, nullptr, "8888", "8a", "8b", "8c", "8d",
    nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
};

const char* const unpack_names[8] = {"", "16a", "16b", "8dr", "8a", "8b", "8c", "8d"};

unsigned add_op_operands(uint32_t op)
{
    if (op == A_NOP)
        return 0;
    return (op == A_FTOI || op == A_ITOF || op == A_NOT || op == A_CLZ) ? 1 : 2;
}

unsigned mul_op_operands(uint32_t op) { return op == M_NOP ? 0 : 2; }

const char* read_name(uint32_t addr, bool file_b)
{
    switch (addr) {
    case R_UNIF: return "unif";
    case R_VARY: return "vary";
    case R_ELEM_QPU: return file_b ? "qpu_num" : "elem_num";
    case R_NOP: return "nop";
    case R_XY_COORD: return file_b ? "y_coord" : "x_coord";
    case R_MS_REV_FLAGS: return file_b ? "rev_flag" : "ms_flags";
    case R_VPM: return "vpm";
    case R_VPM_BUSY: return file_b ? "vw_busy" : "vr_busy";
    case R_VPM_WAIT: return file_b ? "vw_wait" : "vr_wait";
    case R_MUTEX: return "mutex";
    default: return nullptr;
    }
}

const char* write_name(uint32_t addr, bool file_b)
{
    static const char* const names[32] = {
        "r0", "r1", "r2", "r3", "tmu_noswap", nullptr, "host_int", "nop",
        "unif_addr", nullptr, "ms_flags", "tlb_stencil", "tlb_z", "tlb_color_ms", "tlb_color", "tlb_alpha",
        "vpm", nullptr, nullptr, "mutex", "sfu_recip", "sfu_recipsqrt", "sfu_exp", "sfu_log",
        "tmu0_s", "tmu0_t", "tmu0_r", "tmu0_b", "tmu1_s", "tmu1_t", "tmu1_r", "tmu1_b",
    };
    switch (addr) {
    case W_R5: return file_b ? "r5" : "r5quad";
    case W_QUAD_XY: return file_b ? "quad_y" : "quad_x";
    case W_VPM_SETUP: return file_b ? "vw_setup" : "vr_setup";
    case W_VPM_ADDR: return file_b ? "vw_addr" : "vr_addr";
    default: return addr >= 32 && addr < 64 ? names[addr - 32] : nullptr;
    }
}

} // namespace qpu::isa
