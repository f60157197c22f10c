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


MEAN, SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_ALL = 40, 74, 82, 89, 140


def expected(op):
    if op.code != MEAN:
        return expected_other(op)
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


def expected_other(op):
    """SUM (reduce_common.cc:223-260 PrepareMeanOrSumHelper, :383-420 EvalSumHelper),
    REDUCE_MAX and REDUCE_MIN (:201-221 PrepareMinMaxHelper, :138-199 EvalMinMaxHelper: int8
    quantised as the output, scales compared as double), REDUCE_ALL (:262-287
    PrepareAllHelper, :412-441 EvalAllHelper: bool only). stowplan's form: 6 dimensions."""
    inp, axis_t, out = op.input(0), op.input(1), op.output
    if len(op.inputs) != 2 or len(op.outputs) != 1 or axis_t.dtype != "int32":
        raise tflm.PrepareFails("inputs, outputs or axis type")
    if inp.dtype != out.dtype:
        raise tflm.PrepareFails("types differ")
    rank = len(inp.shape)
    if rank > 6:
        raise tflm.PrepareFails("stowplan's form holds 6 dimensions")
    reduced = resolve_axis(rank, axis_t.ints())
    pad = 6 - rank
    shape6 = [1] * pad + inp.shape
    axes6 = [False] * 6
    for a in reduced:
        axes6[pad + a] = True
    geometry = {"input": shape6, "axes": axes6}
    if op.code == REDUCE_ALL:
        # reduce_common.cc:262-268 (PrepareAllHelper): a bool input; :419 (EvalAllHelper) the
        # output of the input's type (checked above).
        if inp.dtype != "bool":
            raise tflm.PrepareFails(f"{inp.dtype} REDUCE_ALL")
        return geometry
    if op.code in (REDUCE_MAX, REDUCE_MIN):
        if inp.dtype not in ("float32", "int8"):
            raise tflm.PrepareFails(f"{inp.dtype} min/max")
        if inp.dtype == "int8" and (float(tflm.F32(inp.s)) != float(tflm.F32(out.s)) or inp.z != out.z):
            raise tflm.PrepareFails("int8 min/max quantised unlike the output")
        return geometry
    if inp.dtype == "float32":
        return geometry
    if inp.dtype not in ("int8", "int16"):
        raise tflm.PrepareFails(f"{inp.dtype} sum")
    real = float(tflm.F32(inp.s)) / float(tflm.F32(out.s))
    return {
        **geometry,
        "input_zero_point": inp.z,
        "output_zero_point": out.z,
        "input_scale": inp.s,
        "output_scale": out.s,
        "requant": tflm.quantize_multiplier(real),
    }
