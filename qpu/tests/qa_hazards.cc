/* The hazard checker: one small program per rule, caught statically
 * (check_program) and while emulating; a clean program passes both. */
#include "qa_qpu_tools.h"
#include "emu/hazards.h"

using namespace qa_qpu;

class qa_hazards : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(qa_hazards);
    CPPUNIT_TEST(each_rule);
    CPPUNIT_TEST(clean_program);
    CPPUNIT_TEST(paths_end_at_unconditional_branches);
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
};

CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_hazards, "hazards");
