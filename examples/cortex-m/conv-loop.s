str r0, [sp, #108] @ 0x6c
ldr r0, [sp, #108] @ 0x6c
ldr r2, [sp, #104] @ 0x68
str r6, [sp, #92] @ 0x5c
add.w r0, r3, r0, lsl #3
ldrd lr, r9, [r6, #-4]
ldrb.w r2, [r2, #-127]
ldrb r1, [r0, #1]
ldrb.w ip, [r0, #2]
ldrb r4, [r0, #3]
orr.w r1, r2, r1, lsl #8
orr.w r1, r1, ip, lsl #16
mov ip, r5
orr.w r1, r1, r4, lsl #24
sxtb16 r4, r1
sxtb16 r3, r1, ror #8
ldr r6, [sp, #84] @ 0x54
ldr r1, [r6, #0]
sxtab16 r2, r5, r1
sxtab16 sl, r5, r1, ror #8
smlad r1, r2, r4, lr
smlad r8, sl, r3, r1
ldr r1, [r6, #64] @ 0x40
sxtab16 fp, r5, r1
smlad r4, fp, r4, lr
sxtab16 r1, r5, r1, ror #8
smlad lr, r1, r3, r4
ldr r3, [r0, #64] @ 0x40
sxtb16 r5, r3
smlad r2, r2, r5, r9
smlad r5, fp, r5, r9
sxtb16 r3, r3, ror #8
smlad sl, sl, r3, r2
smlad r9, r1, r3, r5
ldr r3, [r0, #4]
sxtb16 r5, r3
sxtb16 r3, r3, ror #8
ldr r1, [r6, #4]
sxtab16 r2, ip, r1
sxtab16 fp, ip, r1, ror #8
smlad r4, r2, r5, r8
smlad r8, fp, r3, r4
ldr r4, [r6, #68] @ 0x44
sxtab16 r1, ip, r4
smlad r5, r1, r5, lr
sxtab16 r4, ip, r4, ror #8
smlad lr, r4, r3, r5
ldr r5, [r0, #68] @ 0x44
sxtb16 r3, r5
smlad r2, r2, r3, sl
smlad r3, r1, r3, r9
sxtb16 r5, r5, ror #8
smlad r9, fp, r5, r2
smlad sl, r4, r5, r3
ldr r2, [r0, #8]
sxtb16 r3, r2
sxtb16 r5, r2, ror #8
ldr r2, [r6, #8]
sxtab16 r1, ip, r2
sxtab16 fp, ip, r2, ror #8
smlad r4, r1, r3, r8
smlad r8, fp, r5, r4
ldr r4, [r6, #72] @ 0x48
sxtab16 r2, ip, r4
smlad r3, r2, r3, lr
sxtab16 r4, ip, r4, ror #8
smlad lr, r4, r5, r3
ldr r5, [r0, #72] @ 0x48
sxtb16 r3, r5
smlad r1, r1, r3, r9
smlad r2, r2, r3, sl
sxtb16 r3, r5, ror #8
smlad r9, fp, r3, r1
smlad sl, r4, r3, r2
ldr r2, [r0, #12]
sxtb16 r3, r2
sxtb16 r5, r2, ror #8
ldr r2, [r6, #12]
sxtab16 r1, ip, r2
sxtab16 fp, ip, r2, ror #8
smlad r4, r1, r3, r8
smlad r8, fp, r5, r4
ldr r4, [r6, #76] @ 0x4c
sxtab16 r2, ip, r4
smlad r3, r2, r3, lr
sxtab16 r4, ip, r4, ror #8
smlad lr, r4, r5, r3
ldr r5, [r0, #76] @ 0x4c
sxtb16 r3, r5
smlad r1, r1, r3, r9
smlad r2, r2, r3, sl
sxtb16 r3, r5, ror #8
smlad r9, fp, r3, r1
smlad sl, r4, r3, r2
ldr r2, [r0, #16]
sxtb16 r3, r2
sxtb16 r5, r2, ror #8
ldr r2, [r6, #16]
sxtab16 r1, ip, r2
sxtab16 fp, ip, r2, ror #8
smlad r4, r1, r3, r8
smlad r8, fp, r5, r4
ldr r4, [r6, #80] @ 0x50
sxtab16 r2, ip, r4
smlad r3, r2, r3, lr
sxtab16 r4, ip, r4, ror #8
smlad lr, r4, r5, r3
ldr r5, [r0, #80] @ 0x50
sxtb16 r3, r5
smlad r1, r1, r3, r9
smlad r2, r2, r3, sl
sxtb16 r3, r5, ror #8
smlad r9, fp, r3, r1
smlad sl, r4, r3, r2
ldr r2, [r0, #20]
sxtb16 r3, r2
sxtb16 r5, r2, ror #8
ldr r2, [r6, #20]
sxtab16 r1, ip, r2
sxtab16 fp, ip, r2, ror #8
smlad r4, r1, r3, r8
smlad r8, fp, r5, r4
ldr r4, [r6, #84] @ 0x54
sxtab16 r2, ip, r4
smlad r3, r2, r3, lr
sxtab16 r4, ip, r4, ror #8
smlad lr, r4, r5, r3
ldr r5, [r0, #84] @ 0x54
sxtb16 r3, r5
smlad r1, r1, r3, r9
smlad r2, r2, r3, sl
sxtb16 r3, r5, ror #8
smlad r9, fp, r3, r1
smlad sl, r4, r3, r2
ldr r2, [r0, #24]
sxtb16 r3, r2
sxtb16 r5, r2, ror #8
ldr r2, [r6, #24]
sxtab16 r1, ip, r2
sxtab16 fp, ip, r2, ror #8
smlad r4, r1, r3, r8
smlad r8, fp, r5, r4
ldr r4, [r6, #88] @ 0x58
sxtab16 r2, ip, r4
smlad r3, r2, r3, lr
sxtab16 r4, ip, r4, ror #8
smlad lr, r4, r5, r3
ldr r5, [r0, #88] @ 0x58
sxtb16 r3, r5
smlad r1, r1, r3, r9
smlad r2, r2, r3, sl
sxtb16 r3, r5, ror #8
smlad r9, fp, r3, r1
smlad sl, r4, r3, r2
ldr r2, [r0, #28]
sxtb16 r3, r2
sxtb16 r5, r2, ror #8
ldr r2, [r6, #28]
sxtab16 r1, ip, r2
sxtab16 fp, ip, r2, ror #8
smlad r4, r1, r3, r8
smlad r8, fp, r5, r4
ldr r4, [r6, #92] @ 0x5c
sxtab16 r2, ip, r4
smlad r3, r2, r3, lr
sxtab16 r4, ip, r4, ror #8
smlad lr, r4, r5, r3
ldr r5, [r0, #92] @ 0x5c
sxtb16 r3, r5
smlad r1, r1, r3, r9
smlad r2, r2, r3, sl
sxtb16 r3, r5, ror #8
smlad r9, fp, r3, r1
smlad sl, r4, r3, r2
ldr r2, [r0, #32]
sxtb16 r3, r2
sxtb16 r5, r2, ror #8
ldr r2, [r6, #32]
sxtab16 r1, ip, r2
sxtab16 fp, ip, r2, ror #8
smlad r4, r1, r3, r8
smlad r8, fp, r5, r4
ldr r4, [r6, #96] @ 0x60
sxtab16 r2, ip, r4
smlad r3, r2, r3, lr
sxtab16 r4, ip, r4, ror #8
smlad lr, r4, r5, r3
ldr r5, [r0, #96] @ 0x60
sxtb16 r3, r5
smlad r1, r1, r3, r9
smlad r2, r2, r3, sl
sxtb16 r3, r5, ror #8
smlad r9, fp, r3, r1
smlad sl, r4, r3, r2
ldr r2, [r0, #36] @ 0x24
sxtb16 r3, r2
sxtb16 r5, r2, ror #8
ldr r2, [r6, #36] @ 0x24
sxtab16 r1, ip, r2
sxtab16 fp, ip, r2, ror #8
smlad r4, r1, r3, r8
smlad r8, fp, r5, r4
ldr r4, [r6, #100] @ 0x64
sxtab16 r2, ip, r4
smlad r3, r2, r3, lr
sxtab16 r4, ip, r4, ror #8
smlad lr, r4, r5, r3
ldr r5, [r0, #100] @ 0x64
sxtb16 r3, r5
smlad r1, r1, r3, r9
smlad r2, r2, r3, sl
sxtb16 r3, r5, ror #8
smlad r9, fp, r3, r1
smlad sl, r4, r3, r2
ldr r2, [r0, #40] @ 0x28
sxtb16 r3, r2
sxtb16 r5, r2, ror #8
ldr r2, [r6, #40] @ 0x28
sxtab16 r1, ip, r2
sxtab16 fp, ip, r2, ror #8
smlad r4, r1, r3, r8
smlad r8, fp, r5, r4
ldr r4, [r6, #104] @ 0x68
sxtab16 r2, ip, r4
smlad r3, r2, r3, lr
sxtab16 r4, ip, r4, ror #8
smlad lr, r4, r5, r3
ldr r5, [r0, #104] @ 0x68
sxtb16 r3, r5
smlad r1, r1, r3, r9
smlad r2, r2, r3, sl
sxtb16 r3, r5, ror #8
smlad r9, fp, r3, r1
smlad sl, r4, r3, r2
ldr r2, [r0, #44] @ 0x2c
sxtb16 r3, r2
sxtb16 r5, r2, ror #8
ldr r2, [r6, #44] @ 0x2c
sxtab16 r1, ip, r2
sxtab16 fp, ip, r2, ror #8
smlad r4, r1, r3, r8
smlad r8, fp, r5, r4
ldr r4, [r6, #108] @ 0x6c
sxtab16 r2, ip, r4
smlad r3, r2, r3, lr
sxtab16 r4, ip, r4, ror #8
smlad lr, r4, r5, r3
ldr r5, [r0, #108] @ 0x6c
sxtb16 r3, r5
smlad r1, r1, r3, r9
smlad r2, r2, r3, sl
sxtb16 r3, r5, ror #8
smlad r9, fp, r3, r1
smlad sl, r4, r3, r2
ldr r2, [r0, #48] @ 0x30
sxtb16 r3, r2
sxtb16 r5, r2, ror #8
ldr r2, [r6, #48] @ 0x30
sxtab16 r1, ip, r2
sxtab16 fp, ip, r2, ror #8
smlad r4, r1, r3, r8
smlad r8, fp, r5, r4
ldr r4, [r6, #112] @ 0x70
sxtab16 r2, ip, r4
smlad r3, r2, r3, lr
sxtab16 r4, ip, r4, ror #8
smlad lr, r4, r5, r3
ldr r5, [r0, #112] @ 0x70
sxtb16 r3, r5
smlad r1, r1, r3, r9
smlad r2, r2, r3, sl
sxtb16 r3, r5, ror #8
smlad r9, fp, r3, r1
smlad sl, r4, r3, r2
ldr r2, [r0, #52] @ 0x34
sxtb16 r3, r2
sxtb16 r5, r2, ror #8
ldr r2, [r6, #52] @ 0x34
sxtab16 r1, ip, r2
sxtab16 fp, ip, r2, ror #8
smlad r4, r1, r3, r8
smlad r8, fp, r5, r4
ldr r4, [r6, #116] @ 0x74
sxtab16 r2, ip, r4
smlad r3, r2, r3, lr
sxtab16 r4, ip, r4, ror #8
smlad lr, r4, r5, r3
ldr r5, [r0, #116] @ 0x74
sxtb16 r3, r5
smlad r1, r1, r3, r9
smlad r2, r2, r3, sl
sxtb16 r3, r5, ror #8
smlad r9, fp, r3, r1
smlad fp, r4, r3, r2
ldr r2, [r0, #56] @ 0x38
sxtb16 r3, r2
sxtb16 r5, r2, ror #8
ldr r2, [r6, #56] @ 0x38
sxtab16 r1, ip, r2
sxtab16 r2, ip, r2, ror #8
smlad r4, r1, r3, r8
smlad sl, r2, r5, r4
ldr r4, [r6, #120] @ 0x78
sxtab16 r8, ip, r4
smlad r3, r8, r3, lr
sxtab16 r4, ip, r4, ror #8
smlad lr, r4, r5, r3
ldr r5, [r0, #120] @ 0x78
sxtb16 r3, r5
smlad r1, r1, r3, r9
smlad r3, r8, r3, fp
sxtb16 r5, r5, ror #8
smlad r9, r2, r5, r1
smlad r8, r4, r5, r3
ldr r1, [r0, #60] @ 0x3c
sxtb16 r2, r1
sxtb16 r3, r1, ror #8
ldr r1, [r6, #60] @ 0x3c
sxtab16 r5, ip, r1
sxtab16 fp, ip, r1, ror #8
smlad r4, r5, r2, sl
smlad sl, fp, r3, r4
ldr r4, [r6, #124] @ 0x7c
sxtab16 r1, ip, r4
smlad r2, r1, r2, lr
sxtab16 lr, ip, r4, ror #8
smlad r4, lr, r3, r2
ldrb.w r2, [r0, #126] @ 0x7e
ldr r3, [sp, #104] @ 0x68
ldrh.w r0, [r0, #124] @ 0x7c
orr.w r0, r0, r2, lsl #16
ldrb.w r2, [r3], #128
str r3, [sp, #104] @ 0x68
mov r3, r4
orr.w r0, r0, r2, lsl #24
sxtb16 r2, r0
smlad r5, r5, r2, r9
smlad r1, r1, r2, r8
sxtb16 r0, r0, ror #8
smlad r2, fp, r0, r5
ldr.w r9, [sp, #76] @ 0x4c
smlad r0, lr, r0, r1
ldr r5, [sp, #88] @ 0x58
ldr r1, [sp, #108] @ 0x6c
ldr.w fp, [sp, #96] @ 0x60
ldr.w lr, [r5, r1]
mov.w r1, #1073741824 @ 0x40000000
bfi r3, r1, #0, #31
asrs r1, r4, #31
smlal r3, r1, lr, r4
ldr r3, [sp, #108] @ 0x6c
add r3, r5
mov.w r5, sl, asr #31
ldrd r4, r6, [r3, #4]
ldr r3, [r3, #12]
rsb r4, r4, #30
and.w r8, r4, #31
ldr r4, [sp, #100] @ 0x64
asr.w r1, r1, r8
adds r1, #1
add.w r1, r4, r1, asr #1
mov.w r4, #1073741824 @ 0x40000000
ssat r1, #8, r1
strb.w r1, [fp, r9]
mov r1, r2
bfi r1, r4, #0, #31
asrs r4, r2, #31
smlal r1, r4, r6, r2
rsb r1, r3, #30
and.w r1, r1, #31
ldr r3, [sp, #100] @ 0x64
asr.w r2, r4, r1
mov.w r4, #1073741824 @ 0x40000000
adds r2, #1
add.w r2, r3, r2, asr #1
mov.w r3, #1073741824 @ 0x40000000
ssat r2, #8, r2
strb.w r2, [fp, #1]
mov r2, sl
bfi r2, r3, #0, #31
ldr r3, [sp, #80] @ 0x50
smlal r2, r5, lr, sl
ldr.w lr, [sp, #100] @ 0x64
mov r2, r0
bfi r2, r4, #0, #31
asrs r4, r0, #31
smlal r2, r4, r6, r0
ldr r6, [sp, #92] @ 0x5c
adds r6, #8
asr.w r0, r4, r1
add.w r1, fp, r9
adds r0, #1
add.w r0, lr, r0, asr #1
ssat r0, #8, r0
strb r0, [r1, #1]
asr.w r0, r5, r8
adds r0, #1
ldr r1, [sp, #72] @ 0x48
mov r5, ip
add.w r0, lr, r0, asr #1
ssat r0, #8, r0
strb.w r0, [fp]
add.w fp, fp, #2
ldr r0, [sp, #108] @ 0x6c
str.w fp, [sp, #96] @ 0x60
adds r0, #16
cmp r1, r0
bne.w <stowplan::kernels::conv::dsp::pointwise::<impl stowplan::kernels::shared::blocked::Epilogue>::conv1x1_words+0x13e>
