"""SignalFilterBank's Init and Prepare as TFLM computes them.

signal/micro/kernels/filter_bank.cc:51-74 (FilterBankInit: 'num_channels' is option 0),
:76-125 (FilterBankPrepare: six inputs of rank 1, uint32 then int16, a uint64 output of rank
1).
"""

import signal_options as so
import tflm


def expected(op):
    if len(op.inputs) != 6 or len(op.outputs) != 1:
        raise tflm.PrepareFails("arity")
    if any(so.dims(t) != 1 for t in op.inputs + [op.output]):
        raise tflm.PrepareFails("ranks")
    if op.input(0).dtype != "uint32" or any(op.input(i).dtype != "int16" for i in range(1, 6)):
        raise tflm.PrepareFails("input types")
    if op.output.dtype != "uint64":
        raise tflm.PrepareFails("output type")
    return {"num_channels": so.int32(so.values(op), 0)}
