// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft qpu host-driver tests: helpers and the QPU test programs. */
#include "qa_qpu.h"
#include "asm/assembler.h"
#include <cppunit/extensions/HelperMacros.h>

namespace qa {

namespace {

const char* const doubling_source = R"(
    # ra2: VPM write setup for this QPU's row (horizontal, 32-bit, stride 1)
    # rb3: VDW setup, one row of 16 words from that row; r3: lane byte offsets
    mov r2, qpu_num
    ldi r1, 0x1a00
    or ra2, r1, r2
    ldi r1, 0x80904000
    shl r0, r2, 7
    or rb3, r1, r0
    shl r3, elem_num, 2
loop:
    mov.setf ra0, unif
    mov ra1, unif
    nop
    brr.allz done
    nop
    nop
    nop
    add tmu0_s, ra0, r3
    mov vw_setup, ra2
    nop ; ldtmu0
    fmul vpm, r4, 2.0
    mov nop, mutex          # the VDW setup register is shared by all QPUs
    mov vw_setup, rb3
    mov vw_addr, ra1
    mov nop, vw_wait
    mov mutex, 1
    brr loop
    nop
    nop
    nop
done:
    ldi host_int, 1
    thrend
    nop
    nop
)";

const char* const endless_source = R"(
spin:
    brr spin
    nop
    nop
    nop
)";

} // namespace

const std::vector<std::uint64_t>& doubling_program()
{
    static const auto code = ::qpu::assembler::assemble(doubling_source, "doubling").code;
    return code;
}

const std::vector<std::uint64_t>& endless_program()
{
    static const auto code = ::qpu::assembler::assemble(endless_source, "endless").code;
    return code;
}

std::vector<std::uint32_t> doubling_uniforms(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& rows)
{
    std::vector<std::uint32_t> u;
    for (const auto& [in, out] : rows) {
        u.push_back(in);
        u.push_back(out);
    }
    u.push_back(0);
    u.push_back(0);
    return u;
}

} // namespace qa
