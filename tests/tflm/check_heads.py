#!/usr/bin/env python3
"""Checks stowplan's greedy plan against the real TFLite Micro interpreter.

For every tests/models/*/*.tflite (and, with --shared DIR, every .tflite under DIR), in a
child process of its own (a too-small arena or an unsupported model may crash TFLM):

  * creates the TFLM interpreter with a generous arena and reads the arena "head" (the
    non-persistent, planned region) from RecordingMicroAllocator's print_allocations();
  * runs one inference with the input stored in the model's io.json, if there is one, and
    compares the output with the stored one (TF's TFLite interpreter, reference kernels):
    integers exactly, float32 within 1e-5 relative (plus an absolute 1e-7 for values near 0);
  * runs `stowplan plan MODEL --planner greedy --scratch tflm --json` (TFLM's greedy, with the
    scratch buffers TFLM's reference kernels request planned beside the tensors, as TFLM does)
    and requires its `arena_bytes` to equal the head.

Exits non-zero if a head differs from stowplan's greedy plan (a model of BY_DESIGN must differ by
exactly the bytes its stated reason explains), an inference result differs, or
one of our own fixture models (tests/models/<case>/<case>.tflite, made by
tests/models/make_models.py) cannot run. Other models TFLM cannot run are reported as skipped.

Needs only numpy and tflite-micro==0.dev20261023182759 (system python3 will do):
    python3 -m pip install numpy tflite-micro==0.dev20261023182759
    python3 tests/tflm/check_heads.py [--shared DIR] [--write tests/tflm/heads.json]

stowplan is found through $STOWPLAN_BIN, by default target/debug/stowplan in the repository
(build it with `cargo build -p stowplan-planner` or similar first).
"""

import argparse
import importlib.metadata
import json
import os
import re
import subprocess
import sys
from pathlib import Path

TFLM_VERSION = "0.dev20261023182759"
ARENA_BYTES = 1 << 20  # default of --arena
FLOAT_RTOL = 1e-5
FLOAT_ATOL = 1e-7
# Ops whose TFLM reference kernels request scratch memory in the head at Prepare time; the head of
# a model using them is the planned tensors plus that scratch, so it may exceed the greedy plan.

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
MODELS = REPO / "tests" / "models"


def check_version(script="check_heads.py"):
    try:
        have = importlib.metadata.version("tflite-micro")
    except importlib.metadata.PackageNotFoundError:
        have = None
    if have != TFLM_VERSION:
        sys.exit(
            f"{script} needs tflite-micro=={TFLM_VERSION} (found "
            f"{have or 'none'}); install it with\n"
            f"    {Path(sys.executable).name} -m pip install numpy tflite-micro=={TFLM_VERSION}"
        )


# ------------------------------------------------------------------------------------------------
# child: one model in TFLM

ALLOC_RE = re.compile(r"\[RecordingMicroAllocator\] Arena allocation (total|head|tail) (\d+) bytes")


def child(model_path, io_path, arena_bytes):
    """Runs in its own process. Prints one JSON object on stdout (last line). TFLM's own
    prints (print_allocations) go to stderr straight from C++."""
    import numpy as np
    from tflite_micro.python.tflite_micro import runtime

    result = {}

    def emit():
        sys.stdout.write(json.dumps(result) + "\n")
        sys.stdout.flush()

    data = Path(model_path).read_bytes()
    try:
        it = runtime.Interpreter.from_bytes(data, arena_size=arena_bytes)
    except Exception as e:  # noqa: BLE001: report any failure to the parent
        result["error"] = f"interpreter creation failed: {type(e).__name__}: {e}"
        emit()
        return
    sys.stderr.flush()
    sys.stderr.write("@@ allocations after init\n")
    sys.stderr.flush()
    it.print_allocations()
    sys.stderr.flush()

    if io_path:
        io = json.loads(Path(io_path).read_text())
        try:
            for i, t in enumerate(io["inputs"]):
                arr = np.array(t["data"], dtype=t["dtype"]).reshape(t["shape"])
                it.set_input(arr, i)
            it.invoke()
            outs = []
            for i in range(len(io["outputs"])):
                o = np.asarray(it.get_output(i))
                outs.append({"dtype": str(o.dtype), "shape": list(o.shape), "data": o.reshape(-1).tolist()})
            result["outputs"] = outs
        except Exception as e:  # noqa: BLE001
            result["error"] = f"inference failed: {type(e).__name__}: {e}"
            emit()
            return
        sys.stderr.write("@@ allocations after invoke\n")
        sys.stderr.flush()
        it.print_allocations()
        sys.stderr.flush()
    emit()


def parse_allocations(stderr):
    """{"init": {"head":..,"tail":..,"total":..}, "invoke": {...}} from the child's stderr."""
    sections, cur = {}, None
    for line in stderr.splitlines():
        if line.startswith("@@ allocations after "):
            cur = sections.setdefault(line.split()[-1], {})
            continue
        m = ALLOC_RE.search(line)
        if m and cur is not None:
            cur[m.group(1)] = int(m.group(2))
    return sections


# ------------------------------------------------------------------------------------------------
# parent


def display(path, shared_dir):
    path = Path(path).resolve()
    try:
        return str(path.relative_to(REPO))
    except ValueError:
        base = Path(shared_dir).resolve() if shared_dir else path.parent
        return f"{base.name}/{path.relative_to(base)}"


def head_key(path, shared_dir):
    """Key in --write's JSON: the case name for tests/models/<case>/<case>.tflite."""
    path = Path(path).resolve()
    if path.parent.parent == MODELS and path.parent.name == path.stem:
        return path.stem
    return display(path, shared_dir).removesuffix(".tflite").removeprefix("tests/models/")


# Models whose stowplan plan differs from TFLM's on purpose, with the reason; their rows say so
# (never "yes") and the difference must be the one stated.
BY_DESIGN = {
    "circular_buffer.tflite": (
        16,
        "stowplan keeps CIRCULAR_BUFFER's window in the persistent region (TFLM plans it in the "
        "arena, where earlier ops may overwrite it between invocations) and a model that can stop "
        "early keeps its outputs apart from every other tensor, live from time 0, so that a "
        "stopped invocation leaves the last complete outputs (docs/guide.md)",
    ),
}


def is_fixture(path):
    path = Path(path).resolve()
    return path.parent.parent == MODELS and path.parent.name == path.stem


def io_for(path):
    path = Path(path)
    for cand in (
        path.with_name("io.json") if path.parent.name == path.stem else None,
        path.with_suffix(".io.json"),
    ):
        if cand is not None and cand.is_file():
            return cand
    return None


def last_lines(text, n=3):
    lines = [l for l in text.strip().splitlines() if l.strip() and not l.startswith("@@")]
    return " | ".join(lines[-n:])


def run_tflm(path, io_path, arena_bytes):
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", str(path)]
    cmd += ["--arena", str(arena_bytes)]
    if io_path:
        cmd += ["--io", str(io_path)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    allocs = parse_allocations(p.stderr)
    res = None
    for line in reversed(p.stdout.strip().splitlines()):
        try:
            res = json.loads(line)
            break
        except json.JSONDecodeError:
            continue
    if p.returncode != 0 or res is None:
        why = f"signal {-p.returncode}" if p.returncode < 0 else f"exit {p.returncode}"
        return None, allocs, f"TFLM child died ({why}): {last_lines(p.stderr) or 'no output'}"
    if "error" in res:
        detail = last_lines(p.stderr)
        return res, allocs, res["error"] + (f" [TFLM: {detail}]" if detail else "")
    return res, allocs, None


def compare_outputs(got, io_path):
    import numpy as np

    want = json.loads(Path(io_path).read_text())["outputs"]
    if len(got) != len(want):
        return f"{len(got)} outputs, io.json has {len(want)}"
    problems = []
    for i, (g, w) in enumerate(zip(got, want)):
        if g["dtype"] != w["dtype"] or list(g["shape"]) != list(w["shape"]):
            problems.append(f"output {i}: {g['dtype']}{g['shape']} vs {w['dtype']}{w['shape']}")
            continue
        ga, wa = np.array(g["data"], dtype=g["dtype"]), np.array(w["data"], dtype=w["dtype"])
        if np.issubdtype(wa.dtype, np.floating):
            err = np.abs(ga.astype(np.float64) - wa.astype(np.float64))
            bad = err > FLOAT_RTOL * np.abs(wa.astype(np.float64)) + FLOAT_ATOL
        else:
            bad = ga != wa
        if bad.any():
            k = int(np.argmax(bad))
            problems.append(
                f"output {i}: {int(bad.sum())}/{bad.size} elements differ, first at {k}: "
                f"TFLM {ga[k].item()!r} vs stored {wa[k].item()!r}"
            )
    return "; ".join(problems) or None


def run_stowplan(path, name):
    bin_ = os.environ.get("STOWPLAN_BIN") or str(REPO / "target" / "debug" / "stowplan")
    try:
        p = subprocess.run(
            [bin_, "plan", str(path), "--planner", "greedy", "--scratch", "tflm", "--json"],
            capture_output=True,
            text=True,
            timeout=300,
        )
    except FileNotFoundError:
        sys.exit(f"stowplan binary not found: set STOWPLAN_BIN or build {display(bin_, None)}")
    if p.returncode != 0:
        msg = (p.stderr.strip() or p.stdout.strip()).splitlines()
        return None, f"stowplan exit {p.returncode}: {msg[-1] if msg else ''}".replace(str(path), name)
    return json.loads(p.stdout), None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", metavar="DIR", action="append", default=[],
                    help="also check every .tflite under DIR (repeatable)")
    ap.add_argument("--write", metavar="FILE", help="write the measured TFLM heads as JSON")
    ap.add_argument("--arena", metavar="BYTES", type=int, default=ARENA_BYTES,
                    help=f"TFLM arena size (default {ARENA_BYTES})")
    ap.add_argument("--child", metavar="MODEL", help=argparse.SUPPRESS)
    ap.add_argument("--io", metavar="IO_JSON", help=argparse.SUPPRESS)
    args = ap.parse_args()

    check_version()
    if args.child:
        child(args.child, args.io, args.arena)
        return 0

    # tests/models/malformed/ holds models stowplan must refuse: not for this check.
    models = [(p, None) for p in sorted(MODELS.glob("*/*.tflite")) if p.parent.name != "malformed"]
    for d in args.shared:
        found = sorted(Path(d).rglob("*.tflite"))
        if not found:
            sys.exit(f"--shared {d}: no .tflite files")
        models += [(p, d) for p in found]

    rows, notes, heads, failed = [], [], {}, False
    for path, shared in models:
        name = display(path, shared)
        io_path = io_for(path)
        plan, perr = run_stowplan(path, name)
        # Room for the head (at most the naive sum) and TFLM's persistent data.
        arena = max(args.arena, 2 * plan["naive_bytes"] + 4 * path.stat().st_size) if plan else args.arena
        res, allocs, err = run_tflm(path, io_path, arena)
        head = allocs.get("init", {}).get("head")
        if err is not None or head is None:
            reason = err or "no head in print_allocations output"
            if is_fixture(path):
                failed = True
                notes.append(f"FAIL {name}: our fixture model must run on TFLM: {reason}")
                rows.append((name, "-", "-", "-", "FAIL", "TFLM failed (see below)"))
            else:
                notes.append(f"skip {name}: {reason}")
                if perr:
                    notes.append(f"     {name}: {perr}")
                rows.append((name, "-", plan["arena_bytes"] if plan else "-",
                             plan["lower_bound_bytes"] if plan else "-", "skip", "TFLM cannot run it"))
            continue
        heads[head_key(path, shared)] = head
        inv_head = allocs.get("invoke", {}).get("head")
        if inv_head is not None and inv_head != head:
            notes.append(f"note {name}: head {head} after init but {inv_head} after invoke")

        infer = "no io.json"
        if io_path is not None:
            mismatch = compare_outputs(res["outputs"], io_path)
            if mismatch:
                failed = True
                infer = "MISMATCH"
                notes.append(f"FAIL {name}: inference differs from io.json: {mismatch}")
            else:
                infer = "ok"

        if plan is None:
            failed = True
            notes.append(f"FAIL {name}: {perr}")
            rows.append((name, head, "-", "-", "FAIL", infer))
            continue
        greedy, lower = plan["arena_bytes"], plan["lower_bound_bytes"]
        match = greedy == head
        verdict = "yes" if match else "NO"
        designed = BY_DESIGN.get(path.name) if shared is None else None
        if designed is not None:
            diff, reason = designed
            if greedy - head == diff:
                verdict = "by design"
                notes.append(f"note {name}: stowplan greedy {greedy} B, TFLM head {head} B by design: {reason}")
            else:
                failed = True
                verdict = "NO"
                notes.append(
                    f"FAIL {name}: TFLM head {head} B, stowplan greedy {greedy} B: a difference of "
                    f"{greedy - head:+d} B, not the {diff:+d} B its design explains"
                )
        elif not match:
            failed = True
            notes.append(
                f"FAIL {name}: TFLM head {head} B != stowplan greedy {greedy} B "
                f"(diff {greedy - head:+d}); inspect with: stowplan plan {name} --planner greedy"
            )
        rows.append((name, head, greedy, lower, verdict, infer))

    header = ("model", "TFLM head", "stowplan greedy", "lower bound", "match", "inference")
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    fmt = lambda r: "  ".join(  # noqa: E731
        str(c).ljust(w) if i in (0, 4, 5) else str(c).rjust(w) for i, (c, w) in enumerate(zip(r, widths))
    )
    print(fmt(header))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print(fmt(r))
    if notes:
        print()
        for n in notes:
            print(n)

    if args.write:
        out = Path(args.write)
        out.write_text(json.dumps(dict(sorted(heads.items())), indent=1) + "\n")
        print(f"\nwrote {len(heads)} TFLM heads to {display(out, None)}")
    print("\nFAILED" if failed else "\nall heads match stowplan's greedy plan (or differ as designed, above)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
