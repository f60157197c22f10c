"""TFLite Micro's output for the benchmark's input, for every model of the benchmark, and each op's
output on the way.

The input is the one every benchmark firmware gives its model (bench/firmware/src/lib.rs, as
examples/cortex-m/src/input.rs and the TFLM harness of ../shared/benchmarks/tflm-cortex-m):
xorshift32 (x ^= x << 13; x ^= x >> 17; x ^= x << 5) from state 1, the low byte of each new
state as one int8 element, in order. TFLite Micro is its Python interpreter, the pinned wheel
(`tflite-micro==0.dev20261023182759`, reference kernels), as .ci/run installs it, configured to
keep every tensor (`InterpreterConfig.kPreserveAllTensors`: each tensor in bytes of its own, read
after `invoke` with `GetTensor`).

    python3 bench/tflm_outputs.py                      # rewrite bench/tflm-outputs.txt
    python3 bench/tflm_outputs.py --check              # recompute and compare with it (exit 1 if not equal)
    python3 bench/tflm_outputs.py --check --out DIR    # and write what bench/run.sh judges by:

    DIR/tflm-outputs.txt  the outputs, as bench/tflm-outputs.txt holds them (`NAME [v0, v1, ...]`)
    DIR/tflm-ops.txt      every op's output tensors, in the order the ops run:
                          `NAME SUBGRAPH OP OPCODE TENSOR BYTES FNV` (FNV: FNV-1a, 32 bits, of the
                          tensor's bytes, 8 hex digits, as the firmware's `op_check` lines print it)

bench/run.sh requires each firmware's output to be DIR/tflm-outputs.txt's, byte for byte, and
each op's output on the device (the op-marks build) to have DIR/tflm-ops.txt's checksum. The
models of ../shared/models (person_detect, micro_speech) are outside the repository: when that
folder is absent, --check compares the others and says so, unless CI=true (then it fails).
"""

import os
import sys

import numpy as np
from tflite_micro.python.tflite_micro import runtime
from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.join(HERE, "..", "..", "shared", "models")
OUTPUTS = os.path.join(HERE, "tflm-outputs.txt")

# The benchmark's models, in its order: name -> model file.
MODELS = {
    "vww": os.path.join(HERE, "models", "vww", "vww.tflite"),
    "kws": os.path.join(HERE, "models", "kws", "kws.tflite"),
    "ic": os.path.join(HERE, "models", "ic", "ic.tflite"),
    "ad": os.path.join(HERE, "models", "ad", "ad.tflite"),
    "mbv2": os.path.join(HERE, "models", "mbv2", "mbv2.tflite"),
    "tcn": os.path.join(HERE, "models", "tcn", "tcn.tflite"),
    "person_detect": os.path.join(SHARED, "tflm_person_detect_int8.tflite"),
    "micro_speech": os.path.join(SHARED, "tflm_micro_speech_int8.tflite"),
}

# Builtin operator codes -> names (CONV_2D, ...).
OPCODES = {v: k for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}


def xorshift_input(n):
    """`n` int8 values: the low byte of each successive xorshift32 state from state 1."""
    x = 1
    out = np.empty(n, dtype=np.int8)
    for i in range(n):
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        out[i] = np.uint8(x & 0xFF).view(np.int8)
    return out


def fnv1a(data):
    """FNV-1a, 32 bits, of `data` (bytes), as bench/firmware's `probe` computes it."""
    h = 0x811C9DC5
    for b in data:
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h


def run(path):
    """TFLite Micro on the benchmark's input: (the output line's list, [(subgraph, op, opcode,
    tensor, bytes, fnv)] for every output tensor of every op of the main subgraph, in order)."""
    with open(path, "rb") as f:
        model = f.read()
    it = runtime.Interpreter.from_bytes(
        model, arena_size=16 << 20, intrepreter_config=runtime.InterpreterConfig.kPreserveAllTensors
    )
    d = it.get_input_details(0)
    shape = tuple(int(v) for v in d["shape"])
    assert d["dtype"] == np.int8, (path, d["dtype"])
    it.set_input(xorshift_input(int(np.prod(shape))).reshape(shape), 0)
    it.invoke()
    out = it.get_output(0).reshape(-1)
    assert out.dtype == np.int8, (path, out.dtype)
    m = runtime.convert_bytearray_to_object(model)
    if len(m.subgraphs) != 1:
        sys.exit(f"error: {path} has {len(m.subgraphs)} subgraphs; the op-by-op check covers models of one")
    ops = []
    for k, op in enumerate(m.subgraphs[0].operators):
        opcode = OPCODES.get(runtime.get_builtin_code_from_operator_code(m.operatorCodes[op.opcodeIndex]), "CUSTOM")
        for t in op.outputs:
            data = np.ascontiguousarray(it.GetTensor(int(t), 0)["tensor_data"]).tobytes()
            ops.append((0, k, opcode, int(t), len(data), fnv1a(data)))
    return "[" + ", ".join(str(int(v)) for v in out) + "]", ops


def main():
    args = sys.argv[1:]
    out_dir = None
    if "--out" in args:
        i = args.index("--out")
        if i + 1 >= len(args):
            sys.exit("usage: tflm_outputs.py [--check [--out DIR]]")
        out_dir = args[i + 1]
        del args[i : i + 2]
    check = args == ["--check"]
    if args not in ([], ["--check"]) or (out_dir and not check):
        sys.exit("usage: tflm_outputs.py [--check [--out DIR]]")
    ci = os.environ.get("CI") == "true"
    lines, ops = {}, []
    for name, path in MODELS.items():
        if not os.path.exists(path):
            if not check:
                sys.exit(f"error: {path} is absent: every model is needed to write {OUTPUTS}")
            if ci:
                sys.exit(f"error: {path} is absent; with CI=true every model is checked")
            print(f"notice: {path} is absent: {name} not checked")
            continue
        output, model_ops = run(path)
        lines[name] = f"{name} {output}"
        ops += [(name,) + o for o in model_ops]
    if not check:
        with open(OUTPUTS, "w") as f:
            f.write("".join(line + "\n" for line in lines.values()))
        print(f"wrote {os.path.relpath(OUTPUTS)} ({len(lines)} models)")
        return
    if out_dir:
        with open(os.path.join(out_dir, "tflm-outputs.txt"), "w") as f:
            f.write("".join(line + "\n" for line in lines.values()))
        with open(os.path.join(out_dir, "tflm-ops.txt"), "w") as f:
            for name, sg, k, opcode, t, n, h in ops:
                f.write(f"{name} {sg} {k} {opcode} {t} {n} {h:08x}\n")
    with open(OUTPUTS) as f:
        want = {line.split(" ", 1)[0]: line.rstrip("\n") for line in f if line.strip()}
    bad = 0
    for name, line in lines.items():
        if want.get(name) != line:
            print(f"error: {name}: TFLite Micro gives {line!r}, bench/tflm-outputs.txt {want.get(name)!r}")
            bad += 1
    if bad:
        sys.exit(1)
    print(f"bench/tflm-outputs.txt holds TFLite Micro's outputs ({len(lines)} models)")
    if out_dir:
        print(f"TFLite Micro's outputs and {len(ops)} op outputs' checksums written to {out_dir}")


if __name__ == "__main__":
    main()
