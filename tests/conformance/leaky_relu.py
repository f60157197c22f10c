"""LEAKY_RELU's Prepare as TFLM computes it.

tensorflow/lite/micro/kernels/leaky_relu_common.cc:29-72 (CalculateOpDataLeakyRelu) as the
pinned wheel compiles it: (double)input_scale * (double)alpha / (double)output_scale and
(double)input_scale / (double)output_scale (mulsd, divsd; the source at 90b983c2 computes in
float and widens), QuantizeMultiplier through ctypes.
"""

import tflm


def expected(op):
    inp, out = op.input(0), op.output
    if len(op.inputs) != 1 or len(op.outputs) != 1:
        raise tflm.PrepareFails("one input and one output")
    if inp.dtype != out.dtype:
        raise tflm.PrepareFails("input and output types differ")
    # flatbuffer_conversions.cc ParseLeakyRelu: alpha 0 without options.
    alpha = float(tflm.F32(op.options.alpha)) if op.options is not None else 0.0
    if inp.dtype == "float32":
        return {"alpha": alpha}
    if inp.dtype not in ("int8", "int16"):
        return {}
    si, so = float(tflm.F32(inp.s)), float(tflm.F32(out.s))
    return {
        "input_zero_point": inp.z,
        "output_zero_point": out.z,
        "alpha": tflm.quantize_multiplier(si * alpha / so),
        "identity": tflm.quantize_multiplier(si / so),
    }
