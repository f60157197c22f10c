"""GATHER's parameters as TFLM computes them.

tensorflow/lite/micro/kernels/gather.cc:103-183 (GatherPrepare: 2 inputs, int32 coordinates,
float32 or int8 data, the axis and batch_dims checks, the output shape) and :31-98 (Gather: the
batch, outer, coordinate, axis and inner sizes).
"""

import math

import tflm


def expected(op):
    if len(op.inputs) != 2 or len(op.outputs) != 1:
        raise tflm.PrepareFails("GATHER takes 2 inputs and 1 output")
    inp, coords, out = op.input(0), op.input(1), op.output
    if coords.dtype != "int32":
        raise tflm.PrepareFails(f"positions of type {coords.dtype}")
    if inp.dtype not in ("float32", "int8"):
        raise tflm.PrepareFails(f"GATHER of {inp.dtype}")
    o = op.options
    axis, batch_dims = o.axis, o.batchDims
    rank, crank = len(inp.shape), len(coords.shape)
    if axis < 0:
        axis += rank
    if not 0 <= axis < rank:
        raise tflm.PrepareFails("axis out of range")
    if batch_dims < 0:
        batch_dims += crank
    if not (batch_dims <= axis and 0 <= batch_dims < rank and batch_dims <= crank):
        raise tflm.PrepareFails("batch_dims out of range")
    if inp.shape[:batch_dims] != coords.shape[:batch_dims]:
        raise tflm.PrepareFails("batch dimensions differ")
    shape = inp.shape[:axis] + coords.shape[batch_dims:] + inp.shape[axis + 1:]
    if shape != out.shape:
        raise tflm.PrepareFails(f"output shape {out.shape}, Prepare computes {shape}")
    return {
        "batch": math.prod(inp.shape[:batch_dims]),
        "outer": math.prod(inp.shape[batch_dims:axis]),
        "coords": math.prod(coords.shape[batch_dims:]),
        "axis_size": inp.shape[axis],
        "inner": math.prod(inp.shape[axis + 1:]),
    }
