"""DEQUANTIZE's Prepare as TFLM computes it.

tensorflow/lite/micro/kernels/dequantize_common.cc:29-55 (DequantizePrepare).
"""

import tflm


def expected(op):
    inp, out = op.input(0), op.output
    # dequantize_common.cc:43-46
    if inp.dtype not in ("int8", "int16", "uint8") or out.dtype != "float32":
        raise tflm.PrepareFails(f"{inp.dtype} -> {out.dtype}")
    # dequantize_common.cc:48-49: the input's zero point and scale (float -> double, exact);
    # reference/dequantize.h:41 computes (float)(scale * (val - zero_point)) in double.
    return {"scale": float(tflm.F32(inp.s)), "zero_point": inp.z}
