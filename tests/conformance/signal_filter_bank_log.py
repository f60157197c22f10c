"""SignalFilterBankLog's Init and Prepare as TFLM computes them, and TFLM's log table.

signal/micro/kernels/filter_bank_log.cc:45-62 (FilterBankLogInit: 'input_correction_bits' is
option 0, 'output_scale' option 1), :64-85 (FilterBankLogPrepare: uint32 in, int16 out, rank
1); signal/src/log.cc:24-36 (kLogLut, which stowplan computes from its formula: compared here
against the values TFLM's source holds, transcribed below as their formula's check).
"""

import math

import signal_options as so
import tflm

# signal/src/log.cc:24-36, kLogLut: 129 segment values and one pad. Spot values from the source
# check the formula stowplan computes the whole table with.
SPOTS = {0: 0, 1: 224, 2: 442, 10: 1992, 32: 4714, 57: 5641, 64: 5568, 100: 3384, 127: 142,
         128: 0, 129: 0}


def log_lut():
    t = [math.floor(65536 * (math.log2(1 + i / 128) - i / 128) + 0.5) for i in range(129)] + [0]
    assert all(t[i] == v for i, v in SPOTS.items())
    return t


def expected(op):
    inp, out = op.input(0), op.output
    if len(op.inputs) != 1 or len(op.outputs) != 1:
        raise tflm.PrepareFails("arity")
    if so.dims(inp) != 1 or so.dims(out) != 1:
        raise tflm.PrepareFails("ranks")
    if inp.dtype != "uint32" or out.dtype != "int16":
        raise tflm.PrepareFails("types")
    vals = so.values(op)
    return {
        "input_correction_bits": so.int32(vals, 0),
        "output_scale": so.int32(vals, 1) & 0xFFFFFFFF,
        "lut": log_lut(),
    }
