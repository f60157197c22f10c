<stowplan_example_cortex_m::op_1_views>:
 push {r4, r6, r7, lr}
 add r7, sp, #8
 movw ip, #23120 @ 0x5a50
 movw r3, #22096 @ 0x5650
 movs r2, #16
 movt ip, #0
 mov.w lr, #256 @ 0x100
 movt r3, #0
 add.w r4, r1, #64 @ 0x40
 strd r4, r2, [r0]
 strd r3, lr, [r0, #8]
 strd ip, r2, [r0, #16]
 strd r1, r2, [r0, #24]
 pop {r4, r6, r7, pc}

<stowplan_example_cortex_m::take_arena>:
 push {r7, lr}
 mov r7, sp
 movw r0, #0
 mov.w ip, #1
 movt r0, #8192 @ 0x2000
 add.w r1, r0, #128 @ 0x80
 ldrexb r3, [r1]
 strexb r2, ip, [r1]
 cmp r2, #0
 bne.n <stowplan_example_cortex_m::take_arena+0x14>
 cmp r3, #0
 it ne
 movne r0, #0
 dmb sy
 pop {r7, pc}
