ldr.w r1, [ip, r0, lsl #2]
sxtb16 r2, r1
sxtb16 ip, r1, ror #8
mov r3, r8
ldr r6, [sp, #148] @ 0x94
adds r0, #1
ldr.w r8, [r6, r5]
sxtab16 r9, sl, r8
sxtab16 r8, sl, r8, ror #8
ldr r6, [sp, #152] @ 0x98
smlad r6, r9, r2, r6
smlad r6, r8, ip, r6
str r6, [sp, #152] @ 0x98
ldr r6, [r3, r5]
sxtab16 r3, sl, r6
adds r5, #4
sxtab16 r6, sl, r6, ror #8
smlad r2, r3, r2, fp
smlad fp, r6, ip, r2
ldr.w ip, [sp, #132] @ 0x84
sxtb16 r2, r1
sxtb16 r1, r1, ror #8
smlad r4, r9, r2, r4
smlad r4, r8, r1, r4
ldr.w r8, [sp, #140] @ 0x8c
smlad r2, r3, r2, lr
smlad lr, r6, r1, r2
ldr r1, [sp, #136] @ 0x88
cmp r1, r5
bne.n <stowplan::kernels::simd::Epilogue::pixel_pair+0xc8>
