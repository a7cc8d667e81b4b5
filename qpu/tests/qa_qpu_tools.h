// SPDX-License-Identifier: GPL-3.0-or-later
/* Helpers for the QPU tool suites: assemble and run small programs. */
#ifndef QPU_QA_TOOLS_H
#define QPU_QA_TOOLS_H

#include "asm/assembler.h"
#include "emu/emulator.h"

#include <cppunit/extensions/HelperMacros.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace qa_qpu {

constexpr uint32_t CODE = 0x1000;      // bus address of the program
constexpr uint32_t UNIFORMS = 0x8000;  // of the uniform stream
constexpr uint32_t DATA = 0x10000;     // free for test data
/*! The end of every test program: thread end and its two delay slots. */
inline const std::string END = "nop ; thrend\nnop\nnop\n";

/*! A 32-bit word as 0x%08x, for assertion messages. */
inline std::string hex(uint32_t v)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", v);
    return buf;
}

inline uint64_t seed()
{
    const char* s = std::getenv("QPU_TEST_SEED");
    return s ? std::strtoull(s, nullptr, 0) : 1;
}

inline qpu::emu::config small_config(unsigned qpus = 1)
{
    qpu::emu::config cfg;
    cfg.num_qpus = qpus;
    cfg.memory_bytes = 1u << 20;
    cfg.seed = seed();
    return cfg;
}

inline std::vector<uint64_t> assemble(const std::string& source)
{
    return qpu::assembler::assemble(source).code;
}

/*! Loads `source` and queues it `programs` times with the given uniforms
 * (the same stream for each), then runs to the end. */
inline qpu::emu::run_result launch(qpu::emu::emulator& gpu, const std::string& source,
                                   const std::vector<uint32_t>& uniforms = {}, unsigned programs = 1)
{
    std::vector<uint64_t> code = assemble(source);
    gpu.write_memory(CODE, code.data(), code.size() * 8);
    if (!uniforms.empty())
        gpu.write_memory(UNIFORMS, uniforms.data(), uniforms.size() * 4);
    for (unsigned p = 0; p < programs; ++p) {
        gpu.write_register(qpu::v3d::SRQUA, UNIFORMS);
        gpu.write_register(qpu::v3d::SRQPC, CODE);
    }
    return gpu.run(10'000'000);
}

/*! Runs `source` on one QPU; fails the test unless it ends cleanly. */
inline qpu::emu::emulator::registers run_one(const std::string& source, const std::vector<uint32_t>& uniforms = {},
                                             qpu::emu::config cfg = small_config())
{
    qpu::emu::emulator gpu(cfg);
    qpu::emu::run_result r = launch(gpu, source, uniforms);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(r.message, std::string("idle"), std::string(qpu::emu::to_string(r.reason)));
    return gpu.qpu_registers(0);
}

inline uint32_t bits(float f)
{
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

inline float real(uint32_t u)
{
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

} // namespace qa_qpu

#endif
