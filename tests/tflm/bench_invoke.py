#!/usr/bin/env python3
"""Host time per inference: stowplan's generated `invoke` against TFLite Micro's interpreter.

    cargo build --release -p stowplan-invoke
    python3 tests/tflm/bench_invoke.py [--models person_detect_int8 ...] [--runs 50]

Both run the same seeded random input (numpy default_rng(0)) on this machine, one after the
other: TFLM through its Python interpreter (`invoke()` timed alone, the Python call overhead
included, a few microseconds), stowplan through `stowplan-invoke --bench N` (a fresh arena per
inference, the input copied in). Prints ms per inference and the ratio. With --callgrind it also
counts the instructions of one stowplan inference under `valgrind --tool=callgrind` (the
process's total minus that of a run with zero inferences), a figure that does not depend on the
machine's load.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import check_invoke as ci


def tflm_ms(path, inputs, runs):
    from tflite_micro.python.tflite_micro import runtime

    it = runtime.Interpreter.from_bytes(path.read_bytes(), arena_size=2 * path.stat().st_size + (16 << 20))
    for i, a in enumerate(inputs):
        it.set_input(a, i)
    it.invoke()  # warm-up
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(runs):
            it.invoke()
        best = min(best, (time.perf_counter() - start) / runs)
    return best * 1e3


def ours_ms(binary, name, data, runs):
    best = float("inf")
    for _ in range(3):
        p = subprocess.run([binary, "--bench", str(runs), name], input=data, capture_output=True, check=True)
        best = min(best, int(p.stdout) / 1e6)
    return best


def callgrind_ir(binary, name, data):
    def total(n):
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "cg.out"
            p = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                                binary, "--bench", str(n), name], input=data, capture_output=True)
            m = re.search(r"Collected : (\d+)", p.stderr.decode())
            if p.returncode != 0 or not m:
                raise RuntimeError(p.stderr.decode()[-500:])
            return int(m.group(1))
    return total(1) - total(0)


def main():
    import numpy as np

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", nargs="*", default=["person_detect_int8", "micro_speech_int8", "cnn_int8"])
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--callgrind", action="store_true")
    ap.add_argument("--bin", default=os.environ.get("STOWPLAN_INVOKE_BIN",
                                                    str(ci.REPO / "target" / "release" / "stowplan-invoke")))
    args = ap.parse_args()
    ci.ch.check_version("bench_invoke.py")
    have = subprocess.run([args.bin, "--list"], capture_output=True, text=True, check=True).stdout.split()
    print(f"{'model':<22} {'TFLM ms':>9} {'stowplan ms':>12} {'TFLM / stowplan':>16}"
          + (f" {'stowplan instructions':>22}" if args.callgrind else ""))
    for name in args.models:
        if name not in have:
            print(f"{name:<22} skipped: not in this stowplan-invoke build")
            continue
        path = ci.model_path(ci.MODELS[name])
        from tflite_micro.python.tflite_micro import runtime

        it = runtime.Interpreter.from_bytes(path.read_bytes(), arena_size=2 * path.stat().st_size + (16 << 20))
        inputs = ci.random_inputs(it, 0)
        data = b"".join(np.ascontiguousarray(a).tobytes() for a in inputs)
        t = tflm_ms(path, inputs, args.runs)
        o = ours_ms(args.bin, name, data, args.runs)
        line = f"{name:<22} {t:>9.3f} {o:>12.3f} {t / o:>15.2f}x"
        if args.callgrind:
            line += f" {callgrind_ir(args.bin, name, data):>22,}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
