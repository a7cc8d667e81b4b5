// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: programs built once per process and cached on disk. */
#include "program_cache.h"
#include <gpufft/error.h>
#include <atomic>
#include <cstdint>
#include <exception>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace gpufft::opencl::detail {

namespace {

namespace fs = std::filesystem;

std::uint64_t fnv1a(const std::string& s, std::uint64_t h)
{
    for (unsigned char c : s) {
        h ^= c;
        h *= 0x100000001b3ULL;
    }
    return h;
}

std::string cache_key(const device_entry& d, const std::string& source, const std::string& options)
{
    return cache_hash(d.info.platform + '\n' + d.info.name + '\n' + d.info.driver + '\n' +
                      d.info.version + '\n' + options + '\n' + source);
}

std::string build_log(cl_program p, cl_device_id d)
{
    std::size_t size = 0;
    api()->clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    std::string log(size, '\0');
    if (size)
        api()->clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
    return std::string(log.c_str());
}

std::string first_lines(const std::string& text, int lines)
{
    std::istringstream in(text);
    std::string line, out;
    for (int i = 0; i < lines && std::getline(in, line);)
        if (!line.empty()) {
            out += (out.empty() ? "" : " | ") + line;
            ++i;
        }
    return out;
}

std::vector<unsigned char> program_binary(cl_program p)
{
    std::size_t size = 0;
    if (api()->clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) !=
            CL_SUCCESS ||
        size == 0)
        return {};
    std::vector<unsigned char> bytes(size);
    unsigned char* ptr = bytes.data();
    if (api()->clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr) != CL_SUCCESS)
        return {};
    return bytes;
}

//! The program from a cached binary, or none if it is missing or does not load.
program_handle from_binary(device_context& ctx, const fs::path& path, const std::string& options)
{
    const std::string bytes = read_cache_file(path.string());
    if (bytes.empty())
        return {};
    const cl_device_id dev = ctx.device.id;
    const std::size_t size = bytes.size();
    const auto* ptr = reinterpret_cast<const unsigned char*>(bytes.data());
    cl_int status = CL_SUCCESS, err = CL_SUCCESS;
    program_handle p(api()->clCreateProgramWithBinary(
        ctx.context.get(), 1, &dev, &size, &ptr, &status, &err));
    if (err != CL_SUCCESS || status != CL_SUCCESS ||
        api()->clBuildProgram(p.get(), 1, &dev, options.c_str(), nullptr, nullptr) != CL_SUCCESS)
        return {};
    return p;
}

program_handle from_source(device_context& ctx, const std::string& source, const std::string& options)
{
    const cl_device_id dev = ctx.device.id;
    const char* text = source.c_str();
    const std::size_t length = source.size();
    cl_int err = CL_SUCCESS;
    program_handle p(
        need_api().clCreateProgramWithSource(ctx.context.get(), 1, &text, &length, &err));
    check(err, "clCreateProgramWithSource");
    err = api()->clBuildProgram(p.get(), 1, &dev, options.c_str(), nullptr, nullptr);
    if (err != CL_SUCCESS)
        throw error("gpufft: opencl: kernel build failed on " + ctx.device.label() + " (" +
                    error_name(err) + ", options " + options + "): " +
                    first_lines(build_log(p.get(), dev), 6));
    return p;
}

program_handle retained(cl_program p)
{
    check(api()->clRetainProgram(p), "clRetainProgram");
    return program_handle(p);
}

} // namespace

//! 128 bits of two FNV-1a hashes from different offsets, in hex.
std::string cache_hash(const std::string& text)
{
    char hex[33];
    std::snprintf(hex,
                  sizeof hex,
                  "%016llx%016llx",
                  (unsigned long long)fnv1a(text, 0xcbf29ce484222325ULL),
                  (unsigned long long)fnv1a(text, 0x84222325cbf29ce4ULL));
    return hex;
}

std::string read_cache_file(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    if (!f)
        return "";
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

// Best effort: a cache that cannot be written only costs the next plan a build.
void write_cache_file(const std::string& path, const std::string& bytes)
{
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    // Unique to the process and the call: other processes and threads may
    // write the same entry at once.
    static std::atomic<unsigned> calls{ 0 };
    const fs::path tmp = path + ".tmp" + std::to_string(::getpid()) + "." + std::to_string(calls++);
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        if (!f)
            return;
        f.write(bytes.data(), std::streamsize(bytes.size()));
        if (!f) {
            f.close();
            fs::remove(tmp, ec);
            return;
        }
    }
    fs::rename(tmp, path, ec);
    if (ec)
        fs::remove(tmp, ec);
}

std::string kernel_cache_dir()
{
    if (const char* dir = std::getenv("GPUFFT_CACHE_DIR"); dir && *dir)
        return dir;
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
        return std::string(xdg) + "/gpufft/kernels";
    const char* home = std::getenv("HOME");
    return std::string(home && *home ? home : "/tmp") + "/.cache/gpufft/kernels";
}

program_handle build_program(device_context& ctx, const std::string& source, const std::string& options)
{
    const std::string key = cache_key(ctx.device, source, options);
    std::unique_lock<std::mutex> lock(ctx.programs_mutex);
    // Programs build outside the lock, several at once (the plan-time
    // search's candidates); a thread wanting one that another is building
    // waits for it rather than building it twice.
    ctx.program_built.wait(lock, [&] { return ctx.building.count(key) == 0; });
    auto it = ctx.programs.find(key);
    if (it != ctx.programs.end())
        return retained(it->second.get());
    ctx.building.insert(key);
    lock.unlock();

    program_handle p;
    std::exception_ptr failure;
    try {
        const fs::path path = fs::path(kernel_cache_dir()) / (key + ".bin");
        p = from_binary(ctx, path, options);
        if (!p.get()) {
            p = from_source(ctx, source, options);
            const auto bytes = program_binary(p.get());
            if (!bytes.empty())
                write_cache_file(path.string(), std::string(bytes.begin(), bytes.end()));
        }
    } catch (...) {
        failure = std::current_exception();
    }
    lock.lock();
    ctx.building.erase(key);
    ctx.program_built.notify_all();
    if (failure)
        std::rethrow_exception(failure);
    program_handle copy = retained(p.get());
    ctx.programs.emplace(key, std::move(p));
    return copy;
}

} // namespace gpufft::opencl::detail
