"""TFLite Micro's outputs for the streaming firmware's 50 invocations (src/bin/streaming.rs).

The model is tests/models/streaming/streaming.tflite (int8, a ring buffer of past frames in a
resource variable). Every invocation takes one frame of 16 int8 features from xorshift32 with
seed 7 (x ^= x << 13; x ^= x >> 17; x ^= x << 5, then the low byte as int8, one per element, in
order, the state carried from frame to frame), on one interpreter, so the ring buffer carries
over as on the device. Prints what `streaming-tflm.txt` holds (the firmware's build.rs turns it
into its expected outputs; run.sh recomputes it and requires it unchanged):

    invocations 50
    output 0 [a, b]
    ...
    tflm arena used <bytes> (head <bytes>, 64-bit host)

    STOWPLAN_TFLM_PYTHON=/path/to/python  # a Python with tflite-micro (and numpy)
    "$STOWPLAN_TFLM_PYTHON" streaming_tflm.py
"""

import os
import re
import sys
import tempfile

import numpy as np
from tflite_micro.python.tflite_micro import runtime

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "../../tests/models/streaming/streaming.tflite")
INVOCATIONS = 50
FEATURES = 16


def xorshift_frames(n, seed=7):
    """`n` frames of FEATURES int8 values: the low byte of each successive xorshift32 state."""
    x = seed
    out = np.empty(n * FEATURES, dtype=np.int8)
    for i in range(n * FEATURES):
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        out[i] = np.uint8(x & 0xFF).view(np.int8)
    return out.reshape(n, 1, 1, 1, FEATURES)


def allocations(it):
    """TFLM's own `print_allocations` figures (it prints from C++ to file descriptor 2)."""
    with tempfile.TemporaryFile(mode="w+") as f:
        saved = os.dup(2)
        sys.stderr.flush()
        os.dup2(f.fileno(), 2)
        try:
            it.print_allocations()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        f.seek(0)
        text = f.read()
    figures = {}
    for key in ("head", "tail", "total"):
        m = re.search(rf"\[RecordingMicroAllocator\] Arena allocation {key} (\d+) bytes", text)
        if m:
            figures[key] = int(m.group(1))
    return figures


def run():
    """TFLite Micro on the streaming firmware's frames: (the text of `streaming-tflm.txt`, the
    lines the firmware prints: `output K [a, b]` for every invocation, then `reset output [a, b]`:
    the first frame again after the interpreter's reset)."""
    with open(MODEL, "rb") as f:
        model = f.read()
    it = runtime.Interpreter.from_bytes(model, arena_size=64 * 1024)
    frames = xorshift_frames(INVOCATIONS)
    lines = []
    for k, frame in enumerate(frames):
        it.set_input(frame, 0)
        it.invoke()
        out = it.get_output(0).reshape(-1)
        lines.append("output {} [{}]".format(k, ", ".join(str(int(v)) for v in out)))
    a = allocations(it)
    text = f"invocations {INVOCATIONS}\n" + "".join(line + "\n" for line in lines)
    text += f"tflm arena used {a.get('total', '?')} (head {a.get('head', '?')}, 64-bit host)\n"
    it.reset()
    it.set_input(frames[0], 0)
    it.invoke()
    out = it.get_output(0).reshape(-1)
    lines.append("reset output [{}]".format(", ".join(str(int(v)) for v in out)))
    return text, lines


def main():
    print(run()[0], end="")


if __name__ == "__main__":
    main()
