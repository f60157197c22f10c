"""GATHER_ND's parameters as TFLM computes them.

tensorflow/lite/micro/kernels/gather_nd.cc:31-108 (GatherNdPrepare: the types, ranks and index
depth, the output shape) and :110-150 (GatherNd: slices, slice size, dims_to_count).
"""

import math

import tflm


def expected(op):
    if len(op.inputs) != 2 or len(op.outputs) != 1:
        raise tflm.PrepareFails("GATHER_ND takes 2 inputs and 1 output")
    params, indices, out = op.input(0), op.input(1), op.output
    if params.dtype not in ("float32", "int8") or indices.dtype != "int32":
        raise tflm.PrepareFails("types")
    prank, irank = len(params.shape), len(indices.shape)
    if prank < 1 or irank < 1:
        raise tflm.PrepareFails("params and indices must be at least vectors")
    nd = indices.shape[-1]
    if nd > prank or nd > 5:
        raise tflm.PrepareFails("index depth")
    shape = indices.shape[:-1] + params.shape[nd:]
    if shape != out.shape:
        raise tflm.PrepareFails(f"output shape {out.shape}, Prepare computes {shape}")
    flat = math.prod(params.shape)
    strides, remain = [0] * 5, flat
    for i in range(nd):
        remain //= params.shape[i]
        strides[i] = remain
    return {
        "slices": math.prod(indices.shape[:-1]),
        "index_depth": nd,
        "slice_size": math.prod(params.shape[nd:]),
        "strides": strides,
        "params_size": flat,
    }
