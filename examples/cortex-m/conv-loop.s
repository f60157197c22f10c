ldr.w r6, [r1], #16
ldr.w sl, [r1, #-8]
ldr.w r2, [r4], #4
ldr.w r8, [r9], #4
sxtb16 r3, r2
smlad lr, r6, r3, lr
smlad ip, sl, r3, ip
sxtb16 r3, r8
smlad r0, r6, r3, r0
smlad r5, sl, r3, r5
ldr.w r6, [r1, #-12]
ldr.w sl, [r1, #-4]
sxtb16 r3, r2, ror #8
smlad lr, r6, r3, lr
smlad ip, sl, r3, ip
sxtb16 r3, r8, ror #8
smlad r0, r6, r3, r0
smlad r5, sl, r3, r5
ldr.w r6, [r1], #16
ldr.w sl, [r1, #-8]
ldr.w r2, [r4], #4
ldr.w r8, [r9], #4
sxtb16 r3, r2
smlad lr, r6, r3, lr
smlad ip, sl, r3, ip
sxtb16 r3, r8
smlad r0, r6, r3, r0
smlad r5, sl, r3, r5
ldr.w r6, [r1, #-12]
ldr.w sl, [r1, #-4]
sxtb16 r3, r2, ror #8
smlad lr, r6, r3, lr
smlad ip, sl, r3, ip
sxtb16 r3, r8, ror #8
smlad r0, r6, r3, r0
smlad r5, sl, r3, r5
ldr.w r6, [r1], #16
ldr.w sl, [r1, #-8]
ldr.w r2, [r4], #4
ldr.w r8, [r9], #4
sxtb16 r3, r2
smlad lr, r6, r3, lr
smlad ip, sl, r3, ip
sxtb16 r3, r8
smlad r0, r6, r3, r0
smlad r5, sl, r3, r5
ldr.w r6, [r1, #-12]
ldr.w sl, [r1, #-4]
sxtb16 r3, r2, ror #8
smlad lr, r6, r3, lr
smlad ip, sl, r3, ip
sxtb16 r3, r8, ror #8
smlad r0, r6, r3, r0
smlad r5, sl, r3, r5
ldr.w r6, [r1], #16
ldr.w sl, [r1, #-8]
ldr.w r2, [r4], #4
ldr.w r8, [r9], #4
sxtb16 r3, r2
smlad lr, r6, r3, lr
smlad ip, sl, r3, ip
sxtb16 r3, r8
smlad r0, r6, r3, r0
smlad r5, sl, r3, r5
ldr.w r6, [r1, #-12]
ldr.w sl, [r1, #-4]
sxtb16 r3, r2, ror #8
smlad lr, r6, r3, lr
smlad ip, sl, r3, ip
sxtb16 r3, r8, ror #8
smlad r0, r6, r3, r0
smlad r5, sl, r3, r5
ldr r6, [sp, #0]
cmp r1, r6
bne.w <stowplan::kernels::conv::dsp::pointwise::widened_in+0x300>
