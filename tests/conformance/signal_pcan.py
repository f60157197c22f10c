"""SignalPCAN's Init and Prepare as TFLM computes them.

signal/micro/kernels/pcan.cc:45-53 (PcanInit: 'snr_shift' is option 0), :55-87 (PcanPrepare:
three inputs and one output of rank 1: uint32, uint32, int16, uint32).
"""

import signal_options as so
import tflm


def expected(op):
    if len(op.inputs) != 3 or len(op.outputs) != 1:
        raise tflm.PrepareFails("arity")
    inp, noise, lut, out = op.input(0), op.input(1), op.input(2), op.output
    if any(so.dims(t) != 1 for t in (inp, noise, lut, out)):
        raise tflm.PrepareFails("ranks")
    if (inp.dtype, noise.dtype, lut.dtype, out.dtype) != ("uint32", "uint32", "int16", "uint32"):
        raise tflm.PrepareFails("types")
    return {"snr_shift": so.int32(so.values(op), 0)}
