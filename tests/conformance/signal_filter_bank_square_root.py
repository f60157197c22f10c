"""SignalFilterBankSquareRoot's Prepare as TFLM computes it: no parameters.

signal/micro/kernels/filter_bank_square_root_common.cc:24-54 (FilterBankSquareRootPrepare:
uint64 input of rank 1, an int32 scalar, a uint32 output of rank 1).
"""

import signal_options as so
import tflm


def expected(op):
    inp, bits, out = op.input(0), op.input(1), op.output
    if len(op.inputs) != 2 or len(op.outputs) != 1:
        raise tflm.PrepareFails("arity")
    if so.dims(inp) != 1 or so.dims(bits) != 0 or so.dims(out) != 1:
        raise tflm.PrepareFails("ranks")
    if inp.dtype != "uint64" or bits.dtype != "int32" or out.dtype != "uint32":
        raise tflm.PrepareFails("types")
    return {}
