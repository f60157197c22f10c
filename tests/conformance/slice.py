"""SLICE's parameters as TFLM computes them.

tensorflow/lite/micro/kernels/slice.cc:45-77 (SlicePrepare: DCHECKs only, which the release
build skips), :79-110 (SliceEval: begin and size front-padded into 5 int32 entries, begin 0 and
size 1 for the added dimensions, GetBeginAndSizeVectors reading both as the begin's type) and
tensorflow/lite/kernels/internal/reference/slice.h:80-100 (start, and stop = the dimension for a
size of -1, else start + size, over ExtendedShape(5, input)).
"""

import tflm

TYPES = ("float32", "int32", "int8", "int16", "bool")


def expected(op):
    inp, begin, size, out = op.input(0), op.input(1), op.input(2), op.output
    # slice.cc:49-50
    if len(op.inputs) != 3 or len(op.outputs) != 1:
        raise tflm.PrepareFails("SLICE takes 3 inputs and 1 output")
    # slice.cc:104-146: the types SliceEval takes (the output's is the input's).
    if inp.dtype not in TYPES or out.dtype != inp.dtype:
        raise tflm.PrepareFails(f"SLICE of {inp.dtype}")
    # slice.cc:92-103: begin int32 or int64; size read as the same type.
    if begin.dtype not in ("int32", "int64") or size.dtype != begin.dtype:
        raise tflm.PrepareFails("begin and size are not both int32 or both int64")
    dims = len(inp.shape)
    if dims > 5:
        raise tflm.PrepareFails("rank above kMaxDim")
    s = size.ints()
    begins, sizes = [0] * 5, [1] * 5
    offset = 5 - dims
    if begin.data is None:
        # A begin read when the op runs: the window of the (constant) sizes.
        for i in range(dims):
            sizes[offset + i] = tflm.wrap_i32(s[i])
        return {"input": [1] * offset + list(inp.shape), "output": sizes, "rank": dims}
    b = begin.ints()
    for i in range(dims):
        begins[offset + i] = tflm.wrap_i32(b[i])
        sizes[offset + i] = tflm.wrap_i32(s[i])
    ext = [1] * offset + list(inp.shape)
    stop = [ext[i] if sizes[i] == -1 else begins[i] + sizes[i] for i in range(5)]
    if any(not 0 <= begins[i] <= stop[i] <= ext[i] for i in range(5)):
        raise tflm.PrepareFails("the slice leaves the input (reads out of bounds)")
    return {"input": ext, "begin": begins, "output": [stop[i] - begins[i] for i in range(5)]}
