"""RESHAPE's, SQUEEZE's and EXPAND_DIMS's Prepare checks as TFLM has them. stowplan's calls
have no parameter constant (a copy, or nothing where the output aliases the input), so this
only says which models TFLM refuses.

tensorflow/lite/micro/kernels/reshape_common.cc:32-92 (ReshapeOutput,
PrepareReshapeReference), squeeze.cc:47-88 (SqueezePrepare), expand_dims.cc:32-110
(GetAxisValueFromTensor, VerifyTensorDim, ExpandDimsPrepare) and :119-147 (ExpandDimsEval).
"""

import math

import tflm

RESHAPE, SQUEEZE, EXPAND_DIMS = 22, 43, 70


def expected(op):
    inp, out = op.input(0), op.output
    if op.code == RESHAPE:
        # reshape_common.cc:88-89
        if len(op.inputs) not in (1, 2):
            raise tflm.PrepareFails("RESHAPE takes 1 or 2 inputs")
        # reshape_common.cc:44-78: the output tensor's own shape (one -1 stretched), the
        # element counts equal, the types equal; the shape input is not read.
        shape = list(out.shape)
        if len(op.inputs) == 1 and shape == [0]:
            shape = []
        if shape.count(-1) > 1:
            raise tflm.PrepareFails("more than one -1")
        known = math.prod(d for d in shape if d != -1)
        if -1 in shape:
            known *= math.prod(inp.shape) // known
        if inp.dtype != out.dtype or known != math.prod(inp.shape):
            raise tflm.PrepareFails("types or element counts differ")
        return {}
    if op.code == SQUEEZE:
        # squeeze.cc:48, 60-61: one input, at most 8 dimensions; without squeeze_dims every
        # dimension of 1 goes (:64-69), and the others are checked in order (:81-85).
        if len(op.inputs) != 1 or len(inp.shape) > 8:
            raise tflm.PrepareFails("SQUEEZE takes one input of at most 8 dimensions")
        dims = getattr(op.options, "squeezeDims", None)
        if dims is not None and len(dims):
            keep = [d for i, d in enumerate(inp.shape)
                    if i not in {(v + len(inp.shape)) % len(inp.shape) for v in dims}]
        else:
            keep = [d for d in inp.shape if d != 1]
        if any(o < k for o, k in zip(out.shape, keep)) or len(out.shape) < len(keep):
            raise tflm.PrepareFails("the output is smaller than the squeezed input")
        return {}
    if op.code == EXPAND_DIMS:
        axis = op.input(1)
        # expand_dims.cc:90, 102-103: two inputs, the axis a constant; :36-49: of rank 0 or 1,
        # int32.
        if len(op.inputs) != 2 or axis.data is None or len(axis.shape) > 1 \
                or axis.dtype != "int32":
            raise tflm.PrepareFails("the axis is not a constant int32 scalar or [1]")
        a = axis.ints()[0]
        r = len(inp.shape)
        # expand_dims.cc:63-84
        if a < 0:
            a = r + 1 + a
        want = list(inp.shape[:a]) + [1] + list(inp.shape[a:])
        if not 0 <= a <= r or list(out.shape) != want:
            raise tflm.PrepareFails("the output is not the input with a 1 at the axis")
        # expand_dims.cc:127-140: the types its Eval copies.
        if inp.dtype not in ("float32", "int16", "int8"):
            raise tflm.PrepareFails(f"EXPAND_DIMS does not take {inp.dtype}")
        return {}
    raise tflm.PrepareFails(f"builtin {op.code}")
