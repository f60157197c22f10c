"""TFLite Micro's output for a firmware's input (src/bin/person_detect.rs, src/bin/micro_speech.rs).

Each firmware fills its model's input with int8 values from xorshift32 with seed 1 (x ^= x << 13;
x ^= x >> 17; x ^= x << 5, then the low byte as int8, one per element, in order): 96x96x1 for
person_detect, 1960 for micro_speech. Prints the output as the firmware does,
`NAME output [a, b, ...]`, so run.sh can compare the two lines.

    STOWPLAN_TFLM_PYTHON=/path/to/python  # a Python with tflite-micro (and numpy)
    "$STOWPLAN_TFLM_PYTHON" firmware_tflm.py NAME [MODEL]

NAME is person_detect or micro_speech; MODEL defaults to
../../../shared/models/tflm_NAME_int8.tflite (relative to this file).
"""

import os
import sys

import numpy as np
from tflite_micro.python.tflite_micro import runtime

HERE = os.path.dirname(os.path.abspath(__file__))

# The input shape of each firmware's model.
INPUTS = {
    "person_detect": (1, 96, 96, 1),
    "micro_speech": (1, 49 * 40),
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


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in INPUTS:
        sys.exit(f"usage: firmware_tflm.py {{{','.join(INPUTS)}}} [MODEL]")
    name = sys.argv[1]
    default = os.path.join(HERE, f"../../../shared/models/tflm_{name}_int8.tflite")
    path = sys.argv[2] if len(sys.argv) > 2 else default
    with open(path, "rb") as f:
        model = f.read()
    shape = INPUTS[name]
    it = runtime.Interpreter.from_bytes(model, arena_size=200000)
    it.set_input(xorshift_input(int(np.prod(shape))).reshape(shape), 0)
    it.invoke()
    out = it.get_output(0).reshape(-1)
    print("{} output [{}]".format(name, ", ".join(str(int(v)) for v in out)))


if __name__ == "__main__":
    main()
