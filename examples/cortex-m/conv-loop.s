ldr r0, [sp, #164] @ 0xa4
ldr r1, [sp, #168] @ 0xa8
ldr r6, [r0, r2]
ldr r0, [sp, #160] @ 0xa0
ldr r1, [r1, r2]
ldr r5, [r0, r2]
sxtab16 r0, fp, r6
sxtb16 r3, r5
smlad r4, r0, r3, r9
sxtab16 r6, fp, r6, ror #8
sxtb16 r5, r5, ror #8
smlad r9, r6, r5, r4
sxtab16 r4, fp, r1
smlad r3, r4, r3, ip
sxtab16 r1, fp, r1, ror #8
smlad ip, r1, r5, r3
ldr.w r3, [lr, r2]
sxtb16 r5, r3
smlad r0, r0, r5, sl
adds r2, #4
sxtb16 r3, r3, ror #8
smlad sl, r6, r3, r0
smlad r0, r4, r5, r8
ldr r5, [sp, #156] @ 0x9c
smlad r8, r1, r3, r0
cmp r5, r2
bne.n <stowplan::kernels::simd::Epilogue::pixel_pair+0x1fe>
