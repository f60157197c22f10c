# Makes the small .tflite test models in tests/models/ with TensorFlow's converter.
#
# How to run (from the repository root; TensorFlow is needed only here, never in CI, so the
# generated files are committed):
#
#   python -m venv .venv && .venv/bin/pip install tensorflow-cpu==2.21.0 && .venv/bin/python tests/models/make_models.py
#
# (one or more case names as arguments remake only those cases)
#
# For every case it writes
#   tests/models/<case>/<case>.tflite  the model
#   tests/models/<case>/NOTE.md        one line: what the model exercises
#   tests/models/<case>/io.json        one seeded input and the output that TensorFlow's own
#                                      TFLite (LiteRT) interpreter computes for it, with its
#                                      reference kernels (BUILTIN_REF), for checking inference
#                                      on TFLite Micro (see tests/tflm/check_heads.py)
#
# The models are built from plain tf.Module/tf.function code (no Keras, whose version the
# command above does not pin), with weights drawn from a seeded numpy generator, so a rerun with
# the same TensorFlow version gives the same files.

import json
import os
import sys
import warnings
import zlib

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np
import tensorflow as tf
from tensorflow.lite.python import schema_py_generated as schema_fb

assert tf.__version__ == "2.21.0", (
    f"make_models.py is pinned to tensorflow-cpu==2.21.0, found {tf.__version__}; "
    "see the command at the top of this file"
)

# tf.lite.Interpreter is deprecated in favour of ai_edge_litert but still ships with 2.21.0.
warnings.filterwarnings("ignore", message=".*tf.lite.Interpreter is deprecated")

SEED = 20240611
tf.random.set_seed(SEED)
np.random.seed(SEED)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

# TFLite builtin operator codes (tensorflow/compiler/mlir/lite/schema/schema.fbs).
IF, WHILE, CALL_ONCE = 118, 119, 129
VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE = 142, 143, 144


def rng(case):
    """A numpy generator of its own for every case (and purpose), so adding one changes no
    other."""
    return np.random.default_rng([SEED, zlib.crc32(case.encode())])


def glorot(r, shape):
    """Glorot-uniform weights for a (in, out) matrix or an HWIO/HWCM conv kernel."""
    receptive = int(np.prod(shape[:-2]))
    fan_in, fan_out = shape[-2] * receptive, shape[-1] * receptive
    limit = np.sqrt(6.0 / (fan_in + fan_out))
    return r.uniform(-limit, limit, size=shape).astype(np.float32)


# ------------------------------------------------------------------------------------------------
# conversion and inspection


def convert(concrete_fn, module, *, representative=None, resource_variables=False):
    conv = tf.lite.TFLiteConverter.from_concrete_functions([concrete_fn], module)
    if representative is not None:
        conv.optimizations = [tf.lite.Optimize.DEFAULT]
        conv.representative_dataset = representative
        conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        conv.inference_input_type = tf.int8
        conv.inference_output_type = tf.int8
    if resource_variables:
        conv.experimental_enable_resource_variables = True
    return conv.convert()


def op_codes(model_bytes):
    """(number of subgraphs, sorted builtin codes of all operators of all subgraphs)."""
    m = schema_fb.Model.GetRootAsModel(model_bytes, 0)
    codes = []
    for i in range(m.OperatorCodesLength()):
        oc = m.OperatorCodes(i)
        codes.append(max(oc.BuiltinCode(), oc.DeprecatedBuiltinCode()))
    used = set()
    for s in range(m.SubgraphsLength()):
        sg = m.Subgraphs(s)
        for o in range(sg.OperatorsLength()):
            used.add(codes[sg.Operators(o).OpcodeIndex()])
    return m.SubgraphsLength(), sorted(used)


def op_names(codes):
    names = {v: k for k, v in vars(schema_fb.BuiltinOperator).items() if not k.startswith("_")}
    return [names.get(c, str(c)) for c in codes]


def reference_run(model_bytes, inputs):
    """Runs TF's TFLite interpreter with its reference kernels on `inputs` (a dict from the
    tf.function argument name to an array). Returns (inputs, outputs), both as lists in the
    order of the model's subgraph-0 inputs and outputs (the converter orders a signature's
    inputs by name, not by argument position)."""
    it = tf.lite.Interpreter(
        model_content=model_bytes,
        experimental_op_resolver_type=tf.lite.experimental.OpResolverType.BUILTIN_REF,
    )
    it.allocate_tensors()
    ins = it.get_input_details()
    assert len(ins) == len(inputs), (len(ins), len(inputs))
    ordered = []
    for d in ins:
        arg = d["name"].removeprefix("serving_default_").removesuffix(":0")
        x = inputs[arg]
        assert tuple(d["shape"]) == x.shape and d["dtype"] == x.dtype, (d, x.shape, x.dtype)
        it.set_tensor(d["index"], x)
        ordered.append((d["name"], x))
    it.invoke()
    return ordered, [(d["name"], it.get_tensor(d["index"])) for d in it.get_output_details()]


def tensor_json(name, a):
    a = np.asarray(a)
    if a.dtype == np.float32:
        data = [float(v) for v in a.reshape(-1)]  # float32 -> double is exact and round-trips
    elif a.dtype in (np.int8, np.uint8, np.int16, np.int32, np.int64):
        data = [int(v) for v in a.reshape(-1)]
    elif a.dtype == np.bool_:
        data = [bool(v) for v in a.reshape(-1)]
    else:
        raise TypeError(f"unsupported dtype {a.dtype}")
    return {"name": name, "dtype": str(a.dtype), "shape": list(a.shape), "data": data}


def write_case(case, model_bytes, note, inputs, want_codes=(), want_subgraphs=None):
    nsub, codes = op_codes(model_bytes)
    missing = [c for c in want_codes if c not in codes]
    if missing:
        sys.exit(
            f"{case}: the converted model lacks builtin codes {missing} "
            f"(it has {op_names(codes)} in {nsub} subgraphs)"
        )
    if want_subgraphs is not None and nsub != want_subgraphs:
        sys.exit(f"{case}: {nsub} subgraphs, expected {want_subgraphs} ({op_names(codes)})")
    inputs, outputs = reference_run(model_bytes, inputs)
    d = os.path.join(HERE, case)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"{case}.tflite"), "wb") as f:
        f.write(model_bytes)
    with open(os.path.join(d, "NOTE.md"), "w") as f:
        f.write(note.strip() + "\n")
    with open(os.path.join(d, "io.json"), "w") as f:
        # One line per tensor: readable diffs, no line per number.
        f.write("{\n")
        for key, tensors in (("inputs", inputs), ("outputs", outputs)):
            rows = ",\n".join("  " + json.dumps(tensor_json(n, a)) for n, a in tensors)
            f.write(f' "{key}": [\n{rows}\n ]' + (",\n" if key == "inputs" else "\n"))
        f.write("}\n")
    rel = os.path.relpath(os.path.join(d, f"{case}.tflite"), REPO)
    print(f"{rel:42} {len(model_bytes):6} B  {nsub} subgraph(s)  ops {', '.join(op_names(codes))}")


# ------------------------------------------------------------------------------------------------
# cases


def mlp_weights(case):
    """A 1->16->16->1 sine regressor: random hidden layers, least-squares output layer."""
    r = rng(case)
    w1, b1 = glorot(r, (1, 16)) * 3.0, r.uniform(-1, 1, 16).astype(np.float32)
    w2, b2 = glorot(r, (16, 16)), r.uniform(-0.5, 0.5, 16).astype(np.float32)
    xs = np.linspace(0, 2 * np.pi, 256, dtype=np.float32).reshape(-1, 1)
    h = np.maximum(np.maximum(xs @ w1 + b1, 0) @ w2 + b2, 0)
    a = np.concatenate([h, np.ones((len(xs), 1), np.float32)], axis=1)
    sol, *_ = np.linalg.lstsq(a, np.sin(xs), rcond=None)
    w3, b3 = sol[:16].astype(np.float32), sol[16:].reshape(1).astype(np.float32)
    return [w1, b1, w2, b2, w3, b3]


class Mlp(tf.Module):
    def __init__(self, weights):
        super().__init__()
        self.w = [tf.constant(w) for w in weights]

    @tf.function(input_signature=[tf.TensorSpec([1, 1], tf.float32, name="x")])
    def __call__(self, x):
        w1, b1, w2, b2, w3, b3 = self.w
        h = tf.nn.relu(tf.matmul(x, w1) + b1)
        h = tf.nn.relu(tf.matmul(h, w2) + b2)
        return tf.matmul(h, w3) + b3


def mlp_float():
    case = "mlp_float"
    m = Mlp(mlp_weights(case))
    model = convert(m.__call__.get_concrete_function(), m)
    x = np.array([[1.25]], np.float32)
    write_case(
        case,
        model,
        "float32 MLP 1->16->16->1 (sine regressor): three plain FULLY_CONNECTED ops, a straight chain.",
        {"x": x},
        want_codes=[schema_fb.BuiltinOperator.FULLY_CONNECTED],
        want_subgraphs=1,
    )


def mlp_int8():
    case = "mlp_int8"
    m = Mlp(mlp_weights(case))
    r = rng(case + "/rep")

    def representative():
        for v in r.uniform(0, 2 * np.pi, 128).astype(np.float32):
            yield [np.array([[v]], np.float32)]

    model = convert(m.__call__.get_concrete_function(), m, representative=representative)
    x = np.array([[37]], np.int8)
    write_case(
        case,
        model,
        "fully int8-quantised MLP 1->16->16->1 (int8 input and output): FULLY_CONNECTED chain.",
        {"x": x},
        want_codes=[schema_fb.BuiltinOperator.FULLY_CONNECTED],
        want_subgraphs=1,
    )


class Cnn(tf.Module):
    def __init__(self, r):
        super().__init__()
        self.k1 = tf.constant(glorot(r, (3, 3, 1, 4)))
        self.b1 = tf.constant(r.uniform(-0.1, 0.1, 4).astype(np.float32))
        self.dw = tf.constant(glorot(r, (3, 3, 4, 1)))
        self.bdw = tf.constant(r.uniform(-0.1, 0.1, 4).astype(np.float32))
        self.k2 = tf.constant(glorot(r, (1, 1, 4, 4)))
        self.b2 = tf.constant(r.uniform(-0.1, 0.1, 4).astype(np.float32))
        self.wf = tf.constant(glorot(r, (72, 4)))
        self.bf = tf.constant(r.uniform(-0.1, 0.1, 4).astype(np.float32))

    @tf.function(input_signature=[tf.TensorSpec([1, 12, 12, 1], tf.float32, name="image")])
    def __call__(self, x):
        c = tf.nn.relu(tf.nn.conv2d(x, self.k1, 1, "SAME") + self.b1)  # 1x12x12x4
        p = tf.nn.max_pool2d(c, 2, 2, "VALID")  # 1x6x6x4
        a = tf.nn.relu(tf.nn.depthwise_conv2d(p, self.dw, [1, 1, 1, 1], "SAME") + self.bdw)
        a = a + p  # residual ADD
        b = tf.nn.relu(tf.nn.conv2d(p, self.k2, 1, "SAME") + self.b2)
        cat = tf.concat([a, b], axis=3)  # 1x6x6x8
        q = tf.nn.avg_pool2d(cat, 2, 2, "VALID")  # 1x3x3x8
        f = tf.reshape(q, [1, 72])
        return tf.nn.softmax(tf.matmul(f, self.wf) + self.bf)


def cnn_int8():
    case = "cnn_int8"
    r = rng(case)
    m = Cnn(r)
    rr = rng(case + "/rep")

    def representative():
        for _ in range(64):
            yield [rr.uniform(0, 1, (1, 12, 12, 1)).astype(np.float32)]

    model = convert(m.__call__.get_concrete_function(), m, representative=representative)
    x = rng(case + "/io").integers(-128, 128, (1, 12, 12, 1)).astype(np.int8)
    B = schema_fb.BuiltinOperator
    write_case(
        case,
        model,
        "tiny int8 CNN 1x12x12x1, branchy: CONV_2D, MAX_POOL_2D, DEPTHWISE_CONV_2D with a residual "
        "ADD, a 1x1 CONV_2D branch joined by CONCATENATION, AVERAGE_POOL_2D, RESHAPE, "
        "FULLY_CONNECTED, SOFTMAX.",
        {"image": x},
        want_codes=[
            B.CONV_2D,
            B.MAX_POOL_2D,
            B.DEPTHWISE_CONV_2D,
            B.ADD,
            B.CONCATENATION,
            B.AVERAGE_POOL_2D,
            B.RESHAPE,
            B.FULLY_CONNECTED,
            B.SOFTMAX,
        ],
        want_subgraphs=1,
    )


class CondIf(tf.Module):
    @tf.function(
        input_signature=[
            tf.TensorSpec([1, 8], tf.float32, name="x"),
            tf.TensorSpec([], tf.float32, name="s"),
        ]
    )
    def __call__(self, x, s):
        h = x * 1.5 - 0.25
        y = tf.cond(
            s > 0.0,
            lambda: tf.nn.relu(h * 2.0 + 1.0),
            lambda: h * h - 0.5,
        )
        # x stays live across the IF: its lifetime spans the branch subgraphs.
        return y * 0.5 + x


def cond_if():
    case = "cond_if"
    m = CondIf()
    model = convert(m.__call__.get_concrete_function(), m)
    x = rng(case + "/io").uniform(-1, 1, (1, 8)).astype(np.float32)
    s = np.array(0.75, np.float32)  # takes the then branch
    write_case(
        case,
        model,
        "float32 tf.cond on a scalar input -> IF op (code 118) with then/else subgraphs "
        "(3 subgraphs); a main-graph tensor stays live across the IF.",
        {"x": x, "s": s},
        want_codes=[IF],
        want_subgraphs=3,
    )


class WhileLoop(tf.Module):
    @tf.function(
        input_signature=[
            tf.TensorSpec([1, 8], tf.float32, name="x"),
            tf.TensorSpec([], tf.float32, name="n"),
        ]
    )
    def __call__(self, x, n):
        h = x + 0.125

        def body(i, v):
            return i + 1.0, tf.nn.relu(v * 0.75 + 0.5) - 0.25

        _, v = tf.while_loop(lambda i, v: i < n, body, (tf.constant(0.0), h))
        return v * 2.0 + x


def while_loop():
    case = "while_loop"
    m = WhileLoop()
    model = convert(m.__call__.get_concrete_function(), m)
    x = rng(case + "/io").uniform(-1, 1, (1, 8)).astype(np.float32)
    n = np.array(3.0, np.float32)  # three trips
    write_case(
        case,
        model,
        "float32 tf.while_loop with an input-driven trip count -> WHILE op (code 119) with "
        "cond/body subgraphs (3 subgraphs).",
        {"x": x, "n": n},
        want_codes=[WHILE],
        want_subgraphs=3,
    )


class Counter(tf.Module):
    def __init__(self, r):
        super().__init__()
        self.v = tf.Variable(r.uniform(-1, 1, (1, 4)).astype(np.float32), name="state")

    @tf.function(input_signature=[tf.TensorSpec([1, 4], tf.float32, name="x")])
    def __call__(self, x):
        self.v.assign(self.v * 0.5 + x)
        return self.v.read_value() * 2.0 + 1.0


def call_once():
    case = "call_once"
    m = Counter(rng(case))
    model = convert(m.__call__.get_concrete_function(), m, resource_variables=True)
    x = rng(case + "/io").uniform(-1, 1, (1, 4)).astype(np.float32)
    write_case(
        case,
        model,
        "float32 model with a resource variable: CALL_ONCE (129) of an init subgraph, VAR_HANDLE "
        "(142), READ_VARIABLE (143), ASSIGN_VARIABLE (144); io.json is the first call.",
        {"x": x},
        want_codes=[CALL_ONCE, VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE],
    )


# The streaming model's shapes: each invocation takes one frame of FEATURES int8 features; the
# convolution sees the last WINDOW frames, WINDOW - 1 of them kept in a ring buffer.
FEATURES, WINDOW, FILTERS = 16, 6, 8


class Streaming(tf.Module):
    """A microWakeWord-style streaming classifier: the ring buffer of past frames is a resource
    variable (initialised to zeros by a CALL_ONCE subgraph); each call concatenates the new frame,
    keeps the newest WINDOW - 1 frames for the next call, and runs a convolution over time, a
    depthwise convolution, a fully connected layer and a logistic on the window."""

    def __init__(self, r):
        super().__init__()
        self.ring = tf.Variable(
            np.zeros((1, WINDOW - 1, 1, FEATURES), np.float32), trainable=False, name="ring"
        )
        self.w1 = tf.constant(glorot(r, (3, 1, FEATURES, FILTERS)))
        self.b1 = tf.constant(r.uniform(-0.1, 0.1, FILTERS).astype(np.float32))
        self.w2 = tf.constant(glorot(r, (3, 1, FILTERS, 1)))
        self.w3 = tf.constant(glorot(r, ((WINDOW - 4) * FILTERS, 2)))
        self.b3 = tf.constant(r.uniform(-0.1, 0.1, 2).astype(np.float32))

    @tf.function(input_signature=[tf.TensorSpec([1, 1, 1, FEATURES], tf.float32, name="frame")])
    def __call__(self, frame):
        window = tf.concat([self.ring, frame], axis=1)  # [1, WINDOW, 1, FEATURES]
        self.ring.assign(window[:, 1:, :, :])
        h = tf.nn.relu(tf.nn.conv2d(window, self.w1, 1, "VALID") + self.b1)  # [1, WINDOW-2, 1, F]
        h = tf.nn.relu(tf.nn.depthwise_conv2d(h, self.w2, [1, 1, 1, 1], "VALID"))
        flat = tf.reshape(h, [1, (WINDOW - 4) * FILTERS])
        return tf.sigmoid(tf.matmul(flat, self.w3) + self.b3)


def streaming():
    case = "streaming"
    r = rng(case)
    m = Streaming(r)
    frames = r.uniform(-1.0, 1.0, size=(64, 1, 1, 1, FEATURES)).astype(np.float32)

    def representative():
        for f in frames:
            yield [f]

    conv = tf.lite.TFLiteConverter.from_concrete_functions([m.__call__.get_concrete_function()], m)
    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    conv.representative_dataset = representative
    conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    conv.inference_input_type = tf.int8
    conv.inference_output_type = tf.int8
    conv.experimental_enable_resource_variables = True
    # The ring buffer is int8 too, as microWakeWord converts its streaming models.
    conv._experimental_variable_quantization = True
    model = conv.convert()
    x = rng(case + "/io").integers(-128, 127, (1, 1, 1, FEATURES), endpoint=True).astype(np.int8)
    write_case(
        case,
        model,
        "int8 streaming model in the microWakeWord style: a ring buffer of past frames in a "
        "resource variable (CALL_ONCE init subgraph, VAR_HANDLE, READ_VARIABLE, CONCATENATION, "
        "STRIDED_SLICE, ASSIGN_VARIABLE), then CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED and "
        "LOGISTIC over the window; io.json is the first call.",
        {"frame": x},
        want_codes=[CALL_ONCE, VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE],
    )


class DynamicBatch(tf.Module):
    def __init__(self, r):
        super().__init__()
        self.w1 = tf.constant(glorot(r, (16, 8)))
        self.b1 = tf.constant(r.uniform(-0.1, 0.1, size=(8,)).astype(np.float32))
        self.w2 = tf.constant(glorot(r, (8, 3)))
        self.b2 = tf.constant(r.uniform(-0.1, 0.1, size=(3,)).astype(np.float32))

    @tf.function(
        input_signature=[
            tf.TensorSpec([1, 16], tf.float32, name="context"),
            tf.TensorSpec([None, 8], tf.float32, name="queries"),
        ]
    )
    def __call__(self, context, queries):
        h = tf.nn.relu(tf.matmul(context, self.w1) + self.b1)  # [1, 8]: planned statically
        q = queries * h  # [batch, 8]: dynamic
        return tf.matmul(q, self.w2) + self.b2  # [batch, 3]: dynamic


# Batch sizes whose outputs dynamic_batch/batches.json records.
BATCHES = (1, 3, 8, 3, 1)


def dynamic_batch():
    case = "dynamic_batch"
    r = rng(case)
    m = DynamicBatch(r)
    model = convert(m.__call__.get_concrete_function(), m)
    context = r.uniform(-1.0, 1.0, size=(1, 16)).astype(np.float32)
    queries = r.uniform(-1.0, 1.0, size=(max(BATCHES), 8)).astype(np.float32)
    write_case(
        case,
        model,
        "float32 model with a dynamic batch: `queries` is [-1, 8] (shape_signature), so the MUL "
        "and FULLY_CONNECTED after it are too; the `context` branch ([1, 16] -> [1, 8]) is static.",
        {"context": context, "queries": queries[:1]},
        want_codes=[schema_fb.BuiltinOperator.FULLY_CONNECTED, schema_fb.BuiltinOperator.MUL],
        want_subgraphs=1,
    )
    # The outputs for several batch sizes (the first rows of `queries`), with the reference
    # kernels after resizing the dynamic input.
    runs = []
    for batch in BATCHES:
        it = tf.lite.Interpreter(
            model_content=model,
            experimental_op_resolver_type=tf.lite.experimental.OpResolverType.BUILTIN_REF,
        )
        ins = {d["name"]: d for d in it.get_input_details()}
        q = next(d for n, d in ins.items() if "queries" in n)
        c = next(d for n, d in ins.items() if "context" in n)
        it.resize_tensor_input(q["index"], [batch, 8])
        it.allocate_tensors()
        it.set_tensor(c["index"], context)
        it.set_tensor(q["index"], queries[:batch])
        it.invoke()
        out = it.get_tensor(it.get_output_details()[0]["index"])
        runs.append({"batch": batch, "output": [float(v) for v in out.reshape(-1)]})
    with open(os.path.join(HERE, case, "batches.json"), "w") as f:
        f.write("{\n")
        f.write(f' "context": {json.dumps([float(v) for v in context.reshape(-1)])},\n')
        f.write(f' "queries": {json.dumps([float(v) for v in queries.reshape(-1)])},\n')
        f.write(' "runs": [\n' + ",\n".join("  " + json.dumps(x) for x in runs) + "\n ]\n}\n")


def main():
    only = sys.argv[1:]
    for make in (
        mlp_float, mlp_int8, cnn_int8, cond_if, while_loop, call_once, dynamic_batch, streaming
    ):
        if not only or make.__name__ in only:
            make()


if __name__ == "__main__":
    main()
