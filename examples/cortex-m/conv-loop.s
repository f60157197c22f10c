ldr r1, [sp, #144] @ 0x90
ldr r0, [sp, #148] @ 0x94
ldr r3, [r1, r2]
sxtb16 r6, r3
ldr r1, [sp, #152] @ 0x98
sxtb16 r3, r3, ror #8
ldr r0, [r0, r2]
sxtab16 r4, ip, r0
smlad r5, r4, r6, r9
sxtab16 r0, ip, r0, ror #8
smlad r9, r0, r3, r5
ldr r5, [r1, r2]
sxtab16 r1, ip, r5
smlad r6, r1, r6, r8
sxtab16 r5, ip, r5, ror #8
smlad r8, r5, r3, r6
ldr.w r3, [lr, r2]
sxtb16 r6, r3
smlad r4, r4, r6, sl
sxtb16 r3, r3, ror #8
smlad sl, r0, r3, r4
smlad r0, r1, r6, fp
ldr r1, [sp, #140] @ 0x8c
smlad fp, r5, r3, r0
adds r2, #4
cmp r1, r2
bne.n <stowplan::kernels::simd::Epilogue::pixel_pair+0x1e6>
