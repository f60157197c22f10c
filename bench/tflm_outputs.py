"""TFLite Micro's output for the benchmark's input, for every model of the benchmark.

The input is the one every benchmark firmware gives its model (bench/firmware/src/input.rs, as
examples/cortex-m/src/input.rs and the TFLM harness of ../shared/benchmarks/tflm-cortex-m):
xorshift32 (x ^= x << 13; x ^= x >> 17; x ^= x << 5) from state 1, the low byte of each new
state as one int8 element, in order. TFLite Micro is its Python interpreter, the pinned wheel
(`tflite-micro==0.dev20261023182759`, reference kernels), as .ci/run installs it.

    python3 bench/tflm_outputs.py            # rewrite bench/tflm-outputs.txt
    python3 bench/tflm_outputs.py --check    # recompute and compare with it (exit 1 if not equal)

One line per model: `NAME [v0, v1, ...]` (the int8 output). bench/run.sh requires the firmware's
output to be this, byte for byte. The models of ../shared/models (person_detect, micro_speech)
are outside the repository: when that folder is absent, --check compares the others and says so.
"""

import os
import sys

import numpy as np
from tflite_micro.python.tflite_micro import runtime

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


def output(path):
    with open(path, "rb") as f:
        model = f.read()
    it = runtime.Interpreter.from_bytes(model, arena_size=4 << 20)
    d = it.get_input_details(0)
    shape = tuple(int(v) for v in d["shape"])
    assert d["dtype"] == np.int8, (path, d["dtype"])
    it.set_input(xorshift_input(int(np.prod(shape))).reshape(shape), 0)
    it.invoke()
    out = it.get_output(0).reshape(-1)
    assert out.dtype == np.int8, (path, out.dtype)
    return "[" + ", ".join(str(int(v)) for v in out) + "]"


def main():
    check = sys.argv[1:] == ["--check"]
    if sys.argv[1:] not in ([], ["--check"]):
        sys.exit("usage: tflm_outputs.py [--check]")
    lines = {}
    for name, path in MODELS.items():
        if not os.path.exists(path):
            if not check:
                sys.exit(f"error: {path} is absent: every model is needed to write {OUTPUTS}")
            print(f"notice: {path} is absent: {name} not checked")
            continue
        lines[name] = f"{name} {output(path)}"
    if not check:
        with open(OUTPUTS, "w") as f:
            f.write("".join(line + "\n" for line in lines.values()))
        print(f"wrote {os.path.relpath(OUTPUTS)} ({len(lines)} models)")
        return
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


if __name__ == "__main__":
    main()
