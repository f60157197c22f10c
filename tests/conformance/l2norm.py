"""L2_NORMALIZATION's Prepare as TFLM computes it.

tensorflow/lite/micro/kernels/l2norm.cc:34-72 (L2NormPrepare) and :88-123 (L2NormEval: the
rows and depth of the last dimension).
"""

import math

import tflm


def expected(op):
    inp, out = op.input(0), op.output
    if len(op.inputs) != 1 or len(op.outputs) != 1:
        raise tflm.PrepareFails("one input and one output")
    # l2norm.cc:52-56: at most 4 dimensions, float32 or int8, the same type.
    if len(inp.shape) > 4 or out.dtype not in ("float32", "int8") or inp.dtype != out.dtype:
        raise tflm.PrepareFails("rank above 4, or types")
    # l2norm.cc:65: no fused activation.
    act = op.options.fusedActivationFunction if op.options is not None else 0
    if act != 0:
        raise tflm.PrepareFails("a fused activation")
    if not inp.shape:
        raise tflm.PrepareFails("a scalar input")
    return {
        "rows": math.prod(inp.shape[:-1]),
        "depth": inp.shape[-1],
        # l2norm.cc:58-62: the input's zero point for int8 (params, 0 without quantisation).
        "input_zero_point": inp.z if inp.dtype == "int8" else 0,
    }
