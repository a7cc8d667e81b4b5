// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-bench: VkFFT (Debian's header-only libvkfft-dev) through its
 * OpenCL backend on the shared OpenCL buffers: c2c, r2c and c2r of rank 1
 * to 3, packed. The header is large: this is the only file that includes
 * it. */
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
    vkfft_engine(cl_buffers& b, cl_device_id device, const gpufft::problem& p)
        : cl_engine(b), d_device(device), d_context(b.context), d_bytes(b.span * sizeof(cf)), d_inverse(p.kind == gpufft::transform_kind::c2r)
    {
        const auto dims = p.shape();
        if (dims.size() > 3)
            throw std::runtime_error("VkFFT: this engine plans up to 3 dimensions");
        // VkFFT keeps these pointers: they point into this object.
        VkFFTConfiguration c = {};
        c.FFTdim = dims.size();
        for (std::size_t a = 0; a < dims.size(); ++a) // size[0] is the contiguous axis
            c.size[a] = dims[dims.size() - 1 - a];
        c.numberBatches = p.batch;
        c.device = &d_device;
        c.context = &d_context;
        c.bufferSize = &d_bytes;
        if (d_inverse) {
            // c2r: the spectrum in buffer, the reals into outputBuffer, packed
            // (VkFFT pads the real side by default).
            c.performR2C = 1;
            c.makeInversePlanOnly = 1;
            c.isOutputFormatted = 1;
            c.outputBufferSize = &d_bytes;
            c.outputBufferStride[0] = c.size[0];
            for (std::size_t a = 1; a < dims.size(); ++a)
                c.outputBufferStride[a] = c.outputBufferStride[a - 1] * c.size[a];
            c.buffer = &d_buffers.in[0];
            c.outputBuffer = &d_buffers.out;
        } else {
            // Out of place: read inputBuffer (r2c: the reals, packed), write buffer.
            c.makeForwardPlanOnly = 1;
            c.isInputFormatted = 1;
            c.inputBufferSize = &d_bytes;
            if (p.kind == gpufft::transform_kind::r2c) {
                c.performR2C = 1;
                c.inputBufferStride[0] = c.size[0];
                for (std::size_t a = 1; a < dims.size(); ++a)
                    c.inputBufferStride[a] = c.inputBufferStride[a - 1] * c.size[a];
            }
            c.buffer = &d_buffers.out;
            c.inputBuffer = &d_buffers.in[0];
        }
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
        if (d_inverse) {
            // c2r may overwrite the spectrum in buffer: the timing does not
            // depend on the values, and the check runs first.
            p.buffer = &d_buffers.in[slot];
            p.outputBuffer = &d_buffers.out;
        } else {
            p.inputBuffer = &d_buffers.in[slot];
            p.buffer = &d_buffers.out;
        }
        vkfft_check(VkFFTAppend(d_app.get(), d_inverse ? 1 : -1, &p), "VkFFTAppend");
    }

private:
    cl_device_id d_device;
    cl_context d_context;
    uint64_t d_bytes;
    bool d_inverse;
    std::unique_ptr<VkFFTApplication> d_app;
    std::string d_describe;
};

} // namespace

std::unique_ptr<device_engine>
make_vkfft_engine(cl_buffers& buffers, cl_device_id device, const gpufft::problem& p)
{
    return std::make_unique<vkfft_engine>(buffers, device, p);
}

} // namespace gpufft::bench
