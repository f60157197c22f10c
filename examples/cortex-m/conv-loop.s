str r0, [sp, #96] @ 0x60
ldr r0, [r2, #0]
sxtb16 fp, r0
sxtb16 r9, r0, ror #8
ldr.w r0, [lr]
sxtab16 sl, r8, r0
sxtab16 ip, r8, r0, ror #8
smlad r0, sl, fp, r4
smlad r0, ip, r9, r0
str r0, [sp, #92] @ 0x5c
ldr.w r4, [lr, #128] @ 0x80
sxtab16 r0, r8, r4
ldr r3, [sp, #100] @ 0x64
smlad r3, r0, fp, r3
sxtab16 r4, r8, r4, ror #8
smlad r9, r4, r9, r3
ldr.w r5, [r2, #128] @ 0x80
mov fp, r2
sxtb16 r3, r5
smlad r2, sl, r3, r6
smlad r0, r0, r3, r1
sxtb16 r3, r5, ror #8
smlad ip, ip, r3, r2
smlad sl, r4, r3, r0
ldr.w r0, [fp, #4]
sxtb16 r3, r0
sxtb16 r5, r0, ror #8
ldr.w r0, [lr, #4]
sxtab16 r2, r8, r0
sxtab16 r0, r8, r0, ror #8
ldr r1, [sp, #92] @ 0x5c
smlad r4, r2, r3, r1
smlad r1, r0, r5, r4
ldr.w r4, [lr, #132] @ 0x84
sxtab16 r6, r8, r4
smlad r3, r6, r3, r9
sxtab16 r4, r8, r4, ror #8
smlad r9, r4, r5, r3
ldr.w r5, [fp, #132] @ 0x84
sxtb16 r3, r5
smlad r2, r2, r3, ip
smlad r3, r6, r3, sl
sxtb16 r6, r5, ror #8
smlad sl, r0, r6, r2
smlad r4, r4, r6, r3
ldr.w r0, [fp, #8]
sxtb16 r3, r0
sxtb16 r6, r0, ror #8
ldr.w r0, [lr, #8]
sxtab16 r5, r8, r0
sxtab16 r0, r8, r0, ror #8
smlad r2, r5, r3, r1
smlad ip, r0, r6, r2
ldr.w r2, [lr, #136] @ 0x88
sxtab16 r1, r8, r2
smlad r3, r1, r3, r9
sxtab16 r2, r8, r2, ror #8
smlad r9, r2, r6, r3
ldr.w r6, [fp, #136] @ 0x88
sxtb16 r3, r6
smlad r5, r5, r3, sl
smlad r3, r1, r3, r4
sxtb16 r4, r6, ror #8
smlad sl, r0, r4, r5
smlad r4, r2, r4, r3
ldr.w r0, [fp, #12]
sxtb16 r2, r0
sxtb16 r3, r0, ror #8
ldr.w r0, [lr, #12]
sxtab16 r5, r8, r0
sxtab16 r6, r8, r0, ror #8
smlad r0, r5, r2, ip
smlad ip, r6, r3, r0
ldr.w r0, [lr, #140] @ 0x8c
sxtab16 r1, r8, r0
smlad r2, r1, r2, r9
sxtab16 r0, r8, r0, ror #8
smlad r9, r0, r3, r2
ldr.w r2, [fp, #140] @ 0x8c
sxtb16 r3, r2
smlad r5, r5, r3, sl
smlad r1, r1, r3, r4
sxtb16 r3, r2, ror #8
smlad sl, r6, r3, r5
smlad r4, r0, r3, r1
ldr.w r0, [fp, #16]
sxtb16 r1, r0
sxtb16 r3, r0, ror #8
ldr.w r0, [lr, #16]
sxtab16 r5, r8, r0
sxtab16 r6, r8, r0, ror #8
smlad r0, r5, r1, ip
smlad ip, r6, r3, r0
ldr.w r0, [lr, #144] @ 0x90
sxtab16 r2, r8, r0
smlad r1, r2, r1, r9
sxtab16 r0, r8, r0, ror #8
smlad r9, r0, r3, r1
ldr.w r1, [fp, #144] @ 0x90
sxtb16 r3, r1
smlad r5, r5, r3, sl
smlad r3, r2, r3, r4
sxtb16 r1, r1, ror #8
smlad sl, r6, r1, r5
smlad r4, r0, r1, r3
ldr.w r0, [fp, #20]
sxtb16 r1, r0
sxtb16 r3, r0, ror #8
ldr.w r0, [lr, #20]
sxtab16 r5, r8, r0
sxtab16 r6, r8, r0, ror #8
smlad r0, r5, r1, ip
smlad ip, r6, r3, r0
ldr.w r0, [lr, #148] @ 0x94
sxtab16 r2, r8, r0
smlad r1, r2, r1, r9
sxtab16 r0, r8, r0, ror #8
smlad r9, r0, r3, r1
ldr.w r1, [fp, #148] @ 0x94
sxtb16 r3, r1
smlad r5, r5, r3, sl
smlad r3, r2, r3, r4
sxtb16 r1, r1, ror #8
smlad sl, r6, r1, r5
smlad r4, r0, r1, r3
ldr.w r0, [fp, #24]
sxtb16 r1, r0
sxtb16 r3, r0, ror #8
ldr.w r0, [lr, #24]
sxtab16 r5, r8, r0
sxtab16 r6, r8, r0, ror #8
smlad r0, r5, r1, ip
smlad ip, r6, r3, r0
ldr.w r0, [lr, #152] @ 0x98
sxtab16 r2, r8, r0
smlad r1, r2, r1, r9
sxtab16 r0, r8, r0, ror #8
smlad r9, r0, r3, r1
ldr.w r1, [fp, #152] @ 0x98
sxtb16 r3, r1
smlad r5, r5, r3, sl
smlad r3, r2, r3, r4
sxtb16 r1, r1, ror #8
smlad sl, r6, r1, r5
smlad r4, r0, r1, r3
ldr.w r0, [fp, #28]
sxtb16 r1, r0
sxtb16 r3, r0, ror #8
ldr.w r0, [lr, #28]
sxtab16 r5, r8, r0
sxtab16 r6, r8, r0, ror #8
smlad r0, r5, r1, ip
smlad ip, r6, r3, r0
ldr.w r0, [lr, #156] @ 0x9c
sxtab16 r2, r8, r0
smlad r1, r2, r1, r9
sxtab16 r0, r8, r0, ror #8
smlad r9, r0, r3, r1
ldr.w r1, [fp, #156] @ 0x9c
sxtb16 r3, r1
smlad r5, r5, r3, sl
smlad r3, r2, r3, r4
sxtb16 r1, r1, ror #8
smlad sl, r6, r1, r5
smlad r4, r0, r1, r3
ldr.w r0, [fp, #32]
sxtb16 r1, r0
sxtb16 r3, r0, ror #8
ldr.w r0, [lr, #32]
sxtab16 r5, r8, r0
sxtab16 r6, r8, r0, ror #8
smlad r0, r5, r1, ip
smlad ip, r6, r3, r0
ldr.w r0, [lr, #160] @ 0xa0
sxtab16 r2, r8, r0
smlad r1, r2, r1, r9
sxtab16 r0, r8, r0, ror #8
smlad r9, r0, r3, r1
ldr.w r1, [fp, #160] @ 0xa0
sxtb16 r3, r1
smlad r5, r5, r3, sl
smlad r3, r2, r3, r4
sxtb16 r1, r1, ror #8
smlad sl, r6, r1, r5
smlad r4, r0, r1, r3
ldr.w r0, [fp, #36] @ 0x24
sxtb16 r1, r0
sxtb16 r3, r0, ror #8
ldr.w r0, [lr, #36] @ 0x24
sxtab16 r5, r8, r0
sxtab16 r6, r8, r0, ror #8
smlad r0, r5, r1, ip
smlad ip, r6, r3, r0
ldr.w r0, [lr, #164] @ 0xa4
sxtab16 r2, r8, r0
smlad r1, r2, r1, r9
sxtab16 r0, r8, r0, ror #8
smlad r9, r0, r3, r1
ldr.w r1, [fp, #164] @ 0xa4
sxtb16 r3, r1
smlad r5, r5, r3, sl
smlad r3, r2, r3, r4
sxtb16 r1, r1, ror #8
smlad sl, r6, r1, r5
smlad r4, r0, r1, r3
ldr.w r0, [fp, #40] @ 0x28
sxtb16 r1, r0
sxtb16 r3, r0, ror #8
ldr.w r0, [lr, #40] @ 0x28
sxtab16 r5, r8, r0
sxtab16 r6, r8, r0, ror #8
smlad r0, r5, r1, ip
smlad ip, r6, r3, r0
ldr.w r0, [lr, #168] @ 0xa8
sxtab16 r2, r8, r0
smlad r1, r2, r1, r9
sxtab16 r0, r8, r0, ror #8
smlad r9, r0, r3, r1
ldr.w r1, [fp, #168] @ 0xa8
sxtb16 r3, r1
smlad r5, r5, r3, sl
smlad r3, r2, r3, r4
sxtb16 r1, r1, ror #8
smlad sl, r6, r1, r5
smlad r4, r0, r1, r3
ldr.w r0, [fp, #44] @ 0x2c
sxtb16 r1, r0
sxtb16 r3, r0, ror #8
ldr.w r0, [lr, #44] @ 0x2c
sxtab16 r5, r8, r0
sxtab16 r6, r8, r0, ror #8
smlad r0, r5, r1, ip
smlad ip, r6, r3, r0
ldr.w r0, [lr, #172] @ 0xac
sxtab16 r2, r8, r0
smlad r1, r2, r1, r9
sxtab16 r0, r8, r0, ror #8
smlad r9, r0, r3, r1
ldr.w r1, [fp, #172] @ 0xac
sxtb16 r3, r1
smlad r5, r5, r3, sl
smlad r3, r2, r3, r4
sxtb16 r1, r1, ror #8
smlad sl, r6, r1, r5
smlad r4, r0, r1, r3
ldr.w r0, [fp, #48] @ 0x30
sxtb16 r1, r0
sxtb16 r3, r0, ror #8
ldr.w r0, [lr, #48] @ 0x30
sxtab16 r5, r8, r0
sxtab16 r6, r8, r0, ror #8
smlad r0, r5, r1, ip
smlad ip, r6, r3, r0
ldr.w r0, [lr, #176] @ 0xb0
sxtab16 r2, r8, r0
smlad r1, r2, r1, r9
sxtab16 r0, r8, r0, ror #8
smlad r9, r0, r3, r1
ldr.w r1, [fp, #176] @ 0xb0
sxtb16 r3, r1
smlad r5, r5, r3, sl
smlad r3, r2, r3, r4
sxtb16 r1, r1, ror #8
smlad sl, r6, r1, r5
smlad r4, r0, r1, r3
ldr.w r0, [fp, #52] @ 0x34
sxtb16 r1, r0
sxtb16 r3, r0, ror #8
ldr.w r0, [lr, #52] @ 0x34
sxtab16 r5, r8, r0
sxtab16 r6, r8, r0, ror #8
smlad r0, r5, r1, ip
smlad ip, r6, r3, r0
ldr.w r0, [lr, #180] @ 0xb4
sxtab16 r2, r8, r0
smlad r1, r2, r1, r9
sxtab16 r0, r8, r0, ror #8
smlad r9, r0, r3, r1
ldr.w r1, [fp, #180] @ 0xb4
sxtb16 r3, r1
smlad r5, r5, r3, sl
smlad r3, r2, r3, r4
sxtb16 r1, r1, ror #8
smlad sl, r6, r1, r5
smlad r4, r0, r1, r3
ldr.w r0, [fp, #56] @ 0x38
sxtb16 r1, r0
sxtb16 r3, r0, ror #8
ldr.w r0, [lr, #56] @ 0x38
sxtab16 r5, r8, r0
sxtab16 r6, r8, r0, ror #8
smlad r0, r5, r1, ip
smlad r0, r6, r3, r0
str r0, [sp, #100] @ 0x64
ldr.w r0, [lr, #184] @ 0xb8
sxtab16 r2, r8, r0
smlad r1, r2, r1, r9
sxtab16 r0, r8, r0, ror #8
smlad r9, r0, r3, r1
ldr.w r1, [fp, #184] @ 0xb8
sxtb16 r3, r1
smlad r5, r5, r3, sl
smlad r3, r2, r3, r4
sxtb16 r1, r1, ror #8
smlad sl, r6, r1, r5
smlad ip, r0, r1, r3
ldr.w r0, [fp, #60] @ 0x3c
sxtb16 r1, r0
sxtb16 r0, r0, ror #8
ldr.w r3, [lr, #60] @ 0x3c
sxtab16 r6, r8, r3
sxtab16 r3, r8, r3, ror #8
ldr r2, [sp, #100] @ 0x64
smlad r4, r6, r1, r2
smlad r4, r3, r0, r4
ldr.w r2, [lr, #188] @ 0xbc
sxtab16 r5, r8, r2
smlad r1, r5, r1, r9
add.w lr, lr, #64 @ 0x40
sxtab16 r2, r8, r2, ror #8
smlad r0, r2, r0, r1
str r0, [sp, #100] @ 0x64
ldr.w r0, [fp, #188] @ 0xbc
sxtb16 r1, r0
smlad r6, r6, r1, sl
smlad r1, r5, r1, ip
sxtb16 r0, r0, ror #8
smlad r6, r3, r0, r6
smlad r1, r2, r0, r1
ldr r3, [sp, #96] @ 0x60
add.w r2, fp, #64 @ 0x40
subs r0, r3, #1
cmp r3, #3
bhi.w <stowplan::kernels::conv::dsp::pointwise::<impl stowplan::kernels::shared::blocked::Epilogue>::conv1x1_words+0x13a>
