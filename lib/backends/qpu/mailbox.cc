// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft qpu backend: property buffers and the calls built on them. */
#include "mailbox.h"
#include <gpufft/error.h>
#include <algorithm>
#include <cstdio>

namespace gpufft::qpu {

std::size_t encode_property(std::uint32_t* buffer,
                            std::uint32_t tag,
                            std::initializer_list<std::uint32_t> args,
                            std::size_t reply_words) noexcept
{
    const std::size_t value_words = std::max(args.size(), reply_words);
    std::size_t i = 0;
    buffer[i++] = 0; // total size, set below
    buffer[i++] = request_code;
    buffer[i++] = tag;
    buffer[i++] = std::uint32_t(4 * value_words);
    buffer[i++] = 0; // request: no bits set
    for (std::uint32_t a : args)
        buffer[i++] = a;
    for (std::size_t k = args.size(); k < value_words; ++k)
        buffer[i++] = 0;
    buffer[i++] = 0; // end tag
    buffer[0] = std::uint32_t(4 * i);
    return i;
}

bool decode_property(const std::uint32_t* buffer,
                     std::size_t reply_words,
                     std::uint32_t* reply) noexcept
{
    if (buffer[1] != reply_success || !(buffer[4] & tag_answered))
        return false;
    if ((buffer[4] & ~tag_answered) < 4 * reply_words)
        return false;
    for (std::size_t k = 0; k < reply_words; ++k)
        reply[k] = buffer[5 + k];
    return true;
}

bool property_call(mailbox& mb,
                   std::uint32_t tag,
                   std::initializer_list<std::uint32_t> args,
                   std::uint32_t* reply,
                   std::size_t reply_words) noexcept
{
    if (args.size() > 4 || reply_words > 4)
        return false;
    // Aligned for the firmware, which reads it through the kernel's copy.
    alignas(16) std::uint32_t buffer[max_property_words];
    encode_property(buffer, tag, args, reply_words);
    if (mb.transfer(buffer) != 0)
        return false;
    return decode_property(buffer, reply_words, reply);
}

namespace {

std::string hex(std::uint32_t v)
{
    char s[16];
    std::snprintf(s, sizeof s, "0x%x", v);
    return s;
}

std::uint32_t call_or_throw(mailbox& mb,
                            const char* what,
                            std::uint32_t tag,
                            std::initializer_list<std::uint32_t> args)
{
    std::uint32_t reply = 0;
    if (!property_call(mb, tag, args, &reply, 1))
        throw error(std::string("gpufft: qpu: mailbox call ") + what + " (tag " + hex(tag) +
                    ") failed");
    return reply;
}

} // namespace

std::uint32_t firmware_revision(mailbox& mb)
{
    return call_or_throw(mb, "get firmware revision", tag::firmware_revision, {});
}

std::uint32_t board_revision(mailbox& mb)
{
    return call_or_throw(mb, "get board revision", tag::board_revision, {});
}

void qpu_enable(mailbox& mb, bool enable)
{
    const std::uint32_t status =
        call_or_throw(mb, enable ? "qpu_enable(1)" : "qpu_enable(0)", tag::qpu_enable, { enable });
    if (status != 0)
        throw error("gpufft: qpu: the firmware refused to " +
                    std::string(enable ? "enable" : "disable") + " the QPUs (status " +
                    hex(status) + "); is the vc4-kms-v3d driver loaded?");
}

std::uint32_t mem_alloc(mailbox& mb, std::uint32_t bytes, std::uint32_t align, std::uint32_t flags)
{
    const std::uint32_t handle = call_or_throw(mb, "mem_alloc", tag::mem_alloc, { bytes, align, flags });
    if (handle == 0)
        throw error("gpufft: qpu: the firmware could not allocate " + std::to_string(bytes) +
                    " bytes of GPU memory; raise gpu_mem in config.txt (and reboot) or plan a "
                    "smaller batch");
    return handle;
}

std::uint32_t mem_lock(mailbox& mb, std::uint32_t handle)
{
    const std::uint32_t bus = call_or_throw(mb, "mem_lock", tag::mem_lock, { handle });
    if (bus == 0)
        throw error("gpufft: qpu: the firmware could not lock GPU memory handle " + hex(handle));
    return bus;
}

bool mem_unlock(mailbox& mb, std::uint32_t handle) noexcept
{
    std::uint32_t status = 1;
    return property_call(mb, tag::mem_unlock, { handle }, &status, 1) && status == 0;
}

bool mem_release(mailbox& mb, std::uint32_t handle) noexcept
{
    std::uint32_t status = 1;
    return property_call(mb, tag::mem_release, { handle }, &status, 1) && status == 0;
}

std::uint32_t execute_qpu(mailbox& mb,
                          std::uint32_t count,
                          std::uint32_t control_bus,
                          bool no_flush,
                          std::uint32_t timeout_ms)
{
    return call_or_throw(
        mb, "execute_qpu", tag::execute_qpu, { count, control_bus, no_flush, timeout_ms });
}

} // namespace gpufft::qpu
