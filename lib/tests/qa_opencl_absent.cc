// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft: the library where OpenCL cannot run (no ICD loader, or a loader
 * with no platform). CTest runs this with GPUFFT_OPENCL_LOADER naming a
 * missing file, or with OCL_ICD_VENDORS naming an empty folder, and the words
 * the reason must contain as the argument.
 *
 * The opencl backend must say why it is unusable, a plan that names it must
 * fail with that reason, and `auto` must fall back to simd with one log line
 * however many plans are made. */
#include "qa_common.h"
#include <gpufft/gpufft.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cppunit/extensions/TestFactoryRegistry.h>
#include <cppunit/ui/text/TestRunner.h>
#include <cstdio>
#include <string>
#include <vector>

namespace {

std::string expected_reason; // from the command line

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

} // namespace

class qa_opencl_absent : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_opencl_absent);
    CPPUNIT_TEST(listed_with_reason);
    CPPUNIT_TEST(named_backend_fails_with_reason);
    CPPUNIT_TEST(auto_falls_back_once_logged);
    CPPUNIT_TEST_SUITE_END();

    void listed_with_reason()
    {
        bool listed = false;
        for (const auto& b : gpufft::backends())
            if (b.name == "opencl") {
                listed = true;
                CPPUNIT_ASSERT_MESSAGE("opencl is usable without OpenCL", !b.usable);
                CPPUNIT_ASSERT_MESSAGE("reason \"" + b.reason + "\" does not say \"" +
                                           expected_reason + "\"",
                                       contains(b.reason, expected_reason));
            }
        CPPUNIT_ASSERT_MESSAGE("opencl is not listed by gpufft::backends()", listed);
    }

    void named_backend_fails_with_reason()
    {
        try {
            gpufft::plan p(1024, gpufft::direction::forward, 1, 0, "opencl");
            CPPUNIT_FAIL("a plan on backend opencl did not throw");
        } catch (const gpufft::error& e) {
            CPPUNIT_ASSERT_MESSAGE(std::string("message \"") + e.what() + "\" does not say \"" +
                                       expected_reason + "\"",
                                   contains(e.what(), expected_reason));
        }
    }

    void auto_falls_back_once_logged()
    {
        std::vector<std::string> lines;
        gpufft::set_log_handler(
            [&](gpufft::log_level, const std::string& line) { lines.push_back(line); });
        qa::failures f;
        for (std::size_t n : { 1024u, 1000u, 4096u }) {
            gpufft::plan p(n, gpufft::direction::forward, 4, 0, "auto");
            CPPUNIT_ASSERT_MESSAGE("auto chose " + p.backend(), p.backend().rfind("simd", 0) == 0);
            // The fallback computes: fresh data against FFTW double.
            qa::check_transform(f, "auto", n, gpufft::direction::forward, 4);
        }
        CPPUNIT_ASSERT_MESSAGE(f.summary(), f.empty());
        gpufft::set_log_handler(nullptr);
        std::size_t about_opencl = 0;
        for (const auto& l : lines)
            about_opencl += contains(l, "opencl") && contains(l, expected_reason);
        CPPUNIT_ASSERT_EQUAL_MESSAGE("log lines naming opencl's reason", std::size_t(1),
                                     about_opencl);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_opencl_absent);

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s REASON-WORDS\n", argv[0]);
        return 2;
    }
    expected_reason = argv[1];
    CppUnit::TextTestRunner runner;
    runner.addTest(CppUnit::TestFactoryRegistry::getRegistry().makeTest());
    return runner.run("", false, true, false) ? 0 : 1;
}
