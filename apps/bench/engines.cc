// SPDX-License-Identifier: GPL-3.0-or-later
#include "engines.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace gpufft::bench {

void cl_check(cl_int err, const char* what)
{
    if (err != CL_SUCCESS)
        throw std::runtime_error(std::string(what) + " failed (OpenCL error " +
                                 std::to_string(err) + ")");
}

cl_buffers::cl_buffers(cl_context c, cl_command_queue q, std::size_t n, std::size_t inputs)
    : context(c), queue(q), span(n)
{
    auto make = [&]() {
        cl_int err = CL_SUCCESS;
        cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE, span * sizeof(cf), nullptr, &err);
        cl_check(err, "clCreateBuffer");
        d_owned.emplace_back(m);
        return m;
    };
    for (std::size_t i = 0; i < inputs; ++i)
        in.push_back(make());
    out = make();
}

void cl_buffers::upload(std::size_t slot, const cf* host)
{
    cl_check(clEnqueueWriteBuffer(queue, in.at(slot), CL_TRUE, 0, span * sizeof(cf), host, 0,
                                  nullptr, nullptr),
             "clEnqueueWriteBuffer");
}

void cl_buffers::poison_output()
{
    const float nan = std::numeric_limits<float>::quiet_NaN();
    cl_check(clEnqueueFillBuffer(queue, out, &nan, sizeof nan, 0, span * sizeof(cf), 0, nullptr,
                                 nullptr),
             "clEnqueueFillBuffer");
    cl_check(clFinish(queue), "clFinish");
}

void cl_buffers::download(cf* host)
{
    cl_check(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, span * sizeof(cf), host, 0, nullptr,
                                 nullptr),
             "clEnqueueReadBuffer");
}

void cl_engine::finish() { cl_check(clFinish(d_buffers.queue), "clFinish"); }

double device_engine::time_calls(std::size_t calls, std::size_t inputs)
{
    const auto t0 = clock_type::now();
    for (std::size_t c = 0; c < calls; ++c)
        run(c % inputs);
    finish();
    return std::chrono::duration<double, std::nano>(clock_type::now() - t0).count();
}

} // namespace gpufft::bench
