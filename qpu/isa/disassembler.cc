// SPDX-License-Identifier: GPL-3.0-or-later
/* The disassembler: field tables to text. Every line is checked by
 * encoding it again; a word our syntax cannot express exactly prints as
 * `.inst 0x...`, so the output always reassembles to the same words. */
#include "syntax.h"
#include "text.h"

#include <cinttypes>
#include <cstdio>
#include <map>
#include <set>

namespace qpu::isa {

namespace {

std::string hex32(uint32_t v)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08" PRIx32, v);
    return buf;
}

std::string raw(uint64_t word)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, ".inst 0x%016" PRIx64, word);
    return buf;
}

std::string small_immediate_text(uint32_t code)
{
    static const char* const floats[16] = {
        "1.0",
        "2.0",
        "4.0",
        "8.0",
        "16.0",
        "32.0",
        "64.0",
        "128.0",
        "0.00390625",
        "0.0078125",
        "0.015625",
        "0.03125",
        "0.0625",
        "0.125",
        "0.25",
        "0.5",
    };
    if (code >= 32 && code < 48)
        return floats[code - 32];
    return std::to_string(int32_t(small_immediate_value(code)));
}

/*! The register written by `addr` in file A or B, with its pack suffix. */
std::string destination(uint32_t addr, bool file_b, const char* pack)
{
    std::string name = addr < 32 ? std::string(file_b ? "rb" : "ra") + std::to_string(addr)
                                 : std::string(write_name(addr, file_b) ? write_name(addr, file_b) : "?");
    return pack && *pack ? name + "." + pack : name;
}

/*! The add or mul destination of an ALU or load-immediate word, with the
 * pack that applies to it (pm = 0: regfile-A writes; pm = 1: mul results). */
std::string half_destination(uint64_t w, bool is_mul)
{
    bool file_b = (WS.get(w) == 1) != is_mul;
    uint32_t addr = (is_mul ? WADDR_MUL : WADDR_ADD).get(w);
    const char* pack = nullptr;
    if (PM.get(w) == 0 && !file_b && addr < 32)
        pack = pack_a_names[PACK.get(w)];
    else if (PM.get(w) == 1 && is_mul)
        pack = pack_mul_names[PACK.get(w)];
    return destination(addr, file_b, pack);
}

std::string conditions(uint32_t cond)
{
    return cond == COND_ALWAYS ? "" : std::string(".") + cond_names[cond];
}

std::string input(uint64_t w, uint32_t mux)
{
    uint32_t sig = SIG.get(w), pm = PM.get(w), unpack = UNPACK.get(w);
    if (mux < MUX_A) {
        std::string r = "r" + std::to_string(mux);
        return mux == MUX_R4 && pm == 1 && unpack ? r + "." + unpack_names[unpack] : r;
    }
    if (mux == MUX_B && sig == SIG_SMALL_IMM)
        return small_immediate_text(RADDR_B.get(w));
    bool file_b = mux == MUX_B;
    uint32_t addr = file_b ? RADDR_B.get(w) : RADDR_A.get(w);
    if (addr < 32) {
        std::string r = (file_b ? "rb" : "ra") + std::to_string(addr);
        return !file_b && pm == 0 && unpack ? r + "." + unpack_names[unpack] : r;
    }
    const char* name = read_name(addr, file_b);
    return name ? name : "?";
}

std::string alu_half(uint64_t w, bool is_mul)
{
    uint32_t op = (is_mul ? OP_MUL : OP_ADD).get(w);
    const char* name = is_mul ? mul_op_names[op] : add_op_names[op];
    if (!name)
        return "?";
    if (op == 0)
        return "nop";
    const field& mux_a = is_mul ? MUL_A : ADD_A;
    const field& mux_b = is_mul ? MUL_B : ADD_B;
    unsigned inputs = is_mul ? mul_op_operands(op) : add_op_operands(op);
    bool is_mov = (is_mul ? op == M_V8MIN : op == A_OR) && mux_a.get(w) == mux_b.get(w);
    std::string text = is_mov ? "mov" : name;
    text += conditions((is_mul ? COND_MUL : COND_ADD).get(w));
    if (SF.get(w) && (is_mul ? OP_ADD.get(w) == A_NOP : true))
        text += ".setf";
    if (is_mul && SIG.get(w) == SIG_SMALL_IMM && RADDR_B.get(w) >= SMALL_IMM_ROTATE_R5) {
        uint32_t code = RADDR_B.get(w);
        text += code == SMALL_IMM_ROTATE_R5 ? ".rotr5" : ".rot" + std::to_string(code - SMALL_IMM_ROTATE_R5);
    }
    text += " " + half_destination(w, is_mul);
    text += ", " + input(w, mux_a.get(w));
    if (inputs == 2 && !is_mov)
        text += ", " + input(w, mux_b.get(w));
    return text;
}

std::string alu(uint64_t w)
{
    uint32_t sig = SIG.get(w);
    std::string add = alu_half(w, false);
    std::string text = add;
    bool mul_present = OP_MUL.get(w) != M_NOP || COND_MUL.get(w) != COND_NEVER ||
                       WADDR_MUL.get(w) != W_NOP;
    if (mul_present) {
        std::string mul = alu_half(w, true);
        uint32_t op = OP_MUL.get(w);
        bool mul_only = op == M_FMUL || op == M_MUL24 || op == M_V8MULD || op == M_V8MIN || op == M_V8MAX;
        bool shorthand = add == "nop" && mul_only && mul.rfind("mov", 0) != 0;
        text = shorthand ? mul : add + " ; " + mul;
    }
    if (sig != SIG_NONE && sig != SIG_SMALL_IMM)
        text += std::string(" ; ") + (sig_names[sig] ? sig_names[sig] : "?");
    return text;
}

std::string load_immediate(uint64_t w)
{
    uint32_t mode = LDI_MODE.get(w), imm = IMMEDIATE.get(w);
    if (mode == LDI_SEMAPHORE)
        return std::string(SEMA_ACQUIRE.get(w) ? "sacq " : "srel ") + std::to_string(SEMA_ID.get(w));
    std::string mnemonic = mode == LDI_32 ? "ldi" : mode == LDI_PER_ELEMENT_SIGNED ? "ldis"
                                                                                   : "ldiu";
    std::string value;
    if (mode == LDI_32) {
        value = hex32(imm);
    } else {
        value = "[";
        for (unsigned e = 0; e < SIMD_WIDTH; ++e) {
            int v = int(((imm >> e) & 1) | (((imm >> (16 + e)) & 1) << 1));
            if (mode == LDI_PER_ELEMENT_SIGNED && v >= 2)
                v -= 4;
            value += (e ? ", " : "") + std::to_string(v);
        }
        value += "]";
    }
    auto half = [&](bool is_mul) {
        std::string text = mnemonic + conditions((is_mul ? COND_MUL : COND_ADD).get(w));
        if (!is_mul && SF.get(w))
            text += ".setf";
        return text + " " + half_destination(w, is_mul) + ", " + value;
    };
    std::string text = half(false);
    if (COND_MUL.get(w) != COND_NEVER || WADDR_MUL.get(w) != W_NOP)
        text += " ; " + half(true);
    return text;
}

std::string branch(uint64_t w, const std::string& target_label)
{
    uint32_t cond = COND_BR.get(w);
    if (!cond_br_names[cond])
        return "?";
    bool relative = BRANCH_REL.get(w);
    std::string text = relative ? "brr" : "bra";
    if (cond != BR_ALWAYS)
        text += std::string(".") + cond_br_names[cond];
    text += " ";
    if (WADDR_ADD.get(w) != W_NOP)
        text += destination(WADDR_ADD.get(w), WS.get(w) == 1, nullptr) + ", ";
    int64_t offset = int64_t(int32_t(IMMEDIATE.get(w))) + (1 + BRANCH_DELAY_SLOTS) * INSTRUCTION_BYTES;
    if (!target_label.empty())
        text += target_label;
    else if (relative)
        text += offset < 0 ? ". - " + std::to_string(-offset) : ". + " + std::to_string(offset);
    else
        text += hex32(IMMEDIATE.get(w));
    if (BRANCH_REG.get(w))
        text += ", ra" + std::to_string(BRANCH_RADDR_A.get(w));
    return text;
}

std::string render(uint64_t w, const std::string& target_label = "")
{
    switch (SIG.get(w)) {
    case SIG_BRANCH:
        return branch(w, target_label);
    case SIG_LOAD_IMM:
        return load_immediate(w);
    default:
        return alu(w);
    }
}

/*! True if the text encodes to `word` as the first line of a program (the
 * assembler's `.` is then 0; no symbols are defined). */
bool reassembles(const std::string& text, uint64_t word)
{
    syntax::instruction_encoder encoder("<disassembly>", [](const std::string& expression) {
        return syntax::evaluate(expression, {}, 0, true, "<disassembly>");
    });
    try {
        return encoder.encode(text) == word;
    } catch (const syntax_error&) {
        return false;
    }
}

} // namespace

std::string disassemble(uint64_t word)
{
    std::string text = render(word);
    return reassembles(text, word) ? text : raw(word);
}

std::string disassemble(const std::vector<uint64_t>& code)
{
    // Labels for relative branch targets inside the program.
    std::map<size_t, std::string> labels;
    for (size_t i = 0; i < code.size(); ++i) {
        uint64_t w = code[i];
        if (SIG.get(w) != SIG_BRANCH || !BRANCH_REL.get(w) || BRANCH_REG.get(w))
            continue;
        int64_t target = int64_t(i * INSTRUCTION_BYTES) + int32_t(IMMEDIATE.get(w)) +
                         (1 + BRANCH_DELAY_SLOTS) * INSTRUCTION_BYTES;
        if (target >= 0 && target % INSTRUCTION_BYTES == 0 && size_t(target) / INSTRUCTION_BYTES <= code.size())
            labels.emplace(size_t(target) / INSTRUCTION_BYTES, "L" + std::to_string(target));
    }
    std::string out;
    for (size_t i = 0; i <= code.size(); ++i) {
        if (labels.count(i))
            out += labels[i] + ":\n";
        if (i == code.size())
            break;
        std::string line = disassemble(code[i]);
        auto label = labels.end();
        uint64_t w = code[i];
        if (SIG.get(w) == SIG_BRANCH && BRANCH_REL.get(w) && !BRANCH_REG.get(w) && line[0] != '.') {
            int64_t target = int64_t(i * INSTRUCTION_BYTES) + int32_t(IMMEDIATE.get(w)) +
                             (1 + BRANCH_DELAY_SLOTS) * INSTRUCTION_BYTES;
            if (target >= 0 && target % INSTRUCTION_BYTES == 0)
                label = labels.find(size_t(target) / INSTRUCTION_BYTES);
        }
        if (label != labels.end())
            line = render(w, label->second);
        out += "    " + line + "\n";
    }
    return out;
}

} // namespace qpu::isa
