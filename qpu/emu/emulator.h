// SPDX-License-Identifier: GPL-3.0-or-later
/* Instruction-level emulator of the VideoCore IV 3D block's QPU cluster, as
 * seen by a host program: flat GPU memory addressed by bus addresses, the V3D
 * registers a user-program driver uses, and run() to let the QPUs work.
 *
 * Typical use (what GPU_FFT's direct path does: gpu_fft_base.c in
 * raspberrypi/userland, host_applications/linux/apps/hello_pi/hello_fft/):
 *
 *     qpu::emu::emulator gpu;                       // 12 QPUs, 64 MiB
 *     gpu.write_memory(code_bus, code.data(), code.size() * 8);
 *     gpu.write_register(qpu::v3d::SRQCS, 0x10180); // clear counts
 *     for (q ...) {
 *         gpu.write_register(qpu::v3d::SRQUA, uniforms_bus[q]);
 *         gpu.write_register(qpu::v3d::SRQPC, code_bus);
 *     }
 *     auto result = gpu.run(10'000'000);            // until idle
 *     // result.reason == stop_reason::idle, SRQCS[23:16] == programs done
 *
 * Errors in the emulated program (a hazard the hardware would not run
 * correctly, a memory access outside GPU memory, a bad instruction) stop
 * run() with stop_reason::fault and a message naming the QPU, the PC and the
 * instruction; misuse of this API throws std::invalid_argument. */
#ifndef QPU_EMU_EMULATOR_H
#define QPU_EMU_EMULATOR_H

#include "../isa/v3d_registers.h"
#include "memory_timing.h"
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace qpu::emu {

/*! Programs the request queue holds (assumed: GPU_FFT queues at most 8;
 * a write beyond this sets the SRQCS error bit). */
constexpr unsigned USER_PROGRAM_QUEUE_DEPTH = 16;

/*! How fadd, fsub, fmul and itof round. The guide does not say; toward zero
 * on both ALUs is what reproduces GPU_FFT's published Pi error figures with
 * GPU_FFT's own program (VC4C's src/tools/Emulator.cpp also models
 * fadd/fsub so), so it is the default; nearest-even is kept for experiments. */
enum class rounding { toward_zero, nearest_even };

struct config {
    unsigned num_qpus = 12;               //!< 1..16 (a Pi has 12)
    uint32_t memory_bytes = 64u << 20;    //!< GPU memory at bus address 0
    uint64_t seed = 1;                    //!< interleaving and latency draws
    bool random_interleave = true;        //!< shuffled issue order, random hold-backs; else round robin
    bool flush_denormals = true;          //!< inputs and results (the hardware does)
    rounding float_rounding = rounding::toward_zero;
    bool check_hazards = true;            //!< fault on a hazard (see hazards.h)
    unsigned tmu_fifo_depth = 4;          //!< reliable depth (the documented 8 is not)
    // Latencies in clocks, drawn per request (assumed; qpu/README.md).
    unsigned tmu_latency_min = 20, tmu_latency_max = 100;
    unsigned dma_clocks_per_word_min = 1, dma_clocks_per_word_max = 4;
    unsigned dma_setup_clocks = 30;
    unsigned vpm_read_latency = 8;        //!< vr_setup to the first vector
    /*! The L2 and SDRAM behind the TMUs and the VDW/VDR DMA (memory_timing.h;
     * qpu/README.md, "Memory model"); off, every access costs only the
     * latencies above, at any address. */
    bool model_memory = true;
    memory_timing_config memory;
};

enum class stop_reason {
    idle,        //!< every queued program ended
    cycle_limit, //!< max_cycles reached with work left
    deadlock,    //!< every running QPU is blocked and nothing can unblock it
    fault,       //!< a program broke a hardware rule or accessed bad memory
};

const char* to_string(stop_reason reason);

/*! A QPU issues one instruction every 4 clocks: 16 elements on a 4-wide
 * pipeline (12 QPUs x 4 lanes x 2 flops x 250 MHz = the 24 GFLOPS peak). */
constexpr unsigned CLOCKS_PER_INSTRUCTION = 4;

/*! Per-QPU counts since the emulator was made (or reset_counts()). Stalls
 * are in clocks, estimated by the cycle model in qpu/README.md. */
struct qpu_counts {
    uint64_t instructions = 0;      //!< instructions issued
    uint64_t programs = 0;          //!< programs run to their end
    uint64_t stall_tmu = 0;         //!< waiting for TMU results (ldtmu)
    uint64_t stall_sfu = 0;         //!< waiting for SFU results (r4)
    uint64_t stall_vpm = 0;         //!< waiting for VPM reads or VDR/VDW DMA
    uint64_t stall_semaphore = 0;   //!< blocked in sacq or on the mutex
    uint64_t idle = 0;              //!< clocks with no program to run
    uint64_t jitter = 0;            //!< clocks held back by random interleaving (not in cycles())
    /*! Clocks spent on programs: issue plus stalls. */
    uint64_t cycles() const
    {
        return instructions * CLOCKS_PER_INSTRUCTION + stall_tmu + stall_sfu + stall_vpm + stall_semaphore;
    }
};

struct run_result {
    stop_reason reason = stop_reason::idle;
    uint64_t cycles = 0;      //!< clocks this call advanced the cluster
    std::string message;      //!< what went wrong (fault, deadlock), else empty
};

class emulator {
public:
    explicit emulator(const config& cfg = config{});
    ~emulator();
    emulator(const emulator&) = delete;
    emulator& operator=(const emulator&) = delete;

    const config& configuration() const;

    // GPU memory. Bus addresses alias every 1 GiB as on the Pi (0x00000000,
    // 0x40000000 L2-cached, 0x80000000, 0xC0000000 uncached all reach
    // address & 0x3FFFFFFF). Out-of-range accesses throw std::invalid_argument.
    uint32_t memory_bytes() const;
    void write_memory(uint32_t bus_address, const void* source, size_t bytes);
    void read_memory(uint32_t bus_address, void* destination, size_t bytes) const;
    uint32_t read_word(uint32_t bus_address) const;
    void write_word(uint32_t bus_address, uint32_t value);
    /*! Direct pointer to `bytes` of GPU memory (stays valid for the emulator's life). */
    uint8_t* memory(uint32_t bus_address, size_t bytes);

    // V3D registers (offsets above; unknown offsets read 0, writes ignored).
    uint32_t read_register(uint32_t offset);
    void write_register(uint32_t offset, uint32_t value);

    /*! Advances the cluster until every queued program has ended (idle), or
     * max_cycles cycles passed, or a deadlock or fault. Can be called again
     * to continue after cycle_limit. */
    run_result run(uint64_t max_cycles);

    /*! Clocks since construction: at 250 MHz, microseconds = cycles / 250. */
    uint64_t cycles() const;
    const std::vector<qpu_counts>& counts() const;
    /*! L2 hits and misses and SDRAM traffic since construction (all 0 without model_memory). */
    const memory_counts& memory_traffic() const;
    void reset_counts();
    /*! Host interrupts raised (host_int writes) since construction. */
    uint64_t host_interrupts() const;
    /*! Current semaphore counts (0..15); after a clean run they are 0. */
    uint32_t semaphore(unsigned id) const;

    /*! A QPU's registers as its last program left them (tests, debugging). */
    struct registers {
        uint32_t ra[32][16], rb[32][16], acc[6][16];
        bool z[16], n[16], c[16];
        uint32_t pc;
    };
    registers qpu_registers(unsigned qpu) const;


private:
    struct state;
    std::unique_ptr<state> d_state;
};

} // namespace qpu::emu

#endif
