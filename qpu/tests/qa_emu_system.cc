// SPDX-License-Identifier: GPL-3.0-or-later
/* Emulator: branches and program end (emu_control), uniforms, TMU, VPM, DMA,
 * host interrupts and V3D registers (emu_memory), semaphores, mutex,
 * deadlock detection and seeded interleaving (emu_sync). */
#include "qa_qpu_tools.h"

#include <numeric>

using namespace qa_qpu;
using qpu::emu::emulator;
using qpu::emu::stop_reason;

namespace {

std::string reason(const qpu::emu::run_result& r)
{
    return std::string(qpu::emu::to_string(r.reason)) + " " + r.message;
}

/*! VPM setup words, from the bit layouts in vc4asm's share/vc4inc/vc4.qinc. */
uint32_t vpm_generic(unsigned num, unsigned stride, bool horizontal, unsigned addr)
{
    return (num & 15) << 20 | (stride & 63) << 12 | unsigned(horizontal) << 11 | 2u << 8 | addr;
}
uint32_t vdw_basic(unsigned units, unsigned depth, bool horizontal, unsigned y, unsigned x)
{
    return 0x80000000u | (units & 127) << 23 | (depth & 127) << 16 | unsigned(horizontal) << 14 | y << 7 | x << 3;
}
uint32_t vdr_basic(unsigned rowlen, unsigned nrows, unsigned vpitch, bool vertical, unsigned y, unsigned x)
{
    return 0x80000000u | (rowlen & 15) << 20 | (nrows & 15) << 16 | (vpitch & 15) << 12 |
           unsigned(vertical) << 11 | y << 4 | x;
}

} // namespace

class qa_emu_control : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(qa_emu_control);
    CPPUNIT_TEST(delay_slots);
    CPPUNIT_TEST(conditional_branches);
    CPPUNIT_TEST(link_and_return);
    CPPUNIT_TEST(thread_end_delay_slots);
    CPPUNIT_TEST_SUITE_END();

public:
    void delay_slots()
    {
        // The three instructions after a taken branch run; the fourth not.
        auto r = run_one("ldi r0, 0\nbrr target\nadd r0, r0, 1\nadd r0, r0, 1\nadd r0, r0, 1\nadd r0, r0, 8\n"
                         "target:\n" + END);
        CPPUNIT_ASSERT_EQUAL(3u, r.acc[0][0]);
    }

    void conditional_branches()
    {
        // Z only in element 3: anyz is taken, allz is not.
        const std::string src = "ldi r1, 0\nsub.setf r0, elem_num, 3\n"
                                "brr.allz skip1\nnop\nnop\nnop\nadd r1, r1, 1\nskip1:\n"
                                "brr.anyz skip2\nnop\nnop\nnop\nadd r1, r1, 2\nskip2:\n"
                                "brr.anynz skip3\nnop\nnop\nnop\nadd r1, r1, 4\nskip3:\n"
                                "brr.alln skip4\nnop\nnop\nnop\nadd r1, r1, 8\nskip4:\n" + END;
        auto r = run_one(src);
        CPPUNIT_ASSERT_EQUAL(1u + 8u, r.acc[1][0]);
    }

    void link_and_return()
    {
        // brr links the address after its delay slots; bra returns via ra.
        const std::string src = "ldi r0, 0\n"
                                "call: brr ra2, function\nnop\nnop\nnop\n"
                                "back: add r0, r0, 15\n"
                                "brr done\nnop\nnop\nnop\n"
                                "function: add r0, r0, 1\n"
                                "bra 0, ra2\nnop\nnop\nnop\n"
                                "done:\n" + END;
        auto r = run_one(src);
        CPPUNIT_ASSERT_EQUAL(16u, r.acc[0][0]);
        CPPUNIT_ASSERT_EQUAL(CODE + 5 * 8, r.ra[2][0]); // the address of `back`
    }

    void thread_end_delay_slots()
    {
        qpu::emu::emulator gpu(small_config());
        auto res = launch(gpu, "ldi r0, 0\nnop ; thrend\nadd r0, r0, 1\nadd r0, r0, 1\nadd r0, r0, 8\n");
        CPPUNIT_ASSERT_EQUAL_MESSAGE(reason(res), stop_reason::idle, res.reason);
        CPPUNIT_ASSERT_EQUAL(2u, gpu.qpu_registers(0).acc[0][0]);
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), gpu.counts()[0].instructions);
    }
};

class qa_emu_memory : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(qa_emu_memory);
    CPPUNIT_TEST(uniforms);
    CPPUNIT_TEST(tmu_loads);
    CPPUNIT_TEST(vpm_and_vdw);
    CPPUNIT_TEST(vdr_and_vpm_reads);
    CPPUNIT_TEST(host_interrupt);
    CPPUNIT_TEST(request_queue_registers);
    CPPUNIT_TEST(memory_interface);
    CPPUNIT_TEST(faults);
    CPPUNIT_TEST_SUITE_END();

public:
    void uniforms()
    {
        auto r = run_one("mov r0, unif\nmov r1, unif\nmov unif_addr, r0\nnop\nnop\nmov r2, unif\n" + END,
                         {UNIFORMS + 8, 22, 33, 44});
        CPPUNIT_ASSERT_EQUAL(UNIFORMS + 8, r.acc[0][5]);
        CPPUNIT_ASSERT_EQUAL(22u, r.acc[1][15]);
        CPPUNIT_ASSERT_EQUAL(33u, r.acc[2][0]);
    }

    void tmu_loads()
    {
        emulator gpu(small_config());
        std::vector<uint32_t> data(32);
        std::iota(data.begin(), data.end(), 1000);
        gpu.write_memory(DATA, data.data(), data.size() * 4);
        // Two loads in flight, read back in order.
        auto res = launch(gpu,
                          "shl r1, elem_num, 2\nmov r2, unif\nadd r0, r1, r2\nmov tmu0_s, r0\n"
                          "ldi r3, 64\nadd r0, r0, r3\nmov tmu0_s, r0\n"
                          "nop ; ldtmu0\nmov ra1, r4 ; ldtmu0\nmov ra2, r4\n" + END,
                          {DATA});
        CPPUNIT_ASSERT_EQUAL_MESSAGE(reason(res), stop_reason::idle, res.reason);
        auto r = gpu.qpu_registers(0);
        for (unsigned e = 0; e < 16; ++e) {
            CPPUNIT_ASSERT_EQUAL(1000 + e, r.ra[1][e]);
            CPPUNIT_ASSERT_EQUAL(1016 + e, r.ra[2][e]);
        }
        CPPUNIT_ASSERT(gpu.counts()[0].stall_tmu > 0);
    }

    void vpm_and_vdw()
    {
        // Two rows into VPM rows 4, 5, then VDW them as 2 units of 16 words
        // with a 64-byte gap between rows in memory.
        emulator gpu(small_config());
        std::string src = "ldi vw_setup, " + hex(vpm_generic(0, 1, true, 4)) + "\n"
                          "mov vpm, elem_num\nadd vpm, elem_num, 15\n"
                          "ldi vw_setup, " + hex(vdw_basic(2, 16, true, 4, 0)) + "\n"
                          "ldi vw_setup, " + hex(0xC0000000u | 64) + "\n"
                          "ldi vw_addr, " + hex(DATA) + "\n"
                          "mov r0, vw_wait\n" + END;
        auto res = launch(gpu, src);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(reason(res), stop_reason::idle, res.reason);
        for (unsigned e = 0; e < 16; ++e) {
            CPPUNIT_ASSERT_EQUAL(e, gpu.read_word(DATA + 4 * e));
            CPPUNIT_ASSERT_EQUAL(0u, gpu.read_word(DATA + 64 + 4 * e));
            CPPUNIT_ASSERT_EQUAL(e + 15, gpu.read_word(DATA + 128 + 4 * e));
        }
        CPPUNIT_ASSERT(gpu.counts()[0].stall_vpm > 0);
        // Vertical VDW: each unit is a VPM column.
        emulator v(small_config());
        src = "ldi vw_setup, " + hex(vpm_generic(0, 1, true, 0)) + "\n"
              "mov vpm, elem_num\nadd vpm, elem_num, 15\n"
              "ldi vw_setup, " + hex(vdw_basic(1, 2, false, 0, 3)) + "\n"
              "ldi vw_addr, " + hex(DATA) + "\nmov r0, vw_wait\n" + END;
        res = launch(v, src);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(reason(res), stop_reason::idle, res.reason);
        CPPUNIT_ASSERT_EQUAL(3u, v.read_word(DATA));
        CPPUNIT_ASSERT_EQUAL(18u, v.read_word(DATA + 4));
    }

    void vdr_and_vpm_reads()
    {
        emulator gpu(small_config());
        std::vector<uint32_t> data(64);
        std::iota(data.begin(), data.end(), 500);
        gpu.write_memory(DATA, data.data(), data.size() * 4);
        // Rows 0 and 2 of memory (pitch 128 bytes) into VPM rows 7 and 8.
        std::string src = "ldi vr_setup, " + hex(vdr_basic(0, 2, 1, false, 7, 0)) + "\n"
                          "ldi vr_setup, " + hex(0x90000000u | 128) + "\n"
                          "ldi vr_addr, " + hex(DATA) + "\n"
                          "mov r0, vr_wait\n"
                          "ldi vr_setup, " + hex(vpm_generic(2, 1, true, 7)) + "\n"
                          "mov ra1, vpm\nmov ra2, vpm\n"
                          "ldi vr_setup, " + hex(vpm_generic(1, 1, false, 0x07)) + "\n"
                          "mov ra3, vpm\n" + END;
        auto res = launch(gpu, src);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(reason(res), stop_reason::idle, res.reason);
        auto r = gpu.qpu_registers(0);
        for (unsigned e = 0; e < 16; ++e) {
            CPPUNIT_ASSERT_EQUAL(500 + e, r.ra[1][e]);
            CPPUNIT_ASSERT_EQUAL(532 + e, r.ra[2][e]);
        }
        // Vertical read of column 7 of rows 0..15: rows 7 and 8 hold data.
        CPPUNIT_ASSERT_EQUAL(507u, r.ra[3][7]);
        CPPUNIT_ASSERT_EQUAL(539u, r.ra[3][8]);
    }

    void host_interrupt()
    {
        emulator gpu(small_config(2));
        gpu.write_register(qpu::v3d::DBQITE, 3);
        auto res = launch(gpu, "ldi host_int, 0\nldi r0, 1\nmov host_int, r0\n" + END, {}, 1);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(reason(res), stop_reason::idle, res.reason);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), gpu.host_interrupts()); // a zero write raises nothing
        uint32_t status = gpu.read_register(qpu::v3d::DBQITC);
        CPPUNIT_ASSERT(status == 1 || status == 2);
        gpu.write_register(qpu::v3d::DBQITC, status);
        CPPUNIT_ASSERT_EQUAL(0u, gpu.read_register(qpu::v3d::DBQITC));
    }

    void request_queue_registers()
    {
        emulator gpu(small_config(2));
        CPPUNIT_ASSERT_EQUAL(0x02443356u, gpu.read_register(qpu::v3d::IDENT0));
        std::vector<uint64_t> code = assemble(END);
        gpu.write_memory(CODE, code.data(), code.size() * 8);
        gpu.write_register(qpu::v3d::SRQCS, 0x10180);
        for (int i = 0; i < 3; ++i) {
            gpu.write_register(qpu::v3d::SRQUA, UNIFORMS);
            gpu.write_register(qpu::v3d::SRQUL, 1);
            gpu.write_register(qpu::v3d::SRQPC, CODE);
        }
        CPPUNIT_ASSERT_EQUAL(hex(0x00000303), hex(gpu.read_register(qpu::v3d::SRQCS)));
        auto res = gpu.run(100000);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(reason(res), stop_reason::idle, res.reason);
        CPPUNIT_ASSERT_EQUAL(hex(0x00030300), hex(gpu.read_register(qpu::v3d::SRQCS)));
        gpu.write_register(qpu::v3d::SRQCS, qpu::v3d::SRQCS_CLEAR_COMPLETED);
        CPPUNIT_ASSERT_EQUAL(hex(0x00000300), hex(gpu.read_register(qpu::v3d::SRQCS)));
        // A 17th queued program overflows the 16-deep queue.
        for (int i = 0; i < 17; ++i)
            gpu.write_register(qpu::v3d::SRQPC, CODE);
        uint32_t cs = gpu.read_register(qpu::v3d::SRQCS);
        CPPUNIT_ASSERT_EQUAL(16u, cs & qpu::v3d::SRQCS_QUEUE_LENGTH_MASK);
        CPPUNIT_ASSERT(cs & qpu::v3d::SRQCS_ERROR);
        gpu.write_register(qpu::v3d::SRQCS, qpu::v3d::SRQCS_ERROR);
        CPPUNIT_ASSERT(!(gpu.read_register(qpu::v3d::SRQCS) & qpu::v3d::SRQCS_ERROR));
        res = gpu.run(1000000);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(reason(res), stop_reason::idle, res.reason);
        CPPUNIT_ASSERT_EQUAL(16u, (gpu.read_register(qpu::v3d::SRQCS) >> 16) & 0xFF);
        CPPUNIT_ASSERT_EQUAL(uint64_t(19), gpu.counts()[0].programs + gpu.counts()[1].programs);
    }

    void memory_interface()
    {
        emulator gpu(small_config());
        gpu.write_word(0xC0000100, 0xDEADBEEF); // the uncached alias reaches the same memory
        CPPUNIT_ASSERT_EQUAL(0xDEADBEEFu, gpu.read_word(0x40000100));
        CPPUNIT_ASSERT_EQUAL(0xDEADBEEFu, gpu.read_word(0x100));
        CPPUNIT_ASSERT_THROW(gpu.read_word(1u << 20), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(gpu.write_memory((1u << 20) - 4, "12345678", 8), std::invalid_argument);
        qpu::emu::config bad = small_config();
        bad.num_qpus = 0;
        CPPUNIT_ASSERT_THROW(emulator{bad}, std::invalid_argument);
    }

    void faults()
    {
        struct {
            std::string source, message;
        } cases[] = {
            {"ldi r0, 0x7ffffff0\nmov tmu0_s, r0\nnop ; ldtmu0\n" + END, "outside GPU memory"},
            {"mov r0, vpm\n" + END, "VPM read with no read setup"},
            {"ldi vr_setup, " + hex(vpm_generic(2, 1, true, 0)) + "\nnop\nldi vr_setup, " +
                 hex(vpm_generic(2, 1, true, 0)) + "\n" + END, "vr_setup while 2 VPM reads are pending"},
            {"mov r0, mutex\nnop\nmov r0, mutex\n" + END, "mutex acquired twice"},
            {"mov mutex, r0\n" + END, "does not hold it"},
            {"mov tmu0_t, r0\n" + END, "not emulated"},
            {"nop ; sbwait\n" + END, "not available to user programs"},
            {"srel 1\nsrel 1\nsrel 1\nsrel 1\nsrel 1\nsrel 1\nsrel 1\nsrel 1\nsrel 1\nsrel 1\nsrel 1\nsrel 1\n"
             "srel 1\nsrel 1\nsrel 1\nsrel 1\n" + END, "released past 15"},
        };
        for (const auto& c : cases) {
            emulator gpu(small_config());
            auto res = launch(gpu, c.source);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(c.source + reason(res), stop_reason::fault, res.reason);
            CPPUNIT_ASSERT_MESSAGE(res.message, res.message.find(c.message) != std::string::npos);
            CPPUNIT_ASSERT_MESSAGE(res.message, res.message.find("QPU 0 at 0x000010") == 0);
        }
    }
};

class qa_emu_sync : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(qa_emu_sync);
    CPPUNIT_TEST(semaphores);
    CPPUNIT_TEST(mutex);
    CPPUNIT_TEST(deadlock);
    CPPUNIT_TEST(determinism);
    CPPUNIT_TEST_SUITE_END();

    /*! 8 programs: program i loads its 16 words via TMU, adds 1, writes them
     * back via VPM row i and VDW (under the mutex: the DMA setup registers
     * are shared); program 0 then waits on semaphore 0 for the other 7
     * (GPU_FFT's pattern) and raises the host interrupt. Uniforms: data
     * base, VDW setup of row 0, i. */
    static std::string worker()
    {
        return R"(
.set VPM_ROW_STRIDE1, 0x1A00        # generic write: stride 1, horizontal, 32-bit
    mov ra0, unif                   # data base
    mov rb0, unif                   # VDW setup of row 0
    shl r1, elem_num, 2
    mov r2, unif                    # program index
    shl r3, r2, 6                   # 64 bytes per program
    add r0, r1, r3
    add r0, r0, ra0
    mov tmu0_s, r0
    nop ; ldtmu0
    add r1, r4, 1
    ldi r0, VPM_ROW_STRIDE1
    add vw_setup, r0, r2            # row qpu_num
    mov vpm, r1
    mov r0, mutex
    shl r0, r2, 7                   # VDW Y field: row << 7
    add vw_setup, rb0, r0
    add vw_addr, ra0, r3
    mov r0, vw_wait
    mov mutex, r0
    mov.setf r0, r2
    brr.anynz worker_done
    nop
    nop
    nop
    sacq 0
    sacq 0
    sacq 0
    sacq 0
    sacq 0
    sacq 0
    sacq 0
    mov host_int, 1
    brr end
    nop
    nop
    nop
worker_done:
    srel 0
end:
)" + END;
    }

    struct outcome {
        std::vector<uint32_t> memory;
        uint64_t cycles;
        std::vector<uint64_t> instructions;
        qpu::emu::run_result result;
        uint64_t interrupts;
    };

    static outcome run_workers(uint64_t seed, unsigned qpus = 8)
    {
        qpu::emu::config cfg = small_config(12);
        cfg.seed = seed;
        emulator gpu(cfg);
        std::vector<uint32_t> data(16 * qpus);
        std::iota(data.begin(), data.end(), 7);
        gpu.write_memory(DATA, data.data(), data.size() * 4);
        std::vector<uint64_t> code = assemble(worker());
        gpu.write_memory(CODE, code.data(), code.size() * 8);
        for (unsigned q = 0; q < qpus; ++q) {
            uint32_t uniforms[3] = {DATA, vdw_basic(1, 16, true, 0, 0), q};
            gpu.write_memory(UNIFORMS + 16 * q, uniforms, sizeof uniforms);
            gpu.write_register(qpu::v3d::SRQUA, UNIFORMS + 16 * q);
            gpu.write_register(qpu::v3d::SRQPC, CODE);
        }
        outcome o;
        o.result = gpu.run(10'000'000);
        o.memory.resize(data.size());
        gpu.read_memory(DATA, o.memory.data(), o.memory.size() * 4);
        o.cycles = gpu.cycles();
        for (const auto& c : gpu.counts())
            o.instructions.push_back(c.instructions);
        o.interrupts = gpu.host_interrupts();
        for (unsigned s = 0; s < 16; ++s)
            CPPUNIT_ASSERT_EQUAL(0u, gpu.semaphore(s));
        return o;
    }

public:
    void semaphores()
    {
        // Program 0 waits for the other seven; all end, semaphores back at 0.
        outcome o = run_workers(seed());
        CPPUNIT_ASSERT_EQUAL_MESSAGE(reason(o.result), stop_reason::idle, o.result.reason);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), o.interrupts);
    }

    void mutex()
    {
        outcome o = run_workers(seed());
        for (size_t i = 0; i < o.memory.size(); ++i)
            CPPUNIT_ASSERT_EQUAL(uint32_t(7 + i + 1), o.memory[i]);
    }

    void deadlock()
    {
        emulator gpu(small_config(2));
        auto res = launch(gpu, "sacq 1\n" + END, {}, 2);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(reason(res), stop_reason::deadlock, res.reason);
        CPPUNIT_ASSERT(res.message.find("QPU 0 at 0x00001000 waits for semaphore 1") != std::string::npos);
        CPPUNIT_ASSERT(res.message.find("QPU 1 at 0x00001000 waits for semaphore 1") != std::string::npos);
        // A VPM read with no setup would hang the hardware: reported as a fault.
        emulator vdr(small_config());
        res = launch(vdr, "mov r0, vpm\n" + END);
        CPPUNIT_ASSERT_EQUAL(stop_reason::fault, res.reason);
    }

    void determinism()
    {
        outcome a = run_workers(seed()), b = run_workers(seed());
        CPPUNIT_ASSERT(a.memory == b.memory);
        CPPUNIT_ASSERT_EQUAL(a.cycles, b.cycles);
        CPPUNIT_ASSERT(a.instructions == b.instructions);
        // Other seeds: other interleavings and timings, the same result.
        bool timing_differs = false;
        for (uint64_t s = 2; s < 8; ++s) {
            outcome c = run_workers(seed() * 1000 + s);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(reason(c.result), stop_reason::idle, c.result.reason);
            CPPUNIT_ASSERT(c.memory == a.memory);
            timing_differs |= c.cycles != a.cycles;
        }
        CPPUNIT_ASSERT(timing_differs);
    }
};

CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_emu_control, "emu_control");
CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_emu_memory, "emu_memory");
CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_emu_sync, "emu_sync");
