"""MEAN's Prepare as TFLM computes it.

tensorflow/lite/micro/kernels/reduce_common.cc:33-64 (PrepareSimple), :223-260
(PrepareMeanOrSumHelper) and :290-351 (EvalMeanHelper), with
tensorflow/lite/kernels/internal/reference/reduce.h:166-197 (ResolveAxis: negative axes
wrapped, duplicates dropped).

stowplan's MeanS8 / MeanF32 right-align the input shape into 4 dimensions (leading 1s) and
mark the reduced ones; the comparison is in that form.
"""

import tflm


def resolve_axis(num_dims, axis):
    """reduce.h:166 ResolveAxis: the axes, negative ones wrapped, duplicates dropped; raises
    where it returns false (the kernel then fails, reduce_common.cc:97 / :324)."""
    out = []
    for a in axis:
        current = a + num_dims if a < 0 else a
        if current < 0 or current >= num_dims:
            raise tflm.PrepareFails(f"axis {a} of a rank-{num_dims} input")
        if current not in out:
            out.append(current)
    return out


def expected(op):
    inp, axis_t, out = op.input(0), op.input(1), op.output
    # reduce_common.cc:46-52 (PrepareSimple): two inputs, one output, an int32 axis tensor.
    if len(op.inputs) != 2 or len(op.outputs) != 1:
        raise tflm.PrepareFails("MEAN takes two inputs and one output")
    if axis_t.dtype != "int32":
        raise tflm.PrepareFails(f"the axis tensor is {axis_t.dtype}")
    rank = len(inp.shape)
    if rank > 4:
        raise tflm.PrepareFails("stowplan's form holds 4 dimensions")
    reduced = resolve_axis(rank, axis_t.ints())
    pad = 4 - rank
    shape4 = [1] * pad + inp.shape
    axes4 = [False] * 4
    for a in reduced:
        axes4[pad + a] = True
    if inp.dtype == "float32":
        return {"input": shape4, "axes": axes4}
    if inp.dtype not in ("int8", "int16"):
        raise tflm.PrepareFails(f"{inp.dtype} is not covered here")
    # reduce_common.cc:229-232 (int8 and int16) and :56-58 (int8 again):
    # QuantizeMultiplier((double)input scale / (double)output scale); :242-245 the zero points
    # and scales as they are.
    real = float(tflm.F32(inp.s)) / float(tflm.F32(out.s))
    return {
        "input": shape4,
        "axes": axes4,
        "input_zero_point": inp.z,
        "output_zero_point": out.z,
        "input_scale": inp.s,
        "output_scale": out.s,
        "requant": tflm.quantize_multiplier(real),
    }
