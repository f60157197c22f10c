"""STRIDED_SLICE's parameters as TFLM computes them.

tensorflow/lite/micro/kernels/strided_slice_common.cc:65-87 (BuildStridedSliceParams: begin,
end and strides read as int32, the masks into uint16_t fields, ellipsis_mask and new_axis_mask
0, offset never set), :90-125 (CheckOutputSize), :135-151 (StridedSlicePrepare: 4 inputs, rank
at most 4, constant indices); tensorflow/lite/kernels/internal/strided_slice_logic.h:33-142
(StridedSlicePadIndices to 5 dimensions, StridedSliceStartForAxis, StridedSliceEndForAxis) as
tensorflow/lite/kernels/internal/reference/strided_slice.h:160-185 calls them.

stowplan's parameters are the kernel's: the 5-D input shape and each dimension's start, stop
and stride.
"""

import math

import numpy as np

import tflm

TYPES = ("float32", "int8", "int16", "int32", "bool")


def clamp(v, lo, hi):
    # strided_slice_logic.h:31
    if hi < v:
        return hi
    if v < lo:
        return lo
    return v


def raw_int32(t, n):
    """GetTensorData<int32_t>: the first n int32 words of the data, whatever the type."""
    if t.data is None or len(t.data) < 4 * n:
        raise tflm.PrepareFails(f"{t.name} holds fewer than {n} int32 values")
    return [int(v) for v in np.frombuffer(t.data[:4 * n], dtype="<i4")]


def expected(op):
    if len(op.inputs) != 4 or len(op.outputs) != 1:
        raise tflm.PrepareFails("STRIDED_SLICE takes 4 inputs and 1 output")
    inp, out = op.input(0), op.output
    dims = len(inp.shape)
    if dims > 4:
        raise tflm.PrepareFails("input dim should not exceed 4")
    for t in op.inputs[1:]:
        if t.data is None:
            raise tflm.PrepareFails("non-constant indices")
    begin, end, strides = (raw_int32(t, dims) for t in op.inputs[1:])
    o = op.options
    mask16 = lambda m: m & 0xFFFF  # noqa: E731
    bm, em, sm = mask16(o.beginMask), mask16(o.endMask), mask16(o.shrinkAxisMask)
    # CheckOutputSize with StartForAxis / StopForAxis (strided_slice_logic.h:107-176).
    shape = []
    for idx in range(dims):
        size, stride = inp.shape[idx], strides[idx]
        if stride == 0:
            raise tflm.PrepareFails("stride value has to be non-zero")
        if size == 0:
            b = e = 0
        else:
            b = begin[idx]
            if bm & (1 << idx):
                b = -(2 ** 31) if stride > 0 else 2 ** 31 - 1
            if b < 0:
                b += size
            b = clamp(b, 0, size) if stride > 0 else clamp(b, -1, size - 1)
            if sm & (1 << idx):
                e = b + 1
            else:
                e = end[idx]
                if em & (1 << idx):
                    e = 2 ** 31 - 1 if stride > 0 else -(2 ** 31)
                if e < 0:
                    e += size
                e = clamp(e, 0, size) if stride > 0 else clamp(e, -1, size - 1)
        shrink = o.shrinkAxisMask & (1 << idx)
        if shrink:
            e = b + 1
        dim = int(math.ceil(float(np.float32(e - b) / np.float32(stride))))
        if not shrink:
            shape.append(max(dim, 0))
    if shape != list(out.shape):
        raise tflm.PrepareFails(f"output shape {out.shape}, Prepare computes {shape}")
    if out.dtype not in TYPES or inp.dtype != out.dtype:
        raise tflm.PrepareFails(f"STRIDED_SLICE of {out.dtype}")
    # StridedSlicePadIndices(&params, 5).
    pad = 5 - dims
    start5 = [0] * pad + begin
    stop5 = [1] * pad + end
    stride5 = [1] * pad + strides
    low = (1 << pad) - 1
    sm5 = (sm << pad) & 0xFFFF
    bm5 = ((bm << pad) & 0xFFFF) | low
    em5 = ((em << pad) & 0xFFFF) | low
    ext = [1] * pad + list(inp.shape)
    starts, stops = [], []
    for axis in range(5):
        size, stride = ext[axis], stride5[axis]
        # StridedSliceStartForAxis
        s = start5[axis]
        if s < 0:
            s += size
        s = clamp(s, 0, size) if stride > 0 else clamp(s, -1, size - 1)
        if bm5 & (1 << axis):
            s = 0 if stride > 0 else size - 1
        # StridedSliceEndForAxis (offset false)
        if sm5 & (1 << axis):
            e = s if s >= size else s + 1
        else:
            e = stop5[axis]
            if e < 0:
                e += size
            e = clamp(e, 0, size) if stride > 0 else clamp(e, -1, size - 1)
            if em5 & (1 << axis):
                e = size if stride > 0 else -1
        starts.append(s)
        stops.append(e)
    return {"input": ext, "start": starts, "stop": stops, "stride": stride5}
