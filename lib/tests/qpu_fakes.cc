// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft qpu host-driver tests: the fakes. */
#include "qpu_fakes.h"
#include <unistd.h>

namespace qa::qpu_fakes {

std::optional<std::string> fake_files::read(const std::string& path) const
{
    const auto it = contents.find(path);
    if (it == contents.end())
        return std::nullopt;
    return it->second;
}

std::vector<std::string> fake_files::list(const std::string& dir) const
{
    const std::string prefix = dir.back() == '/' ? dir : dir + "/";
    std::set<std::string> names;
    for (const auto& [path, text] : contents)
        if (path.compare(0, prefix.size(), prefix) == 0 && path.size() > prefix.size())
            names.insert(path.substr(prefix.size(), path.find('/', prefix.size()) - prefix.size()));
    return { names.begin(), names.end() };
}

int fake_files::open_error(const std::string& path) const
{
    const auto it = open_errors.find(path);
    return it == open_errors.end() ? 0 : it->second;
}

namespace {

// Device-tree cells, big-endian.
std::string cells(std::initializer_list<std::uint32_t> words)
{
    std::string s;
    for (std::uint32_t w : words)
        for (int shift = 24; shift >= 0; shift -= 8)
            s += char((w >> shift) & 0xff);
    return s;
}

std::string strings(std::initializer_list<const char*> items)
{
    std::string s;
    for (const char* i : items)
        s += std::string(i) + '\0';
    return s;
}

} // namespace

fake_files pi_files(const std::string& which)
{
    const bool pi1 = which == "pi1";
    const bool wide = which == "pi3-64";
    fake_files f;
    const std::string dt = "/proc/device-tree/";
    f.contents[dt + "model"] =
        strings({ pi1 ? "Raspberry Pi Model B Rev 2" : "Raspberry Pi 3 Model B Rev 1.2" });
    f.contents[dt + "compatible"] = pi1 ? strings({ "raspberrypi,model-b", "brcm,bcm2835" })
                                        : strings({ "raspberrypi,3-model-b", "brcm,bcm2837" });
    const std::uint32_t base = pi1 ? 0x20000000 : 0x3f000000;
    f.contents[dt + "soc/ranges"] = wide ? cells({ 0x7e000000, 0, base, 0x01000000 })
                                         : cells({ 0x7e000000, base, 0x01000000 });
    f.contents[dt + "axi/vc_mem/reg"] = cells({ 0x3ec00000, 0x40000000, pi1 ? 0x40000000u : 0xc0000000u });
    // The KMS driver's nodes exist but are disabled (no dtoverlay=vc4-kms-v3d).
    f.contents[dt + "soc/v3d@7ec00000/compatible"] = strings({ "brcm,bcm2835-v3d" });
    f.contents[dt + "soc/v3d@7ec00000/status"] = strings({ "disabled" });
    f.contents[dt + "soc/gpu/compatible"] = strings({ "brcm,bcm2835-vc4" });
    f.contents[dt + "soc/gpu/status"] = strings({ "disabled" });
    f.contents[dt + "soc/serial@7e201000/compatible"] = strings({ "arm,pl011", "arm,primecell" });
    f.contents["/proc/modules"] = "bcm2835_codec 36864 0 - Live 0x7f0b8000\n"
                                  "snd_bcm2835 24576 1 - Live 0x7f0a4000\n";
    return f;
}

board pi3_board() { return { "Raspberry Pi 3 Model B Rev 1.2", "bcm2837", 0x3f000000, 0x01000000, 0xc0000000, 0x4 }; }

fake_mailbox::fake_mailbox(qpu::emu::emulator* gpu, int record_fd) : d_gpu(gpu), d_record_fd(record_fd) {}

fake_mailbox::block* fake_mailbox::find(std::uint32_t handle)
{
    for (block& b : d_blocks)
        if (handle != 0 && b.handle == handle)
            return &b;
    return nullptr;
}

unsigned fake_mailbox::live_handles() const
{
    unsigned n = 0;
    for (const block& b : d_blocks)
        n += b.handle != 0;
    return n;
}

unsigned fake_mailbox::locked_handles() const
{
    unsigned n = 0;
    for (const block& b : d_blocks)
        n += b.handle != 0 && b.locked;
    return n;
}

// "what 0x0000abcd\n" with write(2): safe in a signal handler.
void fake_mailbox::record(const char* what, std::uint32_t value) noexcept
{
    if (d_record_fd < 0)
        return;
    char line[64];
    std::size_t n = 0;
    while (*what && n < 40)
        line[n++] = *what++;
    const char* digits = "0123456789abcdef";
    line[n++] = ' ';
    line[n++] = '0';
    line[n++] = 'x';
    for (int shift = 28; shift >= 0; shift -= 4)
        line[n++] = digits[(value >> shift) & 0xf];
    line[n++] = '\n';
    if (::write(d_record_fd, line, n) < 0)
        return;
}

std::uint32_t fake_mailbox::execute(const std::uint32_t* args)
{
    ++execute_calls;
    const std::uint32_t count = args[0], control = args[1];
    d_gpu->write_register(qpu::v3d::SRQCS,
                          qpu::v3d::SRQCS_ERROR | qpu::v3d::SRQCS_CLEAR_QUEUED |
                              qpu::v3d::SRQCS_CLEAR_COMPLETED);
    for (std::uint32_t q = 0; q < count; ++q) {
        d_gpu->write_register(qpu::v3d::SRQUA, d_gpu->read_word(control + 8 * q));
        d_gpu->write_register(qpu::v3d::SRQPC, d_gpu->read_word(control + 8 * q + 4));
    }
    const qpu::emu::run_result r = d_gpu->run(execute_cycle_budget);
    if (r.reason == qpu::emu::stop_reason::idle)
        return 0;
    last_run_message = std::string(qpu::emu::to_string(r.reason)) + ": " + r.message;
    return 0x80000000; // what the firmware returns when its wait times out
}

int fake_mailbox::transfer(std::uint32_t* buf) noexcept
{
    ++calls;
    // [size, code, tag, value bytes, request/response, values..., end tag]
    const std::uint32_t words = buf[0] / 4;
    const std::uint32_t value_words = buf[3] / 4;
    auto refuse = [&] {
        ++protocol_errors;
        buf[1] = 0x80000001;
        return 0;
    };
    if (buf[0] % 4 || buf[3] % 4 || words != 6 + value_words || buf[1] != 0 || buf[4] != 0 ||
        buf[5 + value_words] != 0)
        return refuse();
    const std::uint32_t tag = buf[2];
    const std::uint32_t* args = buf + 5;
    unsigned nargs = 0;
    std::uint32_t reply = 0;
    switch (tag) {
    case tag::firmware_revision:
        reply = 0x5e2a6f35;
        break;
    case tag::board_revision:
        reply = board_revision;
        break;
    case tag::qpu_enable:
        nargs = 1;
        qpus_enabled = args[0] != 0;
        break;
    case tag::mem_alloc: {
        nargs = 3;
        const std::uint32_t align = args[1] ? args[1] : 1;
        const std::uint32_t offset = (d_next_offset + align - 1) / align * align;
        block* slot = nullptr;
        for (block& b : d_blocks)
            if (!slot && b.handle == 0)
                slot = &b;
        if (!d_gpu || !slot || std::uint64_t(offset) + args[0] > d_gpu->memory_bytes())
            break; // handle 0: out of memory
        *slot = { d_next_handle++, offset, args[0], args[2], false };
        d_next_offset = offset + args[0];
        reply = slot->handle;
        record("alloc", reply);
        break;
    }
    case tag::mem_lock:
    case tag::mem_unlock:
    case tag::mem_release: {
        nargs = 1;
        block* b = find(args[0]);
        if (!b) {
            ++unknown_handles;
            reply = tag == tag::mem_lock ? 0 : 1;
            break;
        }
        if (tag == tag::mem_lock) {
            b->locked = true;
            // The bus alias the flags choose (top two address bits).
            static const std::uint32_t alias[4] = { 0, 0xc0000000, 0x80000000, 0x40000000 };
            reply = alias[(b->flags >> 2) & 3] | b->offset;
            record("lock", args[0]);
        } else if (tag == tag::mem_unlock) {
            b->locked = false;
            record("unlock", args[0]);
        } else {
            *b = block{};
            record("release", args[0]);
        }
        break;
    }
    case tag::execute_qpu:
        nargs = 4;
        reply = d_gpu ? execute(args) : 0x80000000;
        break;
    default:
        return refuse();
    }
    if (value_words < std::max(nargs, 1u))
        return refuse();
    buf[1] = reply_success;
    buf[4] = tag_answered | 4;
    buf[5] = reply;
    return 0;
}

std::uint32_t fake_v3d::read(std::uint32_t offset)
{
    if (offset == qpu::v3d::SRQCS) {
        const qpu::emu::run_result r = d_gpu.run(cycles_per_poll);
        if (r.reason == qpu::emu::stop_reason::fault || r.reason == qpu::emu::stop_reason::deadlock)
            last_run_message = std::string(qpu::emu::to_string(r.reason)) + ": " + r.message;
    }
    return d_gpu.read_register(offset);
}

void fake_v3d::write(std::uint32_t offset, std::uint32_t value)
{
    ++writes[offset];
    d_gpu.write_register(offset, value);
}

void* emulator_mapper::map(std::uint32_t bus, std::size_t bytes) { return d_gpu.memory(bus, bytes); }

fake_pi::fake_pi() = default;

std::shared_ptr<host> fake_pi::open(const board& b)
{
    mb = std::make_shared<fake_mailbox>(&gpu);
    auto v = std::make_unique<fake_v3d>(gpu);
    auto e = std::make_unique<emulator_mapper>(gpu);
    v3d = v.get();
    mapper = e.get();
    return std::make_shared<host>(b, mb, std::move(v), std::move(e));
}

} // namespace qa::qpu_fakes
