"""CONCATENATION's Prepare as TFLM computes it. stowplan's call has no parameter constant (the
outer size and the inner sizes are literals of the call), so only TFLM's checks are
transcribed here, for models built by hand.

tensorflow/lite/micro/kernels/concatenation.cc:128-226 (ConcatenationPrepare).
"""

import tflm

TYPES = ("float32", "int8", "int16", "int32", "int64", "bool")


def expected(op):
    out = op.output
    first = op.input(0)
    # concatenation.cc:147: no fused activation.
    if tflm.ACTIVATIONS[op.options.fusedActivationFunction] != "NONE":
        raise tflm.PrepareFails("a fused activation")
    # concatenation.cc:148-154: the types, the output's equal to the input's.
    if first.dtype not in TYPES or out.dtype != first.dtype:
        raise tflm.PrepareFails(f"types {first.dtype} -> {out.dtype}")
    # concatenation.cc:158: at most 10 inputs.
    if len(op.inputs) > 10:
        raise tflm.PrepareFails("more than 10 inputs")
    for t in op.inputs:
        # concatenation.cc:169-178
        if t.dtype != first.dtype or len(t.shape) > 6:
            raise tflm.PrepareFails("an input of another type or of rank above 6")
        # concatenation.cc:180-186: int8 inputs quantised exactly as the output.
        if t.dtype == "int8" and (float(tflm.F32(t.s)) != float(tflm.F32(out.s)) or t.z != out.z):
            raise tflm.PrepareFails("an int8 input quantised unlike the output")
        # concatenation.cc:187-190
        if t.dtype == "int16" and t.z != 0:
            raise tflm.PrepareFails("an int16 input with a zero point")
    # concatenation.cc:204-206
    if first.dtype == "int16" and out.z != 0:
        raise tflm.PrepareFails("an int16 output with a zero point")
    return {}
