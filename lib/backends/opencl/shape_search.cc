/* gr-gpufft OpenCL backend: the plan-time search over kernel shapes. */
#include "shape_search.h"
#include "program_cache.h"
#include <gpufft/error.h>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <sstream>

namespace gpufft::opencl::detail {

namespace {

// Bytes a timed batch moves each way: enough to fill a GPU, little enough
// that a size plans in well under a second once its kernels are cached.
constexpr std::size_t timed_bytes = std::size_t(32) << 20;
// Timed samples a candidate, the median kept; each of a few enqueues, so
// that one clFinish's latency does not swamp small transforms.
constexpr int timed_samples = 5;
constexpr int enqueues_a_sample = 4;
// The layout every candidate is timed in (searched_chain's callers plan
// contiguous transforms; a chain's shape does not depend on their distance).
const char* const layout_class = "c2c contiguous";

std::string env_text(const char* name)
{
    const char* v = std::getenv(name);
    return v ? v : "";
}

//! What a cached choice depends on, written at the head of its entry.
std::string entry_key(const device_entry& d, std::size_t n, direction dir, std::size_t batch)
{
    std::ostringstream k;
    k << "gpufft shape search, candidates version " << shape_candidates_version << '\n'
      << d.info.platform << '\n'
      << d.info.name << '\n'
      << d.info.driver << '\n'
      << d.info.version << '\n'
      << "local memory " << d.info.local_memory << ", work-group " << d.info.max_work_group << '\n'
      << n << " points " << (dir == direction::forward ? "forward" : "inverse") << ", "
      << layout_class << ", timed on a batch of " << batch << '\n';
    return k.str();
}

//! The cached choice among `candidates`, or -1 where the entry is missing,
//! foreign (another key) or does not name one of them as it is now.
long cached_choice(const std::string& path,
                   const std::string& key,
                   const std::vector<chain_shape>& candidates)
{
    const std::string text = read_cache_file(path);
    if (text.compare(0, key.size(), key) != 0)
        return -1;
    std::istringstream in(text.substr(key.size()));
    std::string word, of, shape;
    long k = -1;
    std::size_t count = 0;
    if (!(in >> word >> k >> of >> count) || word != "candidate" || of != "of" ||
        count != candidates.size() || k < 0 || std::size_t(k) >= count)
        return -1;
    in.ignore(1);
    if (!std::getline(in, shape) || shape != candidates[std::size_t(k)].describe())
        return -1;
    return k;
}

//! Seconds a batch of `shape` takes on the device, median of timed_samples.
double seconds_a_batch(device_context& ctx,
                       cl_command_queue q,
                       const chain_shape& shape,
                       std::size_t batch,
                       cl_mem in,
                       cl_mem out)
{
    fft_chain chain(ctx, shape, batch, shape.n, shape.n);
    chain.enqueue(q, in, out, batch); // warm-up: first launch, caches
    check(api()->clFinish(q), "clFinish");
    std::vector<double> t;
    for (int i = 0; i < timed_samples; ++i) {
        const auto start = std::chrono::steady_clock::now();
        for (int e = 0; e < enqueues_a_sample; ++e)
            chain.enqueue(q, in, out, batch);
        check(api()->clFinish(q), "clFinish");
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() /
                    enqueues_a_sample);
    }
    std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
    return t[t.size() / 2];
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

bool shape_search_on(const device_entry& d)
{
    const std::string v = env_text("GPUFFT_OPENCL_SEARCH");
    // Off unless asked for: on the H100 the choice made on the timed batch
    // helped some sizes and hurt others, over the whole sweep too (262144:
    // 0.81 to 1.03 of cuFFT, 384160: 1.56 to 1.37;
    // scripts/device/results/h100-2026-11-25f-splits.md).
    if (v.empty())
        return false;
    if (v != "0" && v != "1")
        throw error("gpufft: opencl: GPUFFT_OPENCL_SEARCH=\"" + v + "\" is neither 0 nor 1");
    return v == "1";
}

chain_shape searched_chain(device_context& ctx, std::size_t n, direction dir, std::size_t max_batch)
{
    const device_entry& d = ctx.device;
    const std::string forced = env_text("GPUFFT_OPENCL_CANDIDATE");
    if (forced.empty() && !shape_search_on(d))
        return plan_chain(d, n, dir);
    const std::vector<chain_shape> candidates = shape_candidates(d, n, dir);
    const std::string of = " of " + std::to_string(candidates.size());
    const auto noted = [&](std::size_t k, const std::string& how, const std::string& detail = "") {
        chain_shape c = candidates[k];
        c.search_note = how + ": candidate " + std::to_string(k) + of + detail;
        return c;
    };
    if (!forced.empty()) {
        if (forced.find_first_not_of("0123456789") != std::string::npos || forced.size() > 6 ||
            std::stoul(forced) >= candidates.size())
            throw error("gpufft: opencl: GPUFFT_OPENCL_CANDIDATE=\"" + forced +
                        "\" is not one of the " + std::to_string(candidates.size()) +
                        " candidates (0 first) for " + std::to_string(n) + " points on " +
                        d.label());
        return noted(std::stoul(forced), "forced");
    }
    if (candidates.size() == 1)
        return candidates.front();

    // A choice holds for the batch it was timed on: one made on a test's
    // few transforms is not reused for a large batch.
    const std::size_t batch =
        std::max<std::size_t>(1, std::min(max_batch, timed_bytes / (8 * n)));
    const std::string key = entry_key(d, n, dir, batch);
    const std::string path = kernel_cache_dir() + "/shapes/" + cache_hash(key) + ".txt";
    const long cached = cached_choice(path, key, candidates);
    if (cached >= 0)
        return noted(std::size_t(cached), "search cache");

    const std::size_t bytes = batch * n * 8;
    mem_handle in = device_buffer(ctx, bytes), out = device_buffer(ctx, bytes);
    const queue_handle q = make_queue(ctx);
    const float zero = 0;
    check(api()->clEnqueueFillBuffer(q.get(), in.get(), &zero, sizeof zero, 0, bytes, 0, nullptr,
                                     nullptr),
          "clEnqueueFillBuffer");
    std::vector<double> seconds(candidates.size(), std::numeric_limits<double>::infinity());
    for (std::size_t k = 0; k < candidates.size(); ++k) {
        try {
            seconds[k] = seconds_a_batch(ctx, q.get(), candidates[k], batch, in.get(), out.get());
        } catch (const error&) {
            // A shape the device's compiler or limits refuse is not a choice.
        }
    }
    const std::size_t best = std::size_t(std::min_element(seconds.begin(), seconds.end()) - seconds.begin());
    if (!(seconds[best] < std::numeric_limits<double>::infinity()))
        return candidates.front();
    write_cache_file(path, key + "candidate " + std::to_string(best) + of + '\n' +
                               candidates[best].describe() + '\n');
    return noted(best, "searched", ", " + microseconds(seconds[best]) + " a batch of " +
                                       std::to_string(batch) + " against " +
                                       microseconds(seconds[0]) + " for candidate 0");
}

} // namespace gpufft::opencl::detail
