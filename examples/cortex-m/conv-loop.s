ldr r1, [sp, #136] @ 0x88
ldr r0, [sp, #140] @ 0x8c
ldr r3, [r1, r2]
sxtb16 r4, r3
ldr r1, [sp, #144] @ 0x90
sxtb16 r3, r3, ror #8
ldr r0, [r0, r2]
sxtab16 r5, fp, r0
smlad r6, r5, r4, ip
sxtab16 r0, fp, r0, ror #8
smlad ip, r0, r3, r6
ldr r6, [r1, r2]
sxtab16 r1, fp, r6
smlad r4, r1, r4, sl
sxtab16 r6, fp, r6, ror #8
smlad sl, r6, r3, r4
ldr.w r3, [r9, r2]
sxtb16 r4, r3
smlad r5, r5, r4, lr
sxtb16 r3, r3, ror #8
smlad lr, r0, r3, r5
smlad r0, r1, r4, r8
ldr r1, [sp, #132] @ 0x84
smlad r8, r6, r3, r0
adds r2, #4
cmp r1, r2
bne.n <stowplan::kernels::simd::Epilogue::pixel_pair+0x1da>
