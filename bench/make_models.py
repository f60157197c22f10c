# Makes the benchmark models in bench/models/ with TensorFlow's converter: the four MLPerf Tiny
# reference architectures and two more shapes people deploy, int8 in and out, with random but
# calibrated weights.
#
# How to run (from the repository root; TensorFlow is needed only here, never in CI, so the
# generated files are committed):
#
#   python -m venv .venv && .venv/bin/pip install tensorflow-cpu==2.21.0 && .venv/bin/python bench/make_models.py
#
# (one or more model names as arguments remake only those models)
#
# For every model it writes
#   bench/models/<name>/<name>.tflite  the model (full-integer post-training quantisation: int8
#                                      activations, int8 weights per channel for convolutions,
#                                      int32 biases; int8 input and output)
#   bench/models/<name>/NOTE.md        what it is, its ops, its multiply-accumulates, its size
#
# The outputs TFLite Micro computes for the benchmark's input are not made here (TFLite Micro is
# not TensorFlow): `bench/tflm_outputs.py` writes them with the pinned `tflite-micro` wheel.
#
# The architectures follow the MLPerf Tiny reference models (the `training/` folder of
# mlcommons/tiny: vww_model.py, keras_model.py of keyword_spotting, image_classification and
# anomaly_detection), written here as plain tf.Module/tf.function code (no Keras, whose version
# the command above does not pin). Weights are drawn from a seeded numpy generator with He
# scale; each batch normalisation is "calibrated": its mean and variance are the statistics of
# the layer's pre-activations over a seeded random calibration batch (what a trained network's
# running statistics would be for that data), its gamma and beta drawn near 1 and 0, and it is
# folded into the convolution's or dense layer's weights and bias, so every layer's activations
# have about unit scale (neither vanishing nor saturating) and the model holds no BN op. The
# calibration batch and the converter's representative dataset are uniform in [-1, 1], so the
# benchmark's input (the xorshift32 bytes as int8: uniform over the input's quantised range)
# looks to the model like the data it was calibrated on. A rerun with the same TensorFlow gives
# the same files.

import os
import sys
import zlib

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
# oneDNN's custom ops may round differently from machine to machine: the plain kernels.
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np
import tensorflow as tf
from tensorflow.lite.python import schema_py_generated as schema_fb

assert tf.__version__ == "2.21.0", (
    f"make_models.py is pinned to tensorflow-cpu==2.21.0, found {tf.__version__}; "
    "see the command at the top of this file"
)

SEED = 20261205
tf.random.set_seed(SEED)
np.random.seed(SEED)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

# Samples of the calibration batch (batch-norm statistics) and of the representative dataset.
CALIBRATION = 32
REPRESENTATIVE = 32
BN_EPSILON = 1e-3


def rng(name):
    """A numpy generator of its own for every model (and purpose), so adding one changes no
    other."""
    return np.random.default_rng([SEED, zlib.crc32(name.encode())])


class Net:
    """Runs an architecture twice: once eagerly on the calibration batch ("build": draws the
    weights, measures each batch normalisation's statistics and folds it), then inside the
    tf.function the converter traces ("trace": the folded weights as constants, in the same
    order). It also counts multiply-accumulates per layer (one batch element)."""

    def __init__(self, r):
        self.r = r
        self.params = []
        self.building = True
        self.at = 0
        self.macs = 0

    def _weights(self, make):
        if self.building:
            w, b = make()
            self.params.append((w.astype(np.float32), b.astype(np.float32)))
        w, b = self.params[self.at]
        self.at += 1
        return tf.constant(w), tf.constant(b)

    def _fold(self, y, axes, gamma_beta=True):
        """The batch normalisation of pre-activations `y` (statistics over `axes`) as a
        per-channel (scale, shift): y * scale + shift."""
        y = np.asarray(y, np.float64)
        mean, var = y.mean(axis=axes), y.var(axis=axes)
        c = mean.shape[0]
        if gamma_beta:
            gamma = self.r.uniform(0.8, 1.2, c)
            beta = self.r.uniform(-0.2, 0.2, c)
        else:
            gamma, beta = np.ones(c), np.zeros(c)
        scale = gamma / np.sqrt(var + BN_EPSILON)
        return scale, beta - mean * scale

    @staticmethod
    def _act(y, act):
        if act == "relu":
            return tf.nn.relu(y)
        if act == "relu6":
            return tf.nn.relu6(y)
        assert act is None, act
        return y

    def conv(self, x, filters, k, stride=1, dilation=1, padding="SAME", act="relu", bn=True):
        kh, kw = (k, k) if isinstance(k, int) else k
        sh, sw = (stride, stride) if isinstance(stride, int) else stride
        dh, dw = (dilation, dilation) if isinstance(dilation, int) else dilation
        cin = x.shape[-1]

        def run(w, b):
            return tf.nn.conv2d(x, w, [1, sh, sw, 1], padding, dilations=[1, dh, dw, 1]) + b

        def make():
            w = self.r.normal(0, np.sqrt(2.0 / (kh * kw * cin)), (kh, kw, cin, filters))
            if not bn:
                return w, np.zeros(filters)
            y = run(w.astype(np.float32), np.zeros(filters, np.float32))
            scale, shift = self._fold(y, (0, 1, 2))
            return w * scale, shift

        w, b = self._weights(make)
        y = run(w, b)
        self.macs += int(np.prod(y.shape[1:])) * kh * kw * cin
        return self._act(y, act)

    def depthwise(self, x, k, stride=1, padding="SAME", act="relu"):
        kh, kw = (k, k) if isinstance(k, int) else k
        c = x.shape[-1]

        def run(w, b):
            return tf.nn.depthwise_conv2d(x, w, [1, stride, stride, 1], padding) + b

        def make():
            w = self.r.normal(0, np.sqrt(2.0 / (kh * kw)), (kh, kw, c, 1))
            y = run(w.astype(np.float32), np.zeros(c, np.float32))
            scale, shift = self._fold(y, (0, 1, 2))
            return w * scale[None, None, :, None], shift

        w, b = self._weights(make)
        y = run(w, b)
        self.macs += int(np.prod(y.shape[1:])) * kh * kw
        return self._act(y, act)

    def dense(self, x, units, act="relu", bn=True, logits_std=None):
        """A dense layer; with `logits_std` (a last layer, no batch normalisation) its weights are
        scaled so that its outputs' standard deviation over the calibration batch is that."""
        cin = x.shape[-1]

        def make():
            w = self.r.normal(0, np.sqrt(2.0 / cin), (cin, units))
            y = np.asarray(tf.matmul(x, w.astype(np.float32)))
            if logits_std is not None:
                return w * (logits_std / max(float(y.std()), 1e-6)), np.zeros(units)
            if not bn:
                return w, np.zeros(units)
            scale, shift = self._fold(y, (0,))
            return w * scale, shift

        w, b = self._weights(make)
        self.macs += cin * units
        return self._act(tf.matmul(x, w) + b, act)

    def avg_pool(self, x, size):
        return tf.nn.avg_pool2d(x, size, size, "VALID")


# ------------------------------------------------------------------------------------------------
# the architectures


def vww(net, x):
    """MLPerf Tiny visual wake words: MobileNetV1 alpha 0.25 (vww_model.py)."""
    f = 8
    x = net.conv(x, f, 3, stride=2)
    # (stride of the depthwise layer, whether the pointwise layer doubles the filters)
    for stride, double in [(1, True), (2, True), (1, False), (2, True), (1, False), (2, True)] + [
        (1, False)
    ] * 5 + [(2, True), (1, False)]:
        x = net.depthwise(x, 3, stride)
        f = f * 2 if double else f
        x = net.conv(x, f, 1)
    x = net.avg_pool(x, x.shape[1:3])
    x = tf.reshape(x, [-1, x.shape[-1]])
    return tf.nn.softmax(net.dense(x, 2, act=None, logits_std=1.0))


def kws(net, x):
    """MLPerf Tiny keyword spotting: DS-CNN small (keras_model.py's ds_cnn)."""
    f = 64
    x = net.conv(x, f, (10, 4), stride=2)
    for _ in range(4):
        x = net.depthwise(x, 3)
        x = net.conv(x, f, 1)
    x = net.avg_pool(x, (49 // 2, 10 // 2))
    x = tf.reshape(x, [-1, f])
    return tf.nn.softmax(net.dense(x, 12, act=None, logits_std=1.0))


def ic(net, x):
    """MLPerf Tiny image classification: ResNet-8 (keras_model.py's resnet_v1_eembc)."""
    x = net.conv(x, 16, 3)
    for f, stride in ((16, 1), (32, 2), (64, 2)):
        y = net.conv(x, f, 3, stride=stride)
        y = net.conv(y, f, 3, act=None)
        if stride != 1:
            # The shortcut's 1x1 convolution has no batch normalisation in the reference.
            x = net.conv(x, f, 1, stride=stride, act=None, bn=False)
        x = tf.nn.relu(x + y)
    x = net.avg_pool(x, x.shape[1:3])
    x = tf.reshape(x, [-1, 64])
    return tf.nn.softmax(net.dense(x, 10, act=None, logits_std=1.0))


def ad(net, x):
    """MLPerf Tiny anomaly detection: the fully connected autoencoder (keras_model.py)."""
    for units in (128, 128, 128, 128, 8, 128, 128, 128, 128):
        x = net.dense(x, units)
    return net.dense(x, 640, act=None, bn=False)


def make_divisible(v, d=8):
    n = max(d, int(v + d / 2) // d * d)
    return n + d if n < 0.9 * v else n


def mbv2(net, x):
    """MobileNetV2 alpha 0.35 at 96x96x3 (as Keras' MobileNetV2(alpha=0.35) builds it, with
    SAME padding): inverted residuals, ReLU6, residual ADDs, 10 classes."""
    alpha = 0.35
    x = net.conv(x, make_divisible(32 * alpha), 3, stride=2, act="relu6")
    for t, c, n, s in (
        (1, 16, 1, 1),
        (6, 24, 2, 2),
        (6, 32, 3, 2),
        (6, 64, 4, 2),
        (6, 96, 3, 1),
        (6, 160, 3, 2),
        (6, 320, 1, 1),
    ):
        out = make_divisible(c * alpha)
        for i in range(n):
            stride = s if i == 0 else 1
            cin = x.shape[-1]
            y = x
            if t != 1:
                y = net.conv(y, cin * t, 1, act="relu6")
            y = net.depthwise(y, 3, stride, act="relu6")
            y = net.conv(y, out, 1, act=None)
            x = x + y if stride == 1 and cin == out else y
    x = net.conv(x, 1280, 1, act="relu6")
    x = net.avg_pool(x, x.shape[1:3])
    x = tf.reshape(x, [-1, 1280])
    return tf.nn.softmax(net.dense(x, 10, act=None, logits_std=1.0))


def tcn(net, x):
    """A dilated temporal convolution network for keyword spotting (TCN / WaveNet style): 100
    frames of 40 features as a [100, 1, 40] image, a 3-tap stem, then four residual blocks of a
    causal 3-tap convolution dilated 1, 2, 4, 8 (the past padded with PAD) and a 1x1
    convolution, an average over time, 12 classes."""
    f = 48
    x = net.conv(x, f, (3, 1))
    for d in (1, 2, 4, 8):
        y = tf.pad(x, [[0, 0], [2 * d, 0], [0, 0], [0, 0]])
        y = net.conv(y, f, (3, 1), dilation=(d, 1), padding="VALID")
        y = net.conv(y, f, 1, act=None)
        x = tf.nn.relu(x + y)
    x = net.avg_pool(x, x.shape[1:3])
    x = tf.reshape(x, [-1, f])
    return tf.nn.softmax(net.dense(x, 12, act=None, logits_std=1.0))


# name -> (architecture, input shape without the batch, what it is)
MODELS = {
    "vww": (
        vww,
        (96, 96, 3),
        "MLPerf Tiny visual wake words: MobileNetV1 alpha 0.25, 96x96x3 -> 2 classes (a 3x3 "
        "stride-2 CONV_2D, 13 depthwise-separable blocks, AVERAGE_POOL_2D, FULLY_CONNECTED, "
        "SOFTMAX).",
    ),
    "kws": (
        kws,
        (49, 10, 1),
        "MLPerf Tiny keyword spotting: DS-CNN small, 49x10x1 MFCC -> 12 classes (a 10x4 stride-2 "
        "CONV_2D, 4 depthwise-separable blocks of 64 channels, AVERAGE_POOL_2D, FULLY_CONNECTED, "
        "SOFTMAX).",
    ),
    "ic": (
        ic,
        (32, 32, 3),
        "MLPerf Tiny image classification: ResNet-8, 32x32x3 -> 10 classes (3x3 CONV_2D, three "
        "residual stacks of 16, 32, 64 channels with ADD, 1x1 stride-2 shortcuts, "
        "AVERAGE_POOL_2D, FULLY_CONNECTED, SOFTMAX).",
    ),
    "ad": (
        ad,
        (640,),
        "MLPerf Tiny anomaly detection: fully connected autoencoder 640 -> 128x4 -> 8 -> 128x4 "
        "-> 640 (FULLY_CONNECTED only).",
    ),
    "mbv2": (
        mbv2,
        (96, 96, 3),
        "MobileNetV2 alpha 0.35, 96x96x3 -> 10 classes: 17 inverted-residual blocks (1x1 "
        "expansion, 3x3 DEPTHWISE_CONV_2D, 1x1 projection; ReLU6 fused), 10 residual ADDs, a "
        "1x1 CONV_2D to 1,280 channels, AVERAGE_POOL_2D, FULLY_CONNECTED, SOFTMAX.",
    ),
    "tcn": (
        tcn,
        (100, 1, 40),
        "dilated temporal convolution network (TCN) for keyword spotting: 100 frames x 40 "
        "features as 100x1x40 -> 12 classes; a 3-tap CONV_2D stem, four residual blocks (PAD "
        "of the past, a causal 3-tap CONV_2D dilated 1, 2, 4, 8, a 1x1 CONV_2D, ADD), "
        "AVERAGE_POOL_2D, FULLY_CONNECTED, SOFTMAX.",
    ),
}


class Model(tf.Module):
    def __init__(self, arch, net, shape):
        super().__init__()
        self.arch = arch
        self.net = net
        self.call = tf.function(
            self._call, input_signature=[tf.TensorSpec((1, *shape), tf.float32, name="input")]
        )

    def _call(self, x):
        self.net.at = 0
        return self.arch(self.net, x)


def op_names(model_bytes):
    """The builtin op names of subgraph 0, in order."""
    m = schema_fb.Model.GetRootAsModel(model_bytes, 0)
    names = {v: k for k, v in vars(schema_fb.BuiltinOperator).items() if not k.startswith("_")}
    codes = []
    for i in range(m.OperatorCodesLength()):
        oc = m.OperatorCodes(i)
        codes.append(names.get(max(oc.BuiltinCode(), oc.DeprecatedBuiltinCode()), "?"))
    sg = m.Subgraphs(0)
    return [codes[sg.Operators(o).OpcodeIndex()] for o in range(sg.OperatorsLength())]


def io_types(model_bytes):
    m = schema_fb.Model.GetRootAsModel(model_bytes, 0)
    sg = m.Subgraphs(0)
    t = {v: k for k, v in vars(schema_fb.TensorType).items() if not k.startswith("_")}
    ins = [t[sg.Tensors(sg.Inputs(i)).Type()] for i in range(sg.InputsLength())]
    outs = [t[sg.Tensors(sg.Outputs(i)).Type()] for i in range(sg.OutputsLength())]
    return ins, outs


def make(name):
    arch, shape, what = MODELS[name]
    r = rng(name)
    net = Net(r)
    calib = rng(name + "/calibration").uniform(-1, 1, (CALIBRATION, *shape)).astype(np.float32)
    arch(net, tf.constant(calib))  # build: draw, calibrate and fold the weights
    macs = net.macs  # per batch element
    net.building = False
    m = Model(arch, net, shape)
    fn = m.call.get_concrete_function()
    rep = rng(name + "/representative").uniform(-1, 1, (REPRESENTATIVE, 1, *shape))

    def representative():
        for x in rep.astype(np.float32):
            yield [x]

    conv = tf.lite.TFLiteConverter.from_concrete_functions([fn], m)
    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    conv.representative_dataset = representative
    conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    conv.inference_input_type = tf.int8
    conv.inference_output_type = tf.int8
    model = conv.convert()

    ops = op_names(model)
    ins, outs = io_types(model)
    assert ins == ["INT8"] and outs == ["INT8"], (name, ins, outs)
    counts = {}
    for o in ops:
        counts[o] = counts.get(o, 0) + 1
    d = os.path.join(HERE, "models", name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"{name}.tflite"), "wb") as f:
        f.write(model)
    summary = ", ".join(f"{o} {n}" for o, n in sorted(counts.items()))
    with open(os.path.join(d, "NOTE.md"), "w") as f:
        f.write(
            f"{what} Random weights with calibrated, folded batch normalisation, int8 in and "
            f"out (`bench/make_models.py`, tensorflow-cpu 2.21.0, seed {SEED}). "
            f"{len(ops)} ops ({summary}); {macs:,} multiply-accumulates; "
            f"{len(model):,} bytes.\n"
        )
    rel = os.path.relpath(os.path.join(d, f"{name}.tflite"), REPO)
    print(f"{rel:36} {len(model):8,} B  {macs:12,} MACs  {len(ops)} ops: {summary}")


def main():
    only = sys.argv[1:]
    unknown = [n for n in only if n not in MODELS]
    if unknown:
        sys.exit(f"unknown model(s) {unknown}; the models are {list(MODELS)}")
    for name in MODELS:
        if not only or name in only:
            make(name)


if __name__ == "__main__":
    main()
