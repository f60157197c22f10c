"""TRANSPOSE's Prepare and Eval set-up as TFLM computes them.

tensorflow/lite/micro/kernels/transpose_common.cc:27-52 (TransposePrepare: the checks),
transpose.cc:30-40 (TransposeEval: perm_count and perm from the constant), and
tensorflow/lite/kernels/internal/reference/transpose.h:175-201 (the strides of the input
shape, output dimension i walking input dimension perm[i]).

stowplan keeps the same geometry right-aligned into 6 dimensions: the input shape with leading
1s, and the permutation with the added leading dimensions mapped to themselves and the others
shifted by 6 - rank. Expected here: TFLM's (shape, perm) in that form.
"""

import tflm


def expected(op):
    inp, perm, out = op.input(0), op.input(1), op.output
    # transpose_common.cc:28-29
    if len(op.inputs) != 2 or len(op.outputs) != 1:
        raise tflm.PrepareFails("TRANSPOSE takes 2 inputs and 1 output")
    dims = len(inp.shape)
    # transpose_common.cc:33-36
    if dims > 5:
        raise tflm.PrepareFails("Transpose op only supports 1D-5D input arrays.")
    if inp.dtype != out.dtype:
        raise tflm.PrepareFails("types differ")
    # transpose_common.cc:38-39: the permutation is a constant (read as int32, :42).
    if perm.data is None or perm.dtype != "int32":
        raise tflm.PrepareFails("the permutation is not a constant int32 tensor")
    p = perm.ints()
    # transpose_common.cc:44-50
    if len(perm.shape) != 1 or perm.shape[0] != dims:
        raise tflm.PrepareFails("the permutation does not fit the input")
    if any(not 0 <= v < dims for v in p):
        raise tflm.PrepareFails("Transpose op permutations array is out of bounds.")
    # transpose.cc:49-72: the types its Eval takes.
    if inp.dtype not in ("float32", "int8", "int16"):
        raise tflm.PrepareFails(f"TRANSPOSE Eval does not take {inp.dtype}")
    lead = 6 - dims
    return {
        "input": [1] * lead + list(inp.shape),
        "perm": list(range(lead)) + [lead + v for v in p],
    }
