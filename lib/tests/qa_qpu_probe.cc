// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft qpu host-driver tests: mailbox property buffers and the board
 * probe's refusals, against hand-built buffers and fake files. */
#include "qa_qpu.h"
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace qa {

using namespace qpu_fakes;

namespace {

std::vector<std::uint32_t> encoded(std::uint32_t tag,
                                   std::initializer_list<std::uint32_t> args,
                                   std::size_t reply_words)
{
    std::uint32_t buffer[max_property_words];
    const std::size_t n = encode_property(buffer, tag, args, reply_words);
    return { buffer, buffer + n };
}

std::string words(const std::vector<std::uint32_t>& w)
{
    std::string s;
    char hex[16];
    for (std::uint32_t v : w) {
        std::snprintf(hex, sizeof hex, " 0x%x", v);
        s += hex;
    }
    return s;
}

// A mailbox that keeps the last request and answers with a fixed reply
// (or fails the transfer with an errno).
class scripted_mailbox final : public mailbox
{
public:
    std::vector<std::uint32_t> request;
    std::uint32_t reply = 0;
    int transfer_errno = 0;

    int transfer(std::uint32_t* buffer) noexcept override
    {
        request.assign(buffer, buffer + buffer[0] / 4);
        if (transfer_errno)
            return transfer_errno;
        buffer[1] = reply_success;
        buffer[4] = tag_answered | 4;
        buffer[5] = reply;
        return 0;
    }
};

} // namespace

class qa_qpu_mailbox : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_qpu_mailbox);
    CPPUNIT_TEST(encodes_requests);
    CPPUNIT_TEST(decodes_replies);
    CPPUNIT_TEST(calls_check_their_replies);
    CPPUNIT_TEST(fake_firmware_rejects_malformed_buffers);
    CPPUNIT_TEST_SUITE_END();

public:
    void encodes_requests()
    {
        // [bytes, request, tag, value bytes, request marker, values..., end tag]
        const std::vector<std::pair<std::vector<std::uint32_t>, std::vector<std::uint32_t>>> cases = {
            { encoded(tag::firmware_revision, {}, 1), { 28, 0, 0x1, 4, 0, 0, 0 } },
            { encoded(tag::mem_alloc, { 0x10000, 4096, 0xc }, 1),
              { 36, 0, 0x3000c, 12, 0, 0x10000, 4096, 0xc, 0 } },
            { encoded(tag::mem_lock, { 7 }, 1), { 28, 0, 0x3000d, 4, 0, 7, 0 } },
            { encoded(tag::execute_qpu, { 8, 0xc0de0000, 1, 2000 }, 1),
              { 40, 0, 0x30011, 16, 0, 8, 0xc0de0000, 1, 2000, 0 } },
            { encoded(tag::board_revision, {}, 2), { 32, 0, 0x10002, 8, 0, 0, 0, 0 } },
        };
        for (const auto& [got, want] : cases)
            CPPUNIT_ASSERT_MESSAGE("encoded" + words(got) + ", want" + words(want), got == want);
    }

    void decodes_replies()
    {
        std::uint32_t reply[2] = { 0, 0 };
        const std::uint32_t ok[] = { 28, 0x80000000, 0x1, 4, 0x80000004, 0x1234, 0 };
        CPPUNIT_ASSERT(decode_property(ok, 1, reply));
        CPPUNIT_ASSERT_EQUAL(0x1234u, reply[0]);
        const std::uint32_t two[] = { 32, 0x80000000, 0x10002, 8, 0x80000008, 5, 6, 0 };
        CPPUNIT_ASSERT(decode_property(two, 2, reply));
        CPPUNIT_ASSERT(reply[0] == 5 && reply[1] == 6);
        const std::uint32_t parse_error[] = { 28, 0x80000001, 0x1, 4, 0x80000004, 0x1234, 0 };
        CPPUNIT_ASSERT(!decode_property(parse_error, 1, reply));
        const std::uint32_t not_answered[] = { 28, 0x80000000, 0x1, 4, 0, 0x1234, 0 };
        CPPUNIT_ASSERT(!decode_property(not_answered, 1, reply));
        const std::uint32_t unprocessed[] = { 28, 0, 0x1, 4, 0x80000004, 0x1234, 0 };
        CPPUNIT_ASSERT(!decode_property(unprocessed, 1, reply));
        const std::uint32_t short_reply[] = { 32, 0x80000000, 0x10002, 8, 0x80000004, 5, 6, 0 };
        CPPUNIT_ASSERT(!decode_property(short_reply, 2, reply));
    }

    void calls_check_their_replies()
    {
        scripted_mailbox mb;
        mb.reply = 0x20;
        CPPUNIT_ASSERT_EQUAL(0x20u, mem_alloc(mb, 8192, 4096, mem_flag::direct));
        CPPUNIT_ASSERT(mb.request == std::vector<std::uint32_t>({ 36, 0, 0x3000c, 12, 0, 8192, 4096, 4, 0 }));
        mb.reply = 0xc0010000;
        CPPUNIT_ASSERT_EQUAL(0xc0010000u, mem_lock(mb, 0x20));
        mb.reply = 0;
        CPPUNIT_ASSERT(mem_unlock(mb, 0x20) && mem_release(mb, 0x20));
        CPPUNIT_ASSERT_EQUAL(0u, execute_qpu(mb, 8, 0xc0020000, true, 2000));
        CPPUNIT_ASSERT(mb.request == std::vector<std::uint32_t>({ 40, 0, 0x30011, 16, 0, 8, 0xc0020000, 1, 2000, 0 }));
        // Failures name the call and what to do.
        mb.reply = 0;
        expect_error("mem_alloc of too much", [&] { mem_alloc(mb, 1u << 30, 4096, 4); }, { "gpu_mem" });
        expect_error("mem_lock of a bad handle", [&] { mem_lock(mb, 99); }, { "lock" });
        mb.reply = 1;
        expect_error("qpu_enable refused", [&] { qpu_enable(mb, true); }, { "refused", "enable" });
        CPPUNIT_ASSERT(!mem_release(mb, 0x20));
        mb.transfer_errno = EIO;
        expect_error("failed transfer", [&] { firmware_revision(mb); }, { "firmware revision", "failed" });
        CPPUNIT_ASSERT(!mem_unlock(mb, 0x20));
    }

    void fake_firmware_rejects_malformed_buffers()
    {
        qpu::emu::emulator gpu;
        fake_mailbox mb(&gpu);
        std::uint32_t buffer[max_property_words];
        encode_property(buffer, tag::firmware_revision, {}, 1);
        CPPUNIT_ASSERT_EQUAL(0, mb.transfer(buffer));
        CPPUNIT_ASSERT_EQUAL(reply_success, buffer[1]);
        encode_property(buffer, tag::mem_alloc, { 4096, 4096, 4 }, 1);
        buffer[0] += 4; // size disagrees with the value buffer
        mb.transfer(buffer);
        CPPUNIT_ASSERT_EQUAL(0x80000001u, buffer[1]);
        encode_property(buffer, 0x3ffff, {}, 1); // no such tag
        mb.transfer(buffer);
        CPPUNIT_ASSERT_EQUAL(0x80000001u, buffer[1]);
        CPPUNIT_ASSERT_EQUAL(2u, mb.protocol_errors.load());
    }
};

class qa_qpu_probe : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_qpu_probe);
    CPPUNIT_TEST(finds_the_boards);
    CPPUNIT_TEST(refuses_other_machines);
    CPPUNIT_TEST(refuses_the_kms_driver);
    CPPUNIT_TEST(refuses_without_permission);
    CPPUNIT_TEST(refuses_a_v3d_that_is_not_videocore4);
    CPPUNIT_TEST(registered_and_refused_here);
    CPPUNIT_TEST(system_files_and_devices);
    CPPUNIT_TEST_SUITE_END();

    static void expect_refusal(const std::string& what,
                               const fake_files& files,
                               const std::vector<std::string>& words)
    {
        const probe_result r = probe_board(files);
        CPPUNIT_ASSERT_MESSAGE(what + ": probe found a board", !r.found);
        expect_words(what, r.reason, words);
    }

public:
    void finds_the_boards()
    {
        struct expected {
            const char* files;
            const char* soc;
            std::uint32_t base, sdram, flags;
        };
        for (const expected& e : { expected{ "pi1", "bcm2835", 0x20000000, 0x40000000, 0xc },
                                   expected{ "pi3", "bcm2837", 0x3f000000, 0xc0000000, 0x4 },
                                   expected{ "pi3-64", "bcm2837", 0x3f000000, 0xc0000000, 0x4 } }) {
            const probe_result r = probe_board(pi_files(e.files));
            CPPUNIT_ASSERT_MESSAGE(std::string(e.files) + ": " + r.reason, r.found && r.reason.empty());
            CPPUNIT_ASSERT_EQUAL(std::string(e.soc), r.found->soc);
            CPPUNIT_ASSERT_EQUAL(e.base, r.found->peripheral_base);
            CPPUNIT_ASSERT_EQUAL(0x01000000u, r.found->peripheral_size);
            CPPUNIT_ASSERT_EQUAL(e.sdram, r.found->sdram_bus_base);
            CPPUNIT_ASSERT_EQUAL(e.flags, r.found->mem_flags);
        }
        // Without soc/ranges and vc_mem the SoC's defaults apply.
        fake_files f = pi_files("pi1");
        f.contents.erase("/proc/device-tree/soc/ranges");
        f.contents.erase("/proc/device-tree/axi/vc_mem/reg");
        const probe_result r = probe_board(f);
        CPPUNIT_ASSERT(r.found && r.found->peripheral_base == 0x20000000 && r.found->mem_flags == 0xc);
    }

    void refuses_other_machines()
    {
        expect_refusal("a PC", fake_files{}, { "not a Raspberry Pi" });
        fake_files other;
        other.contents["/proc/device-tree/model"] = std::string("Pine64 PINE A64+") + '\0';
        other.contents["/proc/device-tree/compatible"] = std::string("pine64,pine64-plus\0allwinner,sun50i-a64\0", 40);
        expect_refusal("another board", other, { "not a Raspberry Pi", "Pine64" });
        for (const auto& [model, compatible] :
             { std::pair<std::string, std::string>{ "Raspberry Pi 4 Model B Rev 1.4", "brcm,bcm2711" },
               { "Raspberry Pi 5 Model B Rev 1.0", "brcm,bcm2712" } }) {
            fake_files f = pi_files("pi3");
            f.contents["/proc/device-tree/model"] = model + '\0';
            f.contents["/proc/device-tree/compatible"] = std::string("raspberrypi,x") + '\0' + compatible + '\0';
            expect_refusal(model, f, { model, "not a VideoCore IV", "Pi 0 to 3" });
        }
    }

    void refuses_the_kms_driver()
    {
        const std::string v3d = "/proc/device-tree/soc/v3d@7ec00000/status";
        fake_files okay = pi_files("pi3");
        okay.contents[v3d] = std::string("okay") + '\0';
        expect_refusal("v3d node okay", okay, { "vc4-kms-v3d", "soc/v3d@7ec00000", "config.txt", "legacy" });
        fake_files no_status = pi_files("pi3");
        no_status.contents.erase(v3d);
        expect_refusal("v3d node without status", no_status, { "vc4-kms-v3d", "soc/v3d@7ec00000" });
        fake_files module = pi_files("pi1");
        module.contents["/proc/modules"] += "vc4 282624 5 - Live 0x7f1c8000\n";
        expect_refusal("vc4 module loaded", module, { "vc4-kms-v3d", "vc4 module" });
    }

    void refuses_without_permission()
    {
        const std::vector<std::tuple<const char*, int, std::vector<std::string>>> cases = {
            { "/dev/vcio", EACCES, { "permission", "/dev/vcio", "root", "video group" } },
            { "/dev/vcio", ENOENT, { "no /dev/vcio" } },
            { "/dev/mem", EPERM, { "permission", "/dev/mem", "root" } },
            { "/dev/mem", EACCES, { "permission", "/dev/mem", "root" } },
        };
        for (const auto& [path, err, want] : cases) {
            fake_files f = pi_files("pi3");
            f.open_errors[path] = err;
            expect_refusal(std::string(path) + " " + std::strerror(err), f, want);
        }
    }

    void refuses_a_v3d_that_is_not_videocore4()
    {
        // A register window reading the wrong IDENT0 (a powered-down block
        // reads 0): opening fails, and the QPUs are switched off again.
        struct zero_registers final : register_window {
            std::uint32_t read(std::uint32_t) override { return 0; }
            void write(std::uint32_t, std::uint32_t) override {}
        };
        qpu::emu::emulator gpu;
        auto mb = std::make_shared<fake_mailbox>(&gpu);
        expect_error("IDENT0 0",
                     [&] {
                         host h(pi3_board(), mb, std::make_unique<zero_registers>(),
                                std::make_unique<emulator_mapper>(gpu));
                     },
                     { "IDENT0", "not a VideoCore IV" });
        CPPUNIT_ASSERT(!mb->qpus_enabled);
        // A board whose firmware says BCM2711 (a Pi 4 revision code) is refused
        // before the QPUs are touched, whatever the device tree said.
        mb->board_revision = 0xc03111;
        expect_error("Pi 4 revision",
                     [&] {
                         host h(pi3_board(), mb, std::make_unique<fake_v3d>(gpu),
                                std::make_unique<emulator_mapper>(gpu));
                     },
                     { "0xc03111", "BCM2711", "not a VideoCore IV" });
        CPPUNIT_ASSERT(!mb->qpus_enabled);
        // The emulated one identifies itself, and the host enables the QPUs while open.
        {
            fake_pi pi;
            auto h = pi.open(pi3_board());
            CPPUNIT_ASSERT(pi.mb->qpus_enabled);
            CPPUNIT_ASSERT_EQUAL(0xa02082u, h->board_revision);
            CPPUNIT_ASSERT(h->firmware_revision != 0);
            h.reset();
            CPPUNIT_ASSERT(!pi.mb->qpus_enabled);
        }
    }

    void registered_and_refused_here()
    {
        // On anything but a Pi 0-3 with the legacy driver the registry lists
        // qpu as unusable, with the probe's reason.
        const probe_result here = probe_board(*system_files());
        if (here.found)
            return; // a real VideoCore IV: nothing to refuse
        bool listed = false;
        for (const auto& b : gpufft::backends())
            if (b.name == "qpu") {
                listed = true;
                CPPUNIT_ASSERT(!b.usable);
                CPPUNIT_ASSERT_EQUAL(here.reason, b.reason);
            }
        CPPUNIT_ASSERT_MESSAGE("qpu is not in gpufft::backends()", listed);
        gpufft::plan_options o;
        o.backend = "qpu";
        expect_error("plan on qpu here",
                     [&] { gpufft::plan p(gpufft::problem{ 1024 }, o); },
                     { "qpu", "not usable", here.reason });
    }

    void system_files_and_devices()
    {
        // The real file access the probe uses, on files every Linux has.
        const auto files = system_files();
        const auto status = files->read("/proc/self/status");
        CPPUNIT_ASSERT(status && status->find("Pid:") != std::string::npos);
        CPPUNIT_ASSERT(!files->read("/nonexistent/qpu"));
        const auto entries = files->list("/proc/self");
        CPPUNIT_ASSERT(std::find(entries.begin(), entries.end(), "status") != entries.end());
        CPPUNIT_ASSERT(files->list("/nonexistent/qpu").empty());
        CPPUNIT_ASSERT_EQUAL(ENOENT, files->open_error("/nonexistent/qpu"));
        CPPUNIT_ASSERT_EQUAL(0, files->open_error("/dev/null"));
        // Opening the real devices off a Pi fails cleanly, naming the device.
        if (!probe_board(*files).found)
            expect_error("open_system_host here", [] { open_system_host(pi3_board()); },
                         { "cannot open /dev/" });
    }
};

CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_qpu_mailbox, "qpu_mailbox");
CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_qpu_probe, "qpu_probe");

} // namespace qa
