#!/usr/bin/env python3
"""The conformance suite: stowplan's kernels and their build-time parameters against the real
TensorFlow Lite Micro (tflite-micro==0.dev20261023182759, reference kernels), byte for byte.

    python3 tests/conformance/run.py                 # the seeded CI slice (40 variants)
    python3 tests/conformance/run.py --full          # every variant; prints the table
    python3 tests/conformance/run.py --full --table docs/conformance.md
    python3 tests/conformance/run.py --full --ops conv,add --table docs/conformance.md
                                                     # those modules' rows replaced
    python3 tests/conformance/run.py --self-test     # perturbed kernels must fail the suite
    python3 tests/conformance/run.py --device --slice 16
                                                     # the same on the Cortex-M4 (QEMU)
    python3 tests/conformance/run.py --device --self-test --slice 16
                                                     # perturbed DSP kernels must fail it
    python3 tests/conformance/run.py --device --core m33 --slice 16
                                                     # on the Cortex-M33 (QEMU mps2-an505)

Steps: `stowplan-conformance gen` draws the single-op models of every variant from the seed
(tests/conformance/<op>.rs) with their input sets, and writes the sweep crate, which includes
every model's generated module (`invoke = true`); one `cargo build` compiles it and its binary
runs every model on every input set and dumps each `params::OP_N` constant. TFLM runs the same
models on the same inputs in child processes (its checks abort the interpreter; a crash is
isolated to its model). Every output byte must be equal, and every parameter equal to what
TFLM's Prepare computes (tests/conformance/<op>.py: TFLM's exported functions through ctypes
and its per-op glue, transcribed). A model one side refuses and the other runs is a failure.

`--device` proves the kernels as they run on the Cortex-M4 (the DSP extension's, cfg
`stowplan_dsp`): `gen --device` draws the slice from the int8 and int16 variants of the ops
with DSP kernels (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, ADD, MUL and the pools;
tests/conformance/device.rs), and writes it as a firmware image for QEMU's mps2-an386
(thumbv7em-none-eabihf) carrying every model and its input sets (as several images, run one
after the other, when they do not fit one: `gen --part K`); the firmware prints every output
(hex on semihosting's standard output), which is compared with TFLM's, computed on the host,
as the host sweep's are. The firmware must contain the runtime's DSP kernels (each op's
`kernels::<op>::dsp` and `kernels::shared::blocked*`) when its models have an op with them, and a model no image has
room for is a failure. `--device --self-test` perturbs DSP kernels (DEVICE_MUTANTS); each must
make the device slice fail. `--core m33` runs the device slice on the Cortex-M33 instead (QEMU's
mps2-an505; thumbv8m.main-none-eabihf with `-C target-cpu=cortex-m33`, the same DSP kernels).

Exit status 0 when everything is identical; 1 otherwise.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))

TFLM_VERSION = "0.dev20261023182759"

# A perturbed kernel for --self-test: (file in the runtime, text, replacement). Each must make
# the suite fail; a pattern that is no longer in the file is an error, never a pass.
MUTANTS = {
    # Ties of negative values in RoundingDivideByPOT rounded towards zero instead of away.
    "rounding": ("src/kernels/shared/fixed.rs",
                 "let threshold = (mask >> 1) + if x < 0 { 1 } else { 0 };",
                 "let threshold = (mask >> 1) + if x < 0 { 0 } else { 0 };"),
    # CONV_2D's input zero point off by one.
    "zero-point": ("src/kernels/conv/mod.rs",
                   "products.wrapping_add(filter_sum.wrapping_mul(input_offset))",
                   "products.wrapping_add(filter_sum.wrapping_mul(input_offset.wrapping_add(1)))"),
    # The in-place driver (the host runs the portable kernels through it): a run of pixels
    # grown one element past its limit, so that it writes over an input element a later
    # pixel still reads ("displacement - 1").
    "driver-limit": ("src/kernels/shared/in_place.rs",
                     "        let base = self.read_base(row, x);\n        let limit = d + base;\n",
                     "        let base = self.read_base(row, x);\n        let limit = d + base + 1;\n"),
    # FULLY_CONNECTED's filter re-laid for the interleaved kernels (when the constant is
    # evaluated) with a block's rows in another order than the kernels read them.
    "fc-interleave": ("src/kernels/fully_connected/kernel.rs",
                      "(c - c % 4) * words + 4 * k + c % 4",
                      "(c - c % 4) * words + 4 * k + (c + 1) % 4"),
    # A chunk's input slice said to start one pixel later than it does ("skip + 1").
    "driver-skip": ("src/kernels/shared/in_place.rs",
                    "        } else {\n            self.first_column(x)\n        }\n",
                    "        } else {\n            self.first_column(x) + 1\n        }\n"),
    # A run of pixels computed from its second pixel on (its first pixel ignored).
    "driver-first-pixel": ("src/kernels/shared/in_place.rs",
                           "                part: Part { x0: x, skip },\n",
                           "                part: Part { x0: x + 1, skip },\n"),
}

# What each mutant's slice covers (ops whose kernels it perturbs), to keep --self-test small.
MUTANT_OPS = {"rounding": "conv,fully_connected", "zero-point": "conv",
              "driver-limit": "conv,depthwise_conv,pooling",
              "driver-skip": "conv,depthwise_conv,pooling",
              "driver-first-pixel": "conv,depthwise_conv,pooling",
              "fc-interleave": "fully_connected"}

# Mutants whose layers the default slice draws too seldom, with the slice they run (at least):
# the interleaved FULLY_CONNECTED takes rows of whole words only, one of its four shape
# classes, and a layer whose outputs all clamp (a narrow activation) hides a wrong sum; the
# folded triples (`dsp-fc-folded*`) run only where it does not (rows over their own input).
MUTANT_SLICES = {"fc-interleave": 40, "dsp-fc-interleaved": 28, "dsp-fc-interleaved-folded": 28,
                 "dsp-fc-interleaved-bias": 28, "dsp-fc-folded": 28, "dsp-fc-folded-words": 28}

# The DSP kernels, perturbed for --self-test --device (they exist on the device alone; the host
# sweep cannot see them): each must make the device slice fail.
# The whole 3 x 3 windows' folded block from its last tap to its first output's rounding
# constant (the edges' block has the same epilogue after another last tap).
WHOLE_FOLDED_TAIL = ('"ldr {t3}, [{x}, {p}, lsl #1]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "ldr {x}, [sp, #8]", "ldr {w}, [sp, #12]", "ldr {p}, [sp, #24]", "ldr {r}, [{x}], #4", "ldr {off}, [{w}], #4", "ldr {t1}, [{w}], #4", "add {a0}, {a0}, {r}", "mvn {t1}, {t1}", "lsl {r}, {p}, {t1}", "asr {r}, {r}, #1", "and {t2}, {a0}, #0x80000000"')
DEVICE_MUTANTS = {
    # DEPTHWISE_CONV_2D's whole 3 x 3 windows (depth multiplier 1, any channel count, one asm!
    # block per block of four channels): the first tap's odd channels widened from the even
    # lanes.
    "dsp-depthwise": ("src/kernels/shared/dsp.rs",
                      '(3, 3) => {\n                        asm!("ldr {t1}, [{w}]", "ldr {t2}, [{x}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smulbb {a0}, {t2}, {t3}", "smultt {a2}, {t2}, {t3}", "ldr {t3}, [{x}]", "sxtab16 {t3}, {off}, {t3}, ror #8"',
                      '(3, 3) => {\n                        asm!("ldr {t1}, [{w}]", "ldr {t2}, [{x}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smulbb {a0}, {t2}, {t3}", "smultt {a2}, {t2}, {t3}", "ldr {t3}, [{x}]", "sxtab16 {t3}, {off}, {t3}"'),
    # Their windows at an edge (two rows of three taps): the same perturbation.
    "dsp-depthwise-edges": ("src/kernels/shared/dsp.rs",
                            '(2, 3) => {\n                        asm!("ldr {t1}, [{w}]", "ldr {t2}, [{x}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smulbb {a0}, {t2}, {t3}", "smultt {a2}, {t2}, {t3}", "ldr {t3}, [{x}]", "sxtab16 {t3}, {off}, {t3}, ror #8"',
                            '(2, 3) => {\n                        asm!("ldr {t1}, [{w}]", "ldr {t2}, [{x}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smulbb {a0}, {t2}, {t3}", "smultt {a2}, {t2}, {t3}", "ldr {t3}, [{x}]", "sxtab16 {t3}, {off}, {t3}"'),
    # A row's run of whole windows: each window one input pixel after the last, whatever the
    # stride.
    "dsp-depthwise-runs": ("src/kernels/depthwise_conv/dsp.rs",
                           "let run3 = [n, g.stride_w * blocks];",
                           "let run3 = [n, blocks];"),
    # Windows of other filters (up to nine taps) from lists of their taps: channel 2 multiplied
    # by channel 0's input.
    "dsp-depthwise-taps": ("src/kernels/depthwise_conv/dsp.rs",
                           "        smlatt(x02, w02, a2),",
                           "        smlabt(x02, w02, a2),"),
    # DEPTHWISE_CONV_2D one channel to eight over rows of four taps: the fourth tap's channel 0
    # multiplied by the third tap's input.
    "dsp-depthwise-rows": ("src/kernels/depthwise_conv/dsp.rs",
                           "    let (a0, a1) = (smlabt(e, x13, a0), smlabt(o, x13, a1));",
                           "    let (a0, a1) = (smlabt(e, x02, a0), smlabt(o, x13, a1));"),
    # The int16 CONV_2D's input pairs: the second pair's halves packed the wrong way round.
    "dsp-s16": ("src/kernels/shared/blocked_s16.rs",
                "(pkhbt(x01, x23), pkhtb(x23, x01))",
                "(pkhbt(x01, x23), pkhtb(x01, x23))"),
    # The blocked CONV_2D (3 x 3 and the other shapes), its loop of 2 pixels x 2 channels over
    # widened windows (four groups an iteration; the windows the folded epilogue does not take:
    # another form, right shifts past 23, slabs, the last pair of a part group): in the
    # iteration's first group, the second pixel's even lanes read from its odd lanes' word.
    "dsp-conv": ("src/kernels/shared/dsp.rs",
                 '"sub {p}, {t}, {x}", "and {p}, {p}, #48", "cmp {p}, #16", "beq 5f", "cmp {p}, #32", "beq 4f", "cmp {p}, #48", "beq 3f", "2:", "ldr {p}, [{x}], #16", "ldr {q}, [{x}, #-8]"',
                 '"sub {p}, {t}, {x}", "and {p}, {p}, #48", "cmp {p}, #16", "beq 5f", "cmp {p}, #32", "beq 4f", "cmp {p}, #48", "beq 3f", "2:", "ldr {p}, [{x}], #16", "ldr {q}, [{x}, #-4]"'),
    # The same loop's fourth group (where a count of 1 modulo 4 enters it): its last product of
    # the second pixel's odd lanes taken with the first pixel's.
    "dsp-conv-odd": ("src/kernels/shared/dsp.rs",
                     '"smlad {bb}, {q}, {t}, {bb}", "ldr {p}, [sp]", "cmp {x}, {p}", "bne 2b", "pop {{{t}}}"',
                     '"smlad {bb}, {p}, {t}, {bb}", "ldr {p}, [sp]", "cmp {x}, {p}", "bne 2b", "pop {{{t}}}"'),
    # The channel pairs of the folded epilogue (smlad_2x2_requant: windows in form 6 and the
    # widened 1 x 1 pixel pairs): its loop's first group misreads the second pixel's even
    # lanes.
    "dsp-conv-requant": ("src/kernels/shared/dsp.rs",
                         '"bx {q}", "2:", "ldr {p}, [{x}], #16", "ldr {q}, [{x}, #-8]"',
                         '"bx {q}", "2:", "ldr {p}, [{x}], #16", "ldr {q}, [{x}, #-4]"'),
    # Its entry, found once per call: a count of 2 modulo 4 enters the loop's last group, so
    # the loop's pointer steps past its end (the firmware faults on such a layer).
    "dsp-conv-requant-entry": ("src/kernels/shared/dsp.rs",
                               '"adr {p}, 4f"',
                               '"adr {p}, 5f"'),
    # Its epilogue: the first channel's constant `o2 2^t` halved once more (the rounding and
    # the zero point off).
    "dsp-conv-requant-k": ("src/kernels/shared/dsp.rs",
                           '"asr {t}, {t}, #1", "and {p}, {aa}, #0x80000000"',
                           '"asr {t}, {t}, #2", "and {p}, {aa}, #0x80000000"'),
    # Its step to the next channel pair's filters left out: every pair reads the first's.
    "dsp-conv-requant-step": ("src/kernels/shared/dsp.rs",
                              '"add {fa}, {fa}, {p}", "mvn {wb}, {wb}"',
                              '"add {fa}, {fa}, #0", "mvn {wb}, {wb}"'),
    # DEPTHWISE_CONV_2D's 3 x 3 windows in the folded epilogue (requant4_folded): the third
    # channel's constant `o2 2^t` halved once more.
    "dsp-depthwise-folded": ("src/kernels/shared/dsp.rs",
                             '"asr {t}, {t}, #1", "and {lo}, {a2}, #0x80000000"',
                             '"asr {t}, {t}, #2", "and {lo}, {a2}, #0x80000000"'),
    # The taps kernel on one buffer (the driver's chunks in its own frame): every chunk run as
    # if it skipped no input pixel.
    "dsp-depthwise-one": ("src/kernels/depthwise_conv/dsp.rs",
                          "            &q,\n            run.part,\n",
                          "            &q,\n            Part::WHOLE,\n"),
    # The whole 3 x 3 windows with their folded epilogue in one block (its blocks in a loop):
    # a channel's rounding constant halved.
    "dsp-depthwise-whole-folded": ("src/kernels/shared/dsp.rs",
                                   WHOLE_FOLDED_TAIL,
                                   WHOLE_FOLDED_TAIL.replace('"asr {r}, {r}, #1", "and {t2}, {a0}',
                                                             '"asr {r}, {r}, #2", "and {t2}, {a0}')),
    # The same block for a left or right edge's windows (three rows of two taps): the last
    # tap's fourth channel multiplied by the second channel's lanes.
    "dsp-depthwise-edge-folded": ("src/kernels/shared/dsp.rs",
                                  '"ldr {t3}, [{x}, {p}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "ldr {x}, [sp, #8]"',
                                  '"ldr {t3}, [{x}, {p}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlabb {a3}, {t3}, {t1}, {a3}", "ldr {x}, [sp, #8]"'),
    # FULLY_CONNECTED's channel triples with their folded epilogue in one block: the second
    # channel's rounding constant halved.
    "dsp-fc-folded": ("src/kernels/shared/dsp.rs",
                      '"asr {t0}, {t0}, #1", "and {t2}, {a1}, #0x80000000"',
                      '"asr {t0}, {t0}, #2", "and {t2}, {a1}, #0x80000000"'),
    # The widened 1 x 1 pixel pairs (widen_words_2): a word of the first pixel's even and odd
    # values in each other's lanes.
    "dsp-conv-widened": ("src/kernels/shared/dsp.rs",
                         '"sxtab16 {u}, {off}, {x}", "sxtab16 {x}, {off}, {x}, ror #8"',
                         '"sxtab16 {u}, {off}, {x}, ror #8", "sxtab16 {x}, {off}, {x}"'),
    # Their odd last pixel, one input row of a FULLY_CONNECTED (its channel triples in
    # rows3_folded): the input offset one off.
    "dsp-conv-lone": ("src/kernels/conv/dsp/pointwise.rs",
                      "3 * rows3_folded(words, filter, depth, splat16(offset), constants, y)",
                      "3 * rows3_folded(words, filter, depth, splat16(offset + 1), constants, y)"),
    # Their pixel pair in the scratch the plan gives the op (two buffers): the last pixel left
    # out, so an odd pixel count leaves its outputs unwritten.
    "dsp-conv-scratch": ("src/kernels/conv/dsp/pointwise.rs",
                         "        pixels,\n    };\n    let t = &mut Tensors::Apart(input, output);",
                         "        pixels: pixels & !1,\n    };\n    let t = &mut Tensors::Apart(input, output);"),
    # The window kernel's whole windows in scratch (the arena's bytes): the part group's lanes
    # past the window left as the ops before wrote them.
    "dsp-conv-window-scratch": ("src/kernels/conv/dsp/window.rs",
                                "        buf.fill([0; 4]);\n",
                                "\n"),
    # The widened pixel pairs on one buffer (their own walk, no driver): a pair's input read
    # one element on.
    "dsp-conv-widened-one": ("src/kernels/conv/dsp/pointwise.rs",
                             "let Some(x) = t.input(at.input_at + q * x2, x2) else {",
                             "let Some(x) = t.input(at.input_at + q * x2 + 1, x2) else {"),
    # The window kernel on one buffer (its own walk, no driver): the input read one element on.
    "dsp-conv-window-one": ("src/kernels/conv/dsp/window.rs",
                            "input: (input_at, in_len),",
                            "input: (input_at + 1, in_len),"),
    # Its windows widened: a word's even and odd values in each other's lanes.
    "dsp-conv-widen": ("src/kernels/conv/dsp/window.rs",
                       "[sxtab16(off, w), sxtab16_ror8(off, w)]",
                       "[sxtab16_ror8(off, w), sxtab16(off, w)]"),
    # Windows of more than one slab: each slab's sums start from 0, the earlier slabs' lost.
    "dsp-conv-slabs": ("src/kernels/conv/dsp/window.rs",
                       "let acc = if k0 == 0 { [0; 4] } else { *s };",
                       "let acc = [0; 4];"),
    # A window that is not a multiple of four values: its part group left out of the channel
    # pairs whose filters are read on into the next channel's.
    "dsp-conv-part": ("src/kernels/conv/dsp/window.rs",
                      "let padded = window.div_ceil(4);",
                      "let padded = window / 4;"),
    # The part group of the last channel pair (its filter word of the part's values and
    # zeros): the first two values exchanged.
    "dsp-conv-part-word": ("src/kernels/conv/dsp/window.rs",
                           "u32::from_le_bytes([value(0), value(1), value(2), 0])",
                           "u32::from_le_bytes([value(1), value(0), value(2), 0])"),
    # CONV_2D of short filter rows (first layers), windows gathered: a tap in the padding
    # gathered as 0 where the input's zero point belongs.
    "dsp-conv-gathered": ("src/kernels/conv/dsp/gathered.rs",
                          "                    tap.fill(self.zero_point);",
                          "                    tap.fill(0);"),
    # The gathered windows widened: the pair's two pixels exchanged.
    "dsp-conv-gathered-widen": ("src/kernels/conv/dsp/gathered.rs",
                                "let (wa, wb) = (load4(wa), load4(wb));",
                                "let (wa, wb) = (load4(wb), load4(wa));"),
    # A 1-D CONV_2D (one-pixel-wide images) run as a row: the filter left a column.
    "dsp-conv-columns": ("src/kernels/shared/window.rs",
                         "            filter: [o, 1, fh, i],",
                         "            filter: [o, fh, 1, i],"),
    # FULLY_CONNECTED's last two output channels (after its blocks of three): the pair's outputs
    # exchanged.
    "dsp-fc-pairs": ("src/kernels/fully_connected/dsp.rs",
                     "(*o0, *o1) = (finish(s0, r0, b0), finish(s1, r1, b1));",
                     "(*o0, *o1) = (finish(s1, r0, b0), finish(s0, r1, b1));"),
    # Its blocks of three output channels: the second and third channels' sums swapped.
    "dsp-fc-rows": ("src/kernels/fully_connected/dsp.rs",
                    "(finish(s0, r0, b0), finish(s1, r1, b1), finish(s2, r2, b2))",
                    "(finish(s0, r0, b0), finish(s2, r1, b1), finish(s1, r2, b2))"),
    # The three rows' loop (two words an iteration): the first row's odd lanes of the second
    # word multiplied by the input's even lanes.
    "dsp-fc-words": ("src/kernels/shared/dsp.rs",
                     '"smlad {a0}, {t1}, {t2}, {a0}", "subs {n}, {n}, #1", "bne 2b"',
                     '"smlad {a0}, {t0}, {t2}, {a0}", "subs {n}, {n}, #1", "bne 2b"'),
    # The same word loop in the folded triples' block.
    "dsp-fc-folded-words": ("src/kernels/shared/dsp.rs",
                            '"smlad {a0}, {t1}, {t2}, {a0}", "subs {n}, {n}, #1", "bne 3b"',
                            '"smlad {a0}, {t0}, {t2}, {a0}", "subs {n}, {n}, #1", "bne 3b"'),
    # The interleaved FULLY_CONNECTED's loop of four words (its general epilogue): the first
    # row's odd lanes of the first word multiplied by the input's odd lanes twice.
    "dsp-fc-interleaved": ("src/kernels/shared/dsp.rs",
                           'let n = quads;\n            asm!("2:", "ldr {xb}, [{x}], #4", "ldr {w0}, [{f}], #4", "ldr {w1}, [{f}], #4", "sxtb16 {xa}, {xb}", "sxtb16 {xb}, {xb}, ror #8", "sxtb16 {t}, {w0}", "smlad {a0}, {xa}, {t}, {a0}"',
                           'let n = quads;\n            asm!("2:", "ldr {xb}, [{x}], #4", "ldr {w0}, [{f}], #4", "ldr {w1}, [{f}], #4", "sxtb16 {xa}, {xb}", "sxtb16 {xb}, {xb}, ror #8", "sxtb16 {t}, {w0}", "smlad {a0}, {xb}, {t}, {a0}"'),
    # The same loop in the folded epilogue's block (each row's blocks in one block).
    "dsp-fc-interleaved-folded": ("src/kernels/shared/dsp.rs",
                                  '"5:", "ldr {xb}, [{x}], #4", "ldr {w0}, [{f}], #4", "ldr {w1}, [{f}], #4", "sxtb16 {xa}, {xb}", "sxtb16 {xb}, {xb}, ror #8", "sxtb16 {t}, {w0}", "smlad {a0}, {xa}, {t}, {a0}"',
                                  '"5:", "ldr {xb}, [{x}], #4", "ldr {w0}, [{f}], #4", "ldr {w1}, [{f}], #4", "sxtb16 {xa}, {xb}", "sxtb16 {xb}, {xb}, ror #8", "sxtb16 {t}, {w0}", "smlad {a0}, {xb}, {t}, {a0}"'),
    # Its blocks' fourth channel started from the third channel's bias.
    "dsp-fc-interleaved-bias": ("src/kernels/shared/dsp.rs",
                                '"ldr {a3}, [{t}, #12]"',
                                '"ldr {a3}, [{t}, #8]"'),
    # AVERAGE_POOL_2D's sums: the odd lanes of a word widened as its even ones.
    "dsp-pool": ("src/kernels/pooling/dsp.rs",
                 "b13 = sxtab16_ror8(b13, b);",
                 "b13 = sxtab16(b13, b);"),
    # ADD and MUL's blocks of four: the first two first-input elements swapped.
    "dsp-add-mul": ("src/kernels/shared/binary_walk.rs",
                    "        let y = block(k, x);",
                    "        let y = block(k, [x[1], x[0], x[2], x[3]]);"),
    # The int16 AVERAGE_POOL_2D's sums: channel 7 summed from channel 6's half of the word.
    "dsp-pool-s16": ("src/kernels/pooling/dsp.rs",
                     "            s7 = s7.wrapping_add(hi(d));",
                     "            s7 = s7.wrapping_add(lo(d));"),
    # The int16 MUL's pairs: the second product of a word from the first halves.
    "dsp-mul-s16": ("src/kernels/mul/dsp.rs",
                    "            one(smultt(xb, yb)),",
                    "            one(smulbb(xb, yb)),"),
    # The int8 ADD of the residual connections' scalings (one input's multiplier 1/2, the
    # kernel constants SAME_HALF_*): the third element of a block with the other input's
    # second.
    "dsp-add-same": ("src/kernels/add/dsp.rs",
                     "                one(hi(h02), hi(o02)),",
                     "                one(hi(h02), lo(o02)),"),
    # The int8 ADD of a scalar second input (SECOND_SCALAR): a block's last two elements
    # exchanged.
    "dsp-add-scalar": ("src/kernels/add/dsp.rs",
                       "[term(lo(x02)), term(lo(x13)), term(hi(x02)), term(hi(x13))]",
                       "[term(lo(x02)), term(lo(x13)), term(hi(x13)), term(hi(x02))]"),
    # The int8 ADD of a scalar first input (FIRST_SCALAR): a block's last two elements
    # exchanged.
    "dsp-add-first-scalar": ("src/kernels/add/dsp.rs",
                             "[term(lo(y02)), term(lo(y13)), term(hi(y02)), term(hi(y13))]",
                             "[term(lo(y02)), term(lo(y13)), term(hi(y13)), term(hi(y02))]"),
    # The int8 ADD of equal shapes with other scalings (SAME): a block's third element with the
    # second input's second.
    "dsp-add-general": ("src/kernels/add/dsp.rs",
                        "                        one(hi(x02), hi(y02)),",
                        "                        one(hi(x02), lo(y02)),"),
    # The int16 ADD's pairs: the second sum's first input from the word's first half.
    "dsp-add-s16": ("src/kernels/add/dsp.rs",
                    "                    sum(t1(hi(xb)), t2(hi(yb))),",
                    "                    sum(t1(lo(xb)), t2(hi(yb))),"),
}
DEVICE_MUTANT_OPS = {"dsp-depthwise": "depthwise_conv", "dsp-depthwise-rows": "depthwise_conv",
                     "dsp-depthwise-edges": "depthwise_conv",
                     "dsp-depthwise-runs": "depthwise_conv",
                     "dsp-depthwise-taps": "depthwise_conv",
                     "dsp-s16": "conv",
                     "dsp-conv": "conv", "dsp-conv-odd": "conv", "dsp-conv-widen": "conv",
                     "dsp-conv-slabs": "conv", "dsp-conv-part": "conv",
                     "dsp-conv-part-word": "conv", "dsp-conv-gathered-widen": "conv",
                     "dsp-conv-gathered": "conv", "dsp-conv-columns": "conv",
                     "dsp-conv-requant": "conv", "dsp-conv-requant-entry": "conv",
                     "dsp-conv-requant-k": "conv",
                     "dsp-conv-requant-step": "conv", "dsp-conv-widened": "conv",
                     "dsp-conv-lone": "conv", "dsp-conv-scratch": "conv",
                     "dsp-conv-window-scratch": "conv",
                     "dsp-conv-widened-one": "conv", "dsp-conv-window-one": "conv",
                     "dsp-depthwise-folded": "depthwise_conv",
                     "dsp-depthwise-whole-folded": "depthwise_conv",
                     "dsp-depthwise-one": "depthwise_conv",
                     "dsp-depthwise-edge-folded": "depthwise_conv",
                     "dsp-fc-pairs": "fully_connected", "dsp-fc-rows": "fully_connected",
                     "dsp-fc-words": "fully_connected", "dsp-fc-folded": "fully_connected",
                     "dsp-fc-folded-words": "fully_connected",
                     "dsp-fc-interleaved": "fully_connected",
                     "dsp-fc-interleaved-folded": "fully_connected",
                     "dsp-fc-interleaved-bias": "fully_connected",
                     "dsp-pool": "pooling", "dsp-add-mul": "add,mul",
                     "dsp-pool-s16": "pooling", "dsp-mul-s16": "mul", "dsp-add-s16": "add",
                     "dsp-add-same": "add", "dsp-add-scalar": "add",
                     "dsp-add-first-scalar": "add", "dsp-add-general": "add"}

DTYPES = {"float32": ("<f4", 4), "int8": ("i1", 1), "uint8": ("u1", 1), "int16": ("<i2", 2),
          "int32": ("<i4", 4), "int64": ("<i8", 8), "bool": ("?", 1), "float16": ("<f2", 2),
          "uint16": ("<u2", 2), "uint32": ("<u4", 4), "uint64": ("<u8", 8)}


def log(msg):
    print(msg, flush=True)


def target_dir():
    return Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))


def check_version():
    from importlib.metadata import version

    found = version("tflite-micro")
    if found != TFLM_VERSION:
        sys.exit(f"tflite-micro {found} is installed; the suite is pinned to {TFLM_VERSION}")


# ---------------------------------------------------------------------------------------------
# TFLM in child processes


def tflm_child(out, ids):
    """Runs the models `ids` of the sweep at `out` through TFLM; writes tflm/<id>.bin, or
    tflm/<id>.err with the reason TFLM refused the model."""
    import numpy as np
    from tflite_micro.python.tflite_micro import runtime

    manifest = json.loads((out / "manifest.json").read_text())
    models = {m["id"]: m for v in manifest["variants"] for m in v["models"]}
    for mid in ids:
        m = models[mid]
        data = (out / m["model"]).read_bytes()
        try:
            it = runtime.Interpreter.from_bytes(data, arena_size=1024 * 1024 + 8 * len(data))
            details = []
            while True:
                try:
                    details.append(it.get_input_details(len(details)))
                except IndexError:
                    break
            sets = (out / m["inputs"]).read_bytes()
            size = m["set_bytes"]
            result = bytearray()
            for k in range(m["sets"]):
                chunk = sets[k * size:(k + 1) * size]
                at = 0
                for i, d in enumerate(details):
                    dt = np.dtype(d["dtype"])
                    n = int(np.prod(d["shape"])) * dt.itemsize
                    arr = np.frombuffer(chunk[at:at + n], dtype=dt).reshape(d["shape"])
                    it.set_input(arr, i)
                    at += n
                status = it.invoke()
                i = 0
                while True:
                    try:
                        o = it.get_output(i)
                    except IndexError:
                        break
                    result += np.ascontiguousarray(o).tobytes()
                    i += 1
                if m.get("status"):
                    # kTfLiteAbort (the invocation ended early) is 1, kTfLiteOk 0.
                    result.append(0 if status == 0 else 1)
            (out / "tflm" / f"{mid}.bin").write_bytes(bytes(result))
        except Exception as e:  # noqa: BLE001 (TFLM reports Prepare failures as RuntimeError)
            (out / "tflm" / f"{mid}.err").write_text(f"{type(e).__name__}: {e}")
        sys.stdout.flush()


def run_tflm(out, groups, jobs):
    """Runs each group of model ids in one child; a child that dies leaves its unfinished
    models to be run one by one, and a model that kills its child alone is 'aborted'."""
    (out / "tflm").mkdir(exist_ok=True)

    def child(ids):
        cmd = [sys.executable, __file__, "--child", str(out), *ids]
        # glibc's MALLOC_PERTURB_=255 fills every block malloc returns with zero bytes, as a
        # device's static arena is zero at start-up: TFLM reads memory it never wrote in one
        # place (SPACE_TO_BATCH_ND pads with `SpaceToBatchParams::output_offset`, a field of an
        # uninitialised persistent buffer), and without it that pad is whatever the heap held.
        env = {**os.environ, "MALLOC_PERTURB_": "255"}
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=3600, env=env)
        return p

    def done(mid):
        return (out / "tflm" / f"{mid}.bin").exists() or (out / "tflm" / f"{mid}.err").exists()

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(child, groups))
    retry = [mid for ids in groups for mid in ids if not done(mid)]
    if retry:
        log(f"  {len(retry)} models unfinished after a TFLM child died; running them one by one")
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            for mid, p in zip(retry, pool.map(lambda m: child([m]), retry)):
                if not done(mid):
                    tail = (p.stderr or "").strip().splitlines()[-3:]
                    (out / "tflm" / f"{mid}.err").write_text(
                        f"TFLM aborted (exit {p.returncode}): {' | '.join(tail)}")
    return results


# ---------------------------------------------------------------------------------------------
# Parameters: our Debug dump, parsed


def parse_debug(text):
    """Parses Rust `Debug` output (structs, arrays, tuples, tuple structs, numbers, bools) into
    dicts and lists; anything else is a ValueError, never a loop."""
    pos = 0

    def seq(close):
        nonlocal pos
        pos += 1
        items = []
        ws()
        while pos < len(text) and text[pos] != close:
            items.append(value())
            ws()
            if pos < len(text) and text[pos] == ",":
                pos += 1
            ws()
        if pos >= len(text):
            raise ValueError(f"Debug output ends before {close!r}")
        pos += 1
        return items

    def ws():
        nonlocal pos
        while pos < len(text) and text[pos] in " \n\t":
            pos += 1

    def value():
        nonlocal pos
        ws()
        if pos >= len(text):
            raise ValueError("Debug output ends where a value should be")
        c = text[pos]
        if c == "[":
            return seq("]")
        if c == "(":
            return seq(")")
        start = pos
        while pos < len(text) and (text[pos].isalnum() or text[pos] in "_-+.:"):
            pos += 1
        word = text[start:pos]
        if not word:
            raise ValueError(f"unexpected {c!r} at {pos} in Debug output")
        ws()
        if pos < len(text) and text[pos] == "(":
            return {"__type__": word, **{str(i): v for i, v in enumerate(seq(")"))}}
        if pos < len(text) and text[pos] == "{":
            pos += 1
            fields = {"__type__": word}
            ws()
            while pos < len(text) and text[pos] != "}":
                fstart = pos
                while pos < len(text) and text[pos] != ":":
                    pos += 1
                if pos >= len(text):
                    raise ValueError("a struct field without ':' in Debug output")
                name = text[fstart:pos].strip()
                pos += 1
                fields[name] = value()
                ws()
                if pos < len(text) and text[pos] == ",":
                    pos += 1
                ws()
            if pos >= len(text):
                raise ValueError("Debug output ends before '}'")
            pos += 1
            return fields
        if word in ("true", "false"):
            return word == "true"
        if word in ("inf", "-inf", "NaN"):
            return float(word.lower().replace("nan", "nan"))
        try:
            return int(word)
        except ValueError:
            pass
        try:
            return float(word)
        except ValueError:
            return word

    return value()


def parse_debug_self_test():
    """parse_debug on the shapes of Debug output the kernels' parameters take, and on cut or
    malformed text (each a ValueError)."""
    got = parse_debug("P { a: [1, -2], b: (3, 4.5), c: Some(inf), d: true, e: [[1, 2]] }")
    want = {"__type__": "P", "a": [1, -2], "b": [3, 4.5], "c": {"__type__": "Some", "0": float("inf")},
            "d": True, "e": [[1, 2]]}
    if got != want:
        sys.exit(f"parse_debug: {got!r}, want {want!r}")
    for bad in ("P { a: 1", "[1, 2", "(1", "{", "P { a 1 }", "P { a: @ }", ""):
        try:
            parse_debug(bad)
        except ValueError:
            continue
        sys.exit(f"parse_debug accepted {bad!r}")


def read_params(path):
    """`OP_0 = ConvS8 { ... }` lines -> {name: parsed}."""
    out = {}
    if not path.exists():
        return out
    for line in path.read_text().splitlines():
        name, _, rest = line.partition(" = ")
        out[name] = parse_debug(rest)
    return out


def compare(expected, ours, path=""):
    """The first difference between `expected` (a subset of fields) and `ours`, or None."""
    if isinstance(expected, dict):
        if not isinstance(ours, dict):
            return f"{path}: expected a struct, found {ours!r}"
        for k, v in expected.items():
            if k not in ours:
                return f"{path}.{k}: missing (fields: {', '.join(f for f in ours if f != '__type__')})"
            d = compare(v, ours[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(expected, (list, tuple)):
        if not isinstance(ours, list) or len(ours) != len(expected):
            return f"{path}: expected {len(expected)} items, found {ours!r:.120}"
        for i, (a, b) in enumerate(zip(expected, ours)):
            d = compare(a, b, f"{path}[{i}]")
            if d:
                return d
        return None
    if isinstance(expected, float) or isinstance(ours, float):
        import struct

        same = struct.pack("<f", float(expected)) == struct.pack("<f", float(ours))
        return None if same else f"{path}: TFLM {expected!r}, stowplan {ours!r}"
    return None if expected == ours else f"{path}: TFLM {expected!r}, stowplan {ours!r}"


def expected_params(variant, model_path):
    """The parameters TFLM's Prepare computes for op 0 of the model, by the op's module."""
    import importlib

    import tflm

    module = importlib.import_module(variant["op"])
    op = tflm.read_model(model_path)
    return module.expected(op) if not hasattr(module, "expected_for") else \
        module.expected_for(variant, op)


# ---------------------------------------------------------------------------------------------


def output_layout(model_path):
    """[(dtype, elements)] of the model's outputs."""
    import tflm

    op = tflm.read_model(model_path)
    out = []
    for t in op.model_outputs:
        n = 1
        for d in t.shape:
            n *= d
        out.append((t.dtype, n))
    return out


def compare_outputs(want, got, layout, runs):
    """(values compared, values identical, first difference or None)."""
    import numpy as np

    per_run = sum(DTYPES[d][1] * n for d, n in layout)
    if len(want) != per_run * runs or len(got) != len(want):
        return 0, 0, f"{len(want)} bytes from TFLM, {len(got)} from stowplan"
    values = same = 0
    first = None
    at = 0
    for r in range(runs):
        for d, n in layout:
            code, size = DTYPES[d]
            a = np.frombuffer(want[at:at + n * size], dtype=code)
            b = np.frombuffer(got[at:at + n * size], dtype=code)
            ab = np.frombuffer(want[at:at + n * size], dtype=f"u{size}" if size > 1 else "u1")
            bb = np.frombuffer(got[at:at + n * size], dtype=f"u{size}" if size > 1 else "u1")
            eq = ab == bb
            values += n
            same += int(eq.sum())
            if first is None and not eq.all():
                i = int(np.nonzero(~eq)[0][0])
                first = f"run {r}, value {i}: TFLM {a[i]!r}, stowplan {b[i]!r}"
            at += n * size
    return values, same, first


def compare_with_status(variant, want, got, model_path, runs):
    """compare_outputs for a model whose invocations can stop early: each run's outputs are
    followed by one status byte (1 stopped, 0 complete). Every run's status is compared; the
    outputs from the run the op's module says they are determined from (`determined_from`,
    default 0: a stateful op whose TFLM tensors start with bytes nobody wrote)."""
    import importlib

    layout = output_layout(model_path)
    per_run = sum(DTYPES[d][1] * n for d, n in layout)
    if len(want) != (per_run + 1) * runs or len(got) != len(want):
        return 0, 0, f"{len(want)} bytes from TFLM, {len(got)} from stowplan"
    module = importlib.import_module(variant["op"])
    skip = module.determined_from(model_path, runs) if hasattr(module, "determined_from") else 0
    split = lambda b: (b"".join(b[r * (per_run + 1):r * (per_run + 1) + per_run]
                                for r in range(skip, runs)),
                       bytes(b[r * (per_run + 1) + per_run] for r in range(runs)))
    (wo, ws), (go, gs) = split(want), split(got)
    values, same, first = compare_outputs(wo, go, layout, runs - skip)
    if first is not None:
        first = f"{first} (runs counted from {skip})"
    sv, ss, sfirst = compare_outputs(ws, gs, [("uint8", runs)], 1)
    if first is None and sfirst is not None:
        first = f"stopped early (1) or not (0): {sfirst.replace('run 0, value', 'run')}"
    return values + sv, same + ss, first


def evaluate(out, manifest):
    """Compares every model; returns (rows by (builtin, types), failures)."""
    import tflm

    rows = {}
    failures = []
    for v in manifest["variants"]:
        key = (v["builtin"], v["types"])
        row = rows.setdefault(key, {"op": v["op"], "variants": set(), "models": 0, "values": 0,
                                    "identical": 0, "params": 0, "param_diffs": 0, "refused": 0})
        row["variants"].add(v["key"])
        for m in v["models"]:
            row["models"] += 1
            mid = m["id"]
            path = out / m["model"]
            err = out / "tflm" / f"{mid}.err"
            ours_bin = out / "ours" / f"{mid}.bin"
            where = f"{v['key']} {mid} ({m['note']})"
            if m.get("unrun"):
                failures.append(f"{where}: not run on the device: {m['unrun']}")
                continue
            if m["refused"] is not None:
                if err.exists():
                    row["refused"] += 1
                    continue
                failures.append(f"{where}: stowplan refuses a model TFLM runs: {m['refused']}")
                continue
            if err.exists():
                failures.append(f"{where}: TFLM refuses a model stowplan accepts: {err.read_text()}")
                continue
            if not ours_bin.exists():
                failures.append(f"{where}: the sweep wrote no outputs")
                continue
            want = (out / "tflm" / f"{mid}.bin").read_bytes()
            got = ours_bin.read_bytes()
            if m.get("status"):
                values, same, first = compare_with_status(v, want, got, path, m["sets"])
            else:
                values, same, first = compare_outputs(want, got, output_layout(path), m["sets"])
            row["values"] += values
            row["identical"] += same
            if first is not None:
                failures.append(f"{where}: {values - same} of {values} output values differ; {first}")
            ours = read_params(out / "ours" / f"{mid}.params")
            if ours:
                row["params"] += 1
                try:
                    exp = expected_params(v, path)
                except tflm.PrepareFails as e:
                    row["param_diffs"] += 1
                    failures.append(f"{where}: TFLM's Prepare (transcribed) fails: {e}, but TFLM ran it")
                    continue
                diff = compare(exp, ours.get("OP_0"), "OP_0")
                if diff:
                    row["param_diffs"] += 1
                    failures.append(f"{where}: parameter {diff}")
    return rows, failures


def table(rows):
    lines = [
        "| op | module | types | variants | models | output values compared | identical | "
        "parameter sets checked | parameter differences | refused by both |",
        "|---|---|---|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for (builtin, types), r in sorted(rows.items()):
        lines.append(
            f"| {builtin} | `{r['op']}` | {types} | {len(r['variants'])} | {r['models']} | "
            f"{r['values']:,} | {r['identical']:,} | {r['params']:,} | {r['param_diffs']} | "
            f"{r['refused']} |")
    return "\n".join(lines)


def merge_table(path, ops, text):
    """The table in `path` with the rows of modules `ops` replaced by those of `text` (a sweep
    of those modules alone draws the same models from the seed as the whole sweep: each module
    draws its variants from the seed and its own keys), in the table's order."""
    def rows_of(t):
        return [line for line in t.splitlines()
                if line.startswith("| ") and not line.startswith("| op |")]

    def module(line):
        return line.split("|")[2].strip().strip("`")

    def key(line):
        cells = [c.strip() for c in line.split("|")]
        return (cells[1], cells[3])

    old = rows_of(path.read_text()) if path.exists() else []
    kept = [line for line in old if module(line) not in ops]
    merged = sorted(kept + rows_of(text), key=key)
    return "\n".join(text.splitlines()[:2] + merged)


def cargo(*args, cwd=REPO, env=None):
    cmd = ["cargo", *args]
    p = subprocess.run(cmd, cwd=cwd,
                       env={**os.environ, **(env or {}), "CARGO_TARGET_DIR": str(target_dir())})
    if p.returncode != 0:
        sys.exit(f"`{' '.join(cmd)}` failed")


def sweep(out, seed, slice_k, ops, values, jobs, runtime=None, locked=True):
    """Generates, builds and runs one sweep, runs TFLM, compares. Returns (rows, failures)."""
    t0 = time.time()
    gen = ["run", "-q", "-p", "stowplan-conformance"]
    if locked:
        gen.insert(1, "--locked")
    gen += ["--", "gen", "--out", str(out), "--seed", str(seed), "--values", str(values)]
    if slice_k:
        gen += ["--slice", str(slice_k)]
    if ops:
        gen += ["--ops", ops]
    if runtime:
        gen += ["--runtime", str(runtime)]
    cargo(*gen)
    manifest = json.loads((out / "manifest.json").read_text())
    t1 = time.time()
    log(f"  generated in {t1 - t0:.1f} s")
    cargo("build", "-q", "--manifest-path", str(out / "sweep" / "Cargo.toml"))
    t2 = time.time()
    log(f"  sweep crate built in {t2 - t1:.1f} s")
    binary = target_dir() / "debug" / manifest["package"]
    p = subprocess.run([str(binary), str(out)], capture_output=True, text=True)
    if p.returncode != 0:
        log(p.stderr)
    log(f"  stowplan ran in {time.time() - t2:.1f} s")
    return tflm_and_compare(out, manifest, jobs)


def tflm_and_compare(out, manifest, jobs):
    """Runs TFLM on the sweep's models and compares its outputs and parameters with ours/.
    Returns (rows, failures)."""
    t3 = time.time()
    # TFLM children of about 40 models each (a child's start-up costs as much as many models).
    ids = [m["id"] for v in manifest["variants"] for m in v["models"]]
    groups = [ids[i:i + 40] for i in range(0, len(ids), 40)]
    run_tflm(out, groups, jobs)
    t4 = time.time()
    log(f"  TFLM ran in {t4 - t3:.1f} s")
    rows, failures = evaluate(out, manifest)
    log(f"  compared in {time.time() - t4:.1f} s")
    return rows, failures


def overlap_kinds():
    """The ops the runtime may run with the output over the input it consumes, as the planner's
    registry declares them (each op module's `Overwrite`; `stowplan-conformance overlap-kinds`),
    grouped by the compile-time check each kind's generated code asserts
    (`kernels::overlap::<fits>`): (label, fits, op names, write order) per group."""
    cmd = ["cargo", "run", "-q", "--locked", "-p", "stowplan-conformance", "--", "overlap-kinds"]
    p = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True,
                       env={**os.environ, "CARGO_TARGET_DIR": str(target_dir())})
    if p.returncode != 0:
        sys.exit(f"`{' '.join(cmd)}` failed: {p.stderr.strip()}")
    groups = {}
    for kind in json.loads(p.stdout):
        group = groups.setdefault(kind["fits"], {"names": [], "order": kind["order"]})
        group["names"].append(kind["op"])
    orders = ["window", "elementwise", "widening", "rows", "concatenation", "pad"]
    kinds = []
    for fits, g in groups.items():
        names = g["names"]
        label = " and ".join(names) if len(names) <= 2 else ", ".join(names[:-1]) + " and " + names[-1]
        kinds.append((label, fits, tuple(names), g["order"]))
    rank = {o: i for i, o in enumerate(orders)}
    return sorted(kinds, key=lambda k: (rank.get(k[3], len(orders)), k[0]))


def overlapped_models(out, kinds):
    """For each kind of `kinds` (`overlap_kinds`), the generated modules that write an op's
    output over its input (`kernels::overlap`, asserted at compile time by the kind's check)."""
    texts = [f.read_text() for f in Path(out).rglob("gen/*.rs")]
    return [sum(f"kernels::overlap::{fits}(" in t for t in texts) for _, fits, _, _ in kinds]


def tool(*cmd, **kw):
    """The standard output of a command that must succeed."""
    p = subprocess.run(list(cmd), capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.exit(f"`{' '.join(cmd)}` failed: {p.stderr.strip()}")
    return p.stdout


# The builtins whose int8 (and int16) kernels have DSP-extension forms (each op's `dsp` module
# in runtime/src/kernels/<op>/, with what they share in runtime/src/kernels/shared/).
DSP_BUILTINS = {"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "AVERAGE_POOL_2D",
                "MAX_POOL_2D", "ADD", "MUL"}

# The DSP extension's instructions the kernels use: multiply-accumulates (which LLVM also forms
# from portable code now and then), and the SIMD widenings, subtractions and selects, which it
# never selects from portable code: only the runtime's `dsp` wrappers put them in.
DSP_MACS = {"smlad", "smladx", "smlald", "smlabb", "smlabt", "smlatb", "smlatt", "smulbb",
            "smultt", "smuad"}
DSP_SIMD = {"sxtb16", "sxtab16", "ssub8", "ssub16", "sel"}
# The runtime's DSP modules, by the demangled paths of their functions: each op's `dsp` module
# (`kernels::conv::dsp::pointwise::...`, `kernels::pooling::dsp::...`) and the shared pieces of
# the blocked loops.
DSP_MODULES = re.compile(r"stowplan::kernels::(\w+::dsp\w*::|shared::(blocked\w*|binary_walk)::)")


# The DSP cores the device sweep runs on (--core): rustc's target, its extra flags (the runtime's
# build script sets cfg `stowplan_dsp` for thumbv7em, and for thumbv8m.main built for a DSP core),
# QEMU's board and CPU.
CORES = {
    "m4": ("thumbv7em-none-eabihf", [], "mps2-an386", "cortex-m4"),
    "m33": ("thumbv8m.main-none-eabihf", ["-C", "target-cpu=cortex-m33"], "mps2-an505", "cortex-m33"),
}


def dsp_check(elf):
    """The firmware's DSP kernels: (functions of the runtime's DSP modules not
    inlined, DSP multiply-accumulates, SIMD widenings and selects). The modules exist only with
    cfg `stowplan_dsp` (the runtime's build script sets it for the DSP targets), and the SIMD
    instructions come only from them: none of those in any image of a sweep with ops that have
    DSP kernels means the firmware runs the portable kernels, and that is an error
    (`dsp_missing`). One image may lack them: the compiler drops a DSP path its models'
    constant parameters never take (an ADD image of broadcasts alone)."""
    symbols = [line for line in tool("arm-none-eabi-nm", "-C", str(elf)).splitlines()
               if DSP_MODULES.search(line)]
    # Instruction lines: "  addr:\tmnemonic\toperands".
    code = [line.split("\t")[1].strip() for line in
            tool("arm-none-eabi-objdump", "-d", "--no-show-raw-insn", str(elf)).splitlines()
            if "\t" in line]
    mac = sum(1 for op in code if op in DSP_MACS)
    simd = sum(1 for op in code if op in DSP_SIMD)
    return len(symbols), mac, simd


def dsp_missing(elf, functions, mac):
    """Exits: no image of the sweep has the runtime's DSP kernels (`dsp_check`)."""
    sys.exit(f"the firmware {elf} lacks the runtime's DSP kernels ({functions} functions "
             f"of the kernels' DSP modules, {mac} DSP multiply-accumulates, no SXTB16, SXTAB16, SSUB8, "
             "SSUB16 or SEL): is cfg stowplan_dsp set for this target (runtime/build.rs)?")


def parse_device(out, text):
    """Writes ours/<id>.bin and ours/<id>.params from the firmware's output (device.rs's
    format); returns the failures it shows (a model it stopped in, a malformed line)."""
    failures = []
    current = None
    data = bytearray()
    params = []
    done = False
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("o ") and current is not None:
            try:
                data += bytes.fromhex(line[2:])
            except ValueError:
                failures.append(f"firmware output line {n}: not hex: {line[:80]!r}")
                current = None
        elif line.startswith("p ") and current is not None:
            params.append(line[2:])
        elif line.startswith("begin "):
            current, data, params = line[6:], bytearray(), []
        elif line.startswith("end ") and current is not None:
            mid, _, count = line[4:].partition(" ")
            if mid != current or count != str(len(data)):
                failures.append(f"firmware output line {n}: {line!r} after {len(data)} bytes of {current}")
            else:
                (out / "ours" / f"{mid}.bin").write_bytes(bytes(data))
                (out / "ours" / f"{mid}.params").write_text("".join(p + "\n" for p in params))
            current = None
        elif line.startswith("done "):
            done = True
        elif line.startswith(("panic ", "hardfault ", "error ")):
            failures.append(f"the firmware stopped in {current or 'no model'}: {line}")
    if not done and not failures:
        failures.append(f"the firmware stopped in {current or 'no model'} without a message")
    return failures


def device_sweep(out, seed, slice_k, ops, values, jobs, runtime=None, locked=True, core="m4"):
    """sweep() on a DSP core (CORES: the Cortex-M4, thumbv7em-none-eabihf on mps2-an386, or the
    M33): generates the firmware, builds it for the core, runs it under QEMU, runs TFLM, compares. A slice larger than one image's RAM or flash runs
    as several images, one after the other (`gen --part K`). Returns (rows, failures)."""
    firmware_failures = []
    part, parts = 0, 1
    # The DSP check of the images with ops that have DSP kernels: (elf, functions, MACs, SIMD).
    checks = []
    while part < parts:
        manifest, failures, check = device_image(out, seed, slice_k, ops, values, part, runtime,
                                                 locked, core)
        firmware_failures += failures
        checks += [check] if check else []
        parts = manifest["parts"]
        part += 1
    if checks and not any(simd for _, _, _, simd in checks):
        dsp_missing(*checks[0][:3])
    rows, failures = tflm_and_compare(out, manifest, jobs)
    return rows, firmware_failures + failures


def device_image(out, seed, slice_k, ops, values, part, runtime, locked, core):
    """Generates, builds and runs firmware image `part` of a device sweep, writing its models'
    outputs to ours/. Returns (the manifest, the failures the firmware shows, its DSP check or
    None when no model of the image has an op with DSP kernels)."""
    t0 = time.time()
    gen = ["run", "-q", "-p", "stowplan-conformance"]
    if locked:
        gen.insert(1, "--locked")
    gen += ["--", "gen", "--device", "--out", str(out), "--seed", str(seed), "--values",
            str(values), "--part", str(part)]
    if slice_k:
        gen += ["--slice", str(slice_k)]
    if ops:
        gen += ["--ops", ops]
    if runtime:
        gen += ["--runtime", str(runtime)]
    cargo(*gen)
    manifest = json.loads((out / "manifest.json").read_text())
    if manifest["parts"] > 1:
        log(f"  firmware image {part + 1} of {manifest['parts']}")
    firmware = out / "firmware"
    # The firmware's dependencies at the versions the Cortex-M example locks (a starting point:
    # cargo drops what the firmware does not use), so the build needs no other crates; without
    # that file cargo resolves them itself.
    lock = firmware / "Cargo.lock"
    seed_lock = REPO / "examples" / "cortex-m" / "Cargo.lock"
    if not lock.exists() and seed_lock.exists():
        shutil.copy(seed_lock, lock)
    t1 = time.time()
    log(f"  generated in {t1 - t0:.1f} s ({manifest['ram_bytes']:,} B of arenas, "
        f"{manifest['flash_bytes']:,} B of inputs and models)")
    triple, flags, board, cpu = CORES[core]
    # The core's flags for the firmware's crates alone (with --target, RUSTFLAGS do not reach
    # the host's build scripts and macros).
    rustflags = " ".join([os.environ.get("RUSTFLAGS", ""), *flags]).strip()
    env = {"RUSTFLAGS": rustflags} if flags else {}
    config = []
    if runtime is not None:
        # A mutant's firmware (--self-test) only has to show that the suite fails on it: built
        # in parallel codegen units (every core), not in the one unit of the shipped profile,
        # and the runtime crate unoptimised: its generic kernels, which the models instantiate,
        # are optimised in the firmware's crate as they ship, and the crate itself builds in
        # about 3.5 s rather than 7.5 s (most of a mutant's firmware build). The outputs are
        # the same; the firmware runs a second or so longer.
        env["CARGO_PROFILE_RELEASE_CODEGEN_UNITS"] = "16"
        config = ["--config", "profile.release.package.stowplan.opt-level=0"]
    cargo("build", "-q", "--release", "--target", triple, *config, "--manifest-path",
          str(firmware / "Cargo.toml"), env=env or None)
    t2 = time.time()
    elf = target_dir() / triple / "release" / manifest["package"]
    text_b, data_b, bss_b = tool("arm-none-eabi-size", str(elf)).splitlines()[1].split()[:3]
    sizes = (f"text {int(text_b):,} B, data {int(data_b):,} B, bss {int(bss_b):,} B")
    check = None
    if any(v["builtin"] in DSP_BUILTINS and
           any(m["refused"] is None and m["part"] == part for m in v["models"])
           for v in manifest["variants"]):
        functions, mac, other = dsp_check(elf)
        check = (elf, functions, mac, other)
        log(f"  firmware built in {t2 - t1:.1f} s: {sizes}; DSP kernels: {functions} functions "
            f"of kernels::simd*, {mac} DSP multiply-accumulates, {other} SIMD widenings and selects")
    else:
        log(f"  firmware built in {t2 - t1:.1f} s: {sizes}; no op of the image has DSP kernels")
    qemu = ["qemu-system-arm", "-cpu", cpu, "-machine", board, "-nographic",
            "-semihosting-config", "enable=on,target=native", "-kernel", str(elf)]
    try:
        p = subprocess.run(qemu, capture_output=True, text=True, timeout=600)
        stdout, status = p.stdout, p.returncode
    except subprocess.TimeoutExpired as e:
        stdout = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        status = "timeout (600 s)"
    failures = parse_device(out, stdout)
    if status != 0:
        failures.append(f"the firmware exited with status {status}")
    log(f"  firmware ran in {time.time() - t2:.1f} s (QEMU {board}, {cpu})")
    return manifest, failures, check


def standalone_manifest(text):
    """A member's Cargo.toml with the `key.workspace = true` fields of its package replaced by
    the workspace's values and its `[lints] workspace = true` dropped."""
    import tomllib

    package = tomllib.loads((REPO / "Cargo.toml").read_text())["workspace"]["package"]
    out = []
    section = None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            section = stripped
        key, sep, value = stripped.partition(".workspace = ")
        if section == "[package]" and sep and value == "true" and key in package:
            out.append(f"{key} = {json.dumps(package[key])}")
        elif section == "[lints]" and stripped == "workspace = true":
            continue
        else:
            out.append(line)
    return "\n".join(out) + "\n"


# Lowerings gone wrong, applied to the generated code of a slice (as a bug in the planner's
# lowering would write it): each must stop the build at the kernel's compile-time check
# (`kernels::check_*` on the views' lengths, `kernels::overlap::check_*` for one buffer), whose
# message names the op. (name, pattern, rewrite of the first match in one module).
LOWERING_MUTANTS = [
    # A filter one row taller than the filter's view.
    ("lowering-filter", re.compile(r"filter: \[(\d+), (\d+), "),
     lambda m: f"filter: [{m.group(1)}, {int(m.group(2)) + 1}, "),
    # An output one column wider than the output's view.
    ("lowering-output", re.compile(r"output: \[(\d+), (\d+), (\d+), "),
     lambda m: f"output: [{m.group(1)}, {m.group(2)}, {int(m.group(3)) + 1}, "),
    # One output channel more than the requantisation has entries.
    ("lowering-channels", re.compile(r"filter: \[(\d+), (\d+), (\d+), (\d+)\],\n(\s*)output: \[(\d+), (\d+), (\d+), (\d+)\]"),
     lambda m: (f"filter: [{int(m.group(1)) + 1}, {m.group(2)}, {m.group(3)}, {m.group(4)}],\n"
                f"{m.group(5)}output: [{m.group(6)}, {m.group(7)}, {m.group(8)}, {int(m.group(9)) + 1}]")
     if m.group(1) == m.group(9) else m.group(0)),
]
CHECK_FAILED = "its kernel's preconditions do not hold for the views the plan gives it"


def lowering_self_test(args):
    """Each of LOWERING_MUTANTS, written into one module of a generated slice of the ops with
    compile-time checks, must make the build fail at that module's check."""
    out = target_dir() / "conformance" / "mutant-lowering"
    if out.exists():
        shutil.rmtree(out)
    cargo("run", "-q", "--locked", "-p", "stowplan-conformance", "--", "gen", "--out", str(out),
          "--seed", str(args.seed), "--slice", str(args.slice), "--values", "1000",
          "--ops", "conv,depthwise_conv")
    modules = sorted((out / "sweep" / "src" / "gen").glob("*.rs"))
    used, expected = set(), {}
    for name, pattern, rewrite in LOWERING_MUTANTS:
        for path in modules:
            if path in used:
                continue
            text = path.read_text()
            m = pattern.search(text)
            if not m or "kernels::check_" not in text and "overlap::check_" not in text:
                continue
            changed = rewrite(m)
            if changed == m.group(0):
                continue
            path.write_text(text[:m.start()] + changed + text[m.end():])
            used.add(path)
            expected[name] = path.stem
            break
        else:
            log(f"mutant {name}: no generated module to perturb in this slice")
            return False
    cmd = ["cargo", "build", "-q", "--manifest-path", str(out / "sweep" / "Cargo.toml")]
    p = subprocess.run(cmd, capture_output=True, text=True,
                       env={**os.environ, "CARGO_TARGET_DIR": str(target_dir())})
    ok = True
    for name, module in expected.items():
        # rustc names the file of each failed constant; the check's message follows it.
        caught = p.returncode != 0 and any(
            f"{module}.rs" in block and CHECK_FAILED in block
            for block in p.stderr.split("\nerror"))
        if caught:
            log(f"mutant {name}: caught (gen/{module}.rs does not compile: {CHECK_FAILED})")
        else:
            log(f"mutant {name}: NOT caught: gen/{module}.rs compiles, or fails elsewhere")
            ok = False
    return ok


def self_test(args):
    """Each mutant of MUTANTS (DEVICE_MUTANTS with --device) must make the suite fail."""
    ok = True
    mutants, ops = (DEVICE_MUTANTS, DEVICE_MUTANT_OPS) if args.device else (MUTANTS, MUTANT_OPS)
    for name, (rel, old, new) in mutants.items():
        if args.mutants and name not in args.mutants.split(","):
            continue
        base = target_dir() / "conformance" / f"mutant-{name}"
        runtime = base / "runtime"
        if runtime.exists():
            shutil.rmtree(runtime)
        shutil.copytree(REPO / "runtime", runtime, ignore=shutil.ignore_patterns("target"))
        # The copy's path dependencies point back at the repository's crates, and the fields
        # it inherits from the workspace are written out (the copy may lie outside the
        # repository, with a CARGO_TARGET_DIR elsewhere).
        manifest = runtime / "Cargo.toml"
        text = manifest.read_text()
        for dep in ("math", "macros"):
            text = text.replace(f'path = "../{dep}"', f'path = "{(REPO / dep).as_posix()}"')
        manifest.write_text(standalone_manifest(text))
        f = runtime / rel
        text = f.read_text()
        if text.count(old) != 1:
            log(f"mutant {name}: the pattern is not (once) in runtime/{rel}; update MUTANTS")
            ok = False
            continue
        f.write_text(text.replace(old, new))
        log(f"mutant {name}: runtime/{rel} perturbed")
        if args.device:
            # Its own sweep directory name: the firmware's package name follows it.
            rows, failures = device_sweep(base / f"device-{name}", args.seed,
                                          max(args.slice, MUTANT_SLICES.get(name, 0)),
                                          ops[name], args.values, args.jobs, runtime=runtime,
                                          core=args.core)
        else:
            rows, failures = sweep(base / "sweep", args.seed,
                                   max(args.slice, MUTANT_SLICES.get(name, 0)), ops[name],
                                   args.values, args.jobs, runtime=runtime)
        differing = sum(r["values"] - r["identical"] for r in rows.values())
        if failures:
            log(f"mutant {name}: caught ({len(failures)} models fail, {differing:,} output values differ)")
        else:
            log(f"mutant {name}: NOT caught: the suite passes a wrong kernel")
            ok = False
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--full", action="store_true", help="every variant (default: the CI slice)")
    ap.add_argument("--slice", type=int, default=40,
                    help="keep about K variants, spread over the ops and types (default 40)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ops", help="only these op modules, comma-separated")
    ap.add_argument("--values", type=int, default=10_000,
                    help="output values per variant at least (default 10000)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--table", help="write the table (markdown) to this file")
    ap.add_argument("--self-test", action="store_true",
                    help="run the slice with each perturbed kernel; each must fail")
    ap.add_argument("--mutants", help="with --self-test: only these mutants, comma-separated")
    ap.add_argument("--device", action="store_true",
                    help="the int8 and int16 slice on the Cortex-M4 under QEMU")
    ap.add_argument("--core", choices=sorted(CORES), default="m4",
                    help="with --device: the Cortex-M4 (mps2-an386, default) or the Cortex-M33 "
                         "(mps2-an505, thumbv8m.main-none-eabihf, -C target-cpu=cortex-m33)")
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.core != "m4" and not args.device:
        ap.error("--core is for --device sweeps")
    if args.child:
        tflm_child(Path(args.child[0]), args.child[1:])
        return 0
    check_version()
    import tflm

    tflm.self_test()
    parse_debug_self_test()
    log("TFLM's functions (ctypes) and the transcribed glue match TFLM's golden values")
    if args.self_test:
        known = DEVICE_MUTANTS if args.device else MUTANTS
        unknown = [m for m in (args.mutants or "").split(",") if m and m not in known]
        if unknown:
            sys.exit(f"unknown mutants {', '.join(unknown)}; known: {', '.join(known)}")
        ok = self_test(args)
        if not args.device and not args.mutants:
            ok = lowering_self_test(args) and ok
        return 0 if ok else 1
    slice_k = None if args.full else args.slice
    name = ((f"device-{args.core}-" if args.core != "m4" else "device-") if args.device else "") + \
        ("full" if args.full else f"slice-{args.slice}")
    out = target_dir() / "conformance" / f"{name}-seed{args.seed}"
    log(f"conformance sweep {name}, seed {args.seed} -> {out}")
    if args.device:
        rows, failures = device_sweep(out, args.seed, slice_k, args.ops, args.values, args.jobs,
                                      core=args.core)
    else:
        rows, failures = sweep(out, args.seed, slice_k, args.ops, args.values, args.jobs)
    text = table(rows)
    print()
    print(text)
    if args.table and args.ops:
        text = merge_table(Path(args.table) if Path(args.table).is_absolute() else REPO / args.table,
                           {op.strip() for op in args.ops.split(",")}, text)
    if args.table:
        cmd = "python3 tests/conformance/run.py --full" if args.full else \
            f"python3 tests/conformance/run.py --slice {args.slice}"
        if args.device:
            cmd += " --device" + (f" --core {args.core}" if args.core != "m4" else "")
        table_path = Path(args.table)
        if not table_path.is_absolute():
            table_path = REPO / table_path
        table_path.parent.mkdir(parents=True, exist_ok=True)
        table_path.write_text(
            "# Conformance with TensorFlow Lite Micro\n\n"
            "Generated by `" + cmd + f" --seed {args.seed} --table {args.table}`"
            f" against tflite-micro {TFLM_VERSION} (reference kernels). Every output value "
            "of every model is compared byte for byte, and every parameter the build computes "
            "with what TFLM's Prepare computes (TFLM's own functions through ctypes, its per-op "
            "glue transcribed in `tests/conformance/<module>.py`). A variant is an op, its types, "
            "its options and a shape class (`tests/conformance/<module>.rs`); its models are drawn "
            "from the seed, with scales from 1e-6 to 1e2, zero points over the type's whole range, "
            "and inputs at the edges (the type's minimum and maximum, the zero point, alternating) "
            "and at random. \"Refused by both\" counts drawn models that TFLM's Prepare and "
            "stowplan's build both refuse.\n\n" + text + "\n")
    total = sum(r["values"] for r in rows.values())
    same = sum(r["identical"] for r in rows.values())
    # Ops run with the output over the input where the plan puts it there (generated `invoke`
    # plans overlaps by default): the suite must exercise that layout.
    kinds = overlap_kinds()
    counts = overlapped_models(out, kinds)
    print()
    parts = []
    for (label, fits, names, order), overlapped in zip(kinds, counts):
        models = sum(r["models"] for k, r in rows.items() if k[0] in names)
        if models:
            parts.append(f"{overlapped} of {models} {label} models")
        # Wherever a kind has models, some must run overlapped (a sweep where none does would
        # not exercise that layout): every kind in a full sweep, the window ops in a slice too
        # (a slice may draw only shapes that cannot overlap, such as one FULLY_CONNECTED row).
        required = args.full or order == "window"
        if models and not overlapped and required:
            failures = failures + [f"no {label} model ran with its output over its input"]
    if parts:
        print(", ".join(parts) + " ran with the output over the input it consumes")
    if failures:
        for f in failures[:40]:
            print("FAIL", f)
        if len(failures) > 40:
            print(f"... and {len(failures) - 40} more")
        print(f"\n{len(failures)} models fail; {total - same:,} of {total:,} output values differ")
        return 1
    print(f"every output value ({total:,}) and every parameter is identical with TFLite Micro")
    return 0


if __name__ == "__main__":
    sys.exit(main())
