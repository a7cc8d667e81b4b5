// SPDX-License-Identifier: GPL-3.0-or-later
/* The hazard checker: one small program per rule, caught statically
 * (check_program) and while emulating; a clean program passes both; the
 * FFT program the qpu backend uploads (every size's bodies) passes the
 * static check, and fails it with one instruction altered. */
#include "qa_qpu_tools.h"
#include "emu/hazards.h"
#include "shaders/shader_table.h"

#include <qpu/shaders/fft.h>

using namespace qa_qpu;

class qa_hazards : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(qa_hazards);
    CPPUNIT_TEST(each_rule);
    CPPUNIT_TEST(clean_program);
    CPPUNIT_TEST(paths_end_at_unconditional_branches);
    CPPUNIT_TEST(fft_program);
    CPPUNIT_TEST(fft_program_altered);
    CPPUNIT_TEST_SUITE_END();

public:
    void each_rule()
    {
        struct {
            std::string source, message;
        } cases[] = {
            {"ldi ra1, 1\nadd r0, ra1, 1\n", "reads regfile A register 1 written by the previous instruction"},
            {"ldi rb1, 1\nadd r0, rb1, r0\n", "reads regfile B register 1"},
            {"ldi r0, 1.0\nmov sfu_recip, r0\nmov r1, r4\n", "reads r4 within two instructions of an SFU write"},
            {"ldi r0, 1.0\nmov sfu_recip, r0\nnop\nmov sfu_log, r0\n", "writes r4 (SFU or TMU load) within two"},
            {"ldi r0, 0x100\nmov tmu0_s, r0\nmov sfu_exp, r0\nnop ; ldtmu0\n", "writes r4 (SFU or TMU load)"},
            {"mov r0, elem_num\nnop ; mov.rot2 r1, r0\n", "vector rotate of r0 written by the previous instruction"},
            {"ldi r5, 3\nnop ; mov.rotr5 r1, r0\n", "vector rotate by r5 right after a write to r5"},
            {"ldi r0, 0x100\nmov tmu0_s, r0 ; mov sfu_recip, r0\nnop ; ldtmu0\n", "more than one TMU, SFU"},
            {"ldi r0, 0x100\nmov r1, mutex ; mov tmu0_s, r0\nnop ; ldtmu0\nmov mutex, r0\n", "more than one TMU, SFU"},
            {"ldi unif_addr, 0x8000\nnop\nmov r0, unif\n", "reads a uniform within two instructions of a unif_addr write"},
            {"mov tmu_noswap, 0\nnop\nldi r0, 0x100\nmov tmu0_s, r0\nnop ; ldtmu0\n", "TMU write within three instructions of a tmu_noswap"},
            {"mov r0, vary\n", "reads varyings"},
            {"sub.setf r0, elem_num, 3\nldi r1, 0x100\nmov.ifz tmu0_s, r1\nnop ; ldtmu0\n", "conditional TMU or VPM write"},
            {"ldi r0, 0x100\nmov tmu0_s, r0\nmov tmu0_s, r0\nmov tmu0_s, r0\nmov tmu0_s, r0\nmov tmu0_s, r0\n",
             "TMU0 FIFO overflow"},
            {"nop ; ldtmu1\n", "ldtmu1 with no TMU1 request outstanding"},
            {"brr . + 32\nbrr . + 32\nnop\nnop\nnop\n", "branch within two instructions of another branch"},
            {"brr . + 32\nnop ; thrend\nnop\nnop\n", "thread end in a branch delay slot"},
            {"brr . + 32, ra3\nnop\nnop\nnop\n", "branch with an odd raddr_a"},
            {"nop ; thrend\nmov r0, unif\nnop\n", "uniform or VPM access in a thread end delay slot"},
            {"nop ; thrend\nnop\nmov vpm, r0\n", "uniform or VPM access in a thread end delay slot"},
            {"nop ; thrend\nmov ra14, r0\nnop\n", "regfile address 14 used in a thread end delay slot"},
            {"nop ; thrend\nnop ; thrsw\nnop\n", "signal in a thread end delay slot"},
            {"nop ; thrend\nnop\nsrel 1\n", "semaphore access in a thread end delay slot"},
            {"mov ra1, r0 ; thrend\nnop\nnop\n", "thread end writes regfile register 1"},
        };
        for (const auto& c : cases) {
            std::vector<uint64_t> code = assemble(c.source);
            std::vector<qpu::emu::program_hazard> found = qpu::emu::check_program(code);
            CPPUNIT_ASSERT_MESSAGE("static, no hazard in:\n" + c.source, !found.empty());
            CPPUNIT_ASSERT_MESSAGE(found[0].message, found[0].message.find(c.message) != std::string::npos);
            // The same program faults in the emulator (it runs to the hazard).
            qpu::emu::emulator gpu(small_config());
            auto res = launch(gpu, c.source + END);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(c.source + res.message, qpu::emu::stop_reason::fault, res.reason);
            CPPUNIT_ASSERT_MESSAGE(res.message, res.message.find("hazard: " + c.message) != std::string::npos);
        }
    }

    void clean_program()
    {
        const std::string src = R"(
    mov r0, unif
    mov ra1, unif
    shl r1, elem_num, 2
    add r0, r0, r1
    mov tmu0_s, r0
    add r2, ra1, 1
    nop ; ldtmu0
    fadd r1, r4, r4
    mov sfu_recip, r1
    nop
    nop
    mov ra2, r4
    nop ; mov.rot1 r3, r1
    brr . + 32
    nop
    nop
    nop
    mov.setf r0, ra2
)" + END;
        std::vector<uint64_t> code = assemble(src);
        std::vector<qpu::emu::program_hazard> found = qpu::emu::check_program(code);
        CPPUNIT_ASSERT_MESSAGE(found.empty() ? "" : found[0].message, found.empty());
        qpu::emu::emulator gpu(small_config());
        float one = 1.0f;
        gpu.write_memory(DATA, std::vector<float>(16, one).data(), 64);
        auto res = launch(gpu, src, {DATA, 5});
        CPPUNIT_ASSERT_EQUAL_MESSAGE(res.message, qpu::emu::stop_reason::idle, res.reason);
        CPPUNIT_ASSERT_EQUAL(0.5f, real(gpu.qpu_registers(0).ra[2][3]));
    }

    // Execution does not fall through an unconditional branch's last delay
    // slot (or a thread end's), so a regfile write there and a read of it
    // just after are no hazard; inside the delay slots, and after a
    // conditional branch, the same pair is one.
    void paths_end_at_unconditional_branches()
    {
        const std::string clean[] = {
            "    brr skip\n    nop\n    nop\n    mov ra1, 1\nother:\n    add r0, ra1, 1\nskip:\n    nop\n" + END,
            "    bra ra2, 0x1000\n    nop\n    nop\n    mov ra1, 1\n    add r0, ra1, 1\n" + END,
            "    nop ; thrend\n    nop\n    mov ra1, 1\n    add r0, ra1, 1\n" + END,
        };
        for (const std::string& source : clean) {
            std::vector<qpu::emu::program_hazard> found = qpu::emu::check_program(assemble(source));
            CPPUNIT_ASSERT_MESSAGE(source + (found.empty() ? "" : found[0].message), found.empty());
        }
        // The first one also runs clean.
        qpu::emu::emulator gpu(small_config());
        auto res = launch(gpu, clean[0]);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(res.message, qpu::emu::stop_reason::idle, res.reason);

        const std::string hazardous[] = {
            "    brr skip\n    mov ra1, 1\n    add r0, ra1, 1\n    nop\nskip:\n    nop\n" + END,
            "    brr.anyz skip\n    nop\n    nop\n    mov ra1, 1\n    add r0, ra1, 1\nskip:\n    nop\n" + END,
        };
        for (const std::string& source : hazardous) {
            std::vector<qpu::emu::program_hazard> found = qpu::emu::check_program(assemble(source));
            CPPUNIT_ASSERT_EQUAL_MESSAGE(source, size_t(1), found.size());
            CPPUNIT_ASSERT_EQUAL(size_t(2 + (source.find("anyz") != std::string::npos) * 2), found[0].index);
            CPPUNIT_ASSERT_MESSAGE(found[0].message,
                                   found[0].message.find("reads regfile A register 1 written by the previous") !=
                                       std::string::npos);
        }
    }

    // fft.qasm is one program for every size (a pass's body is picked by a
    // uniform), so checking it once in address order checks every body the
    // backend can run; make_fft_shader hands each size that same program.
    void fft_program()
    {
        const std::vector<uint64_t> program(qpu::shaders::fft, qpu::shaders::fft + qpu::shaders::fft_size);
        for (unsigned log2n = 8; log2n <= 22; ++log2n)
            for (unsigned qpus : {1u, 12u, 16u})
                CPPUNIT_ASSERT_MESSAGE("2^" + std::to_string(log2n) + " on " + std::to_string(qpus) + " QPUs",
                                       gpufft::qpu::make_fft_shader(log2n, qpus).code == program);
        const std::vector<qpu::emu::program_hazard> found = qpu::emu::check_program(program);
        std::string report;
        for (const auto& h : found)
            report += "\n  " + std::to_string(h.index) + ": " + h.message;
        CPPUNIT_ASSERT_MESSAGE(std::to_string(found.size()) + " hazards in fft.qasm:" + report, found.empty());
    }

    // The same check finds a hazard put into the FFT program: an instruction
    // that leaves the add ALU idle made to write a regfile A register the
    // next instruction reads (rule 1), and a VPM write made conditional
    // (rule 7), each at the first place in the program where it fits.
    void fft_program_altered()
    {
        using namespace qpu::isa;
        const std::vector<uint64_t> program(qpu::shaders::fft, qpu::shaders::fft + qpu::shaders::fft_size);
        auto plain_alu = [](uint64_t w) { return SIG.get(w) == SIG_NONE || SIG.get(w) == SIG_SMALL_IMM; };
        auto expect_one = [&](const std::vector<uint64_t>& code, size_t at, const std::string& message) {
            const std::vector<qpu::emu::program_hazard> found = qpu::emu::check_program(code);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(message, size_t(1), found.size());
            CPPUNIT_ASSERT_EQUAL(at, found[0].index);
            CPPUNIT_ASSERT_MESSAGE(found[0].message, found[0].message.find(message) != std::string::npos);
        };

        // Not after a branch's or thread end's delay slots: a path ends there.
        auto after_a_jump = [&](size_t i) {
            for (size_t k = 1; k <= 4 && k <= i; ++k)
                if (SIG.get(program[i - k]) == SIG_BRANCH || SIG.get(program[i - k]) == SIG_PROG_END)
                    return true;
            return false;
        };
        size_t at = 0;
        for (size_t i = 1; i < program.size() && !at; ++i) {
            if (after_a_jump(i))
                continue;
            const uint64_t before = program[i - 1];
            const qpu::emu::instruction_access next = qpu::emu::decode(program[i]);
            if (plain_alu(before) && plain_alu(program[i]) && OP_ADD.get(before) == A_NOP && !WS.get(before) &&
                (next.reads_a.bits & 0xffffffffu) && !qpu::emu::decode(before).writes_a.any())
                at = i;
        }
        CPPUNIT_ASSERT_MESSAGE("no idle add ALU before a regfile A read", at > 0);
        std::vector<uint64_t> altered = program;
        uint32_t read = 0;
        while (!qpu::emu::decode(program[at]).reads_a[read])
            ++read;
        OP_ADD.set(altered[at - 1], A_OR); // mov ra<read>, r0
        ADD_A.set(altered[at - 1], MUX_R0);
        ADD_B.set(altered[at - 1], MUX_R0);
        WADDR_ADD.set(altered[at - 1], read);
        COND_ADD.set(altered[at - 1], COND_ALWAYS);
        expect_one(altered, at, "reads regfile A register " + std::to_string(read) + " written by the previous");

        at = 0;
        for (size_t i = 0; i < program.size() && !at; ++i)
            if (plain_alu(program[i]) && OP_ADD.get(program[i]) != A_NOP && !WS.get(program[i]) &&
                WADDR_ADD.get(program[i]) == W_VPM)
                at = i;
        CPPUNIT_ASSERT_MESSAGE("no VPM write from the add ALU", at > 0);
        altered = program;
        COND_ADD.set(altered[at], COND_ZS);
        expect_one(altered, at, "conditional TMU or VPM write");
    }
};

CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_hazards, "hazards");
