"""SignalWindow's Init and Prepare as TFLM computes them.

signal/micro/kernels/window.cc:45-56 (WindowInit: 'shift' is option 0), :58-91 (WindowPrepare:
two inputs, one output, int16, weights of rank 1, input and output of one rank); WindowEval
:93-111 steps through the input by the weights' length.
"""

import math

import signal_options as so
import tflm


def expected(op):
    inp, weights, out = op.input(0), op.input(1), op.output
    if len(op.inputs) != 2 or len(op.outputs) != 1:
        raise tflm.PrepareFails("arity")
    if so.dims(inp) < 1 or so.dims(weights) != 1 or so.dims(inp) != so.dims(out):
        raise tflm.PrepareFails("ranks")
    if {inp.dtype, weights.dtype, out.dtype} != {"int16"}:
        raise tflm.PrepareFails("types")
    shift = so.int32(so.values(op), 0)
    return {"shift": shift}
