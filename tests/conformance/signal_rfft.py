"""SignalRfft's Init and Prepare as TFLM computes them, with KISS FFT's kiss_fftr_alloc.

signal/micro/kernels/rfft.cc:56-75 (RfftInit: 'fft_length' is option 1; the state from
kiss_fftr_alloc), :77-105 (RfftPrepare: input and output of T and of one rank; frame length,
input size, output length), :139-162 (RfftInitAll: T from the key 'T', int16/int32/float32).
KISS FFT v130 (as TFLM downloads it): kiss_fft.c kf_factor and kiss_fft_alloc (twiddles
exp(-2 pi i k / n)), tools/kiss_fftr.c kiss_fftr_alloc (n = fft_length / 2; super-twiddles
exp(-i pi ((k + 1) / n + 1/2))); _kiss_fft_guts.h KISS_FFT_COS/SIN: floor(0.5 + SAMP_MAX * cos)
for FIXED_POINT 16 and 32, (float) cos otherwise. TFLM's kf_bfly_generic (radices above 5)
writes to KISS_FFT_TMP_ALLOC's buffer, patched to be null: such lengths crash TFLM.
"""

import math

import numpy as np

import signal_options as so
import tflm

TYPES = {7: ("int16", 32767), 2: ("int32", 2147483647), 0: ("float32", None)}


def kf_factor(n):
    p, floor_sqrt, out = 4, math.floor(math.sqrt(n)), []
    while True:
        while n % p:
            p = {4: 2, 2: 3}.get(p, p + 2)
            if p > floor_sqrt:
                p = n
        n //= p
        out.append([p, n])
        if n <= 1:
            return out


def cexp(phases, samp_max):
    out = []
    for ph in phases:
        for v in (math.cos(ph), math.sin(ph)):
            out.append(int(math.floor(0.5 + samp_max * v)) if samp_max else float(np.float32(v)))
    return out


def expected(op):
    v = so.values(op)
    from flatbuffers import flexbuffers
    t = flexbuffers.Loads(op.custom_options).get("T")
    if t not in TYPES:
        raise tflm.PrepareFails("T is not int16, int32 or float32")
    dtype, samp_max = TYPES[t]
    inp, out = op.input(0), op.output
    if len(op.inputs) != 1 or len(op.outputs) != 1 or so.dims(inp) != so.dims(out):
        raise tflm.PrepareFails("arity or ranks")
    if inp.dtype != dtype or out.dtype != dtype:
        raise tflm.PrepareFails("types")
    fft = so.int32(v, 1)
    if fft < 2 or fft % 2:
        raise tflm.PrepareFails("odd fft_length: kiss_fftr_alloc returns null")
    n = fft // 2
    factors = kf_factor(n)
    if any(p not in (2, 3, 4, 5) for p, _ in factors):
        raise tflm.PrepareFails("a radix above 5: TFLM's generic butterfly writes to null")
    pi = 3.141592653589793
    return {
        "fft_length": fft,
        "input_length": inp.shape[-1],
        "input_size": math.prod(inp.shape),
        "output_length": out.shape[-1],
        "factors": factors + [[0, 0]] * (32 - len(factors)),
        "stages": len(factors),
        "twiddles": cexp([-2 * pi * i / n for i in range(n)], samp_max),
        "super_twiddles": cexp([-pi * ((i + 1) / n + 0.5) for i in range(n // 2)], samp_max),
    }
