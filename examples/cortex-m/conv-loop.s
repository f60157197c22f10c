str r0, [sp, #96] @ 0x60
ldr r0, [r2, #0]
sxtb16 fp, r0
sxtb16 r8, r0, ror #8
ldr.w r0, [lr]
sxtab16 r9, sl, r0
sxtab16 ip, sl, r0, ror #8
smlad r0, r9, fp, r4
smlad r0, ip, r8, r0
str r0, [sp, #92] @ 0x5c
ldr.w r4, [lr, #256] @ 0x100
sxtab16 r0, sl, r4
ldr r3, [sp, #100] @ 0x64
smlad r3, r0, fp, r3
sxtab16 r4, sl, r4, ror #8
smlad r8, r4, r8, r3
ldr.w r5, [r2, #256] @ 0x100
mov fp, r2
sxtb16 r3, r5
smlad r2, r9, r3, r6
smlad r0, r0, r3, r1
sxtb16 r3, r5, ror #8
smlad ip, ip, r3, r2
smlad r1, r4, r3, r0
ldr.w r0, [fp, #4]
sxtb16 r3, r0
sxtb16 r5, r0, ror #8
ldr.w r0, [lr, #4]
sxtab16 r2, sl, r0
sxtab16 r0, sl, r0, ror #8
ldr r4, [sp, #92] @ 0x5c
smlad r4, r2, r3, r4
smlad r9, r0, r5, r4
ldr.w r4, [lr, #260] @ 0x104
sxtab16 r6, sl, r4
smlad r3, r6, r3, r8
sxtab16 r4, sl, r4, ror #8
smlad r8, r4, r5, r3
ldr.w r5, [fp, #260] @ 0x104
sxtb16 r3, r5
smlad r2, r2, r3, ip
smlad r3, r6, r3, r1
sxtb16 r6, r5, ror #8
smlad ip, r0, r6, r2
smlad r4, r4, r6, r3
ldr.w r0, [fp, #8]
sxtb16 r3, r0
sxtb16 r6, r0, ror #8
ldr.w r0, [lr, #8]
sxtab16 r5, sl, r0
sxtab16 r0, sl, r0, ror #8
smlad r2, r5, r3, r9
smlad r1, r0, r6, r2
str r1, [sp, #100] @ 0x64
ldr.w r2, [lr, #264] @ 0x108
sxtab16 r1, sl, r2
smlad r3, r1, r3, r8
sxtab16 r2, sl, r2, ror #8
smlad r8, r2, r6, r3
ldr.w r6, [fp, #264] @ 0x108
sxtb16 r3, r6
smlad r5, r5, r3, ip
smlad r3, r1, r3, r4
sxtb16 r4, r6, ror #8
smlad r9, r0, r4, r5
smlad r4, r2, r4, r3
ldr.w r0, [fp, #12]
sxtb16 r2, r0
sxtb16 r3, r0, ror #8
ldr.w r0, [lr, #12]
sxtab16 r5, sl, r0
sxtab16 r6, sl, r0, ror #8
ldr r0, [sp, #100] @ 0x64
smlad r0, r5, r2, r0
smlad ip, r6, r3, r0
ldr.w r0, [lr, #268] @ 0x10c
sxtab16 r1, sl, r0
smlad r2, r1, r2, r8
sxtab16 r0, sl, r0, ror #8
smlad r8, r0, r3, r2
ldr.w r2, [fp, #268] @ 0x10c
sxtb16 r3, r2
smlad r5, r5, r3, r9
smlad r1, r1, r3, r4
sxtb16 r3, r2, ror #8
smlad r9, r6, r3, r5
smlad r4, r0, r3, r1
ldr.w r0, [fp, #16]
sxtb16 r1, r0
sxtb16 r3, r0, ror #8
ldr.w r0, [lr, #16]
sxtab16 r5, sl, r0
sxtab16 r6, sl, r0, ror #8
smlad r0, r5, r1, ip
smlad ip, r6, r3, r0
ldr.w r0, [lr, #272] @ 0x110
sxtab16 r2, sl, r0
smlad r1, r2, r1, r8
sxtab16 r0, sl, r0, ror #8
smlad r8, r0, r3, r1
ldr.w r1, [fp, #272] @ 0x110
sxtb16 r3, r1
smlad r5, r5, r3, r9
smlad r3, r2, r3, r4
sxtb16 r1, r1, ror #8
smlad r9, r6, r1, r5
smlad r4, r0, r1, r3
ldr.w r0, [fp, #20]
sxtb16 r1, r0
sxtb16 r3, r0, ror #8
ldr.w r0, [lr, #20]
sxtab16 r5, sl, r0
sxtab16 r6, sl, r0, ror #8
smlad r0, r5, r1, ip
smlad ip, r6, r3, r0
ldr.w r0, [lr, #276] @ 0x114
sxtab16 r2, sl, r0
smlad r1, r2, r1, r8
sxtab16 r0, sl, r0, ror #8
smlad r8, r0, r3, r1
ldr.w r1, [fp, #276] @ 0x114
sxtb16 r3, r1
smlad r5, r5, r3, r9
smlad r3, r2, r3, r4
sxtb16 r1, r1, ror #8
smlad r9, r6, r1, r5
smlad r4, r0, r1, r3
ldr.w r0, [fp, #24]
sxtb16 r1, r0
sxtb16 r3, r0, ror #8
ldr.w r0, [lr, #24]
sxtab16 r5, sl, r0
sxtab16 r6, sl, r0, ror #8
smlad r0, r5, r1, ip
smlad ip, r6, r3, r0
ldr.w r0, [lr, #280] @ 0x118
sxtab16 r2, sl, r0
smlad r1, r2, r1, r8
sxtab16 r0, sl, r0, ror #8
smlad r8, r0, r3, r1
ldr.w r1, [fp, #280] @ 0x118
sxtb16 r3, r1
smlad r5, r5, r3, r9
smlad r3, r2, r3, r4
sxtb16 r1, r1, ror #8
smlad r9, r6, r1, r5
smlad r4, r0, r1, r3
ldr.w r0, [fp, #28]
sxtb16 r1, r0
sxtb16 r3, r0, ror #8
ldr.w r0, [lr, #28]
sxtab16 r5, sl, r0
sxtab16 r6, sl, r0, ror #8
smlad r0, r5, r1, ip
smlad ip, r6, r3, r0
ldr.w r0, [lr, #284] @ 0x11c
sxtab16 r2, sl, r0
smlad r1, r2, r1, r8
sxtab16 r0, sl, r0, ror #8
smlad r8, r0, r3, r1
ldr.w r1, [fp, #284] @ 0x11c
sxtb16 r3, r1
smlad r5, r5, r3, r9
smlad r3, r2, r3, r4
sxtb16 r1, r1, ror #8
smlad r9, r6, r1, r5
smlad r4, r0, r1, r3
ldr.w r0, [fp, #32]
sxtb16 r1, r0
sxtb16 r3, r0, ror #8
ldr.w r0, [lr, #32]
sxtab16 r5, sl, r0
sxtab16 r6, sl, r0, ror #8
smlad r0, r5, r1, ip
smlad ip, r6, r3, r0
ldr.w r0, [lr, #288] @ 0x120
sxtab16 r2, sl, r0
smlad r1, r2, r1, r8
sxtab16 r0, sl, r0, ror #8
smlad r8, r0, r3, r1
ldr.w r1, [fp, #288] @ 0x120
sxtb16 r3, r1
smlad r5, r5, r3, r9
smlad r3, r2, r3, r4
sxtb16 r1, r1, ror #8
smlad r9, r6, r1, r5
smlad r4, r0, r1, r3
ldr.w r0, [fp, #36] @ 0x24
sxtb16 r1, r0
sxtb16 r3, r0, ror #8
ldr.w r0, [lr, #36] @ 0x24
sxtab16 r5, sl, r0
sxtab16 r6, sl, r0, ror #8
smlad r0, r5, r1, ip
smlad ip, r6, r3, r0
ldr.w r0, [lr, #292] @ 0x124
sxtab16 r2, sl, r0
smlad r1, r2, r1, r8
sxtab16 r0, sl, r0, ror #8
smlad r8, r0, r3, r1
ldr.w r1, [fp, #292] @ 0x124
sxtb16 r3, r1
smlad r5, r5, r3, r9
smlad r3, r2, r3, r4
sxtb16 r1, r1, ror #8
smlad r9, r6, r1, r5
smlad r4, r0, r1, r3
ldr.w r0, [fp, #40] @ 0x28
sxtb16 r1, r0
sxtb16 r3, r0, ror #8
ldr.w r0, [lr, #40] @ 0x28
sxtab16 r5, sl, r0
sxtab16 r6, sl, r0, ror #8
smlad r0, r5, r1, ip
smlad ip, r6, r3, r0
ldr.w r0, [lr, #296] @ 0x128
sxtab16 r2, sl, r0
smlad r1, r2, r1, r8
sxtab16 r0, sl, r0, ror #8
smlad r8, r0, r3, r1
ldr.w r1, [fp, #296] @ 0x128
sxtb16 r3, r1
smlad r5, r5, r3, r9
smlad r3, r2, r3, r4
sxtb16 r1, r1, ror #8
smlad r9, r6, r1, r5
smlad r4, r0, r1, r3
ldr.w r0, [fp, #44] @ 0x2c
sxtb16 r1, r0
sxtb16 r3, r0, ror #8
ldr.w r0, [lr, #44] @ 0x2c
sxtab16 r5, sl, r0
sxtab16 r6, sl, r0, ror #8
smlad r0, r5, r1, ip
smlad ip, r6, r3, r0
ldr.w r0, [lr, #300] @ 0x12c
sxtab16 r2, sl, r0
smlad r1, r2, r1, r8
sxtab16 r0, sl, r0, ror #8
smlad r8, r0, r3, r1
ldr.w r1, [fp, #300] @ 0x12c
sxtb16 r3, r1
smlad r5, r5, r3, r9
smlad r3, r2, r3, r4
sxtb16 r1, r1, ror #8
smlad r9, r6, r1, r5
smlad r4, r0, r1, r3
ldr.w r0, [fp, #48] @ 0x30
sxtb16 r1, r0
sxtb16 r3, r0, ror #8
ldr.w r0, [lr, #48] @ 0x30
sxtab16 r5, sl, r0
sxtab16 r6, sl, r0, ror #8
smlad r0, r5, r1, ip
smlad ip, r6, r3, r0
ldr.w r0, [lr, #304] @ 0x130
sxtab16 r2, sl, r0
smlad r1, r2, r1, r8
sxtab16 r0, sl, r0, ror #8
smlad r8, r0, r3, r1
ldr.w r1, [fp, #304] @ 0x130
sxtb16 r3, r1
smlad r5, r5, r3, r9
smlad r3, r2, r3, r4
sxtb16 r1, r1, ror #8
smlad r9, r6, r1, r5
smlad r4, r0, r1, r3
ldr.w r0, [fp, #52] @ 0x34
sxtb16 r1, r0
sxtb16 r3, r0, ror #8
ldr.w r0, [lr, #52] @ 0x34
sxtab16 r5, sl, r0
sxtab16 r6, sl, r0, ror #8
smlad r0, r5, r1, ip
smlad ip, r6, r3, r0
ldr.w r0, [lr, #308] @ 0x134
sxtab16 r2, sl, r0
smlad r1, r2, r1, r8
sxtab16 r0, sl, r0, ror #8
smlad r8, r0, r3, r1
ldr.w r1, [fp, #308] @ 0x134
sxtb16 r3, r1
smlad r5, r5, r3, r9
smlad r3, r2, r3, r4
sxtb16 r1, r1, ror #8
smlad r9, r6, r1, r5
smlad r4, r0, r1, r3
ldr.w r0, [fp, #56] @ 0x38
sxtb16 r1, r0
sxtb16 r3, r0, ror #8
ldr.w r0, [lr, #56] @ 0x38
sxtab16 r5, sl, r0
sxtab16 r6, sl, r0, ror #8
smlad r0, r5, r1, ip
smlad r0, r6, r3, r0
str r0, [sp, #100] @ 0x64
ldr.w r0, [lr, #312] @ 0x138
sxtab16 r2, sl, r0
smlad r1, r2, r1, r8
sxtab16 r0, sl, r0, ror #8
smlad r8, r0, r3, r1
ldr.w r1, [fp, #312] @ 0x138
sxtb16 r3, r1
smlad r5, r5, r3, r9
smlad r3, r2, r3, r4
sxtb16 r1, r1, ror #8
smlad r9, r6, r1, r5
smlad ip, r0, r1, r3
ldr.w r0, [fp, #60] @ 0x3c
sxtb16 r1, r0
sxtb16 r0, r0, ror #8
ldr.w r3, [lr, #60] @ 0x3c
sxtab16 r6, sl, r3
sxtab16 r3, sl, r3, ror #8
ldr r2, [sp, #100] @ 0x64
smlad r4, r6, r1, r2
smlad r4, r3, r0, r4
ldr.w r2, [lr, #316] @ 0x13c
sxtab16 r5, sl, r2
smlad r1, r5, r1, r8
add.w lr, lr, #64 @ 0x40
sxtab16 r2, sl, r2, ror #8
smlad r0, r2, r0, r1
str r0, [sp, #100] @ 0x64
ldr.w r0, [fp, #316] @ 0x13c
sxtb16 r1, r0
smlad r6, r6, r1, r9
smlad r1, r5, r1, ip
sxtb16 r0, r0, ror #8
smlad r6, r3, r0, r6
smlad r1, r2, r0, r1
ldr r3, [sp, #96] @ 0x60
add.w r2, fp, #64 @ 0x40
subs r0, r3, #1
cmp r3, #5
bhi.w <stowplan::kernels::conv::dsp::pointwise::<impl stowplan::kernels::shared::blocked::Epilogue>::conv1x1_words+0x13c>
