// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft correctness suite: the runner.
 *
 *   qa_gpufft                 every suite (isa_env only if GPUFFT_SIMD_ISA is set)
 *   qa_gpufft SUITE...        the named suites
 *   qa_gpufft --list          suite names
 *
 * Exit status: 0 all passed, 1 a test failed, 2 bad usage, 77 skipped
 * (isa_env without GPUFFT_SIMD_ISA). GPUFFT_TEST_SEED reproduces a run's
 * random data; GPUFFT_TEST_BACKENDS limits what is tested (see qa_common.h).
 */
#include "qa_common.h"

#include <cppunit/TextTestRunner.h>
#include <cppunit/extensions/TestFactoryRegistry.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

// Registration names of the suites, in the order a full run takes them.
const char* const suite_names[] = { "bad_input", "isa_paths",  "isa_env",       "sizes_small",
                                    "batches",   "inplace",    "sizes_special", "sizes_pow2",
                                    "threads",   "real",       "multidim",      "weights",
                                    "shape_errors", "hot_path" };

bool known(const std::string& s)
{
    for (const char* n : suite_names)
        if (s == n)
            return true;
    return false;
}

} // namespace

int main(int argc, char** argv)
{
    // qa_bad_input's child process: one verdict on stdout, nothing else.
    if (argc == 3 && std::strcmp(argv[1], "--plan-verdict") == 0) {
        std::fputs(qa::plan_verdict(std::strtoull(argv[2], nullptr, 10)).c_str(), stdout);
        return 0;
    }
    std::vector<std::string> chosen;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--list" || a == "--help" || a == "-h") {
            std::printf("usage: %s [SUITE...]\nsuites:", argv[0]);
            for (const char* n : suite_names)
                std::printf(" %s", n);
            std::printf("\nenv: GPUFFT_TEST_SEED=N, GPUFFT_TEST_BACKENDS=simd:avx2,...[,all], "
                        "GPUFFT_SIMD_ISA=isa (needed by isa_env)\n");
            return 0;
        }
        if (!known(a)) {
            std::fprintf(stderr, "%s: unknown suite \"%s\" (try --list)\n", argv[0], a.c_str());
            return 2;
        }
        chosen.push_back(a);
    }
    const char* isa_env = std::getenv("GPUFFT_SIMD_ISA");
    const bool have_isa_env = isa_env && *isa_env;
    if (chosen.empty()) {
        for (const char* n : suite_names)
            if (std::strcmp(n, "isa_env") != 0 || have_isa_env)
                chosen.push_back(n);
    } else if (chosen.size() == 1 && chosen[0] == "isa_env" && !have_isa_env) {
        std::printf("isa_env: skipped, GPUFFT_SIMD_ISA is not set\n");
        return 77;
    }

    std::printf("qa_gpufft: seed %llu (GPUFFT_TEST_SEED=%llu reproduces this run)\n",
                (unsigned long long)qa::run_seed(),
                (unsigned long long)qa::run_seed());
    std::printf("targets:");
    for (const auto& t : qa::targets())
        std::printf(" %s", t.c_str());
    std::printf("\n");
    std::fflush(stdout);

    CppUnit::TextTestRunner runner;
    for (const auto& s : chosen)
        runner.addTest(CppUnit::TestFactoryRegistry::getRegistry(s).makeTest());
    const bool ok = runner.run("", false, true, false);
    if (!ok)
        std::printf("qa_gpufft: FAILED; seed %llu (rerun with GPUFFT_TEST_SEED=%llu)\n",
                    (unsigned long long)qa::run_seed(),
                    (unsigned long long)qa::run_seed());
    return ok ? 0 : 1;
}
