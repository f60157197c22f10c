"""PACK's checks as TFLM makes them (it has no Prepare). stowplan's call has no parameter
constant (the outer and copy sizes are literals of the call).

tensorflow/lite/micro/kernels/pack.cc:30-71 (PackImpl: values_count inputs, the axis wrapped by
the output's rank), :73-104 (PackEval: the types).
"""

import tflm

TYPES = ("float32", "int8", "int16", "int32", "int64")


def expected(op):
    out = op.output
    if out.dtype not in TYPES:
        raise tflm.PrepareFails(f"PACK of {out.dtype}")
    if op.options.valuesCount != len(op.inputs):
        raise tflm.PrepareFails("values_count differs from the inputs")
    return {}
