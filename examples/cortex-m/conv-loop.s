ldr r2, [sp, #180] @ 0xb4
subs.w r8, r8, #1
ldr r0, [sp, #172] @ 0xac
ldr.w r4, [sl, r3]
sxtab16 lr, r9, r4
ldr.w sl, [r2, r3]
sxtb16 r2, sl
smlad r6, lr, r2, ip
sxtab16 r4, r9, r4, ror #8
str r1, [sp, #184] @ 0xb8
sxtb16 r1, sl, ror #8
smlad ip, r4, r1, r6
ldr r6, [r0, r3]
sxtab16 r0, r9, r6
smlad r2, r0, r2, fp
sxtab16 r6, r9, r6, ror #8
smlad fp, r6, r1, r2
ldr r1, [sp, #176] @ 0xb0
ldr.w sl, [sp, #164] @ 0xa4
ldr r1, [r1, r3]
add.w r3, r3, #4
sxtb16 r2, r1
smlad r5, lr, r2, r5
sxtb16 r1, r1, ror #8
smlad r5, r4, r1, r5
ldr r4, [sp, #184] @ 0xb8
smlad r0, r0, r2, r4
smlad r1, r6, r1, r0
bne.n <stowplan::kernels::conv::conv2d_s8+0x698>
