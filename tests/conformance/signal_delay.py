"""SignalDelay's Init and Prepare as TFLM computes them.

signal/micro/kernels/delay.cc:40-53 (DelayInit: 'delay_length', option 0 in key order),
:55-96 (DelayPrepare: one input and one output, both int16; frame_size the input's innermost
dimension, outer_dims the rest; each row's circular buffer filled with delay_length zeros, as
DelayReset fills it: the state starts at 0).
"""

import signal_options as so
import tflm


def expected(op):
    if len(op.inputs) != 1 or len(op.outputs) != 1:
        raise tflm.PrepareFails("arity")
    x, y = op.input(0), op.output
    if x.dtype != "int16" or y.dtype != "int16":
        raise tflm.PrepareFails("types")
    if not x.shape or x.shape[-1] == 0:
        raise tflm.PrepareFails("no innermost dimension to divide by")
    frame = x.shape[-1]
    rows = 1
    for d in x.shape[:-1]:
        rows *= d
    return {
        "frame_size": frame,
        "rows": rows,
        "delay_length": so.int32(so.values(op), 0),
    }
