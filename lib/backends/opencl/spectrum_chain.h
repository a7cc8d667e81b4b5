/* gr-gpufft OpenCL backend: the spectrum engine's chain on one device.
 *
 * Only raw samples go to the device and only finished spectra come back.
 * The FFT's first pass converts the raw frames (hop samples apart in the
 * uploaded span) and applies the window as it loads them, its last pass
 * stores |X|^2, and one kernel (spectrum_average, kernels/spectrum.cl) folds
 * the frames into the average kept on the device between calls and writes
 * each finished output scaled, in dB if asked, shifted if asked.
 *
 * Unified-memory devices map the upload and output buffers (no copy beyond
 * the one into and out of the mapping); discrete devices copy through
 * pinned staging buffers. One call is in flight at a time: run() returns
 * its outputs, as the chain interface asks. */
#ifndef GPUFFT_LIB_OPENCL_SPECTRUM_CHAIN_H
#define GPUFFT_LIB_OPENCL_SPECTRUM_CHAIN_H

#include "../../spectrum/chain.h"
#include <memory>

namespace gpufft::detail {

/*!
 * The chain on the OpenCL device that setup.plan.backend names ("opencl" or
 * "opencl:<selector>"). Throws gpufft::error naming the cause when the
 * device cannot run it.
 */
std::unique_ptr<chain> make_opencl_chain(const chain_setup& setup);

} // namespace gpufft::detail

#endif
