"""SignalFftAutoScale's Prepare as TFLM computes it: no parameters.

signal/micro/kernels/fft_auto_scale_common.cc:26-52 (FftAutoScalePrepare: one input, two
outputs; int16 input and output of rank 1, an int32 scalar).
"""

import signal_options as so
import tflm


def expected(op):
    inp, out, scale = op.input(0), op.outputs[0], op.outputs[1]
    if len(op.inputs) != 1 or len(op.outputs) != 2:
        raise tflm.PrepareFails("arity")
    if so.dims(inp) != 1 or so.dims(out) != 1 or so.dims(scale) != 0:
        raise tflm.PrepareFails("ranks")
    if inp.dtype != "int16" or out.dtype != "int16" or scale.dtype != "int32":
        raise tflm.PrepareFails("types")
    return {}
