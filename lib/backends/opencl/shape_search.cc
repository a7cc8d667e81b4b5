// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: the plan-time search over kernel shapes. */
#include "shape_search.h"
#include "program_cache.h"
#include "../../core/wisdom.h"
#include <gpufft/error.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <limits>
#include <memory>
#include <sstream>
#include <system_error>
#include <thread>

namespace gpufft::opencl::detail {

namespace {

// Bytes a timed batch moves each way at most: the search times the batch the
// plan is made for, out of the GPU's cache where that batch is large (the
// H200's L2 is 50 MB: a 32 MiB batch timed in it favoured the wrong two-pass
// splits, README "The opencl backend"), within a share of device memory
// that the candidates' scratch and two buffers leave room for.
constexpr std::size_t timed_bytes_cap = std::size_t(256) << 20;
constexpr std::size_t timed_memory_share = 4;
// Rounds over the candidates, one sample of each a round (so that clock and
// thermal drift fall on all of them alike), the median kept; a sample is
// enough back-to-back enqueues to last about sample_seconds, so that one
// clFinish's latency does not swamp small transforms.
constexpr int timed_rounds = 7;
constexpr double sample_seconds = 2e-3;
constexpr int most_enqueues_a_sample = 256;
// The layout every candidate is timed in (searched_chain's callers plan
// contiguous transforms; a chain's shape does not depend on their distance).
const char* const layout_class = "c2c contiguous";

//! The wisdom key of a choice: what it depends on, on one line.
std::string wisdom_key(const device_entry& d, std::size_t n, direction dir, std::size_t batch)
{
    std::ostringstream k;
    k << "opencl shape v" << shape_candidates_version << " " << d.info.platform << " | " << d.info.name
      << " | " << d.info.driver << " | " << d.info.version << " | local memory " << d.info.local_memory
      << ", work-group " << d.info.max_work_group << " | " << n << " points "
      << (dir == direction::forward ? "forward" : "inverse") << ", " << layout_class
      << ", timed on a batch of " << batch;
    std::string key = k.str();
    // The wisdom file is one "key<TAB>value" a line.
    std::replace_if(
        key.begin(), key.end(), [](char ch) { return ch == '\t' || ch == '\n'; }, ' ');
    return key;
}

std::string wisdom_value(const std::vector<chain_shape>& candidates, std::size_t k)
{
    return "candidate " + std::to_string(k) + " of " + std::to_string(candidates.size()) + ": " +
           candidates[k].describe();
}

//! The choice among `candidates` a wisdom value names, or -1 where it names
//! none of them as they are now.
long wisdom_choice(const std::string& value, const std::vector<chain_shape>& candidates)
{
    for (std::size_t k = 0; k < candidates.size(); ++k)
        if (value == wisdom_value(candidates, k))
            return long(k);
    return -1;
}

//! Seconds a batch of each chain takes on the device (infinity for one that
//! failed), median of timed_rounds samples taken round-robin.
std::vector<double> seconds_a_batch(std::vector<std::unique_ptr<fft_chain>>& chains,
                                    cl_command_queue q,
                                    std::size_t batch,
                                    cl_mem in,
                                    cl_mem out)
{
    using clock = std::chrono::steady_clock;
    const auto sample = [&](fft_chain& chain, int enqueues) {
        const auto start = clock::now();
        for (int e = 0; e < enqueues; ++e)
            chain.enqueue(q, in, out, batch);
        check(api()->clFinish(q), "clFinish");
        return std::chrono::duration<double>(clock::now() - start).count() / enqueues;
    };
    std::vector<int> enqueues(chains.size(), 0);
    for (std::size_t k = 0; k < chains.size(); ++k) {
        if (!chains[k])
            continue;
        try {
            sample(*chains[k], 1); // warm-up: first launch, caches
        } catch (const error&) {
            chains[k].reset(); // a launch the device refuses (work-group, resources)
            continue;
        }
        const double once = sample(*chains[k], 1);
        enqueues[k] = int(std::clamp(sample_seconds / std::max(once, 1e-9), 1.0,
                                     double(most_enqueues_a_sample)));
    }
    std::vector<std::vector<double>> t(chains.size());
    for (int round = 0; round < timed_rounds; ++round)
        for (std::size_t k = 0; k < chains.size(); ++k)
            if (chains[k])
                t[k].push_back(sample(*chains[k], enqueues[k]));
    std::vector<double> median(chains.size(), std::numeric_limits<double>::infinity());
    for (std::size_t k = 0; k < chains.size(); ++k)
        if (!t[k].empty()) {
            std::nth_element(t[k].begin(), t[k].begin() + t[k].size() / 2, t[k].end());
            median[k] = t[k][t[k].size() / 2];
        }
    return median;
}

mem_handle device_buffer(device_context& ctx, std::size_t bytes)
{
    cl_int err = CL_SUCCESS;
    mem_handle m(api()->clCreateBuffer(ctx.context.get(), CL_MEM_READ_WRITE, bytes, nullptr, &err));
    check(err, "clCreateBuffer");
    return m;
}

std::string microseconds(double s)
{
    std::ostringstream o;
    o.precision(3);
    o << s * 1e6 << " us";
    return o.str();
}

} // namespace

std::vector<std::unique_ptr<fft_chain>> build_chains(device_context& ctx,
                                                     const std::vector<chain_shape>& shapes,
                                                     std::size_t max_batch,
                                                     std::size_t dist)
{
    // On as many threads as the host has cores (a board's memory holds a
    // few compilers at once, not every candidate's): a first plan waits for
    // the slowest builds, not for all of them in turn.
    std::vector<std::unique_ptr<fft_chain>> chains(shapes.size());
    std::vector<std::exception_ptr> failures(shapes.size());
    std::atomic<std::size_t> next{ 0 };
    const auto build = [&] {
        for (std::size_t k; (k = next++) < shapes.size();) {
            try {
                chains[k] = std::make_unique<fft_chain>(ctx, shapes[k], max_batch, dist, dist);
            } catch (const error&) {
                // A shape the device's compiler or limits refuse is not a choice.
            } catch (...) {
                failures[k] = std::current_exception();
            }
        }
    };
    // This thread builds too, and takes whatever is left where the system
    // gives no more threads.
    const std::size_t helpers =
        std::min<std::size_t>(shapes.size(), std::max(1u, std::thread::hardware_concurrency())) -
        std::min<std::size_t>(shapes.size(), 1);
    std::vector<std::thread> builders;
    try {
        while (builders.size() < helpers)
            builders.emplace_back(build);
    } catch (const std::system_error&) {
    }
    build();
    for (std::thread& t : builders)
        t.join();
    for (const std::exception_ptr& f : failures)
        if (f)
            std::rethrow_exception(f);
    return chains;
}

chain_shape searched_chain(device_context& ctx, std::size_t n, direction dir, std::size_t max_batch, bool tune)
{
    const device_entry& d = ctx.device;
    const planner_override o = read_planner_override();
    const device_limits limits = planning_limits(d);
    if (o.search == 0)
        return plan_chain(limits, n, dir);
    const std::vector<chain_shape> candidates = shape_candidates(limits, n, dir);
    const std::string of = " of " + std::to_string(candidates.size());
    const auto noted = [&](std::size_t k, const std::string& how, const std::string& detail = "") {
        chain_shape c = candidates[k];
        c.search_note = how + ": candidate " + std::to_string(k) + of + detail;
        return c;
    };
    if (o.candidate != SIZE_MAX) {
        if (o.candidate >= candidates.size())
            throw error("gpufft: opencl: GPUFFT_OPENCL_PLANNER's candidate=" + std::to_string(o.candidate) +
                        " is not one of the " + std::to_string(candidates.size()) +
                        " candidates (0 first) for " + std::to_string(n) + " points on " + d.label());
        return noted(o.candidate, "forced");
    }
    if (candidates.size() == 1)
        return candidates.front();

    // A choice holds for the batch it was timed on: one made on a test's
    // few transforms is not reused for a large batch.
    const std::size_t cap = std::min({ timed_bytes_cap, d.max_alloc,
                                       d.info.global_memory / timed_memory_share /
                                           (2 + candidates.size()) });
    const std::size_t batch = std::max<std::size_t>(1, std::min(max_batch, cap / (8 * n)));
    const std::string key = wisdom_key(d, n, dir, batch);
    if (!tune && o.search < 0) {
        const auto value = gpufft::detail::wisdom_lookup(key);
        const long k = value ? wisdom_choice(*value, candidates) : -1;
        return k >= 0 ? noted(std::size_t(k), "wisdom") : candidates.front();
    }
    const std::size_t bytes = batch * n * 8;
    mem_handle in = device_buffer(ctx, bytes), out = device_buffer(ctx, bytes);
    const queue_handle q = make_queue(ctx);
    const float zero = 0;
    check(api()->clEnqueueFillBuffer(q.get(), in.get(), &zero, sizeof zero, 0, bytes, 0, nullptr,
                                     nullptr),
          "clEnqueueFillBuffer");
    std::vector<std::unique_ptr<fft_chain>> chains = build_chains(ctx, candidates, batch, n);
    const std::vector<double> seconds = seconds_a_batch(chains, q.get(), batch, in.get(), out.get());
    const std::size_t best = std::size_t(std::min_element(seconds.begin(), seconds.end()) - seconds.begin());
    if (!(seconds[best] < std::numeric_limits<double>::infinity()))
        return candidates.front();
    gpufft::detail::wisdom_store(key, wisdom_value(candidates, best));
    return noted(best, "searched", ", " + microseconds(seconds[best]) + " a batch of " +
                                       std::to_string(batch) + " against " +
                                       microseconds(seconds[0]) + " for candidate 0");
}

} // namespace gpufft::opencl::detail
