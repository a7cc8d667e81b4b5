nop
add r0, ra1, ra2
