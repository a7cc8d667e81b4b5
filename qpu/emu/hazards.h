// SPDX-License-Identifier: GPL-3.0-or-later
/* The hazard checker: instruction sequences the QPU would not run correctly.
 * The emulator runs it on every instruction it executes (in execution order,
 * per QPU); check_program() runs it over a program in address order. */
#ifndef QPU_EMU_HAZARDS_H
#define QPU_EMU_HAZARDS_H

#include "../isa/qpu_isa.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace qpu::emu {

/*! What one instruction reads and writes (conditions other than never count
 * as writes; small immediates are not reads). */
/*! A set of register addresses 0..63. */
struct address_set {
    uint64_t bits = 0;
    bool operator[](uint32_t addr) const { return (bits >> addr) & 1; }
    void set(uint32_t addr) { bits |= uint64_t(1) << addr; }
    bool any() const { return bits != 0; }
};

struct instruction_access {
    bool alu = false;
    address_set reads_a, reads_b; // by read address
    address_set reads_acc;        // r0..r5
    address_set writes_a, writes_b; // by write address
    int rotation = -1;                          // small immediate code 48..63
    uint32_t mul_mux[2] = {0, 0};
    uint32_t sig = isa::SIG_NONE;
    bool semaphore = false;
    bool conditional_io = false; // a TMU or VPM write under a condition
    bool branch_sets_flags = false; // a branch with an odd raddr_a

    bool writes(uint32_t addr) const { return writes_a[addr] || writes_b[addr]; }
    bool reads(uint32_t addr) const { return reads_a[addr] || reads_b[addr]; }
    bool writes_sfu() const;
    int tmu_writes() const;
    bool writes_r4() const;
    bool uses_vpm() const;
};

instruction_access decode(uint64_t inst);

class hazard_checker {
public:
    explicit hazard_checker(unsigned tmu_fifo_depth = 4) : d_tmu_fifo_depth(tmu_fifo_depth) { reset(); }
    /*! Forget history: a program starts. */
    void reset();
    /*! Checks `inst`, executed after the instructions passed before;
     * returns an empty string, or the rule it breaks. */
    std::string next(uint64_t inst) { return next(decode(inst)); }
    std::string next(const instruction_access& inst);

private:
    std::string check(const instruction_access& now) const;
    void record(const instruction_access& now);

    unsigned d_tmu_fifo_depth;
    int64_t d_index = 0;
    instruction_access d_previous; // the instruction before (valid if d_index > 0)
    int64_t d_last_sfu = -100, d_last_unif_addr = -100, d_last_tmu_noswap = -100;
    int64_t d_last_branch = -100, d_thread_end = -100;
    int d_tmu_outstanding[2] = {0, 0};
};

struct program_hazard {
    size_t index; //!< instruction number
    std::string message;
};

/*! Every hazard in a reading of `code` in address order. Branches are not
 * followed; a path ends at an unconditional branch's last delay slot or a
 * thread end's, and the next instruction starts a new one with no history. */
std::vector<program_hazard> check_program(const std::vector<uint64_t>& code, unsigned tmu_fifo_depth = 4);

} // namespace qpu::emu

#endif
