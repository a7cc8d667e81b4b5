// SPDX-License-Identifier: GPL-3.0-or-later
/* The QPU cluster: per-QPU registers and pipelines, the shared VPM with its
 * DMA engines, semaphores, mutex, TMU FIFOs, the user-program queue and the
 * scheduler that interleaves QPUs (qpu/README.md has the model). */
#include "emulator.h"

#include "../isa/text.h"
#include "../isa/qpu_isa.h"
#include "alu.h"
#include "hazards.h"

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <deque>
#include <random>
#include <stdexcept>
#include <unordered_map>

namespace qpu::emu {

using namespace qpu::isa;

namespace {

constexpr unsigned W = SIMD_WIDTH;
using vec = std::array<uint32_t, SIMD_WIDTH>;

/*! 128 rows of 16 words: the rows the DMA setup fields can address
 * (VDW Y is 7 bits). The Pi's VPM size is not confirmed (qpu/README.md). */
constexpr unsigned VPM_ROWS = 128;
constexpr uint32_t BUS_ALIAS_MASK = 0x3FFFFFFF;
// IDENT1: revision 1, 3 slices, 4 QPUs and 2 TMUs per slice, 16 semaphores,
// VPM size 8 KB (what we model).
constexpr uint32_t IDENT1_VALUE = 1 | (3 << 4) | (4 << 8) | (2 << 12) | (16 << 16) | (8u << 28);

/*! Thrown inside an instruction; becomes stop_reason::fault. */
struct fault_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class stall { none, tmu, sfu, vpm, semaphore };

struct tmu_request {
    uint64_t ready;
    vec data;
};

struct dma_request {
    bool to_memory; // VDW (VPM to memory) or VDR
    uint32_t setup, stride_or_pitch, address;
    unsigned qpu;
    uint64_t done;
};

struct qpu_state {
    bool running = false;
    uint32_t pc = 0, uniform = 0, uniform_length = 0;
    uint32_t ra[32][W] = {}, rb[32][W] = {}, acc[6][W] = {};
    bool z[W] = {}, n[W] = {}, c[W] = {};
    int branch_countdown = 0;
    uint32_t branch_target = 0;
    int end_countdown = 0;
    std::deque<tmu_request> tmu[2];
    struct {
        uint32_t addr = 0, stride = 1, remaining = 0;
        bool horizontal = true;
        uint64_t ready = 0;
    } vpm_read;
    struct {
        uint32_t addr = 0, stride = 1;
        bool horizontal = true;
    } vpm_write;
    hazard_checker hazards;
    std::string waiting_for; // why it is blocked, for deadlock reports
};

struct program_request {
    uint32_t pc, uniforms, uniforms_length;
};

} // namespace

struct emulator::state {
    config cfg;
    float_mode fmode;
    std::vector<uint8_t> memory;
    memory_timing memory_time;
    std::vector<qpu_state> qpus;
    std::vector<qpu_counts> counts;
    uint32_t vpm[VPM_ROWS][W] = {};
    // The VDW/VDR setup registers are shared by all QPUs.
    uint32_t vdw_setup = 0, vdw_stride = 0, vdr_setup = 0, vdr_pitch = 0;
    std::deque<dma_request> dma; // in issue order per engine
    uint64_t vdw_free = 0, vdr_free = 0;
    uint32_t semaphores[NUM_SEMAPHORES] = {};
    int mutex_owner = -1;
    std::deque<program_request> queue;
    uint32_t srqua = 0, srqul = 0, queued = 0, completed = 0;
    bool queue_error = false;
    uint32_t dbqite = 0, dbqitc = 0, dbcfg = 0, pctre = 0, vpmbase = 0;
    uint64_t now = 0, host_interrupts = 0;
    std::mt19937_64 rng;
    struct decoded {
        uint64_t word;
        instruction_access access;
        bool valid;
    };
    std::unordered_map<uint32_t, decoded> decode_cache;
    std::string fault;

    uint32_t draw(unsigned lo, unsigned hi)
    {
        return lo >= hi ? lo : lo + uint32_t(rng() % (hi - lo + 1));
    }

    uint32_t physical(uint32_t bus, size_t bytes) const
    {
        uint32_t p = bus & BUS_ALIAS_MASK;
        if (uint64_t(p) + bytes > memory.size())
            throw fault_error("memory access at bus address " + hex(bus) + " outside GPU memory");
        return p;
    }
    uint32_t load(uint32_t bus) const
    {
        if (bus & 3)
            throw fault_error("unaligned 32-bit access at " + hex(bus));
        uint32_t v;
        std::memcpy(&v, &memory[physical(bus, 4)], 4);
        return v;
    }
    void store(uint32_t bus, uint32_t v)
    {
        if (bus & 3)
            throw fault_error("unaligned 32-bit access at " + hex(bus));
        std::memcpy(&memory[physical(bus, 4)], &v, 4);
    }
    static std::string hex(uint32_t v)
    {
        char buf[16];
        std::snprintf(buf, sizeof buf, "0x%08" PRIx32, v);
        return buf;
    }

    uint32_t& vpm_word(uint32_t linear)
    {
        if (linear >= VPM_ROWS * W)
            throw fault_error("VPM access beyond row " + std::to_string(VPM_ROWS - 1));
        return vpm[linear / W][linear % W];
    }

    // Generic (QPU-side) VPM vector address, 32-bit size only.
    uint32_t vpm_vector_word(uint32_t addr, bool horizontal, unsigned e)
    {
        if (horizontal)
            return (addr % VPM_ROWS) * W + e;
        return ((addr >> 4) * W + e) * W + (addr & 15); // column addr[3:0] of a 16-row block
    }

    void start_dma(bool to_memory, uint32_t address, unsigned q);
    /*! When the L2 and SDRAM have done a DMA's memory side (memory_timing.h). */
    uint64_t dma_memory_done(bool to_memory, uint32_t setup, uint32_t stride_or_pitch, uint32_t address);
    void finish_dma(const dma_request& r);
    void complete_dma(uint64_t until);
    bool dma_pending(unsigned q, bool to_memory) const
    {
        for (const dma_request& r : dma)
            if (r.qpu == q && r.to_memory == to_memory)
                return true;
        return false;
    }

    /*! The instruction at `pc` (in `w`) and what it accesses, decoded once. */
    const instruction_access& fetch(uint32_t pc, uint64_t& w);
    stall blocked(unsigned q, uint64_t w, const instruction_access& a);
    void execute(unsigned q, uint64_t w, const instruction_access& a);
    void execute_alu(unsigned q, uint64_t w, const instruction_access& access);
    vec read_operand(unsigned q, uint64_t w, uint32_t mux, bool reads_float, vec* port_a, vec* port_b);
    vec read_port(unsigned q, bool file_b, uint32_t addr);
    void write(unsigned q, uint32_t addr, bool file_b, const vec& v, const bool* mask, bool mul_result,
               bool is_float, uint64_t w);
    void write_flags(unsigned q, const alu_result* r, const bool* mask);
    bool condition(unsigned q, uint32_t cond, unsigned e) const;
    bool branch_taken(unsigned q, uint32_t cond) const;
    void end_program(unsigned q);
    bool start_program(unsigned q);
};

// ---------------------------------------------------------------------------
// DMA between VPM and memory (32-bit words only).

void emulator::state::start_dma(bool to_memory, uint32_t address, unsigned q)
{
    uint32_t setup = to_memory ? vdw_setup : vdr_setup;
    if (!(setup >> 31))
        throw fault_error(std::string(to_memory ? "vw_addr" : "vr_addr") + " written with no DMA setup");
    unsigned words;
    if (to_memory) {
        unsigned units = (setup >> 23) & 0x7F, depth = (setup >> 16) & 0x7F;
        if (setup & 7)
            throw fault_error("VDW with 8/16-bit width is not emulated");
        words = (units ? units : 128) * (depth ? depth : 128);
    } else {
        unsigned rowlen = (setup >> 20) & 15, nrows = (setup >> 16) & 15;
        if ((setup >> 28) & 7)
            throw fault_error("VDR with 8/16-bit width is not emulated");
        words = (rowlen ? rowlen : 16) * (nrows ? nrows : 16);
    }
    uint64_t& engine_free = to_memory ? vdw_free : vdr_free;
    uint64_t start = std::max(now, engine_free);
    uint64_t done = start + cfg.dma_setup_clocks;
    for (unsigned i = 0; i < words; ++i)
        done += draw(cfg.dma_clocks_per_word_min, cfg.dma_clocks_per_word_max);
    if (cfg.model_memory)
        done = std::max(done, dma_memory_done(to_memory, setup, to_memory ? vdw_stride : vdr_pitch, address));
    engine_free = done;
    dma.push_back({to_memory, setup, to_memory ? vdw_stride : vdr_pitch, address, q, done});
}

uint64_t emulator::state::dma_memory_done(bool to_memory, uint32_t setup, uint32_t stride_or_pitch, uint32_t address)
{
    // The memory rows finish_dma() moves, each one SDRAM (VDW) or L2 (VDR)
    // request made when the DMA is issued.
    uint64_t done = now;
    if (to_memory) {
        unsigned units = (setup >> 23) & 0x7F, depth = (setup >> 16) & 0x7F;
        units = units ? units : 128;
        depth = depth ? depth : 128;
        for (unsigned u = 0; u < units; ++u, address += 4 * depth + (stride_or_pitch & 0xFFFF))
            done = std::max(done, memory_time.write(address, 4 * depth, now));
    } else {
        unsigned mpitch = (setup >> 24) & 15, rowlen = (setup >> 20) & 15, nrows = (setup >> 16) & 15;
        rowlen = rowlen ? rowlen : 16;
        nrows = nrows ? nrows : 16;
        uint32_t pitch = mpitch ? 8u << mpitch : (stride_or_pitch & 0x1FFF ? stride_or_pitch & 0x1FFF : 8192);
        for (unsigned row = 0; row < nrows; ++row)
            done = std::max(done, memory_time.read(address + row * pitch, 4 * rowlen, now));
    }
    return done;
}

void emulator::state::finish_dma(const dma_request& r)
{
    uint32_t s = r.setup;
    if (r.to_memory) {
        // VDW basic setup: UNITS[29:23] DEPTH[22:16] HORIZ[14] Y[13:7] X[6:3];
        // each unit is one memory row of DEPTH words, rows `stride` bytes apart
        // beyond their own length.
        unsigned units = (s >> 23) & 0x7F, depth = (s >> 16) & 0x7F;
        units = units ? units : 128;
        depth = depth ? depth : 128;
        bool horizontal = (s >> 14) & 1;
        uint32_t y = (s >> 7) & 0x7F, x = (s >> 3) & 15;
        uint32_t stride = r.stride_or_pitch & 0xFFFF;
        uint32_t address = r.address;
        for (unsigned u = 0; u < units; ++u) {
            for (unsigned d = 0; d < depth; ++d) {
                uint32_t linear = horizontal ? (y + u) * W + x + d
                                             : (y + d + W * ((x + u) / W)) * W + (x + u) % W;
                store(address + 4 * d, vpm_word(linear));
            }
            address += 4 * depth + stride;
        }
    } else {
        // VDR basic setup: MPITCH[27:24] ROWLEN[23:20] NROWS[19:16]
        // VPITCH[15:12] VERT[11] Y[10:4] X[3:0]; MPITCH 0 uses the extended
        // pitch register (0 = 8192 bytes).
        unsigned mpitch = (s >> 24) & 15, rowlen = (s >> 20) & 15, nrows = (s >> 16) & 15, vpitch = (s >> 12) & 15;
        rowlen = rowlen ? rowlen : 16;
        nrows = nrows ? nrows : 16;
        vpitch = vpitch ? vpitch : 16;
        uint32_t pitch = mpitch ? 8u << mpitch : (r.stride_or_pitch & 0x1FFF ? r.stride_or_pitch & 0x1FFF : 8192);
        bool vertical = (s >> 11) & 1;
        uint32_t y = (s >> 4) & 0x7F, x = s & 15;
        for (unsigned row = 0; row < nrows; ++row)
            for (unsigned k = 0; k < rowlen; ++k) {
                uint32_t linear = vertical ? (y + k) * W + x + row * vpitch : (y + row * vpitch) * W + x + k;
                vpm_word(linear) = load(r.address + row * pitch + 4 * k);
            }
    }
}

void emulator::state::complete_dma(uint64_t until)
{
    // Each engine completes in order; the two are independent.
    for (bool progress = true; progress;) {
        progress = false;
        for (auto it = dma.begin(); it != dma.end(); ++it) {
            if (it->done > until)
                continue;
            bool earlier_same_engine = false;
            for (auto jt = dma.begin(); jt != it; ++jt)
                earlier_same_engine |= jt->to_memory == it->to_memory;
            if (earlier_same_engine)
                continue;
            dma_request r = *it;
            dma.erase(it);
            finish_dma(r);
            progress = true;
            break;
        }
    }
}

// ---------------------------------------------------------------------------
// Instruction execution

bool emulator::state::condition(unsigned q, uint32_t cond, unsigned e) const
{
    const qpu_state& s = qpus[q];
    switch (cond) {
    case COND_NEVER: return false;
    case COND_ALWAYS: return true;
    case COND_ZS: return s.z[e];
    case COND_ZC: return !s.z[e];
    case COND_NS: return s.n[e];
    case COND_NC: return !s.n[e];
    case COND_CS: return s.c[e];
    default: return !s.c[e];
    }
}

bool emulator::state::branch_taken(unsigned q, uint32_t cond) const
{
    if (cond == BR_ALWAYS)
        return true;
    const qpu_state& s = qpus[q];
    const bool* flag = cond < 4 ? s.z : cond < 8 ? s.n : s.c;
    bool want_set = (cond & 1) == 0, all = (cond & 2) == 0;
    bool any_match = false, all_match = true;
    for (unsigned e = 0; e < W; ++e) {
        bool match = flag[e] == want_set;
        any_match |= match;
        all_match &= match;
    }
    return all ? all_match : any_match;
}

const instruction_access& emulator::state::fetch(uint32_t pc, uint64_t& w)
{
    w = load(pc) | uint64_t(load(pc + 4)) << 32;
    decoded& slot = decode_cache[pc];
    if (!slot.valid || slot.word != w)
        slot = {w, decode(w), true};
    return slot.access;
}

stall emulator::state::blocked(unsigned q, uint64_t w, const instruction_access& a)
{
    qpu_state& s = qpus[q];
    uint32_t sig = SIG.get(w);
    if (sig == SIG_LOAD_TMU0 || sig == SIG_LOAD_TMU1) {
        auto& fifo = s.tmu[sig - SIG_LOAD_TMU0];
        if (!fifo.empty() && fifo.front().ready > now) {
            s.waiting_for = "TMU result";
            return stall::tmu;
        }
    }
    if (a.reads(R_VPM) && s.vpm_read.remaining > 0 && s.vpm_read.ready > now) {
        s.waiting_for = "VPM read";
        return stall::vpm;
    }
    if ((a.reads_a[R_VPM_WAIT] && dma_pending(q, false)) || (a.reads_b[R_VPM_WAIT] && dma_pending(q, true))) {
        s.waiting_for = "DMA";
        return stall::vpm;
    }
    if (a.reads(R_MUTEX) && mutex_owner >= 0 && mutex_owner != int(q)) {
        s.waiting_for = "mutex held by QPU " + std::to_string(mutex_owner);
        return stall::semaphore;
    }
    if (a.semaphore && SEMA_ACQUIRE.get(w) && semaphores[SEMA_ID.get(w)] == 0) {
        s.waiting_for = "semaphore " + std::to_string(SEMA_ID.get(w));
        return stall::semaphore;
    }
    return stall::none;
}

vec emulator::state::read_port(unsigned q, bool file_b, uint32_t addr)
{
    qpu_state& s = qpus[q];
    vec v{};
    if (addr < 32) {
        std::copy_n(file_b ? s.rb[addr] : s.ra[addr], W, v.begin());
        return v;
    }
    switch (addr) {
    case R_UNIF: {
        // "Uniforms are read from a stream" (one word per read, broadcast).
        uint32_t u = load(s.uniform);
        s.uniform += 4;
        v.fill(u);
        return v;
    }
    case R_ELEM_QPU:
        for (unsigned e = 0; e < W; ++e)
            v[e] = file_b ? q : e;
        return v;
    case R_NOP:
        return v;
    case R_VPM: {
        auto& r = s.vpm_read;
        if (r.remaining == 0)
            throw fault_error("VPM read with no read setup pending (the hardware would hang)");
        for (unsigned e = 0; e < W; ++e)
            v[e] = vpm_word(vpm_vector_word(r.addr, r.horizontal, e));
        r.addr += r.stride;
        --r.remaining;
        return v;
    }
    case R_VPM_BUSY:
        v.fill(dma_pending(q, file_b) ? 1 : 0);
        return v;
    case R_VPM_WAIT:
        return v;
    case R_MUTEX:
        if (mutex_owner == int(q))
            throw fault_error("mutex acquired twice by the same QPU (the hardware would hang)");
        mutex_owner = int(q);
        return v;
    default:
        throw fault_error("read of " + std::string(read_name(addr, file_b) ? read_name(addr, file_b) : "an unused address") +
                          ", which a user program cannot use");
    }
}

vec emulator::state::read_operand(unsigned q, uint64_t w, uint32_t mux, bool reads_float, vec* port_a, vec* port_b)
{
    qpu_state& s = qpus[q];
    vec v{};
    if (mux < MUX_A) {
        std::copy_n(s.acc[mux], W, v.begin());
        if (mux == MUX_R4 && PM.get(w) == 1 && UNPACK.get(w))
            for (uint32_t& x : v)
                x = unpack_value(UNPACK.get(w), x, reads_float);
        return v;
    }
    if (mux == MUX_B) {
        if (SIG.get(w) == SIG_SMALL_IMM) {
            v.fill(small_immediate_value(RADDR_B.get(w)));
            return v;
        }
        return *port_b;
    }
    v = *port_a;
    if (RADDR_A.get(w) < 32 && PM.get(w) == 0 && UNPACK.get(w))
        for (uint32_t& x : v)
            x = unpack_value(UNPACK.get(w), x, reads_float);
    return v;
}

void emulator::state::write_flags(unsigned q, const alu_result* r, const bool* mask)
{
    qpu_state& s = qpus[q];
    for (unsigned e = 0; e < W; ++e)
        if (mask[e]) {
            s.z[e] = r[e].z;
            s.n[e] = r[e].n;
            s.c[e] = r[e].c;
        }
}

void emulator::state::write(unsigned q, uint32_t addr, bool file_b, const vec& v, const bool* mask,
                            bool mul_result, bool is_float, uint64_t w)
{
    qpu_state& s = qpus[q];
    // Branch words have no pack field (cond_br sits there).
    uint32_t pm = PM.get(w), pack = SIG.get(w) == SIG_BRANCH ? 0 : PACK.get(w);
    bool any = std::any_of(mask, mask + W, [](bool b) { return b; });
    if (addr < 32 || (addr >= W_R0 && addr <= W_R3)) {
        uint32_t* dest = addr < 32 ? (file_b ? s.rb[addr] : s.ra[addr]) : s.acc[addr - W_R0];
        for (unsigned e = 0; e < W; ++e) {
            if (!mask[e])
                continue;
            uint32_t x = v[e];
            if (pm == 0 && pack && addr < 32 && !file_b)
                x = pack_regfile_a(pack, dest[e], x, is_float);
            else if (pm == 1 && pack && mul_result)
                x = pack_mul_colour(pack, dest[e], x);
            dest[e] = x;
        }
        return;
    }
    if (addr == W_NOP)
        return;
    if (addr == W_R5) {
        // Regfile A side: per quad (elements 0, 4, 8, 12); B side: broadcast.
        for (unsigned e = 0; e < W; ++e)
            if (mask[e])
                s.acc[5][e] = file_b ? v[0] : v[e & ~3u];
        return;
    }
    if (addr >= W_SFU_RECIP && addr <= W_SFU_LOG) {
        for (unsigned e = 0; e < W; ++e)
            s.acc[4][e] = sfu(addr, v[e], fmode);
        return;
    }
    if (addr == W_VPM) {
        // Erratum: the condition does not mask VPM writes.
        auto& wr = s.vpm_write;
        for (unsigned e = 0; e < W; ++e)
            vpm_word(vpm_vector_word(wr.addr, wr.horizontal, e)) = v[e];
        wr.addr += wr.stride;
        return;
    }
    if (addr >= W_TMU0_S && addr <= W_TMU1_B) {
        if (addr != W_TMU0_S && addr != W_TMU1_S)
            throw fault_error("texture coordinate writes (t, r, b) are not emulated; use direct loads via tmuN_s");
        // A lone t0s write is a per-element 32-bit memory load, and the
        // condition does not mask it (erratum; vc4asm's VideoCoreIV-addendum.html).
        tmu_request r;
        for (unsigned e = 0; e < W; ++e)
            r.data[e] = load(v[e]);
        // The TMU's own latency covers an L2 hit; a miss waits for its fill.
        r.ready = now + draw(cfg.tmu_latency_min, cfg.tmu_latency_max);
        if (cfg.model_memory)
            for (unsigned e = 0; e < W; ++e)
                r.ready = std::max(r.ready, memory_time.read(v[e], 4, now));
        s.tmu[addr == W_TMU1_S].push_back(r);
        return;
    }
    if (!any)
        return;
    // The rest take element 0 (under its condition).
    uint32_t x = v[0];
    if (!mask[0])
        return;
    switch (addr) {
    case W_TMU_NOSWAP:
        return;
    case W_HOST_INT:
        // Only a non-zero value raises the interrupt (vc4asm's VideoCoreIV-addendum.html).
        if (x) {
            dbqitc |= 1u << q;
            ++host_interrupts;
        }
        return;
    case W_UNIF_ADDR:
        s.uniform = x;
        return;
    case W_VPM_SETUP:
        if (!file_b) {
            if (x >> 31) {
                if ((x >> 28) == 9)
                    vdr_pitch = x;
                else
                    vdr_setup = x;
                return;
            }
            auto& r = s.vpm_read;
            // Erratum (vc4asm's VideoCoreIV-addendum.html): a new vr_setup is
            // ignored while reads are pending.
            if (r.remaining)
                throw fault_error("vr_setup while " + std::to_string(r.remaining) +
                                  " VPM reads are pending (the hardware ignores it)");
            if (((x >> 8) & 3) != 2)
                throw fault_error("VPM read setup with 8/16-bit size is not emulated");
            unsigned num = (x >> 20) & 15, stride = (x >> 12) & 63;
            r.remaining = num ? num : 16;
            r.stride = stride ? stride : 64;
            r.horizontal = (x >> 11) & 1;
            r.addr = x & 0xFF;
            r.ready = now + cfg.vpm_read_latency;
        } else {
            switch (x >> 30) {
            case 2: vdw_setup = x; return;
            case 3: vdw_stride = x; return;
            case 0: {
                if (((x >> 8) & 3) != 2)
                    throw fault_error("VPM write setup with 8/16-bit size is not emulated");
                unsigned stride = (x >> 12) & 63;
                s.vpm_write.stride = stride ? stride : 64;
                s.vpm_write.horizontal = (x >> 11) & 1;
                s.vpm_write.addr = x & 0xFF;
                return;
            }
            default: throw fault_error("unknown VPM write setup " + hex(x));
            }
        }
        return;
    case W_VPM_ADDR:
        start_dma(file_b, x, q);
        return;
    case W_MUTEX_RELEASE:
        if (mutex_owner != int(q))
            throw fault_error("mutex released by a QPU that does not hold it");
        mutex_owner = -1;
        return;
    default:
        throw fault_error("write to " + std::string(write_name(addr, file_b) ? write_name(addr, file_b) : "?") +
                          ", which a user program cannot use");
    }
}

void emulator::state::execute_alu(unsigned q, uint64_t w, const instruction_access& a)
{
    qpu_state& s = qpus[q];
    uint32_t add_op = OP_ADD.get(w), mul_op = OP_MUL.get(w);
    // Each read port is read once per instruction, whatever reads it.
    vec port_a{}, port_b{};
    if (a.reads_a.any())
        port_a = read_port(q, false, RADDR_A.get(w));
    if (a.reads_b.any())
        port_b = read_port(q, true, RADDR_B.get(w));

    alu_result add_r[W], mul_r[W];
    if (add_op != A_NOP) {
        bool f = add_op_reads_float(add_op);
        vec x = read_operand(q, w, ADD_A.get(w), f, &port_a, &port_b);
        vec y = add_op_operands(add_op) > 1 ? read_operand(q, w, ADD_B.get(w), f, &port_a, &port_b) : x;
        add_alu(add_op, x.data(), y.data(), fmode, add_r);
    }
    if (mul_op != M_NOP) {
        bool f = mul_op_reads_float(mul_op);
        uint32_t muxes[2] = {MUL_A.get(w), MUL_B.get(w)};
        vec in[2];
        for (int i = 0; i < 2; ++i)
            in[i] = read_operand(q, w, muxes[i], f, &port_a, &port_b);
        if (a.rotation >= 0) {
            // Inputs rotate: out[i] = in[(i - n) mod 16]; full rotation for
            // r0..r3, within each quad for other inputs (the guide's section 3
            // restrictions, p. 37, as Mesa's vc4_qpu_validate.c checks them).
            unsigned n = a.rotation == int(SMALL_IMM_ROTATE_R5) ? s.acc[5][0] & 15
                                                                 : unsigned(a.rotation) - SMALL_IMM_ROTATE_R5;
            for (int i = 0; i < 2; ++i) {
                vec r{};
                for (unsigned e = 0; e < W; ++e)
                    r[e] = muxes[i] <= 3 ? in[i][(e - n) & 15] : in[i][(e & ~3u) | ((e - n) & 3)];
                in[i] = r;
            }
        }
        mul_alu(mul_op, in[0].data(), in[1].data(), fmode, mul_r);
    }

    bool ws = WS.get(w);
    bool add_mask[W], mul_mask[W];
    for (unsigned e = 0; e < W; ++e) {
        add_mask[e] = add_op != A_NOP && condition(q, COND_ADD.get(w), e);
        mul_mask[e] = mul_op != M_NOP && condition(q, COND_MUL.get(w), e);
    }
    // Flags come from the add ALU unless it is nop (vc4asm's VideoCoreIV-addendum.html).
    if (SF.get(w)) {
        if (add_op != A_NOP)
            write_flags(q, add_r, add_mask);
        else if (mul_op != M_NOP)
            write_flags(q, mul_r, mul_mask);
    }
    vec add_v{}, mul_v{};
    for (unsigned e = 0; e < W; ++e) {
        add_v[e] = add_r[e].value;
        mul_v[e] = mul_r[e].value;
    }
    bool tmu_or_vpm_add = WADDR_ADD.get(w) == W_VPM || WADDR_ADD.get(w) >= W_TMU0_S;
    bool tmu_or_vpm_mul = WADDR_MUL.get(w) == W_VPM || WADDR_MUL.get(w) >= W_TMU0_S;
    if (add_op != A_NOP && (tmu_or_vpm_add ? COND_ADD.get(w) != COND_NEVER : true))
        write(q, WADDR_ADD.get(w), ws, add_v, add_mask, false, add_op_writes_float(add_op), w);
    if (mul_op != M_NOP && (tmu_or_vpm_mul ? COND_MUL.get(w) != COND_NEVER : true))
        write(q, WADDR_MUL.get(w), !ws, mul_v, mul_mask, true, mul_op_writes_float(mul_op), w);
}

void emulator::state::execute(unsigned q, uint64_t w, const instruction_access& a)
{
    qpu_state& s = qpus[q];
    uint32_t sig = SIG.get(w);
    uint32_t pc = s.pc;
    bool ws = WS.get(w);

    if (sig == SIG_BRANCH) {
        if (s.branch_countdown > 0)
            throw fault_error("branch in the delay slots of another branch");
        bool taken = branch_taken(q, COND_BR.get(w));
        if (taken) {
            uint32_t target = BRANCH_REL.get(w) ? pc + (1 + BRANCH_DELAY_SLOTS) * INSTRUCTION_BYTES + IMMEDIATE.get(w)
                                                : IMMEDIATE.get(w);
            if (BRANCH_REG.get(w))
                target += s.ra[BRANCH_RADDR_A.get(w)][W - 1];
            s.branch_target = target;
            s.branch_countdown = int(BRANCH_DELAY_SLOTS) + 1;
            // The link is the return address after the delay slots.
            vec link;
            link.fill(pc + (1 + BRANCH_DELAY_SLOTS) * INSTRUCTION_BYTES);
            bool all[W];
            std::fill(all, all + W, true);
            write(q, WADDR_ADD.get(w), ws, link, all, false, false, w);
            write(q, WADDR_MUL.get(w), !ws, link, all, true, false, w);
        }
    } else if (sig == SIG_LOAD_IMM) {
        uint32_t imm = IMMEDIATE.get(w), mode = LDI_MODE.get(w);
        if (mode == LDI_SEMAPHORE) {
            uint32_t id = SEMA_ID.get(w);
            if (SEMA_ACQUIRE.get(w)) {
                --semaphores[id]; // blocked() made sure it is not 0
            } else {
                if (semaphores[id] == 15)
                    throw fault_error("semaphore " + std::to_string(id) + " released past 15 (behaviour unknown)");
                ++semaphores[id];
            }
        }
        vec v;
        for (unsigned e = 0; e < W; ++e) {
            uint32_t two = ((imm >> e) & 1) | (((imm >> (16 + e)) & 1) << 1);
            v[e] = mode == LDI_PER_ELEMENT_SIGNED ? uint32_t(int32_t(two << 30) >> 30)
                 : mode == LDI_PER_ELEMENT_UNSIGNED ? two
                                                    : imm;
        }
        bool add_mask[W], mul_mask[W];
        alu_result flags[W];
        for (unsigned e = 0; e < W; ++e) {
            add_mask[e] = condition(q, COND_ADD.get(w), e);
            mul_mask[e] = condition(q, COND_MUL.get(w), e);
            flags[e] = integer_flags(v[e]);
        }
        if (SF.get(w))
            write_flags(q, flags, add_mask);
        if (COND_ADD.get(w) != COND_NEVER)
            write(q, WADDR_ADD.get(w), ws, v, add_mask, false, false, w);
        if (COND_MUL.get(w) != COND_NEVER)
            write(q, WADDR_MUL.get(w), !ws, v, mul_mask, true, false, w);
    } else {
        execute_alu(q, w, a);
        switch (sig) {
        case SIG_NONE:
        case SIG_SMALL_IMM:
        case SIG_THREAD_SWITCH: // user programs run one thread per QPU
        case SIG_LAST_THREAD_SWITCH:
            break;
        case SIG_PROG_END:
            s.end_countdown = int(THREAD_END_DELAY_SLOTS) + 1; // this instruction and its delay slots
            break;
        case SIG_LOAD_TMU0:
        case SIG_LOAD_TMU1: {
            auto& fifo = s.tmu[sig - SIG_LOAD_TMU0];
            if (fifo.empty())
                throw fault_error("ldtmu with no TMU request outstanding (the hardware would hang)");
            std::copy(fifo.front().data.begin(), fifo.front().data.end(), s.acc[4]);
            fifo.pop_front();
            break;
        }
        default:
            throw fault_error(std::string("signal ") + (sig_names[sig] ? sig_names[sig] : "?") +
                              " is not available to user programs");
        }
    }

    // Program counter, branch delay slots, program end.
    s.pc += INSTRUCTION_BYTES;
    if (s.branch_countdown > 0 && --s.branch_countdown == 0)
        s.pc = s.branch_target;
    if (s.end_countdown > 0 && --s.end_countdown == 0)
        end_program(q);
}

void emulator::state::end_program(unsigned q)
{
    qpu_state& s = qpus[q];
    s.running = false;
    if (mutex_owner == int(q))
        throw fault_error("program ended holding the mutex");
    if (!s.tmu[0].empty() || !s.tmu[1].empty())
        throw fault_error("program ended with TMU results not read");
    ++completed;
    ++counts[q].programs;
}

bool emulator::state::start_program(unsigned q)
{
    if (queue.empty())
        return false;
    program_request r = queue.front();
    queue.pop_front();
    qpu_state& s = qpus[q];
    s.running = true;
    s.pc = r.pc;
    s.uniform = r.uniforms;
    s.uniform_length = r.uniforms_length;
    s.branch_countdown = s.end_countdown = 0;
    s.vpm_read.remaining = 0;
    s.hazards.reset();
    return true;
}

// ---------------------------------------------------------------------------
// The public interface

const char* to_string(stop_reason reason)
{
    switch (reason) {
    case stop_reason::idle: return "idle";
    case stop_reason::cycle_limit: return "cycle limit";
    case stop_reason::deadlock: return "deadlock";
    default: return "fault";
    }
}

emulator::emulator(const config& cfg) : d_state(std::make_unique<state>())
{
    if (cfg.num_qpus < 1 || cfg.num_qpus > 16)
        throw std::invalid_argument("qpu::emu: num_qpus must be 1..16");
    if (cfg.memory_bytes == 0 || cfg.memory_bytes > (1u << 30) || cfg.memory_bytes % 8)
        throw std::invalid_argument("qpu::emu: memory_bytes must be a multiple of 8 up to 1 GiB");
    if (cfg.tmu_fifo_depth < 1 || cfg.tmu_latency_min > cfg.tmu_latency_max ||
        cfg.dma_clocks_per_word_min > cfg.dma_clocks_per_word_max)
        throw std::invalid_argument("qpu::emu: bad TMU or DMA configuration");
    state& s = *d_state;
    s.cfg = cfg;
    s.fmode = {cfg.flush_denormals, cfg.float_rounding};
    s.memory.assign(cfg.memory_bytes, 0);
    s.memory_time = memory_timing(cfg.memory);
    s.qpus.resize(cfg.num_qpus);
    for (qpu_state& q : s.qpus)
        q.hazards = hazard_checker(cfg.tmu_fifo_depth);
    s.counts.resize(cfg.num_qpus);
    s.rng.seed(cfg.seed);
}

emulator::~emulator() = default;

const config& emulator::configuration() const { return d_state->cfg; }
uint32_t emulator::memory_bytes() const { return uint32_t(d_state->memory.size()); }

uint8_t* emulator::memory(uint32_t bus_address, size_t bytes)
{
    uint32_t p = bus_address & BUS_ALIAS_MASK;
    if (uint64_t(p) + bytes > d_state->memory.size())
        throw std::invalid_argument("qpu::emu: bus address " + state::hex(bus_address) + " + " +
                                    std::to_string(bytes) + " bytes is outside GPU memory");
    return d_state->memory.data() + p;
}

void emulator::write_memory(uint32_t bus_address, const void* source, size_t bytes)
{
    std::memcpy(memory(bus_address, bytes), source, bytes);
}

void emulator::read_memory(uint32_t bus_address, void* destination, size_t bytes) const
{
    std::memcpy(destination, const_cast<emulator*>(this)->memory(bus_address, bytes), bytes);
}

uint32_t emulator::read_word(uint32_t bus_address) const
{
    uint32_t v;
    read_memory(bus_address, &v, 4);
    return v;
}

void emulator::write_word(uint32_t bus_address, uint32_t value) { write_memory(bus_address, &value, 4); }

uint32_t emulator::read_register(uint32_t offset)
{
    state& s = *d_state;
    switch (offset) {
    case v3d::IDENT0: return v3d::IDENT0_VC4;
    case v3d::IDENT1: return IDENT1_VALUE;
    case v3d::SRQUA: return s.srqua;
    case v3d::SRQUL: return s.srqul;
    case v3d::SRQCS:
        return uint32_t(s.queue.size()) | (s.queue_error ? v3d::SRQCS_ERROR : 0) |
               ((s.queued & 0xFF) << v3d::SRQCS_QUEUED_SHIFT) | ((s.completed & 0xFF) << v3d::SRQCS_COMPLETED_SHIFT);
    case v3d::VPMBASE: return s.vpmbase;
    case v3d::PCTRE: return s.pctre;
    case v3d::DBCFG: return s.dbcfg;
    case v3d::DBQITE: return s.dbqite;
    case v3d::DBQITC: return s.dbqitc;
    default: return 0;
    }
}

void emulator::write_register(uint32_t offset, uint32_t value)
{
    state& s = *d_state;
    switch (offset) {
    case v3d::SRQUA: s.srqua = value; break;
    case v3d::SRQUL: s.srqul = value; break;
    case v3d::SRQPC:
        if (s.queue.size() >= USER_PROGRAM_QUEUE_DEPTH) {
            s.queue_error = true;
            break;
        }
        s.queue.push_back({value, s.srqua, s.srqul});
        ++s.queued;
        break;
    case v3d::SRQCS:
        if (value & v3d::SRQCS_ERROR) s.queue_error = false;
        if (value & v3d::SRQCS_CLEAR_QUEUED) s.queued = 0;
        if (value & v3d::SRQCS_CLEAR_COMPLETED) s.completed = 0;
        break;
    case v3d::VPMBASE: s.vpmbase = value; break;
    case v3d::PCTRE: s.pctre = value; break;
    case v3d::DBCFG: s.dbcfg = value; break;
    case v3d::DBQITE: s.dbqite = value; break;
    case v3d::DBQITC: s.dbqitc &= ~value; break;
    case v3d::L2CACTL:
        if (value & v3d::L2CACTL_CLEAR)
            s.memory_time.clear_l2();
        break;
    default: break; // SLCACTL: the slices' caches are not modelled
    }
}

run_result emulator::run(uint64_t max_cycles)
{
    state& s = *d_state;
    run_result result;
    if (!s.fault.empty()) {
        result.reason = stop_reason::fault;
        result.message = s.fault;
        return result;
    }
    const uint64_t start = s.now;
    const unsigned n = unsigned(s.qpus.size());
    std::vector<unsigned> order(n);
    for (unsigned q = 0; q < n; ++q)
        order[q] = q;
    std::vector<stall> stalls(n);
    unsigned current = 0;
    try {
        for (;;) {
            s.complete_dma(s.now);
            bool any_running = std::any_of(s.qpus.begin(), s.qpus.end(), [](const qpu_state& q) { return q.running; });
            if (!any_running && s.queue.empty() && s.dma.empty()) {
                result.reason = stop_reason::idle;
                break;
            }
            if (s.now - start >= max_cycles) {
                result.reason = stop_reason::cycle_limit;
                break;
            }
            if (s.cfg.random_interleave)
                std::shuffle(order.begin(), order.end(), s.rng);
            bool issued = false;
            std::fill(stalls.begin(), stalls.end(), stall::none);
            for (unsigned q : order) {
                current = q;
                qpu_state& qs = s.qpus[q];
                if (!qs.running && !s.start_program(q)) {
                    s.counts[q].idle += CLOCKS_PER_INSTRUCTION;
                    continue;
                }
                if (s.cfg.random_interleave && s.rng() % 8 == 0) {
                    s.counts[q].jitter += CLOCKS_PER_INSTRUCTION;
                    issued = true; // it could have run: not a deadlock
                    continue;
                }
                uint64_t w;
                const instruction_access& a = s.fetch(qs.pc, w);
                stalls[q] = s.blocked(q, w, a);
                if (stalls[q] != stall::none)
                    continue;
                if (s.cfg.check_hazards) {
                    std::string problem = qs.hazards.next(a);
                    if (!problem.empty())
                        throw fault_error("hazard: " + problem);
                }
                s.execute(q, w, a);
                ++s.counts[q].instructions;
                issued = true;
            }
            uint64_t step = CLOCKS_PER_INSTRUCTION;
            if (!issued) {
                // Everyone running is blocked: skip to the next timed event.
                uint64_t next = UINT64_MAX;
                for (const qpu_state& qs : s.qpus) {
                    for (const auto& fifo : qs.tmu)
                        if (!fifo.empty() && fifo.front().ready > s.now)
                            next = std::min(next, fifo.front().ready);
                    if (qs.vpm_read.remaining && qs.vpm_read.ready > s.now)
                        next = std::min(next, qs.vpm_read.ready);
                }
                for (const dma_request& r : s.dma)
                    next = std::min(next, r.done);
                if (next == UINT64_MAX) {
                    result.reason = stop_reason::deadlock;
                    result.message = "deadlock: every running QPU is blocked:";
                    for (unsigned q = 0; q < n; ++q)
                        if (s.qpus[q].running)
                            result.message += " QPU " + std::to_string(q) + " at " + state::hex(s.qpus[q].pc) +
                                              " waits for " + s.qpus[q].waiting_for + ";";
                    break;
                }
                uint64_t ticks = std::max<uint64_t>(1, (next - s.now + CLOCKS_PER_INSTRUCTION - 1) / CLOCKS_PER_INSTRUCTION);
                step = ticks * CLOCKS_PER_INSTRUCTION;
            }
            for (unsigned q = 0; q < n; ++q) {
                qpu_counts& c = s.counts[q];
                switch (stalls[q]) {
                case stall::tmu: c.stall_tmu += step; break;
                case stall::sfu: c.stall_sfu += step; break;
                case stall::vpm: c.stall_vpm += step; break;
                case stall::semaphore: c.stall_semaphore += step; break;
                case stall::none: break;
                }
            }
            s.now += step;
        }
    } catch (const fault_error& e) {
        const qpu_state& qs = s.qpus[current];
        std::string where = "QPU " + std::to_string(current) + " at " + state::hex(qs.pc);
        try {
            uint64_t w = s.load(qs.pc) | uint64_t(s.load(qs.pc + 4)) << 32;
            where += " (" + isa::disassemble(w) + ")";
        } catch (const fault_error&) {
        }
        s.fault = where + ": " + e.what();
        result.reason = stop_reason::fault;
        result.message = s.fault;
    }
    result.cycles = s.now - start;
    return result;
}

uint64_t emulator::cycles() const { return d_state->now; }
const std::vector<qpu_counts>& emulator::counts() const { return d_state->counts; }
const memory_counts& emulator::memory_traffic() const { return d_state->memory_time.counts(); }

void emulator::reset_counts()
{
    for (qpu_counts& c : d_state->counts)
        c = qpu_counts{};
}

uint64_t emulator::host_interrupts() const { return d_state->host_interrupts; }

uint32_t emulator::semaphore(unsigned id) const
{
    if (id >= NUM_SEMAPHORES)
        throw std::invalid_argument("qpu::emu: semaphore id must be 0..15");
    return d_state->semaphores[id];
}

emulator::registers emulator::qpu_registers(unsigned qpu) const
{
    if (qpu >= d_state->qpus.size())
        throw std::invalid_argument("qpu::emu: no QPU " + std::to_string(qpu));
    const qpu_state& s = d_state->qpus[qpu];
    registers r;
    std::memcpy(r.ra, s.ra, sizeof r.ra);
    std::memcpy(r.rb, s.rb, sizeof r.rb);
    std::memcpy(r.acc, s.acc, sizeof r.acc);
    std::memcpy(r.z, s.z, sizeof r.z);
    std::memcpy(r.n, s.n, sizeof r.n);
    std::memcpy(r.c, s.c, sizeof r.c);
    r.pc = s.pc;
    return r;
}

} // namespace qpu::emu
