# SPDX-License-Identifier: GPL-3.0-or-later
# Batched complex FFT of any size 2^8..2^22, both directions, on 1..16 QPUs.
#
# One program for every size: the host's uniforms describe the passes
# (fft_shader.cc builds them; README.md here explains the
# algorithm). Each pass is a Stockham radix-R step: with n = N/s points left
# and m = n/R,
#     y[q + s(Rp + j)] = w_n^(jp) * sum_r x[q + s(p + rm)] W_R^(rj).
# The first pass (s = 1) has radix 16A, A = 1..16: each lane does a radix-16
# over registers, then radix-A steps across blocks of A lanes (rotations)
# finish it, so each lane holds 16 consecutive outputs and a group's 256
# outputs are contiguous: they go out 4 outputs (64 points) per VDW (2^8 is
# that one pass). The other passes are radix 16 or 64 with the lanes on r
# (cross-lane steps, 64 points per VDW) where the VDW stride allows, else
# radix 16 with the lanes on 16 consecutive q (each output j through 3 VPM
# rows, re, im, re, and one VDW of 16 lanes x 2 words). Inputs are gathered
# through the TMUs and twiddles w_n^(jp) come from tables computed in double
# on the host. The inverse transform is swap(FFT(swap(x))): the first pass
# loads re/im swapped and the last pass stores them swapped, so butterflies
# and tables are the same.
#
# Registers: ra0..15 / rb0..15 hold the 16 points of a lane (re / im); r0..r3
# are scratch; the rest hold the pass state below.

#   ra16   g          current work item W (jobs x groups per transform [x 4 quarters], over QPUs)
#   rb16   g_end      
#   ra17   lg_in      in = in0 + (g << LG_IN) + LANE_IN; the first pass's lane radix is 2^(7 - LG_IN)
#   rb17   nq         QPUs in this launch
#   ra18   quarters   3: a work item is one quad (4 registers) of a group, W & 3; 2: half a group,
#                     quads 0-1 or 2-3 (W & 2); 0: whole groups
#   rb18   lg_gt      job = W >> LG_GT
#   ra19   qmask      qb = g & QMASK
#   rb19   gmask      g = G & GMASK
#   ra20   kshift     p = g >> KSHIFT
#   rb20   step       bytes between a job's buffers
#   ra21   lg_a       out = out0 + (qb << LG_A) + (p << LG_B)
#   rb21   lane_in    per-lane input offset, loaded from the pass's lane table
#   ra22   in0        
#   rb22   out0       
#   ra23   lg_b       bits 0..4; bits 5 and up: LG_PAD, the output's padding block (group_setup)
#   rb23   lg_c       tw = tw0 + (p << LG_C) + TW_LANE
#   ra24   tw0        
#   rb24   tw_lane    
#   ra25   im_off     4, or -4 when loading swapped
#   rb25   s_bytes    distance between the inputs of two registers
#   ra26   dma0       VDW setup of VPM slot 0
#   rb26   dma1       slot 1's VDW setup; in the first pass the lane twiddles (+ 4 lane);
#                     an on-chip pass 1: the QPUs that wait for its VPM writes
#   ra27   vpmw0      VPM write setups of the two slots
#   rb27   vpmw1      first and across passes: nonzero stores (im, re) (the inverse's last pass);
#                     an on-chip pair's pass 1: the QPUs of pass 1 (pipelined)
#   ra28   in_addr    (at a pass's start: its body's entry in the dispatch table)
#   rb28   dma_stride an on-chip pair's pass 1: its pipelining flags
#   ra29   tw_ptr     next twiddle to load
#   rb29   j_step     bytes between two VDWs' outputs; an on-chip pair's pass 1: the QPUs of pass 2
#   ra30   out_ptr    next output
#   rb30   host_int   
#   ra31   passes     
#   rb31   qpu        this QPU's number (0 collects the barriers)

# Gather one input point (lanes at r1) into the TMU FIFOs; r1 moves to the next.
.macro issue_point
    add tmu1_s, r1, ra25
    add r1, r1, rb25 ; mov tmu0_s, r1
.endm

# Gather the next twiddle (re on TMU0, im on TMU1).
.macro issue_twiddle
    add tmu1_s, ra29, 4
    add ra29, ra29, 8 ; mov tmu0_s, ra29
.endm

# Receive the next input point into ra\k / rb\k.
.macro pop_point, k
    nop ; ldtmu0
    mov ra\k, r4 ; ldtmu1
    mov rb\k, r4
.endm

# Radix-2 butterfly: (u, v) <- (u + v, u - v).
.macro bf, u, v
    mov r0, ra\u ; mov r1, rb\u
    fadd ra\u, r0, ra\v
    fsub ra\v, r0, ra\v
    fadd rb\u, r1, rb\v
    fsub rb\v, r1, rb\v
.endm

# x <- x * (r2 + i r3).
.macro cmul, x
    fmul r0, ra\x, r2
    fmul r1, rb\x, r3
    fsub r0, r0, r1 ; fmul r1, ra\x, r3
    mov ra\x, r0 ; fmul r0, rb\x, r2
    fadd rb\x, r1, r0
.endm

# x <- x * (c + i d), a constant.
.macro twc, x, c, d
    ldi r2, \c
    ldi r3, \d
    cmul \x
.endm

# x <- x * -i (forward W4).
.macro tw_minus_i, x
    mov r0, ra\x ; mov ra\x, rb\x
    fsub rb\x, 0, r0
.endm

# Start the VDW of a VPM slot to out_ptr, which moves on by j_step. The setup
# registers are shared by all QPUs, hence the mutex.
.macro dma_start, dma
    mov nop, mutex
    mov vw_setup, \dma
    mov vw_setup, rb28
    mov vw_addr, ra30 ; mov mutex, r0
    add ra30, ra30, rb29
.endm

# Output j = the point in register k, in VPM slot `vpmw`/`dma`.
.macro dma_out, dma
    mov nop, vw_wait
    dma_start \dma
.endm

.macro out_plain, k, vpmw, dma
    mov vw_setup, \vpmw
    mov vpm, ra\k
    mov vpm, rb\k
    mov vpm, ra\k
    dma_out \dma
.endm

# r0 + i r1 = point k times its twiddle w_n^(jp), popped from the TMU FIFOs.
.macro twiddled, k
    nop ; ldtmu0
    fmul r0, ra\k, r4
    fmul r1, rb\k, r4 ; ldtmu1
    fmul r2, rb\k, r4
    fsub r0, r0, r2 ; fmul r3, ra\k, r4
    fadd r1, r1, r3
.endm

# Output j with its twiddle, in VPM slot `vpmw`/`dma`.
.macro out_twiddled, k, vpmw, dma
    mov vw_setup, \vpmw
    twiddled \k
    mov vpm, r0
    mov vpm, r1
    mov vpm, r0
    dma_out \dma
.endm

# Addresses of work item W: group G = W >> (quarters ? 2 : 0), job = W >> LG_GT
# (the host counts the quarter bits in), g = G & GMASK, qb = g & QMASK,
# p = g >> KSHIFT. An intermediate buffer has 256 bytes of padding after
# each block of N/16 points (fft_shader.cc, PAD_BYTES): the output offset
# gains 256 x (offset >> LG_PAD), LG_PAD in ra23's bits 5 and up (31: none).
.macro group_setup
    and r3, ra18, 2
    shr r1, ra16, r3
    shr r0, ra16, rb18
    and r1, r1, rb19
    and r2, r1, ra19 ; mul24 r0, r0, rb20
    shr r3, r1, ra20
    shl r2, r2, ra21
    shl r1, r1, ra17
    add r1, r1, r0
    add r1, r1, ra22
    add ra28, r1, rb21
    shl r1, r3, ra23
    add r2, r2, r1
    shr r1, ra23, 5
    shr r1, r2, r1
    shl r1, r1, 8
    add r2, r2, r1
    add r2, r2, r0
    add ra30, r2, rb22
    shl r0, r3, rb23
    add r0, r0, ra24
    add ra29, r0, rb24
    mov r1, ra28
.endm

# The group loop of one radix: `body` is the radix's macro.
.macro group_loop, body
    group_loop_to \body, pass_end
.endm

# The same, ending at `exit` (pass_end_vdws_left: the QPU's VDWs may still
# run, 2^12's hybrid between its rounds; its next stores wait for them).
.macro group_loop_to, body, exit
group_loop\@:
    sub.setf nop, ra16, rb16
    brr.allnn \exit
    nop
    nop
    nop
    group_setup
    \body
    add ra16, ra16, rb17
    brr group_loop\@
    nop
    nop
    nop
.endm

# All QPUs meet: the others signal `arrive` and wait on `leave`; QPU 0
# collects qpus-1 arrivals, then lets qpus-1 QPUs go.
.macro barrier, arrive, leave
    barrier_of \arrive, \leave, rb31, rb17
.endm

# `count` QPUs meet; the one whose `who` is 0 collects the others.
.macro barrier_of, arrive, leave, who, count
    mov.setf nop, \who
    brr.allz master\@
    nop
    nop
    nop
    srel \arrive
    sacq \leave
    brr done\@
    nop
    nop
    nop
master\@:
    mov r3, \count
    sub.setf r3, r3, 1
    brr.allz done\@
    nop
    nop
    nop
    # count - 1 passes of each loop, the semaphore in the delay slots
    sub.setf r3, r3, 1
acquire\@:
    brr.anynz acquire\@
    sacq \arrive
    sub.setf r3, r3, 1
    nop
    mov r3, \count
    sub.setf r3, r3, 2
release\@:
    brr.anynz release\@
    srel \leave
    sub.setf r3, r3, 1
    nop
done\@:
.endm

# Quad i of a group (4 registers, one VDW) is this work item's unless the
# group is split in quarters (ra18 = 3) and W & 3 != i, or in halves
# (ra18 = 2, W = 4 G + 2 h) and h != i >> 1; a skipped quad still
# moves the output pointer on by one VDW and, when `tw_bytes` is set, the
# twiddle pointer by that many bytes.
.macro quad_if_mine, i, quad, tw_bytes, k0, k1, k2, k3
    mov r1, ra18
    and r0, ra16, r1
    xor r0, r0, \i
    and.setf nop, r0, r1
    brr.anynz skip\@
    ldi r2, \tw_bytes
    add.ifnz ra29, ra29, r2
    add.ifnz ra30, ra30, rb29
    \quad \k0, \k1, \k2, \k3
skip\@:
.endm

.include "fft_radix.qinc"

# ---------------------------------------------------------------------------
# Header uniforms: qpu, qpus, passes, step, host_int value.
    mov rb31, unif
    mov rb17, unif
    mov ra31, unif
    mov rb20, unif
    mov rb30, unif

pass_loop:
    mov r2, unif            # body: 0 radix16_group, 1 first_pass_group, 2 across_group, 3 radix64_group,
                            # 4 first_pass_vpm_group, 5 radix64_vpm_group, 6 radix32_vpm_group (on-chip pairs),
                            # 7 exchange_first_group, 8 exchange_second_group, 9 exchange_read_group,
                            # 10 radix128_group, 11 exchange_read_math_group, 12 radix128_stores (2^11's exchange),
                            # 13..28 hybrid_*_group (2^12's hybrid, in the order of the table below)
    mov ra17, unif
    mov r0, unif            # the lane table: LANE_IN first
    shl r1, elem_num, 2
    add tmu0_s, r0, r1
    mov ra22, unif
    mov ra25, unif
    mov rb22, unif
    mov ra24, unif
    mov rb16, unif
    mov rb18, unif
    mov ra18, unif
    mov rb19, unif
    mov ra20, unif
    mov ra19, unif
    mov ra21, unif
    mov ra23, unif
    mov rb23, unif
    mov r0, unif
    mul24 rb24, r0, elem_num
    mov rb29, unif
    mov rb25, unif
    mov ra26, unif
    mov rb26, unif
    mov rb28, unif
    mov ra27, unif
    mov rb27, unif
    mov ra16, unif ; ldtmu0  # this QPU's first work item
    mov rb21, r4
    shl r1, r2, 5            # the body's entry in the table below: 4 instructions
    mov ra28, r1
    shl r0, elem_num, 2      # lane tables: rb26 + 4 lane
    brr bodies, ra28
    nop
    nop
    nop
bodies:
    brr radix16  # 0
    nop
    nop
    nop
    brr first_pass  # 1
    nop
    nop
    nop
    brr across  # 2
    nop
    nop
    nop
    brr across64  # 3
    nop
    nop
    nop
    brr first_vpm  # 4
    nop
    nop
    nop
    brr across64_vpm  # 5
    nop
    nop
    nop
    brr across32_vpm  # 6
    nop
    nop
    nop
    brr exchange_first  # 7
    nop
    nop
    nop
    brr exchange_second  # 8
    nop
    nop
    nop
    brr exchange_read  # 9
    nop
    nop
    nop
    brr across128  # 10
    nop
    nop
    nop
    brr exchange_read_math  # 11
    nop
    nop
    nop
    brr exchange_stores  # 12
    nop
    nop
    nop
    brr hybrid_memory  # 13
    nop
    nop
    nop
    brr hybrid_hold  # 14
    nop
    nop
    nop
    brr hybrid_write0  # 15
    nop
    nop
    nop
    brr hybrid_write1  # 16
    nop
    nop
    nop
    brr hybrid_write2  # 17
    nop
    nop
    nop
    brr hybrid_write3  # 18
    nop
    nop
    nop
    brr hybrid_read  # 19
    nop
    nop
    nop
    brr hybrid_stores  # 20
    nop
    nop
    nop
    brr hybrid_hread0  # 21
    nop
    nop
    nop
    brr hybrid_hread1  # 22
    nop
    nop
    nop
    brr hybrid_hread2  # 23
    nop
    nop
    nop
    brr hybrid_hread3  # 24
    nop
    nop
    nop
    brr hybrid_hstores0  # 25
    nop
    nop
    nop
    brr hybrid_hstores1  # 26
    nop
    nop
    nop
    brr hybrid_hstores2  # 27
    nop
    nop
    nop
    brr hybrid_hstores3  # 28
    nop
    nop
    nop
radix16:
    group_loop radix16_group
first_pass:
    add rb26, rb26, r0
    group_loop first_pass_group
across:
    add rb26, rb26, r0
    group_loop across_group
across64:
    add rb26, rb26, r0
    group_loop radix64_group
first_vpm:
    group_loop first_pass_vpm_group
across64_vpm:
    add rb26, rb26, r0
    group_loop radix64_vpm_group
across32_vpm:
    add rb26, rb26, r0
    group_loop radix32_vpm_group
exchange_first:
    group_loop exchange_first_group
exchange_second:
    group_loop exchange_second_group
exchange_read:
    group_loop exchange_read_group
across128:
    add rb26, rb26, r0
    group_loop radix128_group
exchange_read_math:
    add rb26, rb26, r0
    group_loop exchange_read_math_group
exchange_stores:
    group_loop radix128_stores
hybrid_memory:
    add rb26, rb26, r0
    group_loop_to hybrid_memory_group, pass_end_vdws_left
hybrid_hold:
    add rb26, rb26, r0
    group_loop_to hybrid_hold_group, pass_end_vdws_left
hybrid_write0:
    group_loop_to hybrid_write0_group, pass_end_vdws_left
hybrid_write1:
    group_loop_to hybrid_write1_group, pass_end_vdws_left
hybrid_write2:
    group_loop_to hybrid_write2_group, pass_end_vdws_left
hybrid_write3:
    group_loop_to hybrid_write3_group, pass_end_vdws_left
hybrid_read:
    group_loop_to hybrid_read_group, pass_end_vdws_left
hybrid_stores:
    add rb26, rb26, r0
    group_loop_to hybrid_stores_group, pass_end_vdws_left
hybrid_hread0:
    group_loop_to hybrid_hread0_group, pass_end_vdws_left
hybrid_hread1:
    group_loop_to hybrid_hread1_group, pass_end_vdws_left
hybrid_hread2:
    group_loop_to hybrid_hread2_group, pass_end_vdws_left
hybrid_hread3:
    group_loop_to hybrid_hread3_group, pass_end_vdws_left
hybrid_hstores0:
    add rb26, rb26, r0
    group_loop_to hybrid_hstores0_group, pass_end_vdws_left
hybrid_hstores1:
    add rb26, rb26, r0
    group_loop_to hybrid_hstores1_group, pass_end_vdws_left
hybrid_hstores2:
    add rb26, rb26, r0
    group_loop_to hybrid_hstores2_group, pass_end_vdws_left
hybrid_hstores3:
    add rb26, rb26, r0
    group_loop_to hybrid_hstores3_group, pass_end_vdws_left

pass_end:
    # Every QPU's outputs are in memory before anyone starts the next pass.
    # Passes alternate semaphore pairs, so a QPU that leaves one barrier early
    # cannot take a token of the next one meant for a slower QPU. The last
    # uniform of a pass says how it ends: bit 1 this barrier; in pipelined
    # on-chip pairs (first_pass_vpm_group) bit 0 releases semaphore 8 (a
    # QPU of pass 2: its VPM rows are free), bit 2 waits on semaphore 12
    # (pass 1's outputs are in the VPM), bit 3 takes back the release of
    # semaphore 8 that 2^9's last pass 2 made with no pass 1 to follow.
    # 2^12's hybrid enters after the wait (its bodies wait for their own
    # VDWs where they need them; the last barrier waits for all).
    mov nop, vw_wait
pass_end_vdws_left:
    mov r2, unif
    and.setf nop, r2, 1
    brr.allz rows_free
    nop
    nop
    nop
    srel 8
rows_free:
    and.setf nop, r2, 4
    brr.allz written
    nop
    nop
    nop
    sacq 12
written:
    and.setf nop, r2, 8
    brr.allz end_barrier
    nop
    nop
    nop
    sacq 8
end_barrier:
    # 2^11's exchange (fft_shader.cc, EXCHANGE_FIRST..): bit 4 waits for
    # the readers of the first round (semaphore 13); bit 5: QPUs 0 to
    # bits 8..15 - 1 meet (semaphores 6/7, or 14/15 with bit 6), then QPU 0
    # releases semaphore 12 bits 16.. times.
    ldi r0, 48
    and.setf nop, r2, r0
    brr.allz exchange_done
    nop
    nop
    nop
    ldi r0, 16
    and.setf nop, r2, r0
    brr.allz reads_done
    nop
    nop
    nop
    sacq 13
reads_done:
    ldi r0, 32
    and.setf nop, r2, r0
    brr.allz exchange_done
    ldi r1, 0xFF
    shr r0, r2, 8
    and ra19, r0, r1
    ldi r1, 16
    shr rb19, r2, r1
    ldi r0, 64
    and.setf nop, r2, r0
    brr.anynz second_meet
    nop
    nop
    nop
    barrier_of 6, 7, rb31, ra19
    brr met
    nop
    nop
    nop
second_meet:
    barrier_of 14, 15, rb31, ra19
met:
    mov.setf nop, rb31
    brr.anynz exchange_done
    nop
    nop
    nop
    mov.setf r3, rb19
    brr.allz exchange_done
    nop
    nop
    nop
signal:
    sub.setf r3, r3, 1
    brr.anynz signal
    srel 12
    nop
    nop
exchange_done:
    and.setf nop, r2, 2
    brr.allz barrier_done
    nop
    nop
    nop
    mov nop, vw_wait        # (2^12's hybrid came in at pass_end_vdws_left)
    and.setf nop, ra31, 1
    brr.allz even_barrier
    nop
    nop
    nop
    barrier 2, 3
    brr barrier_done
    nop
    nop
    nop
even_barrier:
    barrier 0, 1
barrier_done:
    sub.setf ra31, ra31, 1
    brr.anynz pass_loop
    nop
    nop
    nop
    mov host_int, rb30
    nop ; thrend
    nop
    nop
