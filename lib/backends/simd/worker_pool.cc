// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft simd backend: the worker pool. */
#include "worker_pool.h"
#include <gpufft/error.h>
#include <string>

namespace gpufft::simd {

worker_pool::worker_pool(unsigned size)
{
    d_threads.reserve(size > 0 ? size - 1 : 0);
    try {
        for (unsigned w = 1; w < size; ++w)
            d_threads.emplace_back([this, w] { loop(w); });
    } catch (const std::exception& e) {
        // The destructor will not run: the threads already started wait on
        // d_start and must be stopped before it is destroyed.
        const std::size_t started = d_threads.size();
        stop();
        throw error("gpufft: cannot start " + std::to_string(size - 1) +
                    " worker threads for threads = " + std::to_string(size) + " (" +
                    std::to_string(started) + " started, then: " + e.what() + ")");
    }
}

worker_pool::~worker_pool() { stop(); }

void worker_pool::stop()
{
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_stop = true;
    }
    d_start.notify_all();
    for (auto& t : d_threads)
        t.join();
}

void worker_pool::run(const std::function<void(unsigned)>& job)
{
    if (d_threads.empty()) {
        job(0);
        return;
    }
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_job = &job;
        d_pending = unsigned(d_threads.size());
        ++d_generation;
    }
    d_start.notify_all();
    job(0);
    std::unique_lock<std::mutex> lock(d_mutex);
    d_done.wait(lock, [this] { return d_pending == 0; });
}

void worker_pool::loop(unsigned worker)
{
    unsigned long seen = 0;
    for (;;) {
        const std::function<void(unsigned)>* job;
        {
            std::unique_lock<std::mutex> lock(d_mutex);
            d_start.wait(lock, [&] { return d_stop || d_generation != seen; });
            if (d_stop)
                return;
            seen = d_generation;
            job = d_job;
        }
        (*job)(worker);
        std::lock_guard<std::mutex> lock(d_mutex);
        if (--d_pending == 0)
            d_done.notify_one();
    }
}

} // namespace gpufft::simd
