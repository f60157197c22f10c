"""TFLite Micro's outputs for the Cortex-M example's binaries, and the check of what they printed.

Every binary is judged by what the pinned wheel (`tflite-micro==0.dev20261023182759`, reference
kernels, as .ci/run installs it) computes in the same run, from the same model and input:

    binary                     model, input                                  lines compared
    stowplan-example-cortex-m  tests/models/mlp_float (float32), io.json's   `inference    [x] -> [y]`:
                               input                                         within 1e-5 (mlp_float.rs)
    streaming                  tests/models/streaming, 50 frames of          `output K [a, b]`, K = 0..49,
                               xorshift32 from seed 7 (streaming_tflm.py)    `reset output [a, b]`
    person_detect              ../shared/models/tflm_person_detect_int8,     `person_detect output [...]`
                               96x96 int8 from xorshift32 seed 1
    micro_speech               ../shared/models/tflm_micro_speech_int8,      `micro_speech output [...]`
                               1,960 int8 from xorshift32 seed 1
    group                      both, as each alone                           both lines, twice each

The input generator: x ^= x << 13; x ^= x >> 17; x ^= x << 5 from the seed, the low byte of each
new state as one int8 element, in order (src/input.rs; streaming.rs carries it from frame to
frame). `reset output` is the first frame again after the interpreter's `reset`.

    STOWPLAN_TFLM_PYTHON=/path/to/python   # a Python with tflite-micro (and numpy)
    "$STOWPLAN_TFLM_PYTHON" firmware_tflm.py oracles DIR
    "$STOWPLAN_TFLM_PYTHON" firmware_tflm.py check DIR BINARY...

`oracles` runs TFLite Micro and writes DIR/tflm-oracles.json (what `check` compares with) and
the fresh copies of the committed snapshots, DIR/streaming-tflm.txt and (when both shared models
are there) DIR/tflm-outputs.txt, which run.sh requires unchanged (the firmware's build.rs turns
them into the binaries' own expected outputs). It also requires io.json's output, the mlp_float
binary's own expected output, to be within the tolerance of the wheel's. `check` reads each
BINARY's console as run.sh saved it in DIR (expected.out, streaming.out, person-detect.out,
micro-speech.out, group.out) and compares its output lines with the wheel's; it exits 1 on a
missing file or line, or on any difference, naming the first.
"""

import json
import os
import re
import sys

import numpy as np
from tflite_micro.python.tflite_micro import runtime

import streaming_tflm

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.join(HERE, "..", "..", "..", "shared", "models")
MLP_MODEL = os.path.join(HERE, "..", "..", "tests", "models", "mlp_float", "mlp_float.tflite")
MLP_IO = os.path.join(HERE, "..", "..", "tests", "models", "mlp_float", "io.json")
# examples/shared/mlp_float.rs's TOLERANCE.
MLP_TOLERANCE = np.float32(1e-5)

# The models of ../shared/models the firmware binaries read, and their input shapes.
SHARED_MODELS = {
    "person_detect": ("tflm_person_detect_int8.tflite", (1, 96, 96, 1)),
    "micro_speech": ("tflm_micro_speech_int8.tflite", (1, 49 * 40)),
}

# Each binary: the file run.sh saves its console in, and the pattern of its output lines.
BINARIES = {
    "stowplan-example-cortex-m": ("expected.out", r"^inference "),
    "streaming": ("streaming.out", r"^(output \d+|reset output) \["),
    "person_detect": ("person-detect.out", r"^person_detect output \["),
    "micro_speech": ("micro-speech.out", r"^micro_speech output \["),
    "group": ("group.out", r"^(person_detect|micro_speech) output \["),
}


def xorshift_input(n, seed=1):
    """`n` int8 values: the low byte of each successive xorshift32 state."""
    x = seed
    out = np.empty(n, dtype=np.int8)
    for i in range(n):
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        out[i] = np.uint8(x & 0xFF).view(np.int8)
    return out


def int_line(name, values):
    return "{} output [{}]".format(name, ", ".join(str(int(v)) for v in values))


def shared_output(name):
    """The line the firmware prints for TFLite Micro's output of shared model `name`, or None
    when the model is absent."""
    file, shape = SHARED_MODELS[name]
    path = os.path.join(SHARED, file)
    if not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        model = f.read()
    it = runtime.Interpreter.from_bytes(model, arena_size=200000)
    it.set_input(xorshift_input(int(np.prod(shape))).reshape(shape), 0)
    it.invoke()
    return int_line(name, it.get_output(0).reshape(-1))


def io_json(key):
    with open(MLP_IO) as f:
        return [float(v) for v in json.load(f)[key][0]["data"]]


def mlp_output(x):
    with open(MLP_MODEL, "rb") as f:
        model = f.read()
    it = runtime.Interpreter.from_bytes(model, arena_size=64 * 1024)
    it.set_input(np.array(x, dtype=np.float32).reshape(1, -1), 0)
    it.invoke()
    return [float(v) for v in it.get_output(0).reshape(-1)]


def within(got, want):
    return len(got) == len(want) and all(
        abs(np.float32(g) - np.float32(w)) <= MLP_TOLERANCE for g, w in zip(got, want)
    )


def oracles(out_dir):
    x = io_json("inputs")
    y = mlp_output(x)
    committed = io_json("outputs")
    if not within(committed, y):
        sys.exit(
            f"error: tests/models/mlp_float/io.json's output {committed} (the mlp_float binary's own "
            f"expected output) is not within {float(MLP_TOLERANCE):g} of TFLite Micro's {y}"
        )
    text, streaming = streaming_tflm.run()
    with open(os.path.join(out_dir, "streaming-tflm.txt"), "w") as f:
        f.write(text)
    shared = {name: shared_output(name) for name in SHARED_MODELS}
    if all(shared.values()):
        with open(os.path.join(out_dir, "tflm-outputs.txt"), "w") as f:
            for name, line in shared.items():
                f.write(name + line[len(name) + len(" output") :] + "\n")
    lines = {"streaming": streaming}
    for name, line in shared.items():
        if line:
            lines[name] = [line]
    if all(shared.values()):
        lines["group"] = [shared["person_detect"], shared["micro_speech"]] * 2
    with open(os.path.join(out_dir, "tflm-oracles.json"), "w") as f:
        json.dump({"mlp_float": {"input": x, "output": y}, "lines": lines}, f, indent=1)
    print(
        "TFLite Micro's outputs for "
        + ", ".join(["stowplan-example-cortex-m"] + list(lines))
        + f" (the pinned wheel) written to {out_dir}"
    )


def floats(text):
    return [float(v) for v in text.split(",")] if text.strip() else []


def check(out_dir, binaries):
    with open(os.path.join(out_dir, "tflm-oracles.json")) as f:
        want = json.load(f)
    errors = []
    for binary in binaries:
        if binary not in BINARIES:
            sys.exit(f"error: unknown binary {binary!r}; expected one of {', '.join(BINARIES)}")
        file, pattern = BINARIES[binary]
        path = os.path.join(out_dir, file)
        if not os.path.exists(path):
            errors.append(f"{binary}: no console output ({file})")
            continue
        with open(path) as f:
            got = [line.rstrip("\r\n") for line in f if re.match(pattern, line)]
        if binary == "stowplan-example-cortex-m":
            m = re.match(r"^inference +\[(.*)\] -> \[(.*)\]$", got[0]) if len(got) == 1 else None
            x, y = want["mlp_float"]["input"], want["mlp_float"]["output"]
            if m is None:
                errors.append(f"{binary}: {len(got)} lines `inference [x] -> [y]` in {file}, not 1")
            elif floats(m.group(1)) != [float(np.float32(v)) for v in x]:
                errors.append(f"{binary}: the input [{m.group(1)}] is not io.json's {x}")
            elif not within(floats(m.group(2)), y):
                errors.append(
                    f"{binary}: the output [{m.group(2)}] is not within {float(MLP_TOLERANCE):g} of TFLite Micro's {y}"
                )
            else:
                exact = [np.float32(v) for v in floats(m.group(2))] == [np.float32(v) for v in y]
                print(
                    f"{binary}: output [{m.group(2)}] within {float(MLP_TOLERANCE):g} of TFLite Micro's"
                    + (" (bit-exact)" if exact else "")
                )
            continue
        lines = want["lines"].get(binary)
        if lines is None:
            errors.append(f"{binary}: TFLite Micro's outputs were not computed (is its model in ../shared/models?)")
            continue
        for k, (g, w) in enumerate(zip(got, lines)):
            if g != w:
                errors.append(f"{binary}: output line {k + 1} of {file} is {g!r}, TFLite Micro's {w!r}")
                break
        else:
            if len(got) != len(lines):
                errors.append(f"{binary}: {len(got)} output lines in {file}, TFLite Micro's {len(lines)}")
            else:
                print(f"{binary}: {len(got)} output line{'s' * (len(got) > 1)}, TFLite Micro's, bit for bit")
    for e in errors:
        print("error: " + e, file=sys.stderr)
    return 1 if errors else 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "oracles":
        oracles(sys.argv[2])
        return 0
    if len(sys.argv) >= 4 and sys.argv[1] == "check":
        return check(sys.argv[2], sys.argv[3:])
    sys.exit("usage: firmware_tflm.py oracles DIR | check DIR BINARY...")


if __name__ == "__main__":
    sys.exit(main())
