// SPDX-License-Identifier: GPL-3.0-or-later
/* Runner for the QPU tool suites: `qa_qpu_tools [SUITE...]`, all by default.
 * QPU_TEST_SEED=N sets the emulator seed of the randomised tests. */
#include "qa_qpu_tools.h"

#include <cppunit/TextTestRunner.h>
#include <cppunit/extensions/TestFactoryRegistry.h>
#include <cstdio>
#include <string>

namespace {
const char* const suites[] = {"asm_fields", "asm_roundtrip", "asm_errors", "emu_alu",
                              "emu_control", "emu_memory", "emu_memory_timing", "emu_sync", "hazards"};
}

int main(int argc, char** argv)
{
    CppUnit::TextTestRunner runner;
    for (const char* name : suites) {
        bool wanted = argc == 1;
        for (int i = 1; i < argc; ++i)
            wanted |= name == std::string(argv[i]);
        if (wanted)
            runner.addTest(CppUnit::TestFactoryRegistry::getRegistry(name).makeTest());
    }
    for (int i = 1; i < argc; ++i) {
        bool known = false;
        for (const char* name : suites)
            known |= name == std::string(argv[i]);
        if (!known) {
            std::fprintf(stderr, "%s: unknown suite \"%s\"\n", argv[0], argv[i]);
            return 2;
        }
    }
    std::printf("QPU_TEST_SEED=%llu (emulator seed of the randomised tests)\n",
                (unsigned long long)qa_qpu::seed());
    return runner.run() ? 0 : 1;
}
