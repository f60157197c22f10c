ldr r0, [sp, #176] @ 0xb0
subs.w lr, lr, #1
str r4, [sp, #168] @ 0xa8
ldr r4, [r2, r1]
sxtab16 sl, r0, r4, ror #8
ldr r0, [sp, #148] @ 0x94
ldr.w fp, [r8, r1]
sxtab16 r8, r3, r4
sxtb16 ip, fp
smlad r6, r8, ip, r9
sxtb16 r2, fp, ror #8
smlad r9, sl, r2, r6
ldr r3, [sp, #172] @ 0xac
ldr r6, [r0, r1]
mov fp, r5
ldr r0, [sp, #176] @ 0xb0
sxtab16 r0, r0, r6
smlad r5, r0, ip, r3
ldr r3, [sp, #176] @ 0xb0
sxtab16 r6, r3, r6, ror #8
smlad r2, r6, r2, r5
str r2, [sp, #172] @ 0xac
ldr r2, [sp, #164] @ 0xa4
ldr r4, [sp, #168] @ 0xa8
ldr r2, [r2, r1]
sxtb16 r5, r2
smlad ip, r8, r5, r4
smlad r0, r0, r5, fp
add.w r1, r1, #4
sxtb16 r2, r2, ror #8
ldr.w r8, [sp, #152] @ 0x98
smlad r4, sl, r2, ip
smlad r5, r6, r2, r0
ldr r2, [sp, #156] @ 0x9c
bne.n <stowplan::kernels::conv::conv2d_s8+0x69c>
