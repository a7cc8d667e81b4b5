// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-spectrum: reading IQ from files and standard input, and stopping
 * on a signal (SigMF recordings: sigmf.cc). */
#include "app.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <poll.h>
#include <unistd.h>

namespace gpufft_app {

namespace {

volatile std::sig_atomic_t stop_requested = 0;

extern "C" void on_stop_signal(int signal) { stop_requested = signal; }

} // namespace

void install_stop_handlers()
{
    stop_requested = 0;
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    // SA_RESTART keeps writes from failing with EINTR; the wait for input is
    // a ppoll(), which a signal ends regardless (signal(7), "Interruption of
    // system calls"). SA_RESETHAND: a second signal acts as usual.
    sa.sa_flags = SA_RESTART | SA_RESETHAND;
    for (int s : { SIGINT, SIGTERM, SIGHUP }) {
        struct sigaction old {};
        sigaction(s, nullptr, &old);
        if (old.sa_handler != SIG_IGN) // under nohup SIGHUP stays ignored
            sigaction(s, &sa, nullptr);
    }
    std::signal(SIGPIPE, SIG_IGN);
}

int stop_signal() { return stop_requested; }

void request_stop(int signal) { stop_requested = signal; }

std::size_t pump(int fd, gpufft::spectrum& s, const gpufft::spectrum::sink& out, const read_hook& on_read,
                 std::size_t limit, std::size_t chunk)
{
    std::vector<unsigned char> buf(std::max<std::size_t>(1, std::min<std::size_t>(chunk, 1 << 20)));
    std::size_t total = 0;
    sigset_t stops, before;
    sigemptyset(&stops);
    for (int sig : { SIGINT, SIGTERM, SIGHUP })
        sigaddset(&stops, sig);
    while (total < limit && !stop_signal()) {
        // Wait for data with the stop signals blocked except inside ppoll(),
        // so that one arriving just before the wait still ends it.
        pollfd p{ fd, POLLIN, 0 };
        pthread_sigmask(SIG_BLOCK, &stops, &before);
        const int ready = stop_signal() ? 0 : ::ppoll(&p, 1, nullptr, &before);
        const int poll_errno = errno;
        pthread_sigmask(SIG_SETMASK, &before, nullptr);
        if (ready < 0 && poll_errno != EINTR)
            throw app_error(std::string("cannot wait for input: ") + std::strerror(poll_errno));
        if (ready <= 0)
            continue;
        const ssize_t got = ::read(fd, buf.data(), std::min(buf.size(), limit - total));
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            throw app_error(std::string("read error: ") + std::strerror(errno));
        if (got == 0)
            break;
        total += std::size_t(got);
        if (on_read)
            on_read(buf.data(), std::size_t(got));
        s.push_bytes(buf.data(), std::size_t(got), out);
    }
    s.flush(out);
    return total;
}

} // namespace gpufft_app
