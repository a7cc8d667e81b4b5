# qpu-asm's command-line test: every format, and back through -d.
.include "sample.qinc"
    mov ra0, unif
    shl r3, elem_num, 2
    ldi r0, ROWS
    fetch tmu0_s, ra0
    count_down r0
    nop ; ldtmu0
    fmul r1, r4, 0.5
    ldi r0, ROWS * 2
    count_down r0
    nop ; mov.rot3 r2, r1
    ldi host_int, 1
    nop ; thrend
    nop
    nop
