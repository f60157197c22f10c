"""SignalEnergy's Init and Prepare as TFLM computes them.

signal/micro/kernels/energy.cc:45-62 (EnergyInit: 'end_index' is option 0, 'start_index'
option 1), :64-84 (EnergyPrepare: int16 input and uint32 output of rank 1).
"""

import signal_options as so
import tflm


def expected(op):
    inp, out = op.input(0), op.output
    if len(op.inputs) != 1 or len(op.outputs) != 1:
        raise tflm.PrepareFails("arity")
    if so.dims(inp) != 1 or so.dims(out) != 1:
        raise tflm.PrepareFails("ranks")
    if inp.dtype != "int16" or out.dtype != "uint32":
        raise tflm.PrepareFails("types")
    vals = so.values(op)
    end, start = so.int32(vals, 0), so.int32(vals, 1)
    return {"start": max(start, 0), "end": max(end, 0)}
