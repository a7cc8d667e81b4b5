// SPDX-License-Identifier: GPL-3.0-or-later
/* The L2 and SDRAM timing model (emu/memory_timing.h) on synthetic access
 * patterns, with clocks worked out by hand, and through the emulator (a TMU
 * miss, a VDW stream bounded by SDRAM, a VDR missing then hitting the L2).
 * Suite emu_memory_timing. */
#include "qa_qpu_tools.h"

using namespace qa_qpu;
using qpu::emu::memory_timing;
using qpu::emu::memory_timing_config;

namespace {

/*! 128 KiB, 64-byte lines, 4 ways (512 sets); 8 bytes a clock, so a line
 * takes 8 clocks and a 32-byte burst 4; data 60 clocks after its transfer. */
memory_timing_config hand_config()
{
    memory_timing_config c;
    c.l2_bytes = 128u << 10;
    c.l2_line_bytes = 64;
    c.l2_ways = 4;
    c.l2_write_allocate = false;
    c.sdram_bytes_per_clock = 8;
    c.sdram_latency = 60;
    c.sdram_burst_bytes = 32;
    return c;
}

/*! One QPU, fixed latencies, no random interleaving: clocks are exact. */
qpu::emu::config fixed_config()
{
    qpu::emu::config cfg = small_config();
    cfg.random_interleave = false;
    cfg.tmu_latency_min = cfg.tmu_latency_max = 20;
    cfg.dma_clocks_per_word_min = cfg.dma_clocks_per_word_max = 1;
    cfg.dma_setup_clocks = 30;
    cfg.memory = hand_config();
    return cfg;
}

} // namespace

class qa_emu_memory_timing : public CppUnit::TestFixture {
    CPPUNIT_TEST_SUITE(qa_emu_memory_timing);
    CPPUNIT_TEST(miss_then_hit);
    CPPUNIT_TEST(sequential_fits_in_l2);
    CPPUNIT_TEST(stride_thrashes_a_set);
    CPPUNIT_TEST(writes_bounded_by_sdram);
    CPPUNIT_TEST(uncached_alias_and_clear);
    CPPUNIT_TEST(write_allocate);
    CPPUNIT_TEST(bad_geometry);
    CPPUNIT_TEST(emulator_tmu_miss);
    CPPUNIT_TEST(emulator_vdw_stream);
    CPPUNIT_TEST(emulator_vdr_through_l2);
    CPPUNIT_TEST_SUITE_END();

public:
    void miss_then_hit()
    {
        memory_timing m(hand_config());
        // A miss: 8 clocks of transfer, then 60 of latency.
        CPPUNIT_ASSERT_EQUAL(uint64_t(68), m.read(DATA, 4, 0));
        // The same line while it fills waits for the fill; after, a hit is free.
        CPPUNIT_ASSERT_EQUAL(uint64_t(68), m.read(DATA + 60, 4, 10));
        CPPUNIT_ASSERT_EQUAL(uint64_t(100), m.read(DATA + 8, 4, 100));
        // A read across two lines: one hit, one miss (SDRAM free since 8).
        CPPUNIT_ASSERT_EQUAL(uint64_t(200 + 8 + 60), m.read(DATA + 60, 8, 200));
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), m.counts().l2_hits);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), m.counts().l2_misses);
        CPPUNIT_ASSERT_EQUAL(uint64_t(128), m.counts().sdram_read_bytes);
    }

    void sequential_fits_in_l2()
    {
        // 64 KiB read line by line at clock 0: the fills queue on the one
        // SDRAM channel, line i in hand at 8 (i + 1) + 60.
        memory_timing m(hand_config());
        uint64_t last = 0;
        for (uint32_t i = 0; i < 1024; ++i) {
            last = m.read(DATA + 64 * i, 64, 0);
            CPPUNIT_ASSERT_EQUAL(uint64_t(8 * (i + 1) + 60), last);
        }
        CPPUNIT_ASSERT_EQUAL(uint64_t(8252), last);
        // Read again: it all fits in the 128 KiB, every line hits at once.
        for (uint32_t i = 0; i < 1024; ++i)
            CPPUNIT_ASSERT_EQUAL(uint64_t(10000), m.read(DATA + 64 * i, 64, 10000));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1024), m.counts().l2_hits);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1024), m.counts().l2_misses);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1024 * 8), m.counts().sdram_busy);
    }

    void stride_thrashes_a_set()
    {
        // 32 KiB apart = 512 sets x 64 bytes: every address falls in one set.
        // Four lines fit its four ways; five, read round robin, always miss
        // under LRU.
        memory_timing four(hand_config()), five(hand_config());
        for (unsigned round = 0; round < 3; ++round) {
            for (uint32_t k = 0; k < 4; ++k)
                four.read(DATA + k * (32u << 10), 4, 1000 * round);
            for (uint32_t k = 0; k < 5; ++k)
                five.read(DATA + k * (32u << 10), 4, 1000 * round);
        }
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), four.counts().l2_hits);
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), four.counts().l2_misses);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), five.counts().l2_hits);
        CPPUNIT_ASSERT_EQUAL(uint64_t(15), five.counts().l2_misses);
        // Each of the 15 misses cost a whole line of SDRAM for 4 bytes used.
        CPPUNIT_ASSERT_EQUAL(uint64_t(15 * 64), five.counts().sdram_read_bytes);
    }

    void writes_bounded_by_sdram()
    {
        // 100 rows of 64 bytes written at clock 0: 8 clocks each, back to back.
        memory_timing m(hand_config());
        uint64_t done = 0;
        for (uint32_t r = 0; r < 100; ++r)
            done = m.write(DATA + 64 * r, 64, 0);
        CPPUNIT_ASSERT_EQUAL(uint64_t(800), done);
        // An 8-byte row still costs a 32-byte burst: 4 clocks.
        CPPUNIT_ASSERT_EQUAL(uint64_t(804), m.write(DATA, 8, 0));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1004), m.write(DATA, 8, 1000));
        CPPUNIT_ASSERT_EQUAL(uint64_t(100 * 64 + 16), m.counts().sdram_write_bytes);
        // No write allocate: a read afterwards misses.
        m.read(DATA, 4, 2000);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), m.counts().l2_misses);
    }

    void uncached_alias_and_clear()
    {
        memory_timing m(hand_config());
        // The 0xC alias goes around the L2: one 32-byte burst, then latency.
        CPPUNIT_ASSERT_EQUAL(uint64_t(4 + 60), m.read(0xC0000000u | DATA, 4, 0));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), m.counts().l2_hits + m.counts().l2_misses);
        // The 0x4 alias reaches the same L2 line as 0x0.
        m.read(DATA, 4, 100);
        CPPUNIT_ASSERT_EQUAL(uint64_t(300), m.read(0x40000000u | DATA, 4, 300));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), m.counts().l2_hits);
        // L2CACTL's clear: the line misses again.
        m.clear_l2();
        CPPUNIT_ASSERT_EQUAL(uint64_t(400 + 8 + 60), m.read(DATA, 4, 400));
    }

    void write_allocate()
    {
        memory_timing_config c = hand_config();
        c.l2_write_allocate = true;
        memory_timing m(c);
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), m.write(DATA, 64, 0));
        CPPUNIT_ASSERT_EQUAL(uint64_t(50), m.read(DATA + 4, 4, 50));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), m.counts().l2_hits);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), m.counts().l2_misses);
    }

    void bad_geometry()
    {
        memory_timing_config c = hand_config();
        c.l2_line_bytes = 48;
        CPPUNIT_ASSERT_THROW(memory_timing{c}, std::invalid_argument);
        c = hand_config();
        c.sdram_bytes_per_clock = 0;
        CPPUNIT_ASSERT_THROW(memory_timing{c}, std::invalid_argument);
        // No L2: every read goes to SDRAM in bursts.
        c = hand_config();
        c.l2_bytes = 0;
        memory_timing m(c);
        CPPUNIT_ASSERT_EQUAL(uint64_t(4 + 60), m.read(DATA, 4, 0));
        CPPUNIT_ASSERT_EQUAL(uint64_t(100 + 4 + 60), m.read(DATA, 4, 100));
    }

    void emulator_tmu_miss()
    {
        // Two loads of one line: the first misses (in hand 8 + 60 clocks
        // after its issue, past the TMU's own 20), the second hits (20).
        const std::string src = "mov r0, unif\nmov tmu0_s, r0\nnop ; ldtmu0\n"
                                "mov tmu0_s, r0\nnop ; ldtmu0\n" + END;
        qpu::emu::emulator gpu(fixed_config());
        auto r = launch(gpu, src, {DATA});
        CPPUNIT_ASSERT_EQUAL_MESSAGE(r.message, std::string("idle"), std::string(qpu::emu::to_string(r.reason)));
        // Load 1 issued at clock 4 (the second instruction), ready at 72;
        // ldtmu0 at 8 waits until 72 (64 clocks). Load 2 issued at 76, ready
        // at 96; ldtmu0 at 80 waits 16.
        CPPUNIT_ASSERT_EQUAL(uint64_t(64 + 16), gpu.counts()[0].stall_tmu);
        // 16 lanes, one address: 1 miss, then 15 + 16 hits.
        CPPUNIT_ASSERT_EQUAL(uint64_t(31), gpu.memory_traffic().l2_hits);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), gpu.memory_traffic().l2_misses);

        // Without the memory model both loads cost the TMU's 20.
        qpu::emu::config off = fixed_config();
        off.model_memory = false;
        qpu::emu::emulator flat(off);
        launch(flat, src, {DATA});
        CPPUNIT_ASSERT_EQUAL(uint64_t(16 + 16), flat.counts()[0].stall_tmu);
    }

    void emulator_vdw_stream()
    {
        // Eight VDWs of 16 x 16 words (1 KiB each) back to back. The engine
        // alone takes 30 + 256 clocks a VDW; at 2 bytes a clock the SDRAM
        // takes 512, so it bounds the stream: 8 x 512 = 4096 clocks from the
        // first vw_addr (clock 16) to the last write's end.
        qpu::emu::config cfg = fixed_config();
        cfg.memory.sdram_bytes_per_clock = 2;
        std::string src = "ldi vw_setup, " + hex(0x80000000u | 16u << 23 | 16u << 16 | 1u << 14) + "\n" +
                          "ldi vw_setup, " + hex(0xC0000000u) + "\nmov r0, unif\nldi r1, 1024\n";
        for (unsigned k = 0; k < 8; ++k)
            src += "mov vw_addr, r0\nadd r0, r0, r1\nnop\n";
        src += "mov r2, vw_wait\n" + END;
        qpu::emu::emulator gpu(cfg);
        auto r = launch(gpu, src, {DATA});
        CPPUNIT_ASSERT_EQUAL_MESSAGE(r.message, std::string("idle"), std::string(qpu::emu::to_string(r.reason)));
        CPPUNIT_ASSERT_EQUAL(uint64_t(8 * 1024), gpu.memory_traffic().sdram_write_bytes);
        // The vw_wait (clock 112) issues at 16 + 4096; the thread end and its
        // two delay slots follow, and the run ends the tick after.
        CPPUNIT_ASSERT_EQUAL(uint64_t(16 + 4096 + 4 * 4), gpu.cycles());

        // The engine alone (no memory model): 8 x 286 clocks.
        cfg.model_memory = false;
        qpu::emu::emulator flat(cfg);
        launch(flat, src, {DATA});
        CPPUNIT_ASSERT_EQUAL(uint64_t(16 + 8 * 286 + 4 * 4), flat.cycles());
    }

    void emulator_vdr_through_l2()
    {
        // Two VDRs of the same 16 rows of 64 bytes (one L2 line each, 1 KiB
        // in all), each waited for. The engine alone takes 32 + 256 clocks a
        // VDR (a multiple of the 4-clock issue, so a wait ends when the VDR
        // does). The first misses all 16 lines: at 2 bytes a clock the fills
        // take 32 clocks each, back to back, the last in hand 16 x 32 + 60 =
        // 572 clocks after the issue, so the memory bounds it; the second
        // hits all 16 and takes the engine's 288. Against the same program
        // without the memory model: 572 - 288 clocks more, nothing else.
        qpu::emu::config cfg = fixed_config();
        cfg.dma_setup_clocks = 32;
        cfg.memory.sdram_bytes_per_clock = 2;
        // VDR basic setup: MPITCH 3 (64 bytes), ROWLEN 0 (16), NROWS 0 (16), VPITCH 1, horizontal, VPM row 0.
        const std::string read = "ldi vr_setup, " + hex(0x80000000u | 3u << 24 | 1u << 12) + "\n" +
                                 "mov vr_addr, r0\nmov r1, vr_wait\n";
        const std::string src = "mov r0, unif\n" + read + read + END;
        qpu::emu::emulator gpu(cfg);
        auto r = launch(gpu, src, {DATA});
        CPPUNIT_ASSERT_EQUAL_MESSAGE(r.message, std::string("idle"), std::string(qpu::emu::to_string(r.reason)));
        CPPUNIT_ASSERT_EQUAL(uint64_t(16), gpu.memory_traffic().l2_misses);
        CPPUNIT_ASSERT_EQUAL(uint64_t(16), gpu.memory_traffic().l2_hits);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1024), gpu.memory_traffic().sdram_read_bytes);

        cfg.model_memory = false;
        qpu::emu::emulator flat(cfg);
        launch(flat, src, {DATA});
        CPPUNIT_ASSERT_EQUAL(flat.cycles() + 572 - 288, gpu.cycles());
    }
};

CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_emu_memory_timing, "emu_memory_timing");
