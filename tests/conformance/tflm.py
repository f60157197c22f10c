"""TFLite Micro's own arithmetic for the conformance suite's parameter checks.

Two kinds of function:

- TFLM's exported functions, called through ctypes in the pinned wheel's `_runtime` library
  (`tflite-micro==0.dev20261023182759`): `QuantizeMultiplier`,
  `QuantizeMultiplierSmallerThanOneExp`, `QuantizeMultiplierGreaterThanOne`,
  `PreprocessSoftmaxScaling`, `CalculateInputRadius`.
- The per-op glue that TFLM keeps in inline or file-local functions (not exported), transcribed
  line by line, each with the TFLM file and line it follows (at commit 90b983c2b3f1, the source
  of the wheel's kernels). Float arithmetic that TFLM does in `float` is done in numpy float32.

`self_test()` checks both against the golden values of TFLM's own tests
(`tensorflow/lite/micro/kernels/quantization_util_test.cc`) and against values worked by hand
from the C++ source.
"""

import ctypes
import math
from pathlib import Path

import numpy as np

_LIB = None


def lib():
    """The wheel's `_runtime` library, loaded once."""
    global _LIB
    if _LIB is None:
        import tflite_micro

        path = Path(tflite_micro.__file__).parent / "python" / "tflite_micro" / "_runtime.so"
        _LIB = ctypes.CDLL(str(path))
        i32p = ctypes.POINTER(ctypes.c_int32)
        intp = ctypes.POINTER(ctypes.c_int)
        for name, args, res in [
            # tflite::micro::QuantizeMultiplier(double, int32_t*, int*)
            ("_ZN6tflite5micro18QuantizeMultiplierEdPiS1_", [ctypes.c_double, i32p, intp], None),
            # tflite::micro::QuantizeMultiplierSmallerThanOneExp(double, int32_t*, int*)
            ("_ZN6tflite5micro35QuantizeMultiplierSmallerThanOneExpEdPiS1_",
             [ctypes.c_double, i32p, intp], None),
            # tflite::micro::QuantizeMultiplierGreaterThanOne(double, int32_t*, int*)
            ("_ZN6tflite5micro32QuantizeMultiplierGreaterThanOneEdPiS1_",
             [ctypes.c_double, i32p, intp], None),
            # tflite::micro::PreprocessSoftmaxScaling(double, double, int, int32_t*, int*)
            ("_ZN6tflite5micro24PreprocessSoftmaxScalingEddiPiS1_",
             [ctypes.c_double, ctypes.c_double, ctypes.c_int, i32p, intp], None),
            # tflite::micro::CalculateInputRadius(int, int, int)
            ("_ZN6tflite5micro20CalculateInputRadiusEiii",
             [ctypes.c_int, ctypes.c_int, ctypes.c_int], ctypes.c_int),
        ]:
            f = getattr(_LIB, name)
            f.argtypes = args
            f.restype = res
    return _LIB


def _pair(fname, *args):
    q, s = ctypes.c_int32(0), ctypes.c_int(0)
    getattr(lib(), fname)(*args, ctypes.byref(q), ctypes.byref(s))
    return {"multiplier": q.value, "shift": s.value}


def quantize_multiplier(real):
    """TFLM's QuantizeMultiplier (quantization_util.cc), through ctypes."""
    return _pair("_ZN6tflite5micro18QuantizeMultiplierEdPiS1_", float(real))


def quantize_multiplier_smaller_than_one_exp(real):
    """TFLM's QuantizeMultiplierSmallerThanOneExp; it aborts outside (0, 1): check first."""
    if not (0.0 < real < 1.0):
        return None
    return _pair("_ZN6tflite5micro35QuantizeMultiplierSmallerThanOneExpEdPiS1_", float(real))


def quantize_multiplier_greater_than_one(real):
    """TFLM's QuantizeMultiplierGreaterThanOne; it aborts for real <= 1: check first."""
    if not real > 1.0:
        return None
    return _pair("_ZN6tflite5micro32QuantizeMultiplierGreaterThanOneEdPiS1_", float(real))


def preprocess_softmax_scaling(beta, input_scale, input_integer_bits):
    """TFLM's PreprocessSoftmaxScaling, through ctypes."""
    return _pair("_ZN6tflite5micro24PreprocessSoftmaxScalingEddiPiS1_", float(beta),
                 float(input_scale), int(input_integer_bits))


def calculate_input_radius(input_integer_bits, input_left_shift, total_signed_bits=31):
    """TFLM's CalculateInputRadius, through ctypes."""
    return lib()._ZN6tflite5micro20CalculateInputRadiusEiii(
        int(input_integer_bits), int(input_left_shift), int(total_signed_bits))


F32 = np.float32
INT32_MIN, INT32_MAX = -(2 ** 31), 2 ** 31 - 1


def f32(x):
    return F32(x)


def cast_i32_x86(x):
    """static_cast<int32_t>(float or double) as the x86-64 build computes it (cvttss2si /
    cvttsd2si): truncation, INT32_MIN for NaN and out-of-range values."""
    x = float(x)
    if math.isnan(x) or not (-2147483648.0 <= x < 2147483648.0):
        return INT32_MIN
    return int(x)


def wrap_i32(x):
    return (int(x) + 2 ** 31) % 2 ** 32 - 2 ** 31


class PrepareFails(Exception):
    """TFLM's Prepare returns an error (TF_LITE_ENSURE) for these parameters."""


# tensorflow/lite/kernels/kernel_util.cc:346 `Quantize` (file-local): the rounding is
# TfLiteRound(float) = std::round in float; the overflow check compares with the int32 limits
# converted to float.
def _quantize_for_activation(scale, zero_point, f):
    with np.errstate(all="ignore"):
        q = F32(F32(f) / F32(scale))
    # std::round: half away from zero (numpy's round is half to even).
    tmp = F32(math.copysign(math.floor(abs(float(q)) + 0.5), float(q))) if math.isfinite(q) else q
    if not (F32(INT32_MIN) <= tmp <= F32(INT32_MAX)):
        raise PrepareFails("activation range overflows int32")
    return wrap_i32(zero_point + cast_i32_x86(tmp))


QRANGE = {"int8": (-128, 127), "uint8": (0, 255), "int16": (-32768, 32767)}


# tensorflow/lite/kernels/kernel_util.cc:357 CalculateActivationRangeQuantizedImpl and :395
# CalculateActivationRangeQuantized.
def activation_range_quantized(activation, scale, zero_point, dtype="int8"):
    qmin, qmax = QRANGE[dtype]
    q = lambda f: _quantize_for_activation(scale, zero_point, f)  # noqa: E731
    if activation == "RELU":
        return max(qmin, q(0.0)), qmax
    if activation == "RELU6":
        return max(qmin, q(0.0)), min(qmax, q(6.0))
    if activation == "RELU_N1_TO_1":
        return max(qmin, q(-1.0)), min(qmax, q(1.0))
    return qmin, qmax


# tensorflow/lite/kernels/internal/common.h `GetActivationMinMax` (CalculateActivationRange for
# float): RELU [0, max], RELU_N1_TO_1 [-1, 1], RELU6 [0, 6], none [lowest, max].
def activation_range_float(activation):
    big = float(np.finfo(np.float32).max)
    return {
        "RELU": (0.0, big),
        "RELU_N1_TO_1": (-1.0, 1.0),
        "RELU6": (0.0, 6.0),
    }.get(activation, (-big, big))


# tensorflow/lite/kernels/padding.h:27-176: ComputeOutSizeChecked, ComputePaddingWithOffsetChecked
# and ComputePaddingHeightWidth (the checked versions: invalid arguments leave the paddings 0).
def _c_div(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def compute_out_size_checked(padding, image_size, filter_size, stride, dilation):
    """padding.h:93; None where it returns kTfLiteError."""
    if padding not in ("SAME", "VALID") or image_size < 0 or filter_size <= 0 or stride <= 0 \
            or dilation <= 0:
        return None
    effective = (filter_size - 1) * dilation + 1
    if padding == "SAME":
        value = _c_div(image_size + stride - 1, stride)
    else:
        value = _c_div(image_size + stride - effective, stride)
    if value < 0 or value > INT32_MAX:
        return None
    return value


def compute_padding_with_offset_checked(stride, dilation, in_size, filter_size, out_size):
    """padding.h:50: (offset, padding), or None where it returns kTfLiteError."""
    if in_size < 0 or filter_size <= 0 or out_size < 0 or stride <= 0 or dilation <= 0:
        return None
    effective = (filter_size - 1) * dilation + 1
    total = max(0, (out_size - 1) * stride + effective - in_size)
    padding = _c_div(total, 2)
    if padding > INT32_MAX:
        return None
    return total % 2, padding


def compute_padding_height_width(stride_h, stride_w, dilation_h, dilation_w, in_h, in_w,
                                 filter_h, filter_w, padding):
    """padding.h:158: the (height, width) paddings; 0 where a checked step fails (the steps run
    in TFLM's order and stop at the first failure)."""
    out_w = compute_out_size_checked(padding, in_w, filter_w, stride_w, dilation_w)
    if out_w is None:
        return 0, 0
    out_h = compute_out_size_checked(padding, in_h, filter_h, stride_h, dilation_h)
    if out_h is None:
        return 0, 0
    h = compute_padding_with_offset_checked(stride_h, dilation_h, in_h, filter_h, out_h)
    if h is None:
        return 0, 0
    w = compute_padding_with_offset_checked(stride_w, dilation_w, in_w, filter_w, out_w)
    return h[1], (0 if w is None else w[1])


def self_test():
    """Golden values of TFLM's tests and worked examples; raises AssertionError on a mismatch."""
    # quantization_util_test.cc:379 QuantizeMultiplierArray: weights and their expected
    # significands and shifts.
    weights = [-4, -2, -1, -0.5, -0.25, -0.125, 0, 0.125, 0.25, 0.5, 1, 2, 4]
    sig = [-1073741824] * 6 + [0] + [1073741824] * 6
    shifts = [3, 2, 1, 0, -1, -2, 0, -2, -1, 0, 1, 2, 3]
    for w, q, s in zip(weights, sig, shifts):
        got = quantize_multiplier(w)
        assert got == {"multiplier": q, "shift": s}, (w, got)
    # quantization_util_test.cc:342 PreprocessSoftmaxScaling.
    assert preprocess_softmax_scaling(1.0, 16.0, 4) == {"multiplier": 2147483647, "shift": 31}
    assert preprocess_softmax_scaling(1.0, 8.0, 4) == {"multiplier": 1073741824, "shift": 31}
    assert preprocess_softmax_scaling(2.0, 16.0, 5) == {"multiplier": 2147483647, "shift": 31}
    assert preprocess_softmax_scaling(2.0, 8.0, 5) == {"multiplier": 1073741824, "shift": 31}
    # quantization_util_test.cc:371 CalculateInputRadius (total_signed_bits defaults to 31).
    assert calculate_input_radius(4, 27) == 15
    assert calculate_input_radius(3, 27) == 14
    assert calculate_input_radius(3, 28) == 7
    assert calculate_input_radius(4, 2) == 503316480
    # QuantizeMultiplierSmallerThanOneExp / GreaterThanOne: 0.5 = 0.5 * 2^0, 3 = 0.75 * 2^2.
    assert quantize_multiplier_smaller_than_one_exp(0.5) == {"multiplier": 1 << 30, "shift": 0}
    assert quantize_multiplier_greater_than_one(3.0) == {"multiplier": 3 << 29, "shift": 2}
    # Activation ranges (kernel_util.cc:357): scale 0.05, zero point -5: RELU6 -> 6 / 0.05 =
    # 120 - 5; ReLU keeps qmax.
    assert activation_range_quantized("RELU6", 0.05, -5) == (-5, 115)
    assert activation_range_quantized("RELU", 0.05, -5) == (-5, 127)
    assert activation_range_quantized("RELU_N1_TO_1", 0.05, 0) == (-20, 20)
    assert activation_range_quantized("NONE", 0.05, 3) == (-128, 127)
    try:
        activation_range_quantized("RELU6", 1e-40, 0)
        raise AssertionError("6 / 1e-40 overflows int32: TFLM's Prepare fails")
    except PrepareFails:
        pass
    # padding.h: SAME 3x3 stride 2 on 224 -> out 112, total 1 -> pad 0; SAME 3x3 stride 1 on 5
    # -> pad 1; dilation 2 on 7 -> effective 5 -> pad 2.
    assert compute_padding_height_width(2, 2, 1, 1, 224, 224, 3, 3, "SAME") == (0, 0)
    assert compute_padding_height_width(1, 1, 1, 1, 5, 5, 3, 3, "SAME") == (1, 1)
    assert compute_padding_height_width(1, 1, 2, 2, 7, 7, 3, 3, "SAME") == (2, 2)
    assert compute_padding_height_width(1, 1, 2, 2, 7, 7, 3, 3, "VALID") == (0, 0)
    assert cast_i32_x86(2.0 ** 31) == INT32_MIN
    return True


# The model as TFLM's own Python schema reads it (the wheel's schema_py_generated), so that the
# expected parameters do not depend on stowplan's reader.
TYPES = {0: "float32", 1: "float16", 2: "int32", 3: "uint8", 4: "int64", 6: "bool",
         7: "int16", 9: "int8", 10: "float64", 12: "uint64", 15: "uint32", 16: "uint16",
         17: "int4"}
ACTIVATIONS = {0: "NONE", 1: "RELU", 2: "RELU_N1_TO_1", 3: "RELU6", 4: "TANH", 5: "SIGN_BIT"}
PADDINGS = {0: "SAME", 1: "VALID"}


class Tensor:
    def __init__(self, t, buffers):
        self.name = t.name.decode() if t.name else ""
        self.dtype = TYPES.get(t.type, f"type{t.type}")
        self.shape = [int(d) for d in (t.shape if t.shape is not None else [])]
        q = t.quantization
        self.scale = [float(F32(x)) for x in (q.scale if q is not None and q.scale is not None else [])]
        self.zero_point = [int(x) for x in (q.zeroPoint if q is not None and q.zeroPoint is not None else [])]
        self.quantized_dimension = int(q.quantizedDimension) if q is not None else 0
        data = buffers[t.buffer].data if t.buffer < len(buffers) else None
        self.data = bytes(data) if data is not None and len(data) else None

    @property
    def s(self):
        """params.scale: the first scale (0 if none)."""
        return self.scale[0] if self.scale else 0.0

    @property
    def z(self):
        """params.zero_point: the first zero point (0 if none)."""
        return self.zero_point[0] if self.zero_point else 0

    def ints(self):
        dt = {"int32": np.int32, "int64": np.int64, "int8": np.int8, "int16": np.int16,
              "uint8": np.uint8}[self.dtype]
        return [int(v) for v in np.frombuffer(self.data, dtype=dt)]


class Op:
    def __init__(self, model, op):
        code = model.operatorCodes[op.opcodeIndex]
        self.code = max(code.builtinCode, code.deprecatedBuiltinCode)
        self.custom = code.customCode.decode() if code.customCode else None
        sg = model.subgraphs[0]
        buffers = model.buffers
        self.inputs = [None if i < 0 else Tensor(sg.tensors[i], buffers) for i in op.inputs]
        self.outputs = [Tensor(sg.tensors[i], buffers) for i in op.outputs]
        self.options = op.builtinOptions
        self.model_outputs = [Tensor(sg.tensors[i], buffers) for i in sg.outputs]

    def input(self, i):
        return self.inputs[i] if i < len(self.inputs) else None

    @property
    def output(self):
        return self.outputs[0]


def read_model(path):
    """Op 0 of subgraph 0 of the model at `path`, with its tensors and options."""
    from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema

    m = schema.ModelT.InitFromPackedBuf(Path(path).read_bytes(), 0)
    return Op(m, m.subgraphs[0].operators[0])


# tensorflow/lite/kernels/kernel_util.h:272 CalculateActivationRange<int32_t>: RELU [0, max],
# RELU6 [0, 6], RELU_N1_TO_1 [-1, 1], otherwise the whole range.
def activation_range_int32(activation):
    return {
        "RELU": (0, INT32_MAX),
        "RELU6": (0, 6),
        "RELU_N1_TO_1": (-1, 1),
    }.get(activation, (INT32_MIN, INT32_MAX))


def is_quantized(t):
    """TFLM's quantization.type != kTfLiteNoQuantization: the tensor has scales
    (micro_allocator.cc, InitializeTfLiteTensorFromFlatbuffer)."""
    return bool(t.scale)


# TensorType UINT32 (schema code 15), which CAST converts.
TYPES[15] = "uint32"

# --- Added for the elementwise, activation and normalisation ops (ABS ... L2_NORMALIZATION).

_EXTRA = None


def _extra():
    """The wheel's CheckedLog2 and PreprocessLogSoftmaxScalingExp, and the C library's expf
    and roundf (the ones the wheel's kernels call), with their ctypes signatures."""
    global _EXTRA
    if _EXTRA is None:
        runtime = lib()
        i32p = ctypes.POINTER(ctypes.c_int32)
        intp = ctypes.POINTER(ctypes.c_int)
        # tflite::micro::CheckedLog2(float, int*)
        log2 = runtime._ZN6tflite5micro11CheckedLog2EfPi
        log2.argtypes = [ctypes.c_float, intp]
        log2.restype = ctypes.c_bool
        # tflite::micro::PreprocessLogSoftmaxScalingExp(double, double, int, int32_t*, int*,
        # int32_t*, int*)
        pls = runtime._ZN6tflite5micro30PreprocessLogSoftmaxScalingExpEddiPiS1_S1_S1_
        pls.argtypes = [ctypes.c_double, ctypes.c_double, ctypes.c_int, i32p, intp, i32p, intp]
        pls.restype = None
        libm = ctypes.CDLL("libm.so.6")
        for name in ("expf", "roundf", "logf"):
            f = getattr(libm, name)
            f.argtypes = [ctypes.c_float]
            f.restype = ctypes.c_float
        _EXTRA = {"log2": log2, "pls": pls, "libm": libm}
    return _EXTRA


def checked_log2(x):
    """TFLM's CheckedLog2(float) (quantization_util.cc:395), through ctypes:
    (is a power of two, the rounded log2)."""
    r = ctypes.c_int(0)
    ok = _extra()["log2"](float(F32(x)), ctypes.byref(r))
    return bool(ok), r.value


def preprocess_log_softmax_scaling_exp(beta, input_scale, input_integer_bits):
    """TFLM's PreprocessLogSoftmaxScalingExp (quantization_util.cc:321), through ctypes. It
    aborts (TFLITE_CHECK) where QuantizeMultiplierGreaterThanOne or
    QuantizeMultiplierSmallerThanOneExp would: the caller checks first."""
    m, s, d, ds = ctypes.c_int32(0), ctypes.c_int(0), ctypes.c_int32(0), ctypes.c_int(0)
    _extra()["pls"](float(beta), float(input_scale), int(input_integer_bits), ctypes.byref(m),
                    ctypes.byref(s), ctypes.byref(d), ctypes.byref(ds))
    return {"multiplier": m.value, "shift": s.value, "reverse_divisor": d.value,
            "reverse_shift": ds.value}


def expf(x):
    """The C library's expf (glibc's, which the wheel calls), as float32."""
    return F32(_extra()["libm"].expf(float(F32(x))))


def roundf(x):
    """The C library's roundf, as float32."""
    return F32(_extra()["libm"].roundf(float(F32(x))))


def cast_i32_x86_f32(x):
    """static_cast<int32_t>(float) as x86-64 computes it (cvttss2si)."""
    return cast_i32_x86(float(F32(x)))
