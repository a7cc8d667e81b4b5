// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-bench: VkFFT (Debian's header-only libvkfft-dev) through its
 * OpenCL backend on the shared OpenCL buffers. The header is large: this
 * is the only file that includes it. */
#include "engines.h"

#define VKFFT_BACKEND 3 // OpenCL
#include <vkFFT.h>

#include <stdexcept>
#include <string>

namespace gpufft::bench {
namespace {

void vkfft_check(VkFFTResult r, const char* what)
{
    if (r != VKFFT_SUCCESS)
        throw std::runtime_error(std::string("VkFFT: ") + what + " failed (VkFFTResult " +
                                 std::to_string(int(r)) + ")");
}

class vkfft_engine final : public cl_engine
{
public:
    vkfft_engine(cl_buffers& b, cl_device_id device, std::size_t n, std::size_t batch)
        : cl_engine(b), d_device(device), d_context(b.context), d_bytes(b.span * sizeof(cf))
    {
        // VkFFT keeps these pointers: they point into this object.
        VkFFTConfiguration c = {};
        c.FFTdim = 1;
        c.size[0] = n;
        c.numberBatches = batch;
        c.device = &d_device;
        c.context = &d_context;
        c.makeForwardPlanOnly = 1;
        c.bufferSize = &d_bytes;
        c.buffer = &d_buffers.out;
        c.isInputFormatted = 1; // out of place: read inputBuffer, write buffer
        c.inputBufferSize = &d_bytes;
        c.inputBuffer = &d_buffers.in[0];
        d_app = std::make_unique<VkFFTApplication>();
        *d_app = {};
        const VkFFTResult r = initializeVkFFT(d_app.get(), c);
        if (r != VKFFT_SUCCESS) {
            deleteVkFFT(d_app.get());
            vkfft_check(r, "initializeVkFFT");
        }
        d_describe = "VkFFT " + std::to_string(VkFFTGetVersion());
    }
    ~vkfft_engine() override { deleteVkFFT(d_app.get()); }
    std::string name() const override { return "VkFFT"; }
    std::string describe() const override { return d_describe; }
    void run(std::size_t slot) override
    {
        VkFFTLaunchParams p = {};
        p.commandQueue = &d_buffers.queue;
        p.inputBuffer = &d_buffers.in[slot];
        p.buffer = &d_buffers.out;
        vkfft_check(VkFFTAppend(d_app.get(), -1, &p), "VkFFTAppend"); // -1: forward
    }

private:
    cl_device_id d_device;
    cl_context d_context;
    uint64_t d_bytes;
    std::unique_ptr<VkFFTApplication> d_app;
    std::string d_describe;
};

} // namespace

std::unique_ptr<device_engine>
make_vkfft_engine(cl_buffers& buffers, cl_device_id device, std::size_t n, std::size_t batch)
{
    return std::make_unique<vkfft_engine>(buffers, device, n, batch);
}

} // namespace gpufft::bench
