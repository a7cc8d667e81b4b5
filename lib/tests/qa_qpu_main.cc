// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft qpu host-driver and backend tests: the runner.
 *
 *   qa_qpu_host               every suite but qpu_signal
 *   qa_qpu_host SUITE...      the named suites (qpu_signal needs a process of its own)
 *   qa_qpu_host --list        suite names
 *
 * Exit status: 0 all passed, 1 a test failed, 2 bad usage.
 */
#include "qa_common.h"

#include <cppunit/TextTestRunner.h>
#include <algorithm>
#include <cppunit/extensions/TestFactoryRegistry.h>
#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv)
{
    const std::vector<std::string> suites = { "qpu_mailbox", "qpu_probe",   "qpu_memory",
                                              "qpu_submit",  "qpu_backend", "qpu_signal" };
    std::vector<std::string> chosen;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--list") {
            for (const auto& s : suites)
                std::printf("%s\n", s.c_str());
            return 0;
        }
        if (std::find(suites.begin(), suites.end(), a) == suites.end()) {
            std::fprintf(stderr, "%s: unknown suite \"%s\" (try --list)\n", argv[0], a.c_str());
            return 2;
        }
        chosen.push_back(a);
    }
    if (chosen.empty())
        chosen.assign(suites.begin(), suites.end() - 1);
    std::printf("qa_qpu_host: seed %llu (GPUFFT_TEST_SEED=%llu reproduces this run)\n",
                (unsigned long long)qa::run_seed(),
                (unsigned long long)qa::run_seed());
    CppUnit::TextTestRunner runner;
    for (const auto& s : chosen)
        runner.addTest(CppUnit::TestFactoryRegistry::getRegistry(s).makeTest());
    return runner.run("", false, true, false) ? 0 : 1;
}
