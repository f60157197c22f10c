#!/usr/bin/env python3
"""Checks the models stowplan folds and TFLite Micro refuses against LiteRT's reference kernels.

    cargo build -p stowplan-invoke
    python3 -m venv target/litert-venv && target/litert-venv/bin/pip install ai-edge-litert numpy
    target/litert-venv/bin/python tests/tflm/check_folding.py [--seeds 20] [--bin target/debug/stowplan-invoke]

`fold_f16_conv` (float16 CONV_2D weights, DEQUANTIZE to float32) and `fold_densify` (sparse
FULLY_CONNECTED weights, DENSIFY) are models TFLM's interpreter refuses (its DEQUANTIZE takes no
float16, it has no DENSIFY); generated `invoke` folds those ops when the crate compiles
(stowplan_planner::fold). LiteRT (`ai-edge-litert`, its interpreter with the BUILTIN_REF op
resolver: TensorFlow Lite's reference kernels) is the judge: for each model and seed, one
input (numpy default_rng(seed): seed 0 all zeros, seed 1 values of 1e18 whose squares overflow,
the others normal with magnitudes from 1e-3 to 1e3) goes through LiteRT and through
`stowplan-invoke MODEL`, and the output bytes must be identical. `--model NAME=PATH` adds a
model built into stowplan-invoke as NAME (tests/invoke/build.rs). Exits non-zero on any
difference.
"""

import argparse
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent

MODELS = {
    "fold_f16_conv": "tests/models/synthetic/fold_f16_conv.tflite",
    "fold_densify": "tests/models/synthetic/fold_densify.tflite",
}


def inputs(details, seed):
    import numpy as np

    rng = np.random.default_rng(seed)
    out = []
    for d in details:
        shape, dtype = d["shape"], d["dtype"]
        if seed == 0:
            a = np.zeros(shape, dtype)
        elif seed == 1:
            a = np.full(shape, 1e18, dtype) * rng.choice([-1, 1], size=shape)
        else:
            a = rng.standard_normal(shape) * 10.0 ** rng.uniform(-3, 3)
        out.append(np.ascontiguousarray(a.astype(dtype)))
    return out


def main():
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=20, help="inputs per model (default 20)")
    ap.add_argument("--model", action="append", default=[], metavar="NAME=PATH",
                    help="also check the model at PATH, built into stowplan-invoke as NAME")
    ap.add_argument("--bin", default=os.environ.get(
        "STOWPLAN_INVOKE_BIN", str(REPO / "target" / "debug" / "stowplan-invoke")))
    args = ap.parse_args()
    models = dict(MODELS)
    for m in args.model:
        name, _, path = m.partition("=")
        models[name] = path
    failed = False
    for name, rel in models.items():
        it = Interpreter(model_path=str(REPO / rel),
                         experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
        it.allocate_tensors()
        same = 0
        for seed in range(args.seeds):
            ins = inputs(it.get_input_details(), seed)
            for d, a in zip(it.get_input_details(), ins):
                it.set_tensor(d["index"], a)
            it.invoke()
            want = b"".join(np.ascontiguousarray(it.get_tensor(d["index"])).tobytes()
                            for d in it.get_output_details())
            p = subprocess.run([args.bin, name], input=b"".join(a.tobytes() for a in ins),
                               capture_output=True, timeout=600)
            if p.returncode != 0:
                failed = True
                print(f"FAIL {name} seed {seed}: stowplan-invoke exit {p.returncode}: "
                      f"{p.stderr.decode(errors='replace').strip()}")
            elif p.stdout != want:
                failed = True
                x = np.frombuffer(want, np.float32)
                y = np.frombuffer(p.stdout, np.float32)
                diff = np.nonzero(x.view(np.uint32) != y.view(np.uint32))[0] if len(x) == len(y) else []
                print(f"FAIL {name} seed {seed}: {len(diff)} of {len(x)} values differ"
                      + (f"; first at {diff[0]}: LiteRT {x[diff[0]]} vs stowplan {y[diff[0]]}"
                         if len(diff) else ""))
            else:
                same += 1
        print(f"{name:<16} {same}/{args.seeds} inputs bit-identical with LiteRT's reference kernels")
    return 1 if failed else 0


if __name__ == "__main__":
    import numpy as np

    sys.exit(main())
