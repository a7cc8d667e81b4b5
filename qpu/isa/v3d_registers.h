// SPDX-License-Identifier: GPL-3.0-or-later
/* The V3D registers a user-program driver uses, as byte offsets from the V3D
 * block: one map for the emulator (qpu/emu) and the qpu backend's driver
 * (lib/backends/qpu).
 *
 * Offsets and names are Broadcom's, "VideoCore IV 3D Architecture Reference
 * Guide" (VideoCoreIV-AG100-R, 2013), section 10 "V3D Registers", register
 * address map table and the descriptions after it; the block's address and
 * how a host runs user programs with them are GPU_FFT's (raspberrypi/userland,
 * host_applications/linux/apps/hello_pi/hello_fft/gpu_fft_base.c). */
#ifndef QPU_ISA_V3D_REGISTERS_H
#define QPU_ISA_V3D_REGISTERS_H

#include <cstdint>

namespace qpu::v3d {

//! The V3D block's offset from the peripheral base.
constexpr uint32_t BLOCK_OFFSET = 0xC00000;

enum reg : uint32_t {
    IDENT0 = 0x000,  // identification: IDENT0_VC4 on a VideoCore IV
    IDENT1 = 0x004,  // slices, QPUs per slice, TMUs per slice, semaphores, VPM size
    IDENT2 = 0x008,
    L2CACTL = 0x020, // L2 cache control
    SLCACTL = 0x024, // slice cache control: write 1s to clear
    SRQPC = 0x430,   // user program request: writing a code address queues the program
    SRQUA = 0x434,   // uniforms address for the next queued program
    SRQUL = 0x438,   // uniforms length for the next queued program
    SRQCS = 0x43C,   // user program request control and status (fields below)
    VPMBASE = 0x504,
    PCTRE = 0x674,   // performance counter enables (bit 31 enables)
    DBCFG = 0xE00,   // debug configuration
    DBQITE = 0xE2C,  // QPU interrupt enables, one bit per QPU
    DBQITC = 0xE30,  // QPU interrupt status, one bit per QPU; write 1s to clear
};

//! What IDENT0 reads on a VideoCore IV: "V3D" and technology version 2.
constexpr uint32_t IDENT0_VC4 = 0x02443356;

//! L2CACTL: write 1 to clear the L2 cache.
constexpr uint32_t L2CACTL_CLEAR = 1u << 2;

/*! SRQCS fields. Reading: [5:0] programs queued and not yet started, [7]
 * queue error (overflow), [15:8] programs queued since the count was
 * cleared, [23:16] programs completed since cleared (both mod 256).
 * Writing 1 to bit 7 clears the error, to bit 8 the queued count, to bit 16
 * the completed count. */
constexpr uint32_t SRQCS_QUEUE_LENGTH_MASK = 0x3F;
constexpr uint32_t SRQCS_ERROR = 1u << 7;
constexpr uint32_t SRQCS_CLEAR_QUEUED = 1u << 8;
constexpr uint32_t SRQCS_CLEAR_COMPLETED = 1u << 16;
constexpr unsigned SRQCS_QUEUED_SHIFT = 8;
constexpr unsigned SRQCS_COMPLETED_SHIFT = 16;

constexpr unsigned srqcs_completed(uint32_t srqcs) { return (srqcs >> SRQCS_COMPLETED_SHIFT) & 0xFF; }

} // namespace qpu::v3d

#endif
