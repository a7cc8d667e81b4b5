// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft qpu backend: batched FFTs on the VideoCore IV QPUs. */
#include "qpu_backend.h"
#include "gpu_memory.h"
#include "v3d.h"
#include <gpufft/error.h>
#include <algorithm>
#include <cstring>
#include <mutex>
#include <optional>

namespace gpufft::qpu {

namespace {

enum class submission { automatic, direct, mailbox };

std::size_t align_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

// GPU memory is mapped uncached (device memory to the ARM), where the wide,
// possibly unaligned accesses of a library memcpy can fault (aarch64 always
// faults on unaligned device accesses): one aligned 32-bit access per word.
// `bytes` is a multiple of 4.
void copy_to_gpu(std::uint8_t* gpu, const void* host, std::size_t bytes)
{
    volatile std::uint32_t* const to = reinterpret_cast<volatile std::uint32_t*>(gpu);
    const unsigned char* const from = static_cast<const unsigned char*>(host);
    for (std::size_t i = 0; i < bytes / 4; ++i) {
        std::uint32_t w;
        std::memcpy(&w, from + 4 * i, 4);
        to[i] = w;
    }
}

void copy_from_gpu(void* host, const std::uint8_t* gpu, std::size_t bytes)
{
    const volatile std::uint32_t* const from = reinterpret_cast<const volatile std::uint32_t*>(gpu);
    unsigned char* const to = static_cast<unsigned char*>(host);
    for (std::size_t i = 0; i < bytes / 4; ++i) {
        const std::uint32_t w = from[i];
        std::memcpy(to + 4 * i, &w, 4);
    }
}

// The QPU-side uniforms and program table of launches of `jobs` transforms.
struct launch_set {
    std::size_t jobs = 0;
    std::vector<qpu_program> programs;
    std::uint32_t control_bus = 0; // the programs as a table, for execute_qpu
};

/*
 * GPU memory, one block per plan, as GPU_FFT lays it out: 2 x jobs data
 * buffers (input[j], then output[j]), each `step` bytes with a guard page
 * for N >= 512; then the code, the twiddles, and for each launch set the
 * uniforms of every QPU followed by its program table.
 */
class qpu_executor final : public executor
{
public:
    qpu_executor(const problem& p,
                 std::shared_ptr<host> h,
                 const fft_shader& shader,
                 submission how,
                 const backend_config& config)
        : d_problem(p),
          d_host(std::move(h)),
          d_how(how),
          d_timeout(config.timeout),
          d_direct_max_points(config.direct_max_points),
          d_result_in_output(shader.result_in_output),
          d_describe(shader.describe),
          d_bytes(8 * p.n),
          d_step((d_bytes | 4095) + 1),
          d_jobs(std::min(p.batch, std::max<std::size_t>(1, config.launch_data_bytes / (2 * d_step))))
    {
        const std::vector<std::uint32_t> twiddles = shader.twiddles(p.dir);
        const std::size_t code_at = 2 * d_jobs * d_step;
        const std::size_t twiddles_at = align_up(code_at + 8 * shader.code.size(), 256);
        const std::size_t sets_at = align_up(twiddles_at + 4 * twiddles.size(), 256);

        std::vector<std::size_t> set_jobs{ d_jobs };
        if (p.batch % d_jobs)
            set_jobs.push_back(p.batch % d_jobs);
        // Uniform counts do not depend on addresses: size them at base 0.
        std::size_t total = sets_at;
        for (std::size_t jobs : set_jobs)
            for (unsigned q = 0; q < shader.qpus; ++q)
                total += 4 * shader.uniforms(layout(p, 0, twiddles_at, jobs, shader.qpus), q).size() +
                         sizeof(qpu_program);

        d_memory = std::make_unique<gpu_memory>(d_host->mb, *d_host->memory, total, d_host->info.mem_flags);
        const std::uint32_t base = d_memory->bus();
        std::uint8_t* const mem = d_memory->host();
        copy_to_gpu(mem + code_at, shader.code.data(), 8 * shader.code.size());
        copy_to_gpu(mem + twiddles_at, twiddles.data(), 4 * twiddles.size());
        std::size_t at = sets_at;
        for (std::size_t jobs : set_jobs) {
            launch_set set;
            set.jobs = jobs;
            const launch_layout l = layout(p, base, base + twiddles_at, jobs, shader.qpus);
            for (unsigned q = 0; q < shader.qpus; ++q) {
                const auto words = shader.uniforms(l, q);
                copy_to_gpu(mem + at, words.data(), 4 * words.size());
                set.programs.push_back({ std::uint32_t(base + at), std::uint32_t(base + code_at) });
                at += 4 * words.size();
            }
            set.control_bus = std::uint32_t(base + at);
            copy_to_gpu(mem + at, set.programs.data(), set.programs.size() * sizeof(qpu_program));
            at += set.programs.size() * sizeof(qpu_program);
            d_sets.push_back(std::move(set));
        }
    }

    void execute(const complex* in, complex* out) override
    {
        if (!d_memory->live())
            throw error("gpufft: qpu: this plan's GPU memory was released when the process got "
                        "a signal; make a new plan");
        if (d_hung)
            throw error("gpufft: qpu: an earlier launch of this plan did not finish and the QPUs "
                        "may still be running it; reboot before using the QPUs again");
        const std::size_t distance = d_problem.stride();
        std::uint8_t* const mem = d_memory->host();
        const std::size_t result_at = d_result_in_output ? d_jobs * d_step : 0;
        std::lock_guard<std::mutex> lock(d_host->launch_mutex);
        for (std::size_t first = 0; first < d_problem.batch; first += d_jobs) {
            const launch_set& set = d_problem.batch - first >= d_jobs ? d_sets[0] : d_sets[1];
            for (std::size_t j = 0; j < set.jobs; ++j)
                copy_to_gpu(mem + j * d_step, in + (first + j) * distance, d_bytes);
            try {
                launch(set);
            } catch (const error&) {
                d_hung = true;
                throw;
            }
            for (std::size_t j = 0; j < set.jobs; ++j)
                copy_from_gpu(out + (first + j) * distance, mem + result_at + j * d_step, d_bytes);
        }
    }

    std::string variant() const override
    {
        return d_how == submission::direct ? "direct" : d_how == submission::mailbox ? "mailbox" : "";
    }

    std::string describe() const override
    {
        std::string s = d_describe.empty() ? "qpu shader" : d_describe;
        s += ", " + std::to_string(d_sets.front().programs.size()) + " QPUs, " +
             std::to_string(d_jobs) + " transforms per launch";
        if (d_how == submission::automatic)
            s += d_jobs * d_problem.n <= d_direct_max_points ? ", direct" : ", mailbox";
        return s;
    }

private:
    launch_layout layout(const problem& p, std::uint32_t base, std::uint32_t twiddles,
                         std::size_t jobs, unsigned qpus) const
    {
        launch_layout l;
        l.dir = p.dir;
        l.twiddles = twiddles;
        for (std::size_t j = 0; j < jobs; ++j) {
            l.input.push_back(std::uint32_t(base + j * d_step));
            l.output.push_back(std::uint32_t(base + (d_jobs + j) * d_step));
        }
        l.step_bytes = std::uint32_t(d_step);
        l.qpus = qpus;
        return l;
    }

    void launch(const launch_set& set)
    {
        const bool direct = d_how == submission::direct ||
                            (d_how == submission::automatic && set.jobs * d_problem.n <= d_direct_max_points);
        if (direct)
            run_direct(*d_host->v3d, set.programs, d_timeout);
        else
            run_by_mailbox(*d_host->mb, unsigned(set.programs.size()), set.control_bus, d_timeout);
    }

    problem d_problem;
    std::shared_ptr<host> d_host;
    submission d_how;
    std::chrono::milliseconds d_timeout;
    std::size_t d_direct_max_points;
    bool d_result_in_output;
    std::string d_describe;
    std::size_t d_bytes; // one transform's data
    std::size_t d_step;  // between buffers
    std::size_t d_jobs;  // transforms per launch
    std::unique_ptr<gpu_memory> d_memory;
    std::vector<launch_set> d_sets; // full launches, then the remainder's if any
    bool d_hung = false;            // a launch timed out
};

std::string supported_sizes(const shader_table& shaders)
{
    std::vector<unsigned> logs;
    for (const fft_shader& s : shaders)
        logs.push_back(s.log2n);
    std::sort(logs.begin(), logs.end());
    auto size = [](unsigned l) {
        return "2^" + std::to_string(l) + " (" + std::to_string(std::size_t(1) << l) + ")";
    };
    if (logs.back() - logs.front() + 1 == logs.size())
        return "powers of two from " + size(logs.front()) + " to " + size(logs.back());
    std::string s;
    for (unsigned l : logs)
        s += (s.empty() ? "" : ", ") + size(l);
    return s;
}

class qpu_backend final : public backend
{
public:
    explicit qpu_backend(backend_config config) : d_config(std::move(config)) {}

    std::string name() const override { return "qpu"; }
    std::string description() const override
    {
        return "FFT shaders on the VideoCore IV QPUs (Raspberry Pi 0 to 3)";
    }

    availability probe() override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        const probe_result r = d_config.probe();
        d_board = r.found;
        availability a;
        if (!r.found)
            a.reason = r.reason;
        else if (d_config.shaders.empty())
            a.reason = "built without FFT shaders";
        else {
            a.usable = true;
            a.variants = { "direct", "mailbox" };
        }
        return a;
    }

    // The shader's modelled time per transform, a launch overhead, and the
    // copies through uncached memory (about 250 MB/s each way on a Pi 1).
    double estimate_ns(const problem& p) const override
    {
        const fft_shader* s = find(p.n);
        const double per_transform = s && s->model_ns > 0 ? s->model_ns : 1e9;
        const double copies = 2 * 8.0 * double(p.n) * 4.0;
        return 20e3 + double(p.batch) * (per_transform + copies);
    }

    std::unique_ptr<executor> make_executor(const problem& p,
                                            const std::string& variant,
                                            const plan_options&) override
    {
        if (const std::string why = unsupported(p); !why.empty())
            throw error("gpufft: " + why);
        submission how;
        if (variant.empty())
            how = submission::automatic;
        else if (variant == "direct")
            how = submission::direct;
        else if (variant == "mailbox")
            how = submission::mailbox;
        else
            throw error("gpufft: qpu variant '" + variant +
                        "' is unknown; variants: direct (V3D registers), mailbox (firmware)");
        if (d_config.shaders.empty())
            throw error("gpufft: the qpu backend was built without FFT shaders");
        const fft_shader* s = find(p.n);
        if (!s)
            throw error("gpufft: the qpu backend has no shader for size " + std::to_string(p.n) +
                        "; it supports " + supported_sizes(d_config.shaders));
        return std::make_unique<qpu_executor>(p, opened_host(), *s, how, d_config);
    }

private:
    const fft_shader* find(std::size_t n) const
    {
        for (const fft_shader& s : d_config.shaders)
            if (s.log2n < 8 * sizeof(std::size_t) && std::size_t(1) << s.log2n == n)
                return &s;
        return nullptr;
    }

    // One host for all plans, open while any plan lives.
    std::shared_ptr<host> opened_host()
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        if (auto h = d_host.lock())
            return h;
        if (!d_board) {
            const probe_result r = d_config.probe();
            if (!r.found)
                throw error("gpufft: the qpu backend is not usable here: " + r.reason);
            d_board = r.found;
        }
        auto h = d_config.open(*d_board);
        d_host = h;
        return h;
    }

    backend_config d_config;
    std::mutex d_mutex;
    std::optional<board> d_board;
    std::weak_ptr<host> d_host;
};

} // namespace

backend_config system_backend_config()
{
    backend_config c;
    c.probe = [] { return probe_board(*system_files()); };
    c.open = open_system_host;
    c.shaders = fft_shaders();
    return c;
}

std::unique_ptr<backend> make_qpu_backend(backend_config config)
{
    return std::make_unique<qpu_backend>(std::move(config));
}

} // namespace gpufft::qpu

namespace gpufft {

std::unique_ptr<backend> make_qpu_backend() { return qpu::make_qpu_backend(qpu::system_backend_config()); }

} // namespace gpufft
