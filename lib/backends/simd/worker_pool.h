// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft simd backend: threads that split a batch, made at plan time (internal). */
#ifndef GPUFFT_LIB_SIMD_WORKER_POOL_H
#define GPUFFT_LIB_SIMD_WORKER_POOL_H

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gpufft::simd {

/*!
 * Runs job(worker) for worker in [0, size) and returns when all are done;
 * worker 0 is the calling thread. Threads start once and wait between jobs,
 * so run() neither allocates nor creates threads. The constructor throws
 * gpufft::error, leaving no thread behind, if a thread cannot start.
 */
class worker_pool
{
public:
    explicit worker_pool(unsigned size);
    ~worker_pool();
    worker_pool(const worker_pool&) = delete;
    worker_pool& operator=(const worker_pool&) = delete;

    unsigned size() const { return unsigned(d_threads.size()) + 1; }
    //! The job is called by reference: it must outlive run().
    void run(const std::function<void(unsigned)>& job);

private:
    void loop(unsigned worker);
    //! Ends and joins every started thread.
    void stop();

    std::vector<std::thread> d_threads;
    std::mutex d_mutex;
    std::condition_variable d_start, d_done;
    const std::function<void(unsigned)>* d_job = nullptr;
    unsigned long d_generation = 0;
    unsigned d_pending = 0;
    bool d_stop = false;
};

} // namespace gpufft::simd

#endif
