"""BATCH_MATMUL's Prepare as TFLM computes it.

tensorflow/lite/micro/kernels/batch_matmul.cc:172-275 (BatchMatMulPrepare), :277-342 (EvalInt8,
EvalInt16: the FullyConnectedParams the kernel gets), batch_matmul_common.cc:31-69
(ReshapeOutputTensor) and tensorflow/lite/kernels/kernel_util.cc:326-336
(GetQuantizedConvolutionMultipler, four arguments).

stowplan's BatchMatMulShape right-aligns both operands into 5 dimensions (leading 1s), as
TFLM's reference kernel does (RuntimeShape::ExtendedShape(5, ...)).
"""

import math

import tflm

INT_RANGE = {"int8": (-128, 127), "int16": (-32768, 32767)}


def expected(op):
    lhs, rhs, out = op.input(0), op.input(1), op.output
    o = op.options
    adj_x = bool(o.adjX) if o is not None else False
    adj_y = bool(o.adjY) if o is not None else False
    # batch_matmul.cc:174-197: two inputs, one output, float32 / int8 / int16 all alike.
    if len(op.inputs) != 2 or len(op.outputs) != 1:
        raise tflm.PrepareFails("BATCH_MATMUL takes two inputs and one output")
    if lhs.dtype not in ("float32", "int8", "int16") or rhs.dtype != lhs.dtype or \
            out.dtype != lhs.dtype:
        raise tflm.PrepareFails(f"{lhs.dtype} x {rhs.dtype} -> {out.dtype}")
    # :199-206 ranks 2 to 5.
    for t in (lhs, rhs):
        if not 2 <= len(t.shape) <= 5:
            raise tflm.PrepareFails(f"rank {len(t.shape)}")
    l5 = [1] * (5 - len(lhs.shape)) + lhs.shape
    r5 = [1] * (5 - len(rhs.shape)) + rhs.shape
    rank = max(len(lhs.shape), len(rhs.shape))
    # :255-264 batch dimensions broadcast; :268-272 the depths agree.
    batches = []
    for d in range(5 - rank, 3):
        x, y = l5[d], r5[d]
        if x != y and x != 1 and y != 1:
            raise tflm.PrepareFails("batch dimensions do not broadcast")
        batches.append(y if x == 1 else x)
    depth = l5[3] if adj_x else l5[4]
    if depth != (r5[4] if adj_y else r5[3]):
        raise tflm.PrepareFails("the depths differ")
    rows = l5[4] if adj_x else l5[3]
    cols = r5[3] if adj_y else r5[4]
    # batch_matmul_common.cc:38 and :63: rank no larger than the output's, elements unchanged.
    if rank > len(out.shape) or math.prod(batches + [rows, cols]) != math.prod(out.shape):
        raise tflm.PrepareFails("the output would be resized")
    shape = {"lhs": l5, "rhs": r5, "adj_x": adj_x, "adj_y": adj_y}
    if lhs.dtype == "float32":
        return {"shape": shape}
    if lhs.dtype == "int16" and (lhs.z != 0 or rhs.z != 0 or out.z != 0):
        raise tflm.PrepareFails("int16 zero points must be 0")  # :239-241
    # kernel_util.cc:330: the product of the scales, here in double as the pinned wheel computes
    # it (see fully_connected.py), must not be negative; divided by the output scale.
    product = float(tflm.F32(lhs.s)) * float(tflm.F32(rhs.s))
    if product < 0:
        raise tflm.PrepareFails("negative scales")
    requant = tflm.quantize_multiplier(product / float(tflm.F32(out.s)))
    lo, hi = INT_RANGE[lhs.dtype]
    return {
        "shape": shape,
        # :287-290 input_offset = -lhs zero point, weights_offset = -rhs zero point.
        "lhs_offset": -lhs.z,
        "rhs_offset": -rhs.z,
        "output_offset": out.z,
        "requant": requant,
        # :224-237 the type's range: BATCH_MATMUL has no fused activation.
        "act_min": lo,
        "act_max": hi,
    }
