#!/usr/bin/env python3
"""Fits the cost model of `stowplan macs` (planner/src/choice.rs, COSTS) on the benchmark set.

For every op of the eight benchmark models that runs a DSP kernel with the epilogue form
`shift2`, it takes the kernel, the MACs, the output elements and pixels from `stowplan macs
--json` and the op's Cortex-M4 instructions from the last `bash bench/run.sh` (its op-marks
build, `$CARGO_TARGET_DIR/bench-run/NAME.txt`), and fits, per kernel (the widened pixel pairs'
three buffer sizes together, as `widened`), by least squares on the relative error:

    instructions ~ per_mac * MACs + per_output * outputs + per_pixel * pixels + per_call

(as many terms as the layers' distinct shapes allow, none negative: a kernel the benchmark runs
on two or three shapes is fitted exactly on them and is a rough guess elsewhere). It prints the Rust table to
paste into COSTS, then each op's expected and measured count and the error, and per kernel the
largest error. Usage (after bench/run.sh, from the repository root):

    python3 bench/fit_costs.py [--stowplan target/release/stowplan] [--shared ../shared]
"""

import argparse
import json
import os
import subprocess
import sys

MODELS = ["vww", "kws", "ic", "ad", "mbv2", "tcn", "person_detect", "micro_speech"]
SHARED_MODELS = {
    "person_detect": "models/tflm_person_detect_int8.tflite",
    "micro_speech": "models/tflm_micro_speech_int8.tflite",
}


def model_path(name, shared):
    if name in SHARED_MODELS:
        return os.path.join(shared, SHARED_MODELS[name])
    return os.path.join("bench", "models", name, name + ".tflite")


def measured(work, name):
    """Op index -> instructions, from the op-marks build's figures."""
    ops = {}
    with open(os.path.join(work, name + ".txt"), encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 4 and parts[0] == "marked_op" and parts[2] == "instructions":
                ops[int(parts[1])] = int(parts[3])
    return ops


def solve(rows):
    """Least squares for y ~ x . c over rows (x, y), each row weighted by 1/y (relative
    error): the normal equations, by Gauss-Jordan elimination; None if singular."""
    n = len(rows[0][0])
    a = [[0.0] * (n + 1) for _ in range(n)]
    for x, y in rows:
        w = 1.0 / (y * y)
        for i in range(n):
            for j in range(n):
                a[i][j] += w * x[i] * x[j]
            a[i][n] += w * x[i] * y
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        if abs(a[pivot][col]) < 1e-18:
            return None
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(n):
            if r != col:
                f = a[r][col] / a[col][col]
                for k in range(col, n + 1):
                    a[r][k] -= f * a[col][k]
    return [a[i][n] / a[i][i] for i in range(n)]


def fit_terms(rows):
    """The coefficients of (per_mac, per_output, per_pixel, per_call): as many terms as the
    rows' distinct shapes allow (all four from six shapes, the first three from three, MACs and
    outputs from two, MACs alone from one), none negative (the most negative term is dropped
    and the rest refitted)."""
    distinct = len({x for x, _ in rows})
    terms = [0, 1, 2, 3] if distinct >= 6 else [0, 1, 2] if distinct >= 3 else [0, 1] if distinct >= 2 else [0]
    while True:
        fit = solve([([x[t] for t in terms], y) for x, y in rows])
        if fit is None:
            terms = terms[:-1]
            continue
        worst = min(range(len(terms)), key=lambda i: fit[i])
        if fit[worst] >= 0 or len(terms) == 1:
            full = [0.0] * 4
            for t, c in zip(terms, fit):
                full[t] = c
            return full
        del terms[worst]


def family(kernel):
    """The name a kernel's cost is modelled under (planner/src/choice.rs, `family`)."""
    return "widened" if kernel in ("widened_64", "widened_336") else kernel


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stowplan", default=None, help="the stowplan binary (default: cargo run)")
    ap.add_argument("--shared", default=os.environ.get("STOWPLAN_SHARED_DIR", "../shared"))
    args = ap.parse_args()
    target = os.environ.get("CARGO_TARGET_DIR", "target")
    work = os.path.join(target, "bench-run")
    if args.stowplan:
        cli = [args.stowplan]
    else:
        cli = ["cargo", "run", "-q", "--release", "-p", "stowplan-build", "--bin", "stowplan", "--"]
    by_kernel = {}
    for name in MODELS:
        path = model_path(name, args.shared)
        if not os.path.exists(path):
            sys.exit(f"error: {path} is missing")
        report = json.loads(subprocess.check_output(cli + ["macs", path, "--json"]))
        counts = measured(work, name)
        for op in report["ops"]:
            if op["subgraph"] != 0 or op["kernel"] in (None, "portable"):
                continue
            if op["epilogue"] != "shift2" or op["index"] not in counts:
                continue
            by_kernel.setdefault(family(op["kernel"]), []).append(
                (name, op["index"], (op["macs"], op["outputs"], op["pixels"], 1), counts[op["index"]])
            )
    print("pub const COSTS: &[(&str, Cost)] = &[")
    fits = {}
    for kernel in sorted(by_kernel):
        rows = by_kernel[kernel]
        fit = fit_terms([(x, y) for _, _, x, y in rows])
        fits[kernel] = fit
        a, b, c, d = fit
        print(f'    (')
        print(f'        "{kernel}",')
        print(f"        Cost {{ per_mac: {a:.4f}, per_output: {b:.4f}, per_pixel: {c:.4f}, per_call: {d:.1f} }},")
        print(f"    ), // {len(rows)} ops, {len({x for _, _, x, _ in rows})} shapes")
    print("];")
    print()
    print(f"{'model':<14} {'op':>3} {'kernel':<14} {'MACs':>10} {'expected':>10} {'measured':>10} {'error':>7}")
    for kernel in sorted(by_kernel):
        worst = 0.0
        for name, index, x, y in by_kernel[kernel]:
            e = sum(c * v for c, v in zip(fits[kernel], x))
            err = (e - y) / y
            worst = max(worst, abs(err))
            print(f"{name:<14} {index:>3} {kernel:<14} {x[0]:>10,} {round(e):>10,} {y:>10,} {err:>+7.1%}")
        print(f"  {kernel}: {len(by_kernel[kernel])} ops, largest error {worst:.1%}")


if __name__ == "__main__":
    main()
