"""SignalFilterBankSpectralSubtraction's Init and Prepare as TFLM computes them.

signal/micro/kernels/filter_bank_spectral_subtraction.cc:63-101 (Init: options by position in
key order, 'alternate_one_minus_smoothing' 0 ... 'spectral_subtraction_bits' 8; the noise
estimate num_channels uint32), :103-139 (Prepare: one input and two outputs, uint32 of rank
1; the noise estimate set to 0, as Reset sets it: the state starts at 0).
"""

import signal_options as so
import tflm


def expected(op):
    if len(op.inputs) != 1 or len(op.outputs) != 2:
        raise tflm.PrepareFails("arity")
    ts = [op.input(0), op.outputs[0], op.outputs[1]]
    if any(so.dims(t) != 1 for t in ts) or any(t.dtype != "uint32" for t in ts):
        raise tflm.PrepareFails("ranks or types")
    v = so.values(op)
    u = lambda i: so.int32(v, i) & 0xFFFFFFFF
    return {
        "num_channels": so.int32(v, 4),
        "smoothing": u(6),
        "one_minus_smoothing": u(5),
        "alternate_smoothing": u(1),
        "alternate_one_minus_smoothing": u(0),
        "min_signal_remaining": u(3),
        "smoothing_bits": u(7),
        "spectral_subtraction_bits": u(8),
        "clamping": bool(v[2]),
    }
