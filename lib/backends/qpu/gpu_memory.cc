// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft qpu backend: the table of live GPU memory and its release on
 * exit and on signals. */
#include "gpu_memory.h"
#include <gpufft/error.h>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <mutex>

namespace gpufft::qpu {

namespace {

// Fixed size and lock-free, so the signal handler can walk it. A slot is
// claimed by setting mb, then handle; whoever exchanges the handle to 0
// releases the block.
struct live_block {
    std::atomic<mailbox*> mb{ nullptr };
    std::atomic<std::uint32_t> handle{ 0 };
};
constexpr std::size_t max_live_blocks = 64;
live_block live_blocks[max_live_blocks];

void release_slot(live_block& slot) noexcept
{
    mailbox* mb = slot.mb.load();
    const std::uint32_t handle = slot.handle.exchange(0);
    if (mb && handle) {
        mem_unlock(*mb, handle);
        mem_release(*mb, handle);
    }
}

const int handled_signals[] = { SIGINT, SIGTERM, SIGHUP };
struct sigaction previous_actions[sizeof handled_signals / sizeof handled_signals[0]];

void on_signal(int sig, siginfo_t* info, void* context)
{
    release_all_gpu_memory();
    for (std::size_t i = 0; i < sizeof handled_signals / sizeof handled_signals[0]; ++i) {
        if (handled_signals[i] != sig)
            continue;
        const struct sigaction& prev = previous_actions[i];
        if (prev.sa_flags & SA_SIGINFO) {
            if (prev.sa_sigaction)
                prev.sa_sigaction(sig, info, context);
        } else if (prev.sa_handler == SIG_DFL) {
            // Default action (terminate): restore it and re-raise; the signal
            // is blocked in this handler, so it is delivered on return.
            sigaction(sig, &prev, nullptr);
            raise(sig);
        } else {
            prev.sa_handler(sig); // not SIG_IGN: an ignored signal keeps its disposition
        }
    }
}

void install_release_handlers()
{
    static std::once_flag once;
    std::call_once(once, [] {
        std::atexit(release_all_gpu_memory);
        for (std::size_t i = 0; i < sizeof handled_signals / sizeof handled_signals[0]; ++i) {
            // An ignored signal (SIGHUP under nohup) does not end the process,
            // so it must not take the GPU memory away either: leave it ignored.
            if (sigaction(handled_signals[i], nullptr, &previous_actions[i]) != 0 ||
                (!(previous_actions[i].sa_flags & SA_SIGINFO) && previous_actions[i].sa_handler == SIG_IGN))
                continue;
            struct sigaction action = {};
            action.sa_sigaction = on_signal;
            action.sa_flags = SA_SIGINFO | SA_RESTART;
            sigemptyset(&action.sa_mask);
            sigaction(handled_signals[i], &action, &previous_actions[i]);
        }
    });
}

std::size_t claim_slot(mailbox* mb)
{
    for (std::size_t i = 0; i < max_live_blocks; ++i) {
        mailbox* expected = nullptr;
        if (live_blocks[i].mb.compare_exchange_strong(expected, mb))
            return i;
    }
    throw error("gpufft: qpu: more than " + std::to_string(max_live_blocks) +
                " blocks of GPU memory in use; release some plans");
}

} // namespace

void release_all_gpu_memory() noexcept
{
    for (live_block& slot : live_blocks)
        release_slot(slot);
}

gpu_memory::gpu_memory(std::shared_ptr<mailbox> mb,
                       memory_mapper& mapper,
                       std::size_t bytes,
                       std::uint32_t flags)
    : d_mb(std::move(mb)), d_mapper(mapper), d_bytes(bytes)
{
    if (bytes > 0xfffff000u)
        throw error("gpufft: qpu: " + std::to_string(bytes) +
                    " bytes of GPU memory exceed the 32-bit bus address space");
    install_release_handlers();
    d_slot = claim_slot(d_mb.get());
    live_block& slot = live_blocks[d_slot];
    try {
        slot.handle = mem_alloc(*d_mb, std::uint32_t(bytes), 4096, flags);
        d_bus = mem_lock(*d_mb, slot.handle);
        d_host = static_cast<std::uint8_t*>(d_mapper.map(d_bus, bytes));
    } catch (...) {
        release_slot(slot);
        slot.mb = nullptr;
        throw;
    }
}

gpu_memory::~gpu_memory()
{
    d_mapper.unmap(d_host, d_bytes);
    live_block& slot = live_blocks[d_slot];
    release_slot(slot);
    slot.mb = nullptr;
}

bool gpu_memory::live() const { return live_blocks[d_slot].handle.load() != 0; }

} // namespace gpufft::qpu
