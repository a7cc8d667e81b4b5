// SPDX-License-Identifier: GPL-3.0-or-later
/* Assembler and disassembler: field encodings against words built from the
 * encoding tables (the guide's section 3, pp. 26-29; qpu/README.md lists
 * the sources), round trips, and error messages. */
#include "qa_qpu_tools.h"

#include <cstdio>
#include <fstream>
#include <random>

using qpu::assembler::assemble;
using qpu::isa::disassemble;

namespace {

/*! An ALU instruction word from the table's bit positions, written out
 * independently of qpu_isa.h. */
struct alu_word {
    uint64_t sig = 1, unpack = 0, pm = 0, pack = 0, cond_add = 0, cond_mul = 0, sf = 0, ws = 0;
    uint64_t waddr_add = 39, waddr_mul = 39, op_mul = 0, op_add = 0, raddr_a = 39, raddr_b = 39;
    uint64_t add_a = 0, add_b = 0, mul_a = 0, mul_b = 0;
    uint64_t word() const
    {
        return sig << 60 | unpack << 57 | pm << 56 | pack << 52 | cond_add << 49 | cond_mul << 46 | sf << 45 |
               ws << 44 | waddr_add << 38 | waddr_mul << 32 | op_mul << 29 | op_add << 24 | raddr_a << 18 |
               raddr_b << 12 | add_a << 9 | add_b << 6 | mul_a << 3 | mul_b;
    }
};

uint64_t one(const std::string& line)
{
    std::vector<uint64_t> code = qa_qpu::assemble(line);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(line, size_t(1), code.size());
    return code[0];
}

#define CHECK_WORD(expected, line)                                                                  \
    do {                                                                                            \
        char msg_[256];                                                                             \
        std::snprintf(msg_, sizeof msg_, "%s: want %016llx", std::string(line).c_str(),              \
                      (unsigned long long)(expected));                                              \
        CPPUNIT_ASSERT_EQUAL_MESSAGE(msg_, uint64_t(expected), one(line));                          \
    } while (0)

void expect_error(const std::string& source, const std::string& where, const std::string& text)
{
    try {
        assemble(source, "t.qasm");
    } catch (const qpu::assembler::error& e) {
        std::string m = e.what();
        CPPUNIT_ASSERT_MESSAGE(source + " -> " + m, m.rfind(where, 0) == 0);
        CPPUNIT_ASSERT_MESSAGE(source + " -> " + m, m.find(text) != std::string::npos);
        return;
    }
    CPPUNIT_FAIL("no error for: " + source);
}

} // namespace

class qa_asm_fields : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(qa_asm_fields);
    CPPUNIT_TEST(known_words);
    CPPUNIT_TEST(alu_fields);
    CPPUNIT_TEST(every_opcode);
    CPPUNIT_TEST(conditions_and_signals);
    CPPUNIT_TEST(pack_unpack);
    CPPUNIT_TEST(small_immediates);
    CPPUNIT_TEST(load_immediates);
    CPPUNIT_TEST(branches);
    CPPUNIT_TEST(directives);
    CPPUNIT_TEST_SUITE_END();

public:
    void known_words()
    {
        // Widely published encodings (Mesa's NOP, GPU_FFT's thread end).
        CHECK_WORD(0x100009e7009e7000ull, "nop");
        CHECK_WORD(0x300009e7009e7000ull, "nop ; thrend");
        CHECK_WORD(0x1002082715827d80ull, "mov r0, unif");
    }

    void alu_fields()
    {
        alu_word w;
        w.cond_add = w.cond_mul = 1;
        w.waddr_add = 1;
        w.waddr_mul = 2;
        w.op_add = 1;
        w.op_mul = 1;
        w.add_b = 1;
        w.mul_a = 2;
        w.mul_b = 3;
        CHECK_WORD(w.word(), "fadd ra1, r0, r1 ; fmul rb2, r2, r3");
        // ws: the add result goes to regfile B, the mul result to A.
        w.ws = 1;
        CHECK_WORD(w.word(), "fadd rb1, r0, r1 ; fmul ra2, r2, r3");
        // Read ports: raddr_a, raddr_b, muxes 6 and 7; sf.
        alu_word v;
        v.cond_add = 1;
        v.sf = 1;
        v.op_add = 12;
        v.waddr_add = 33;
        v.raddr_a = 5;
        v.raddr_b = 31;
        v.add_a = 6;
        v.add_b = 7;
        CHECK_WORD(v.word(), "add.setf r1, ra5, rb31");
        // A peripheral readable from either port goes to a free one.
        alu_word u;
        u.cond_add = 1;
        u.op_add = 21;
        u.waddr_add = 0;
        u.raddr_a = 3;
        u.raddr_b = 32;
        u.add_a = 6;
        u.add_b = 7;
        CHECK_WORD(u.word(), "or ra0, ra3, unif");
        // Write-only names fix the file: vw_setup is on B, vr_setup on A.
        alu_word s;
        s.cond_add = s.cond_mul = 1;
        s.ws = 1;
        s.op_add = 21;
        s.op_mul = 4;
        s.waddr_add = 49;
        s.waddr_mul = 49;
        s.raddr_a = 1;
        s.raddr_b = 2;
        s.add_a = s.add_b = 6;
        s.mul_a = s.mul_b = 7;
        CHECK_WORD(s.word(), "mov vw_setup, ra1 ; mov vr_setup, rb2");
        // elem_num is only on port A, qpu_num only on B.
        alu_word e;
        e.cond_add = e.cond_mul = 1;
        e.op_add = 8;
        e.op_mul = 4;
        e.waddr_add = 32;
        e.waddr_mul = 33;
        e.raddr_a = 38;
        e.raddr_b = 38;
        e.add_a = 6;
        e.mul_a = e.mul_b = 7;
        CHECK_WORD(e.word(), "itof r0, elem_num ; mov r1, qpu_num");
    }

    void every_opcode()
    {
        const char* add_ops[] = {"fadd", "fsub", "fmin", "fmax", "fminabs", "fmaxabs", "ftoi", "itof", "add", "sub",
                                 "shr", "asr", "ror", "shl", "min", "max", "and", "or", "xor", "not", "clz",
                                 "v8adds", "v8subs"};
        const uint64_t add_codes[] = {1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 30, 31};
        for (size_t i = 0; i < sizeof add_codes / sizeof add_codes[0]; ++i) {
            std::string op = add_ops[i];
            bool unary = op == "ftoi" || op == "itof" || op == "not" || op == "clz";
            alu_word w;
            w.cond_add = 1;
            w.op_add = add_codes[i];
            w.waddr_add = 34;
            w.add_a = 1;
            w.add_b = unary ? 0 : 3;
            CHECK_WORD(w.word(), op + " r2, r1" + (unary ? "" : ", r3"));
        }
        const char* mul_ops[] = {"fmul", "mul24", "v8muld", "v8min", "v8max", "v8adds", "v8subs"};
        for (uint64_t code = 1; code <= 7; ++code) {
            alu_word w;
            w.cond_mul = 1;
            w.op_mul = code;
            w.waddr_mul = 35;
            w.mul_a = 4;
            w.mul_b = 5;
            CHECK_WORD(w.word(), std::string("nop ; ") + mul_ops[code - 1] + " r3, r4, r5");
        }
    }

    void conditions_and_signals()
    {
        const char* conds[] = {"never", "", "ifz", "ifnz", "ifn", "ifnn", "ifc", "ifnc"};
        for (uint64_t c = 0; c < 8; ++c) {
            alu_word w;
            w.cond_add = c;
            w.op_add = 12;
            w.waddr_add = 32;
            w.add_b = 1;
            w.cond_mul = c;
            w.op_mul = 1;
            w.waddr_mul = 33;
            w.mul_a = 2;
            w.mul_b = 3;
            std::string suffix = c == 1 ? "" : std::string(".") + conds[c];
            CHECK_WORD(w.word(), "add" + suffix + " r0, r0, r1 ; fmul" + suffix + " r1, r2, r3");
        }
        const char* sigs[] = {"bkpt", "", "thrsw", "thrend", "sbwait", "sbdone", "lthrsw", "loadcv",
                              "loadc", "ldcend", "ldtmu0", "ldtmu1", "loadam"};
        for (uint64_t s = 0; s <= 12; ++s) {
            if (s == 1)
                continue;
            alu_word w;
            w.sig = s;
            CHECK_WORD(w.word(), std::string("nop ; ") + sigs[s]);
        }
    }

    void pack_unpack()
    {
        const char* packs[] = {"", "16a", "16b", "8888", "8a", "8b", "8c", "8d",
                               "32s", "16as", "16bs", "8888s", "8as", "8bs", "8cs", "8ds"};
        for (uint64_t p = 1; p < 16; ++p) {
            alu_word w;
            w.pack = p;
            w.cond_add = 1;
            w.op_add = 21;
            w.waddr_add = 7;
            CHECK_WORD(w.word(), std::string("mov ra7.") + packs[p] + ", r0");
        }
        // pm = 1: the mul result packs to colour bytes.
        for (uint64_t p = 3; p < 8; ++p) {
            alu_word w;
            w.pm = 1;
            w.pack = p;
            w.cond_mul = 1;
            w.op_mul = 1;
            w.waddr_mul = 32;
            w.mul_b = 1;
            CHECK_WORD(w.word(), std::string("fmul r0.") + packs[p] + ", r0, r1");
        }
        const char* unpacks[] = {"", "16a", "16b", "8dr", "8a", "8b", "8c", "8d"};
        for (uint64_t u = 1; u < 8; ++u) {
            alu_word a; // regfile A, pm = 0
            a.unpack = u;
            a.cond_add = 1;
            a.op_add = 1;
            a.waddr_add = 32;
            a.raddr_a = 9;
            a.add_a = 6;
            a.add_b = 1;
            CHECK_WORD(a.word(), std::string("fadd r0, ra9.") + unpacks[u] + ", r1");
            alu_word r4 = a; // r4, pm = 1
            r4.pm = 1;
            r4.raddr_a = 39;
            r4.add_a = 4;
            CHECK_WORD(r4.word(), std::string("fadd r0, r4.") + unpacks[u] + ", r1");
        }
    }

    void small_immediates()
    {
        auto imm = [](uint64_t code, const std::string& text) {
            alu_word w;
            w.sig = 13;
            w.cond_add = 1;
            w.op_add = 12;
            w.waddr_add = 32;
            w.raddr_b = code;
            w.add_b = 7;
            CHECK_WORD(w.word(), "add r0, r0, " + text);
        };
        imm(0, "0");
        imm(15, "15");
        imm(16, "-16");
        imm(31, "-1");
        imm(32, "1.0");
        imm(39, "128.0");
        imm(40, "0.00390625");
        imm(47, "0.5");
        imm(5, "2 + 3");
        for (uint64_t n = 1; n < 16; ++n) {
            alu_word w;
            w.sig = 13;
            w.cond_mul = 1;
            w.op_mul = 4;
            w.waddr_mul = 33;
            w.raddr_b = 48 + n;
            CHECK_WORD(w.word(), "nop ; mov.rot" + std::to_string(n) + " r1, r0");
        }
        alu_word r5;
        r5.sig = 13;
        r5.cond_mul = 1;
        r5.op_mul = 1;
        r5.waddr_mul = 33;
        r5.raddr_b = 48;
        r5.mul_b = 2;
        CHECK_WORD(r5.word(), "fmul.rotr5 r1, r0, r2");
    }

    void load_immediates()
    {
        // sig 14, mode 59:57, both conditions, the 32-bit value.
        uint64_t base = 0xEull << 60 | 39ull << 32;
        CHECK_WORD(base | 1ull << 49 | 5ull << 38 | 0x12345678, "ldi ra5, 0x12345678");
        CHECK_WORD(base | 1ull << 49 | 1ull << 44 | 5ull << 38 | 0xFFFFFFFF, "ldi rb5, -1");
        CHECK_WORD(base | 2ull << 49 | 1ull << 45 | 32ull << 38 | 0x3F800000, "ldi.ifz.setf r0, 1.0");
        uint64_t two = 0xEull << 60 | 1ull << 49 | 3ull << 46 | 6ull << 38 | 7ull << 32 | 0x40000000;
        CHECK_WORD(two, "ldi ra6, 2.0 ; ldi.ifnz rb7, 2.0");
        // Per element: element i = {imm[16 + i], imm[i]}.
        CHECK_WORD(0xEull << 60 | 1ull << 57 | 1ull << 49 | 32ull << 38 | 39ull << 32 | 0x00050003,
                   "ldis r0, [-1, 1, -2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]");
        CHECK_WORD(0xEull << 60 | 3ull << 57 | 1ull << 49 | 32ull << 38 | 39ull << 32 | 0x80008002,
                   "ldiu r0, [0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3]");
        // Semaphores: mode 4, bits 3:0 the id, bit 4 acquire.
        uint64_t sema = 0xEull << 60 | 4ull << 57 | 39ull << 38 | 39ull << 32;
        CHECK_WORD(sema | 0x13, "sacq 3");
        CHECK_WORD(sema | 0x0F, "srel 15");
    }

    void branches()
    {
        // sig 15, cond_br 55:52, rel 51, reg 50, raddr_a 49:45, ws 44, links, imm.
        uint64_t base = 0xFull << 60 | 39ull << 38 | 39ull << 32;
        const char* conds[] = {"allz", "allnz", "anyz", "anynz", "alln", "allnn", "anyn", "anynn",
                               "allc", "allnc", "anyc", "anync"};
        for (uint64_t c = 0; c < 12; ++c)
            CHECK_WORD(base | c << 52 | 1ull << 51 | 0, std::string("brr.") + conds[c] + " . + 32");
        CHECK_WORD(base | 15ull << 52 | 1ull << 51 | 0xFFFFFFE0, "l: brr l");
        CHECK_WORD(base | 15ull << 52 | 0x100, "bra 0x100");
        uint64_t link = (0xFull << 60 | 15ull << 52 | 1ull << 51 | 1ull << 44 | 3ull << 38 | 39ull << 32 | 8);
        CHECK_WORD(link, "brr rb3, . + 40");
        CHECK_WORD(base | 15ull << 52 | 1ull << 51 | 1ull << 50 | 7ull << 45 | 16, "brr . + 48, ra7");
    }

    void directives()
    {
        std::string src = ".set A, 3\n.set B, A * 4 + 1\n"
                          ".macro twice d, s\n  add \\d, \\s, A\n  add \\d, \\d, A\n.endm\n"
                          "twice r0, r1\n"
                          "lab: add r2, r2, B - 10\n"
                          "ldi r0, lab + (1 << 8) | 0b1\n";
        std::vector<uint64_t> code = qa_qpu::assemble(src);
        CPPUNIT_ASSERT_EQUAL(size_t(4), code.size());
        CPPUNIT_ASSERT_EQUAL(one("add r0, r1, 3"), code[0]);
        CPPUNIT_ASSERT_EQUAL(one("add r0, r0, 3"), code[1]);
        CPPUNIT_ASSERT_EQUAL(one("add r2, r2, 3"), code[2]);
        CPPUNIT_ASSERT_EQUAL(one("ldi r0, 0x111"), code[3]);
        // .include, relative to the including file.
        std::string dir = "/tmp/qa_qpu_include_" + std::to_string(qa_qpu::seed());
        std::system(("mkdir -p " + dir).c_str());
        std::ofstream(dir + "/inc.qinc") << ".set SIZE, 7\n.macro store v\n  mov r3, \\v\n.endm\n";
        std::ofstream(dir + "/main.qasm") << ".include \"inc.qinc\"\nstore SIZE\n";
        qpu::assembler::program p = qpu::assembler::assemble_file(dir + "/main.qasm");
        CPPUNIT_ASSERT_EQUAL(size_t(1), p.code.size());
        CPPUNIT_ASSERT_EQUAL(one("mov r3, 7"), p.code[0]);
        CPPUNIT_ASSERT_EQUAL(int64_t(7), p.symbols.at("SIZE"));
    }
};

class qa_asm_roundtrip : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(qa_asm_roundtrip);
    CPPUNIT_TEST(program);
    CPPUNIT_TEST(random_words);
    CPPUNIT_TEST_SUITE_END();

public:
    void program()
    {
        const std::string src = R"(
start:
    fadd ra1, r0, r1 ; fmul rb2, r2, r3
    add.setf r0, ra1, 4
    mov r0, unif
    fadd.ifz ra1, r0, r1 ; thrsw
    ldi ra1, 0x12345678
    ldi.ifnz r0, -1 ; ldi rb3, -1
    ldis r1, [0, 1, -1, -2, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0]
    ldiu r1, [0, 1, 2, 3, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0]
    fmul r0, r1, 2.0
    nop ; mov.rot3 r1, r0
    fmul.rotr5 r1, r0, r1
    mov vw_setup, ra1 ; mov vr_setup, rb2
    sacq 3
    srel 9
loop:
    brr.anyz loop
    brr ra5, start
    bra 0x100
    brr loop, ra3
    mov ra2.16a, r0
    fadd r0, ra2.16b, r1
    fmul r0.8a, r1, r2
    fadd r0, r4.8dr, r1
    itof r0, elem_num ; mov r1, qpu_num
    mov tmu0_s, r0 ; ldtmu0
    not r0, r1 ; v8adds r2, r3, r4
    v8subs r0, r1, r2 ; v8subs r3, r1, r2
    mov.never r0, r1
    nop ; thrend
    nop
    nop
)";
        std::vector<uint64_t> code = qa_qpu::assemble(src);
        std::string text = disassemble(code);
        CPPUNIT_ASSERT(text.find(".inst") == std::string::npos);
        CPPUNIT_ASSERT(code == qa_qpu::assemble(text));
        for (uint64_t w : code)
            CPPUNIT_ASSERT_EQUAL_MESSAGE(disassemble(w), w, one(disassemble(w)));
    }

    void random_words()
    {
        // Every word comes back, through our syntax or `.inst`: words of a
        // real program with one field set to a random value, and raw noise.
        const std::vector<uint64_t> program = qa_qpu::assemble(
            "fadd ra1, r0, r1 ; fmul rb2, r2, r3\nadd.setf r0, ra1, 4\nldi ra1, 5\n"
            "brr ra5, . + 64\nsacq 3\nmov tmu0_s, r0 ; ldtmu0\nfadd r0, ra2.16b, r1\n");
        const unsigned fields[][2] = {{60, 4}, {57, 3}, {56, 1}, {52, 4}, {49, 3}, {46, 3}, {45, 1}, {44, 1},
                                      {38, 6}, {32, 6}, {29, 3}, {24, 5}, {18, 6}, {12, 6}, {9, 3}, {6, 3},
                                      {3, 3},  {0, 3},  {0, 32}};
        std::mt19937_64 rng(qa_qpu::seed());
        int expressed = 0, total = 0;
        for (int i = 0; i < 3000; ++i, ++total) {
            uint64_t w = rng();
            if (i % 4) {
                const unsigned* f = fields[rng() % (sizeof fields / sizeof fields[0])];
                uint64_t mask = ((uint64_t(1) << f[1]) - 1) << f[0];
                w = (program[rng() % program.size()] & ~mask) | (rng() & mask);
            }
            std::string text = disassemble(w);
            expressed += text.rfind(".inst", 0) != 0;
            CPPUNIT_ASSERT_EQUAL_MESSAGE(text, w, one(text));
        }
        CPPUNIT_ASSERT_MESSAGE(std::to_string(expressed) + " of " + std::to_string(total) + " in our syntax",
                               expressed > total / 3);
    }
};

class qa_asm_errors : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(qa_asm_errors);
    CPPUNIT_TEST(messages);
    CPPUNIT_TEST_SUITE_END();

public:
    void messages()
    {
        expect_error("nop\nfoo r0, r1\n", "t.qasm:2:", "unknown instruction");
        expect_error("nop\n\nadd r9, r0, r1\n", "t.qasm:3:", "bad destination register");
        expect_error("add r0, rx1, r1\n", "t.qasm:1:", "unknown symbol 'rx1'");
        expect_error("add r0, r0, 16\n", "t.qasm:1:", "out of the small immediate range");
        expect_error("fmul r0, r0, 3.0\n", "t.qasm:1:", "not a small immediate");
        expect_error("add r0, ra1, ra2\n", "t.qasm:1:", "read port A conflict");
        expect_error("add r0, rb1, rb2\n", "t.qasm:1:", "read port B conflict");
        expect_error("add r0, rb1, 3\n", "t.qasm:1:", "small immediate");
        expect_error("add r0, elem_num, ra1\n", "t.qasm:1:", "read port A conflict");
        expect_error("add ra0, r0, r1 ; fmul ra1, r0, r1\n", "t.qasm:1:", "write ports conflict");
        expect_error("add r0, r0, 1 ; thrsw\n", "t.qasm:1:", "cannot go with a small immediate");
        expect_error("ldi r0, 0x100000000\n", "t.qasm:1:", "does not fit 32 bits");
        expect_error("ldis r0, [2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]\n", "t.qasm:1:", "out of range -2..1");
        expect_error("sacq 16\n", "t.qasm:1:", "out of range 0..15");
        expect_error("brr.sometimes x\nx:\n", "t.qasm:1:", "unknown branch condition");
        expect_error("mov r4, r0\n", "t.qasm:1:", "r4 cannot be written");
        expect_error("mov r0, vw_setup\n", "t.qasm:1:", "cannot be read");
        expect_error("mov ra1.16q, r0\n", "t.qasm:1:", "pack .16q is not possible");
        expect_error("add r0, r1.16a, r2\n", "t.qasm:1:", "unpack .16a applies only");
        expect_error("fadd r0, r1, r2 ; fmul r0, r1, r2 ; fmul r1, r1, r2\n", "t.qasm:1:", "too many operations");
        expect_error("nop ; fadd r0, r1, r2\n", "t.qasm:1:", "is an add ALU op");
        expect_error("x:\nx:\n", "t.qasm:2:", "defined twice");
        expect_error(".set r0, 1\n", "t.qasm:1:", "register name");
        expect_error(".macro m a\n add r0, \\b, r0\n.endm\nnop\nm r1\n", "t.qasm:2 (macro m at t.qasm:5)",
                     "no parameter 'b'");
        expect_error(".macro m a\n nop\n.endm\nm\n", "t.qasm:4:", "takes 1 arguments");
        expect_error(".include \"missing.qinc\"\n", "t.qasm:1:", "cannot find include file");
        expect_error("nop ; mov.rot16 r0, r1\n", "t.qasm:1:", "rot1..rot15");
        expect_error("fadd.rot3 r0, r1, r2\n", "t.qasm:1:", "only possible on the mul ALU");
        expect_error("add r0, r0, (1 + 2\n", "t.qasm:1:", "missing ')'");
    }
};

CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_asm_fields, "asm_fields");
CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_asm_roundtrip, "asm_roundtrip");
CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_asm_errors, "asm_errors");
