#!/usr/bin/env python3
"""Checks stowplan's generated `invoke` bit for bit against the real TFLite Micro interpreter.

    cargo build --release -p stowplan-invoke
    python3 tests/tflm/check_invoke.py [--seeds 5] [--invocations 1] [--bin target/release/stowplan-invoke]

`stowplan-invoke` (tests/invoke) holds every model its build.rs generated `invoke` for: the
project's own models, and every model of ../shared/models that TFLite Micro runs (but the
Ethos-U one) when that folder existed at build time
(`stowplan-invoke --list`). For each model and each seed this script makes one seeded random
input (numpy default_rng(seed): integers over the dtype's whole range, floats in [-1, 1] or a
model's FLOAT_RANGES; seed 0 is the model's io.json input where it has one), runs it through TFLM
(tflite-micro==0.dev20261023182759, reference kernels) and through `stowplan-invoke MODEL`, and
requires the output bytes to be identical. Each TFLM run is in a child process (a crash is
reported, not fatal to the script). Exits non-zero on any difference.

`--invocations N` runs each model N times in a row, in one TFLM interpreter and one stowplan
arena, each invocation on its own input (seeded by seed and invocation), carrying whatever
state the model keeps between invocations; every invocation's output must be identical.
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import check_heads as ch

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent

# stowplan-invoke model name -> model file (relative to the repository, or to ../shared/models)
MODELS = {
    "mlp_int8": "tests/models/mlp_int8/mlp_int8.tflite",
    "mlp_float": "tests/models/mlp_float/mlp_float.tflite",
    "cnn_int8": "tests/models/cnn_int8/cnn_int8.tflite",
    "call_once": "tests/models/call_once/call_once.tflite",
    "cond_if": "tests/models/cond_if/cond_if.tflite",
    "while_loop": "tests/models/while_loop/while_loop.tflite",
    "streaming": "tests/models/streaming/streaming.tflite",
    "bench_vww": "bench/models/vww/vww.tflite",
    "bench_kws": "bench/models/kws/kws.tflite",
    "bench_ic": "bench/models/ic/ic.tflite",
    "bench_ad": "bench/models/ad/ad.tflite",
    "bench_mbv2": "bench/models/mbv2/mbv2.tflite",
    "bench_tcn": "bench/models/tcn/tcn.tflite",
    "streaming_window_f32": "tests/models/synthetic/streaming_window_f32.tflite",
    "streaming_window_s8": "tests/models/synthetic/streaming_window_s8.tflite",
    "hello_world_int8": "shared:tflm_hello_world_int8.tflite",
    "micro_speech_int8": "shared:tflm_micro_speech_int8.tflite",
    "person_detect_int8": "shared:tflm_person_detect_int8.tflite",
    "mobilenet_v2_int8": "shared:tflm_xtensa_mobilenet_v2_int8_224.tflite",
    "mnist_lstm_float": "shared:tflm_mnist_lstm_float.tflite",
    "mnist_lstm_int8": "shared:tflm_mnist_lstm_int8.tflite",
    "micro_speech_lstm": "shared:tflm_xtensa_micro_speech_lstm.tflite",
    "dtln_int8": "shared:tflm_dtln_noise_suppression_int8.tflite",
    "sine_float": "shared:tflm_sine_float.tflite",
    "keyword_scrambled_int8": "shared:tflm_keyword_scrambled_int8.tflite",
    "keyword_scrambled_int16": "shared:tflm_keyword_scrambled_int16.tflite",
    "audio_preprocessor_int8": "shared:tflm_audio_preprocessor_int8.tflite",
}

# Models TFLM refuses (float16 and sparse weights, folded when built): check_folding.py judges
# them by LiteRT's reference kernels.
JUDGED_BY_LITERT = {"fold_f16_conv", "fold_densify"}

# Float inputs drawn from another range than [-1, 1], by model file stem and input index: the WHILE's trip
# count (0 to 7 trips), and the IF's condition (both branches about equally often).
FLOAT_RANGES = {
    "while_loop": {1: (-0.5, 7.0)},
    "cond_if": {1: (-1.0, 1.0)},
}


def model_path(spec):
    if spec.startswith("shared:"):
        return REPO.parent / "shared" / "models" / spec.split(":", 1)[1]
    return REPO / spec


def random_inputs(it, seed, ranges=None):
    """One array per input of TFLM interpreter `it`: numpy default_rng(seed), integers over the
    dtype's whole range, floats in [-1, 1] (or `ranges[input index]`)."""
    import numpy as np

    ranges = ranges or {}

    rng = np.random.default_rng(seed)
    inputs = []
    while True:
        try:
            d = it.get_input_details(len(inputs))
        except IndexError:
            break
        dtype, shape = np.dtype(d["dtype"]), tuple(int(x) for x in d["shape"])
        if np.issubdtype(dtype, np.integer):
            info = np.iinfo(dtype)
            inputs.append(rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True))
        else:
            lo, hi = ranges.get(len(inputs), (-1.0, 1.0))
            inputs.append(rng.uniform(lo, hi, size=shape).astype(dtype))
    return inputs


def tflm_child(path, seed, io_path, invocations):
    """In a child process: `invocations` inferences in a row on one interpreter; prints JSON
    with each invocation's input and output bytes (hex)."""
    import numpy as np
    from tflite_micro.python.tflite_micro import runtime

    data = Path(path).read_bytes()
    it = runtime.Interpreter.from_bytes(data, arena_size=2 * len(data) + 16 * 1024 * 1024)
    ins, outs_hex, dtypes = [], [], []
    for k in range(invocations):
        if io_path is not None and seed == 0 and k == 0:
            io = json.loads(Path(io_path).read_text())
            inputs = [np.array(t["data"], dtype=t["dtype"]).reshape(t["shape"])
                      for t in io["inputs"]]
        else:
            inputs = random_inputs(it, seed if invocations == 1 else seed * 100_003 + k,
                                   FLOAT_RANGES.get(Path(path).stem))
        for i, a in enumerate(inputs):
            it.set_input(a, i)
        it.invoke()
        outs = []
        i = 0
        while True:
            try:
                outs.append(np.ascontiguousarray(it.get_output(i)))
            except IndexError:
                break
            i += 1
        ins.append(b"".join(np.ascontiguousarray(a).tobytes() for a in inputs).hex())
        outs_hex.append(b"".join(o.tobytes() for o in outs).hex())
        dtypes = [str(o.dtype) for o in outs]
    print(json.dumps({"inputs": ins, "outputs": outs_hex, "dtype": dtypes}))


def run_tflm(path, seed, io_path, invocations):
    cmd = [sys.executable, __file__, "--child", str(path), str(seed), str(io_path or ""),
           str(invocations)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        return None, f"TFLM child exit {p.returncode}: {ch.last_lines(p.stderr)}"
    return json.loads(p.stdout.strip().splitlines()[-1]), None


def describe(a, b, dtypes):
    import numpy as np

    dtype = np.dtype(dtypes[0]) if len(dtypes) == 1 else np.uint8
    x, y = np.frombuffer(a, dtype=dtype), np.frombuffer(b, dtype=dtype)
    if x.shape != y.shape:
        return f"{len(a)} vs {len(b)} bytes"
    diff = np.nonzero(x != y)[0]
    first = diff[0]
    return (f"{len(diff)} of {len(x)} {dtype} values differ; first at {first}: "
            f"TFLM {x[first]} vs stowplan {y[first]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=5, help="inputs per model (default 5)")
    ap.add_argument("--bin", default=os.environ.get("STOWPLAN_INVOKE_BIN",
                                                    str(REPO / "target" / "release" / "stowplan-invoke")))
    ap.add_argument("--invocations", type=int, default=1,
                    help="invocations in a row per model and seed, carrying state (default 1)")
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        path, seed, io_path, invocations = args.child
        tflm_child(path, int(seed), io_path or None, int(invocations))
        return 0
    ch.check_version("check_invoke.py")
    try:
        names = subprocess.run([args.bin, "--list"], capture_output=True, text=True,
                               check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"cannot run {args.bin} --list ({e}); build it with "
                 "`cargo build --release -p stowplan-invoke`")
    unknown = [n for n in names if n not in MODELS and n not in JUDGED_BY_LITERT]
    if unknown:
        sys.exit(f"stowplan-invoke has models this script does not list: {', '.join(unknown)}")
    if not any(MODELS.get(n, "").startswith("shared:") for n in names):
        print("notice: stowplan-invoke was built without ../shared/models; checking the "
              "project's own models only")
    failed = False
    rows = []
    for name in names:
        if name in JUDGED_BY_LITERT:
            continue
        path = model_path(MODELS[name])
        io = path.parent / "io.json"
        io_path = io if io.exists() else None
        same = 0
        start = time.time()
        for seed in range(args.seeds):
            ref, err = run_tflm(path, seed, io_path, args.invocations)
            if err:
                failed = True
                print(f"FAIL {name} seed {seed}: {err}")
                continue
            inp = b"".join(bytes.fromhex(h) for h in ref["inputs"])
            wants = [bytes.fromhex(h) for h in ref["outputs"]]
            want = wants[-1]
            p = subprocess.run([args.bin, name, "--invocations", str(args.invocations)],
                               input=inp, capture_output=True, timeout=600)
            if p.returncode != 0:
                failed = True
                print(f"FAIL {name} seed {seed}: stowplan-invoke exit {p.returncode}: "
                      f"{p.stderr.decode(errors='replace').strip()}")
                continue
            got, at, bad = p.stdout, 0, None
            for k, w in enumerate(wants):
                if got[at:at + len(w)] != w and bad is None:
                    bad = (k, describe(w, got[at:at + len(w)], ref["dtype"]))
                at += len(w)
            if bad is None and at == len(got):
                same += 1
            else:
                failed = True
                k, why = bad if bad else (len(wants), f"{len(got) - at} extra output bytes")
                print(f"FAIL {name} seed {seed} invocation {k}: {why}")
        digest = hashlib.sha256(want).hexdigest()[:12] if same else "-"
        rows.append((name, f"{same}/{args.seeds}", digest, f"{time.time() - start:.1f}"))
    width = max([len('model')] + [len(r[0]) for r in rows])
    print(f"{'model':<{width}} {'identical':>9}  {'last output sha256':<18} {'s':>5}")
    for r in rows:
        print(f"{r[0]:<{width}} {r[1]:>9}  {r[2]:<18} {r[3]:>5}")
    if failed:
        print("\nsome outputs differ from TFLite Micro")
        return 1
    print(f"\nevery output is bit-identical with TFLite Micro ({len(rows)} models x {args.seeds} "
          f"inputs x {args.invocations} invocations in a row)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
