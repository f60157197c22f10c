"""TFLite Micro's output for the micro_speech firmware's input (src/bin/micro_speech.rs).

The input is 1960 int8 values from xorshift32 with seed 1 (x ^= x << 13; x ^= x >> 17;
x ^= x << 5, then the low byte as int8, one per element, in order). Prints the output as the
firmware does, `micro_speech output [a, b, c, d]`, so run.sh can compare the two lines.

    STOWPLAN_TFLM_PYTHON=/path/to/python  # a Python with tflite-micro (and numpy)
    "$STOWPLAN_TFLM_PYTHON" micro_speech_tflm.py [MODEL]

MODEL defaults to ../../../shared/models/tflm_micro_speech_int8.tflite (relative to this file).
"""

import os
import sys

import numpy as np
from tflite_micro.python.tflite_micro import runtime

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "../../../shared/models/tflm_micro_speech_int8.tflite")


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
    path = sys.argv[1] if len(sys.argv) > 1 else MODEL
    with open(path, "rb") as f:
        model = f.read()
    it = runtime.Interpreter.from_bytes(model, arena_size=200000)
    it.set_input(xorshift_input(49 * 40).reshape(1, 49 * 40), 0)
    it.invoke()
    out = it.get_output(0).reshape(-1)
    print("micro_speech output [{}]".format(", ".join(str(int(v)) for v in out)))


if __name__ == "__main__":
    main()
