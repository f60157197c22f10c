#!/usr/bin/env python3
"""Checks `stowplan embed` against the real TFLite Micro interpreter.

    python3 tests/tflm/check_embed.py [--shared ../shared/models]

For each of our fixture models, tests/models/<case>/<case>.tflite (made by
tests/models/make_models.py), and with --shared DIR every .tflite under DIR:

  * `stowplan embed MODEL -o TMP` writes a copy holding stowplan's plan as its
    OfflineMemoryAllocation metadata (in a temporary directory, removed afterwards), and
    `stowplan plan TMP --json` reads the embedded plan back (its `arena_bytes`);
  * for the original and the embedded model (two worker processes side by side), TFLM:
      - runs one inference at a generous arena (2 x naive + 4 x file size + 4 KiB) and reads
        the arena head/tail from RecordingMicroAllocator's print_allocations(); the input is
        the model's io.json input if it has one, else seeded random data (numpy, seed
        --seed): int8/int16/uint8/... over the dtype's whole range, floats in [-1, 1];
      - finds the minimal arena_size for which the interpreter can be created (AllocateTensors
        succeeds), by bisection at 16 B between 0 and that generous arena; every try runs in a
        forked child with a timeout, and a crash, hang or RuntimeError counts as "too small";
  * the outputs of the original and the embedded model must be bit-identical.

Exits non-zero if, for a model TFLM can run: outputs differ; TFLM rejects the embedded plan;
the embedded model's minimal arena exceeds the original's by more than 16 B (repeated
measurements of one model can differ by up to 16 B); or stowplan's embedded plan (the arena
`stowplan embed` reports) is smaller than TFLM's own plan (`stowplan plan MODEL --planner greedy
--scratch tflm`, which equals TFLM's head; see check_heads.py) but the embedded minimal arena is
not strictly smaller than the original's. Models TFLM cannot run at all
(Ethos-U / Vela, custom ops TFLM lacks) are reported as skipped, and fail the run only if they
are our own fixtures.

Kernel scratch (RequestScratchBufferInArena) is not in the embedded entry: TFLM places it
first-fit around the offline-planned tensors. `stowplan embed` plans the requests of SVDF and
SignalRfft and UNIDIRECTIONAL_SEQUENCE_LSTM (planner/src/scratch.rs) with the tensors, so the
plan leaves room for them.

Needs only numpy and tflite-micro==0.dev20261023182759 (system python3 will do), like
check_heads.py, whose helpers this script imports. stowplan is found through $STOWPLAN_BIN, by
default target/debug/stowplan in the repository.
"""

import argparse
import base64
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import check_heads as ch  # noqa: E402

ALIGN = 16
SEED = 20240607
# Lower limit of the per-try timeout in the bisection; the actual one also scales with the
# time the generous run took.
TRY_TIMEOUT_S = 10.0
GENEROUS_TIMEOUT_S = 300.0


def round_up(n, a=ALIGN):
    return (n + a - 1) // a * a


# ------------------------------------------------------------------------------------------------
# worker: one model in TFLM (imports tflite_micro once, forks for every try)


def _forked(fn, timeout, out_dir=None):
    """Runs fn() in a forked child. Returns (status, stdout, stderr): status "ok" (fn returned),
    "error" (fn raised; the message is the last line of stderr), "signal N", "exit N" or
    "timeout". With out_dir the child's fds 1 and 2 go to files there, else to /dev/null."""
    import ctypes

    libc = ctypes.CDLL(None)
    sys.stdout.flush()
    sys.stderr.flush()
    paths = (Path(out_dir) / "out.txt", Path(out_dir) / "err.txt") if out_dir else None
    pid = os.fork()
    if pid == 0:  # child
        code = 4  # unless fn ran
        try:
            if paths:
                fds = [os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644) for p in paths]
            else:
                fds = [os.open(os.devnull, os.O_WRONLY)] * 2
            os.dup2(fds[0], 1)
            os.dup2(fds[1], 2)
            try:
                fn()
                code = 0
            except BaseException as e:  # noqa: BLE001: report any failure to the parent
                os.write(2, f"\n@@ error {type(e).__name__}: {e}\n".encode())
                code = 3
            libc.fflush(None)
        finally:
            os._exit(code)
    deadline = time.monotonic() + timeout
    status = None
    while True:
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            if os.WIFSIGNALED(st):
                status = f"signal {os.WTERMSIG(st)}"
            else:
                code = os.WEXITSTATUS(st)
                status = {0: "ok", 3: "error"}.get(code, f"exit {code}")  # 4: setup failed
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            status = "timeout"
            break
        time.sleep(0.002)
    out = err = ""
    if paths:
        out = paths[0].read_text(errors="replace") if paths[0].exists() else ""
        err = paths[1].read_text(errors="replace") if paths[1].exists() else ""
    return status, out, err


def make_inputs(it, io_path, seed):
    """The arrays to feed: io.json's inputs if given, else seeded random ones."""
    import numpy as np

    if io_path:
        io = json.loads(Path(io_path).read_text())
        return [np.array(t["data"], dtype=t["dtype"]).reshape(t["shape"]) for t in io["inputs"]]
    rng = np.random.default_rng(seed)
    arrays = []
    while True:
        try:
            d = it.get_input_details(len(arrays))
        except IndexError:
            break
        dtype, shape = np.dtype(d["dtype"]), tuple(int(x) for x in d["shape"])
        if dtype == np.bool_:
            a = rng.integers(0, 2, size=shape).astype(np.bool_)
        elif np.issubdtype(dtype, np.integer):
            info = np.iinfo(dtype)
            a = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
        elif np.issubdtype(dtype, np.floating):
            a = rng.uniform(-1.0, 1.0, size=shape).astype(dtype)
        else:
            raise TypeError(f"input {len(arrays)}: no random data for dtype {dtype}")
        arrays.append(a)
    return arrays


def generous_run(runtime, data, arena, io_path, seed, work_dir):
    """Creates the interpreter, prints the allocations, runs one inference. In a forked child."""
    import numpy as np

    result_path = Path(work_dir) / "result.json"

    def run():
        it = runtime.Interpreter.from_bytes(data, arena_size=arena)
        sys.stderr.flush()
        os.write(2, b"@@ allocations after init\n")
        it.print_allocations()
        inputs = make_inputs(it, io_path, seed)
        digest = hashlib.sha256()
        for i, a in enumerate(inputs):
            a = np.require(a, requirements="C")  # keeps 0-d (scalar) inputs 0-d
            digest.update(f"{a.dtype}{a.shape}".encode() + a.tobytes())
            it.set_input(a, i)
        it.invoke()
        outs = []
        while True:
            try:
                it.get_output_details(len(outs))
            except IndexError:
                break
            o = np.require(np.asarray(it.get_output(len(outs))), requirements="C")
            outs.append({"dtype": str(o.dtype), "shape": list(o.shape),
                         "data": base64.b64encode(o.tobytes()).decode()})
        result_path.write_text(json.dumps({"inputs_sha256": digest.hexdigest(), "outputs": outs}))

    t0 = time.monotonic()
    status, out, err = _forked(run, GENEROUS_TIMEOUT_S, work_dir)
    took = time.monotonic() - t0
    res = {"seconds": took}
    allocs = ch.parse_allocations(err).get("init", {})
    res.update({k: allocs.get(k) for k in ("head", "tail", "total")})
    if status != "ok":
        msg = [l.removeprefix("@@ error ") for l in err.splitlines() if l.startswith("@@ error ")]
        detail = ch.last_lines(err + "\n" + out)
        res["error"] = f"{status}: {msg[-1] if msg else ''}".rstrip(": ")
        res["detail"] = detail
        return res
    res.update(json.loads(result_path.read_text()))
    return res


def worker(model, arena, io_path, seed, bisect):
    from tflite_micro.python.tflite_micro import runtime

    data = Path(model).read_bytes()
    report = {}
    with tempfile.TemporaryDirectory(prefix="check_embed_") as work:
        # The generous run; once more with a much larger arena if it fails, to tell "too small"
        # from "cannot run".
        hi = round_up(arena)
        gen = generous_run(runtime, data, hi, io_path, seed, work)
        if "error" in gen:
            bigger = round_up(max(8 * hi, ch.ARENA_BYTES))
            retry = generous_run(runtime, data, bigger, io_path, seed, work)
            if "error" not in retry:
                gen, hi = retry, bigger
        report.update(gen, arena=hi)
        if "error" in gen or not bisect:
            return report

        def create(size):
            return lambda: runtime.Interpreter.from_bytes(data, arena_size=size)

        timeout = max(TRY_TIMEOUT_S, 10 * gen["seconds"])
        lo, tries, failures = 0, 0, {}
        while hi - lo > ALIGN:
            mid = round_up((lo + hi) // 2)
            if mid >= hi:
                mid = hi - ALIGN
            status, _, _ = _forked(create(mid), timeout)
            tries += 1
            if status == "ok":
                hi = mid
            else:
                lo = mid
                failures[status] = failures.get(status, 0) + 1
        report.update(min_arena=hi, tries=tries, too_small=failures)
    return report


# ------------------------------------------------------------------------------------------------
# parent


def stowplan_bin():
    return os.environ.get("STOWPLAN_BIN") or str(ch.REPO / "target" / "debug" / "stowplan")


def run_stowplan(args, name, paths):
    """Runs stowplan; returns (stdout, None) or (None, error) with paths shown as names."""
    try:
        p = subprocess.run([stowplan_bin(), *map(str, args)], capture_output=True, text=True,
                           timeout=600)
    except FileNotFoundError:
        sys.exit(f"stowplan binary not found: set STOWPLAN_BIN or build "
                 f"{ch.display(stowplan_bin(), None)}")
    if p.returncode != 0:
        msg = (p.stderr.strip() or p.stdout.strip()).splitlines()
        msg = f"stowplan {args[0]}: exit {p.returncode}: {msg[-1] if msg else ''}"
        for path, shown in paths.items():
            msg = msg.replace(str(path), shown)
        return None, msg
    return p.stdout, None


def start_worker(model, arena, io_path, seed, bisect=True):
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", str(model),
           "--arena", str(arena), "--seed", str(seed)]
    if io_path:
        cmd += ["--io", str(io_path)]
    if not bisect:
        cmd += ["--no-bisect"]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def finish_worker(proc):
    out, err = proc.communicate()
    for line in reversed(out.strip().splitlines()):
        try:
            return json.loads(line)
        except json.JSONDecodeError:
            continue
    why = f"signal {-proc.returncode}" if proc.returncode < 0 else f"exit {proc.returncode}"
    return {"error": f"worker died ({why})", "detail": ch.last_lines(err) or "no output"}


def tflm_reason(res):
    reason = res["error"]
    if res.get("detail"):
        reason += f" [TFLM: {res['detail']}]"
    return reason


def check_model(path, shared, tmp, seed, planner=None):
    """Returns (row, notes, failed)."""
    name = ch.display(path, shared)
    fixture = ch.is_fixture(path)
    io_path = ch.io_for(path)
    out = Path(tmp) / f"{path.stem}.embedded.tflite"
    shown = {out: f"<tmp>/{out.name}", path.resolve(): name, path: name}
    notes = []

    embed = ["embed", path, "-o", out] + (["--planner", planner] if planner else [])
    summary, err = run_stowplan(embed, name, shown)
    plan = greedy = None
    if err is None:
        plan_json, err = run_stowplan(["plan", out, "--json"], name, shown)
        if err is None:
            plan = json.loads(plan_json)
    if plan is not None:
        # TFLM's own plan (its GreedyMemoryPlanner, or the model's own offline plan if it has
        # one), with the kernel scratch it plans beside the tensors: what stowplan has to beat.
        greedy_json, err = run_stowplan(
            ["plan", path, "--planner", "greedy", "--scratch", "tflm", "--json"], name, shown)
        if err is None:
            greedy = json.loads(greedy_json)["arena_bytes"]
        else:
            plan = None
    if plan is None:
        # Tell "stowplan cannot embed a model TFLM runs" (a failure) from "neither can run it".
        res = finish_worker(start_worker(path, ch.ARENA_BYTES, io_path, seed, bisect=False))
        if fixture or "error" not in res:
            notes.append(f"FAIL {name}: {err}")
            row = (name, "-", "-", "-", "-", res.get("head", "-"), "-", "-", "-", "-", "FAIL")
            return row, notes, True
        notes.append(f"skip {name}: TFLM cannot run it: {tflm_reason(res)}; and {err}")
        return (name, "-", "-", "-", "-", "-", "-", "-", "-", "-", "skip"), notes, False

    # The tensors' arena as read back from the embedded entry, and the arena embed planned, which
    # also holds TFLM's kernel scratch (placed by TFLM in the room the plan left for it).
    emb_arena = plan["arena_bytes"]
    if plan.get("offline_plan") != "honoured":
        notes.append(f"note {name}: `stowplan plan` reads the embedded model's plan as "
                     f"offline_plan={plan.get('offline_plan')!r}, not 'honoured'")
    m = re.search(r"arena (\d+) B", summary)
    emb_plan = int(m.group(1)) if m else emb_arena

    arena = 2 * plan["naive_bytes"] + 4 * path.stat().st_size + 4096
    procs = [start_worker(p, arena, io_path, seed) for p in (path, out)]
    own, emb = (finish_worker(p) for p in procs)

    if "error" in own:
        reason = tflm_reason(own)
        if fixture:
            notes.append(f"FAIL {name}: our fixture model must run on TFLM: {reason}")
            return (name, "-", "-", "-", "-", "-", "-", greedy, emb_plan, "-", "FAIL"), notes, True
        notes.append(f"skip {name}: TFLM cannot run it: {reason}")
        if "error" not in emb:
            notes.append(f"     {name}: but the embedded copy runs (head {emb.get('head')} B)")
        return (name, "-", "-", "-", "-", "-", "-", greedy, emb_plan, "-", "skip"), notes, False
    if "error" in emb:
        notes.append(f"FAIL {name}: TFLM rejects the embedded plan: {tflm_reason(emb)}")
        row = (name, own["min_arena"], "FAIL", "-", "-", own["head"], "-", greedy, emb_plan, "-",
               "FAIL")
        return row, notes, True

    failed = False
    # Outputs, bit for bit.
    if own["inputs_sha256"] != emb["inputs_sha256"]:
        failed = True
        notes.append(f"FAIL {name}: the two runs were fed different inputs (bug in this script)")
    same = own["outputs"] == emb["outputs"]
    if not same:
        failed = True
        diff = describe_diff(own["outputs"], emb["outputs"])
        notes.append(f"FAIL {name}: outputs differ: {diff}")

    own_min, emb_min = own["min_arena"], emb["min_arena"]
    saving = own_min - emb_min
    verdict = "ok"
    if emb_min > own_min + ALIGN:
        failed = True
        verdict = "FAIL"
        notes.append(f"FAIL {name}: minimal arena with the embedded plan {emb_min} B > own "
                     f"{own_min} B + {ALIGN}")
    if emb_plan < greedy and not emb_min < own_min:
        failed = True
        verdict = "FAIL"
        notes.append(f"FAIL {name}: stowplan's embedded plan ({emb_plan} B) beats TFLM's own "
                     f"greedy plan ({greedy} B), but the minimal arena is not smaller "
                     f"({emb_min} vs {own_min} B)")
    if not same:
        verdict = "FAIL"
    if emb["head"] is not None and emb["head"] < emb_arena:
        # With the offline plan honoured, the head covers at least every planned tensor.
        failed = True
        verdict = "FAIL"
        notes.append(f"FAIL {name}: TFLM head {emb['head']} B is below the embedded plan's "
                     f"{emb_arena} B: TFLM did not honour the OfflineMemoryAllocation entry")
    elif None not in (own["head"], emb["head"]) and emb["head"] != own["head"]:
        text = (f"note {name}: TFLM head {own['head']} B with its own plan, {emb['head']} B with "
                f"the embedded one")
        if emb["head"] == emb_arena:
            text += " (= the embedded plan's arena)"
        elif emb["head"] <= emb_plan:
            text += (f" (= the embedded tensors' {emb_arena} B + kernel scratch, within the "
                     f"{emb_plan} B embed planned)")
        else:
            text += (f" = the embedded tensors' {emb_arena} B + {emb['head'] - emb_arena} B, above "
                     f"the {emb_plan} B embed planned: kernel scratch stowplan does not know of")
        notes.append(text)
    crashes = []
    for who, r in (("own", own), ("embedded", emb)):
        if set(r.get("too_small") or {}) - {"error"}:
            kinds = ", ".join(f"{v} {k}" for k, v in sorted(r["too_small"].items()))
            crashes.append(f"{who}: {kinds}")
    if crashes:
        notes.append(f"note {name}: too-small tries ended as {'; '.join(crashes)}")
    pct = f"{100.0 * saving / own_min:+.1f} %" if own_min else "-"
    row = (name, own_min, emb_min, f"{saving:+d}", pct, own["head"], emb["head"], greedy, emb_plan,
           "yes" if same else "NO", verdict)
    return row, notes, failed


def describe_diff(a, b):
    import numpy as np

    if len(a) != len(b):
        return f"{len(a)} vs {len(b)} outputs"
    parts = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x == y:
            continue
        if (x["dtype"], x["shape"]) != (y["dtype"], y["shape"]):
            parts.append(f"output {i}: {x['dtype']}{x['shape']} vs {y['dtype']}{y['shape']}")
            continue
        xa = np.frombuffer(base64.b64decode(x["data"]), dtype=x["dtype"])
        ya = np.frombuffer(base64.b64decode(y["data"]), dtype=y["dtype"])
        bad = xa.view(np.uint8).reshape(xa.size, -1) != ya.view(np.uint8).reshape(ya.size, -1)
        bad = bad.any(axis=1)
        k = int(np.argmax(bad))
        parts.append(f"output {i}: {int(bad.sum())}/{bad.size} elements differ, first at {k}: "
                     f"own {xa[k].item()!r} vs embedded {ya[k].item()!r}")
    return "; ".join(parts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", metavar="DIR", action="append", default=[],
                    help="also check every .tflite under DIR (repeatable)")
    ap.add_argument("--seed", type=int, default=SEED,
                    help=f"seed of the random inputs for models without io.json (default {SEED})")
    ap.add_argument("--planner", metavar="P",
                    help="pass --planner P to `stowplan embed` (default: its own default, auto)")
    ap.add_argument("--worker", metavar="MODEL", help=argparse.SUPPRESS)
    ap.add_argument("--arena", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--io", help=argparse.SUPPRESS)
    ap.add_argument("--no-bisect", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()

    ch.check_version("check_embed.py")
    if args.worker:
        res = worker(args.worker, args.arena, args.io, args.seed, not args.no_bisect)
        sys.stdout.write(json.dumps(res) + "\n")
        return 0

    start = time.monotonic()
    models = [(p, None) for p in sorted(ch.MODELS.glob("*/*.tflite")) if ch.is_fixture(p)]
    for d in args.shared:
        found = sorted(Path(d).rglob("*.tflite"))
        if not found:
            sys.exit(f"--shared {d}: no .tflite files")
        models += [(p, d) for p in found]

    rows, notes, failed = [], [], False
    with tempfile.TemporaryDirectory(prefix="check_embed_") as tmp:
        for path, shared in models:
            t0 = time.monotonic()
            row, n, f = check_model(path, shared, tmp, args.seed, args.planner)
            rows.append(row + (f"{time.monotonic() - t0:.1f}",))
            notes += n
            failed |= f

    header = ("model", "min arena own", "min arena embedded", "saving", "saving %", "head own",
              "head embedded", "greedy plan", "stowplan plan", "outputs identical", "verdict", "s")
    left = {0, 9, 10}
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    fmt = lambda r: "  ".join(  # noqa: E731
        str(c).ljust(w) if i in left else str(c).rjust(w) for i, (c, w) in enumerate(zip(r, widths))
    ).rstrip()
    print(fmt(header))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print(fmt(r))
    print("\nBytes. min arena: smallest TFLM arena_size (16 B steps) with TFLM's own plan / with "
          "stowplan's embedded one;\nhead: TFLM's planned region (tensors + kernel scratch) at a "
          "generous arena; greedy plan: TFLM's own plan with its kernel scratch\n(`stowplan plan "
          "--planner greedy --scratch tflm`); stowplan plan: the arena `stowplan embed` planned "
          "(tensors + the same scratch); s: seconds.")
    if notes:
        print()
        for n in notes:
            print(n)
    print(f"\n{'FAILED' if failed else 'all embedded plans work in TFLM'} "
          f"({len(rows)} models, {time.monotonic() - start:.1f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
