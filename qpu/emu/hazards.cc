// SPDX-License-Identifier: GPL-3.0-or-later
/* Hazard rules. Quotes are from the VideoCore IV 3D Architecture Reference
 * Guide, section 3, "Summary of Instruction Restrictions" (p. 37) unless
 * another source is named; the errata come from vc4asm's addendum to the
 * guide (maazl/vc4asm, doc/VideoCoreIV-addendum.html). */
#include "hazards.h"

#include "../isa/text.h"
#include "../isa/qpu_isa.h"

#include <algorithm>

namespace qpu::emu {

using namespace qpu::isa;

bool instruction_access::writes_sfu() const
{
    for (uint32_t a = W_SFU_RECIP; a <= W_SFU_LOG; ++a)
        if (writes(a))
            return true;
    return false;
}

int instruction_access::tmu_writes() const
{
    int n = 0;
    for (uint32_t a = W_TMU0_S; a <= W_TMU1_B; ++a)
        n += writes_a[a] + writes_b[a];
    return n;
}

bool instruction_access::writes_r4() const
{
    return writes_sfu() || sig == SIG_LOAD_TMU0 || sig == SIG_LOAD_TMU1 || sig == SIG_COLOR_LOAD;
}

bool instruction_access::uses_vpm() const
{
    return reads(R_VPM) || writes(W_VPM) || writes(W_VPM_SETUP) || writes(W_VPM_ADDR) ||
           reads(R_VPM_WAIT) || reads(R_VPM_BUSY);
}

instruction_access decode(uint64_t w)
{
    instruction_access x;
    x.sig = SIG.get(w);
    bool ws = WS.get(w);
    auto write = [&](uint32_t addr, bool is_mul, uint32_t cond) {
        if (addr == W_NOP || cond == COND_NEVER)
            return;
        bool file_b = ws != is_mul;
        (file_b ? x.writes_b : x.writes_a).set(addr);
        bool io = addr == W_VPM || (addr >= W_TMU0_S && addr <= W_TMU1_B);
        if (io && cond != COND_ALWAYS)
            x.conditional_io = true;
    };
    if (x.sig == SIG_BRANCH) {
        x.branch_sets_flags = BRANCH_RADDR_A.get(w) & 1;
        if (BRANCH_REG.get(w))
            x.reads_a.set(BRANCH_RADDR_A.get(w));
        write(WADDR_ADD.get(w), false, COND_ALWAYS);
        write(WADDR_MUL.get(w), true, COND_ALWAYS);
        return x;
    }
    if (x.sig == SIG_LOAD_IMM) {
        x.semaphore = LDI_MODE.get(w) == LDI_SEMAPHORE;
        write(WADDR_ADD.get(w), false, COND_ADD.get(w));
        write(WADDR_MUL.get(w), true, COND_MUL.get(w));
        return x;
    }
    x.alu = true;
    uint32_t add_op = OP_ADD.get(w), mul_op = OP_MUL.get(w);
    auto read = [&](uint32_t mux) {
        if (mux < MUX_A)
            x.reads_acc.set(mux);
        else if (mux == MUX_A)
            x.reads_a.set(RADDR_A.get(w));
        else if (x.sig != SIG_SMALL_IMM)
            x.reads_b.set(RADDR_B.get(w));
    };
    unsigned add_inputs = add_op_operands(add_op), mul_inputs = mul_op_operands(mul_op);
    if (add_inputs > 0) read(ADD_A.get(w));
    if (add_inputs > 1) read(ADD_B.get(w));
    if (mul_inputs > 0) read(MUL_A.get(w));
    if (mul_inputs > 1) read(MUL_B.get(w));
    if (add_op != A_NOP)
        write(WADDR_ADD.get(w), false, COND_ADD.get(w));
    if (mul_op != M_NOP)
        write(WADDR_MUL.get(w), true, COND_MUL.get(w));
    if (x.sig == SIG_SMALL_IMM && RADDR_B.get(w) >= SMALL_IMM_ROTATE_R5 && mul_op != M_NOP) {
        x.rotation = int(RADDR_B.get(w));
        x.mul_mux[0] = MUL_A.get(w);
        x.mul_mux[1] = MUL_B.get(w);
    }
    return x;
}

void hazard_checker::reset()
{
    d_index = 0;
    d_previous = instruction_access{};
    d_last_sfu = d_last_unif_addr = d_last_tmu_noswap = d_last_branch = d_thread_end = -100;
    d_tmu_outstanding[0] = d_tmu_outstanding[1] = 0;
}

std::string hazard_checker::next(const instruction_access& inst)
{
    std::string problem = check(inst);
    record(inst);
    return problem;
}

std::string hazard_checker::check(const instruction_access& now) const
{
    const int64_t i = d_index;

    if (d_index > 0) {
        const instruction_access& before = d_previous;
        // "An instruction must not read from a location in physical regfile
        //  A or B that was written to by the previous instruction."
        for (uint32_t r = 0; r < 32; ++r)
            if ((before.writes_a[r] && now.reads_a[r]) || (before.writes_b[r] && now.reads_b[r]))
                return "reads regfile " + std::string(now.reads_a[r] ? "A" : "B") + " register " +
                       std::to_string(r) + " written by the previous instruction";
        if (now.rotation >= 0) {
            // "An instruction that does a vector rotate by r5 must not
            //  immediately follow an instruction that writes to r5."
            if (now.rotation == int(SMALL_IMM_ROTATE_R5) && before.writes(W_R5))
                return "vector rotate by r5 right after a write to r5";
            // "An instruction that does a vector rotate must not immediately
            //  follow an instruction that writes to the accumulator that is
            //  being rotated."
            for (uint32_t mux : now.mul_mux)
                if (mux <= 3 && before.writes(W_R0 + mux))
                    return "vector rotate of r" + std::to_string(mux) + " written by the previous instruction";
        }
    }

    // "After an SFU lookup instruction, accumulator r4 must not be read in the
    //  following two instructions. Any other instruction that results in r4
    //  being written (that is, TMU read, TLB read, SFU lookup) cannot occur in
    //  the two instructions following an SFU lookup."
    if (i - d_last_sfu <= 2) {
        if (now.reads_acc[4])
            return "reads r4 within two instructions of an SFU write";
        if (now.writes_r4())
            return "writes r4 (SFU or TMU load) within two instructions of an SFU write";
    }

    // "A single instruction can only perform a maximum of one of the
    //  following closely coupled peripheral accesses in a single instruction:
    //  TMU write, TMU read, TLB write, TLB read, TLB combined color read and
    //  write, SFU write, Mutex read or Semaphore access."
    int peripherals = now.tmu_writes() + (now.sig == SIG_LOAD_TMU0 || now.sig == SIG_LOAD_TMU1) +
                      now.semaphore + now.reads(R_MUTEX);
    for (uint32_t a = W_SFU_RECIP; a <= W_SFU_LOG; ++a)
        peripherals += now.writes_a[a] + now.writes_b[a];
    if (peripherals > 1)
        return "more than one TMU, SFU, mutex or semaphore access in one instruction";

    // "The uniform base pointer can be written (from SIMD element 0) by the
    //  processor to reset the stream, there must be at least two
    //  nonuniform-accessing instructions following a pointer change before
    //  uniforms can be accessed once more."
    if (now.reads(R_UNIF) && i - d_last_unif_addr <= 2)
        return "reads a uniform within two instructions of a unif_addr write";

    // "If TMU_NOSWAP is written, the write must be three instructions before
    //  the first TMU write instruction."
    if (now.tmu_writes() && i - d_last_tmu_noswap <= 3)
        return "TMU write within three instructions of a tmu_noswap write";

    // Varyings exist only for fragment shaders; a user program has none.
    if (now.reads(R_VARY))
        return "reads varyings, which a user program does not have";

    // Erratum (vc4asm's addendum): conditional TMU/VPM writes still fire;
    // the condition does not mask them, so a conditional one is a bug.
    if (now.conditional_io)
        return "conditional TMU or VPM write (the hardware ignores the condition)";

    // TMU FIFO (vc4asm's addendum): documented as 8 deep but unreliable
    // above 4; a load with nothing requested would wait forever.
    for (int t = 0; t < 2; ++t) {
        uint32_t s = t ? W_TMU1_S : W_TMU0_S;
        int pushed = now.writes_a[s] + now.writes_b[s];
        if (d_tmu_outstanding[t] + pushed > int(d_tmu_fifo_depth))
            return "TMU" + std::to_string(t) + " FIFO overflow: more than " + std::to_string(d_tmu_fifo_depth) +
                   " requests outstanding";
        if (now.sig == uint32_t(t ? SIG_LOAD_TMU1 : SIG_LOAD_TMU0) && d_tmu_outstanding[t] == 0)
            return "ldtmu" + std::to_string(t) + " with no TMU" + std::to_string(t) + " request outstanding";
    }

    // Branches (vc4asm's addendum): at least 2 non-branch instructions
    // between branches.
    if (now.sig == SIG_BRANCH && i - d_last_branch <= 2)
        return "branch within two instructions of another branch";
    // Erratum (vc4asm's addendum): a branch with an odd raddr_a sets flags
    // (its low bit is the sf bit), to values nobody documented.
    if (now.sig == SIG_BRANCH && now.branch_sets_flags)
        return "branch with an odd raddr_a (erratum: it also sets the flags)";

    if (i - d_thread_end <= 2) {
        // "The last three instructions of any program (Thread End plus the
        //  following two delay-slot instructions) must not do varyings read,
        //  uniforms read or any kind of VPM, VDR, or VDW read or write."
        if (now.reads(R_UNIF) || now.uses_vpm())
            return "uniform or VPM access in a thread end delay slot";
        // "The Thread End instruction and the following two delay slot
        //  instructions must not write or read address 14 in either regfile
        //  A or B."
        if (now.reads_a[14] || now.reads_b[14] || now.writes_a[14] || now.writes_b[14])
            return "regfile address 14 used in a thread end delay slot";
        // No signals in the delay slots (a second thread end, thread
        // switches, loads or branches would act after the program ended).
        if (now.sig != SIG_NONE && now.sig != SIG_SMALL_IMM && now.sig != SIG_LOAD_IMM)
            return "signal in a thread end delay slot";
        if (now.semaphore)
            return "semaphore access in a thread end delay slot";
    }
    if (now.sig == SIG_PROG_END) {
        // "The Thread End instruction must not write to either physical
        //  regfile A or B."
        for (uint32_t r = 0; r < 32; ++r)
            if (now.writes_a[r] || now.writes_b[r])
                return "thread end writes regfile register " + std::to_string(r);
        if (now.reads(R_UNIF) || now.uses_vpm())
            return "uniform or VPM access in the thread end instruction";
        if (now.reads_a[14] || now.reads_b[14])
            return "regfile address 14 used in the thread end instruction";
        if (i - d_last_branch <= 3)
            return "thread end in a branch delay slot";
    }
    return "";
}

void hazard_checker::record(const instruction_access& now)
{
    if (now.writes_sfu())
        d_last_sfu = d_index;
    if (now.writes(W_UNIF_ADDR))
        d_last_unif_addr = d_index;
    if (now.writes(W_TMU_NOSWAP))
        d_last_tmu_noswap = d_index;
    if (now.sig == SIG_BRANCH)
        d_last_branch = d_index;
    if (now.sig == SIG_PROG_END)
        d_thread_end = d_index;
    for (int t = 0; t < 2; ++t) {
        uint32_t s = t ? W_TMU1_S : W_TMU0_S;
        d_tmu_outstanding[t] += now.writes_a[s] + now.writes_b[s];
        if (now.sig == uint32_t(t ? SIG_LOAD_TMU1 : SIG_LOAD_TMU0) && d_tmu_outstanding[t] > 0)
            --d_tmu_outstanding[t];
    }
    d_previous = now;
    ++d_index;
}

std::vector<program_hazard> check_program(const std::vector<uint64_t>& code, unsigned tmu_fifo_depth)
{
    std::vector<program_hazard> found;
    hazard_checker checker(tmu_fifo_depth);
    // Execution never falls through an unconditional branch's last delay
    // slot or a thread end's: the code after it starts another path, with
    // no history (it is reached by a branch that is not followed).
    size_t path_end = code.size();
    for (size_t i = 0; i < code.size(); ++i) {
        if (i > path_end) {
            checker.reset();
            path_end = code.size();
        }
        std::string problem = checker.next(code[i]);
        if (!problem.empty())
            found.push_back({ i, problem + ": " + isa::disassemble(code[i]) });
        const uint32_t sig = SIG.get(code[i]);
        if (sig == SIG_BRANCH && COND_BR.get(code[i]) == BR_ALWAYS)
            path_end = std::min<size_t>(path_end, i + BRANCH_DELAY_SLOTS);
        else if (sig == SIG_PROG_END)
            path_end = std::min<size_t>(path_end, i + THREAD_END_DELAY_SLOTS);
    }
    return found;
}

} // namespace qpu::emu
