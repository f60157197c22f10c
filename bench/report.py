"""The benchmark's report and its snapshot (run by bench/run.sh; only the Python standard library).

    python3 bench/report.py --tflm bench/tflm-cmsis-nn.txt --outputs TFLM-OUTPUTS.txt \
        [--op-checksums TFLM-OPS.txt] --snapshot bench/snapshot.txt [--bless] [--all] \
        [--report REPORT.md] MEASURED.txt...

Each MEASURED.txt is bench/run.sh's measurement of one model (`KEY VALUE...` lines). It checks
that the model's output is TFLite Micro's (TFLM-OUTPUTS.txt: bench/tflm_outputs.py's, the pinned
wheel's in the same run, or the committed bench/tflm-outputs.txt), in both builds; with
--op-checksums (bench/tflm_outputs.py's tflm-ops.txt), that every op's output tensors on the device
(the op-marks build's `op_check` lines) have the checksums of TFLite Micro's intermediate tensors,
naming the first op that differs; that the two counters agree, and that every op was marked;
that the output on the other cores (the `m7_`, `m33_` and `m0_` lines: the Cortex-M7 running the
M4's binary with the same count, the Cortex-M33's binary with SMLAD in it, the Armv6-M one
without) is TFLite Micro's too; prints each model's figures beside TFLite Micro + CMSIS-NN's
(bench/tflm-cmsis-nn.txt, bench/tflm.sh) with the ratios, the goals and the best published
Cortex-M4 results, per op too; writes a Markdown summary to REPORT.md; then compares with the
snapshot (or, with --bless, rewrites it): every figure of the snapshot may be at most 0.5 %
above it (its ceiling) and at most 0.5 % below it (else the snapshot is stale). --all: the
snapshot's every model must have been measured (without it, models not measured are skipped).
Exits 1 on any failure.
"""

import argparse
import os
import sys

# The figures the snapshot holds, per model, and its tolerance.
SNAPSHOT_FIELDS = (
    "instructions", "cycles", "ram", "text", "code", "constants", "m33_instructions", "m0_instructions",
)
# The other cores bench/run.sh runs each model on: (key, board, what runs there).
CORES = (
    ("m7", "Cortex-M7 (mps2-an500)", "the M4's binary (thumbv7em-none-eabihf, DSP kernels)"),
    ("m33", "Cortex-M33 (mps2-an505)", "thumbv8m.main-none-eabihf, -C target-cpu=cortex-m33 (DSP kernels)"),
    ("m0", "Cortex-M3 (mps2-an385)", "thumbv6m-none-eabi (Armv6-M: portable kernels)"),
)
TOLERANCE = 0.005

# The goals the benchmark serves (the speed issue): estimated cycles at most 0.6x TFLM +
# CMSIS-NN's; code at most TFLM's code (its text minus the model file); text at most TFLM's.
CYCLES_GOAL = 0.6
# The best published Cortex-M4 results, estimated cycles of one inference: MLPerf Tiny, ST
# X-CUBE-AI 9.0 on NUCLEO-L4R5ZI at 120 MHz (VWW, KWS, IC); Plumerai (AD).
PUBLISHED = {
    "vww": (10_670_000, "MLPerf Tiny, ST X-CUBE-AI 9.0, NUCLEO-L4R5ZI 120 MHz"),
    "kws": (5_180_000, "MLPerf Tiny, ST X-CUBE-AI 9.0, NUCLEO-L4R5ZI 120 MHz"),
    "ic": (19_800_000, "MLPerf Tiny, ST X-CUBE-AI 9.0, NUCLEO-L4R5ZI 120 MHz"),
    "ad": (490_000, "MLPerf Tiny, Plumerai"),
}
# person_detect's goal: below 10 M instructions.
INSTRUCTION_GOALS = {"person_detect": 10_000_000}


def th(n):
    return f"{n:,}"


def read_measured(path):
    m = {"marked_ops": [], "model_ops": [], "op_checks": []}
    with open(path) as f:
        for line in f:
            p = line.split()
            if not p:
                continue
            k = p[0]
            if k == "marked_op":
                m["marked_ops"].append((int(p[1]), int(p[3]), int(p[5])))
            elif k == "model_op":
                macs = None if p[4] == "-" else int(p[4])
                expected = None if p[6] == "-" else int(p[6])
                m["model_ops"].append((int(p[1]), int(p[2]), p[3], macs, p[5], expected))
            elif k == "op_check":
                m["op_checks"].append((int(p[1]), int(p[2]), int(p[3]), p[4]))
            elif k in ("name",):
                m[k] = p[1]
            elif k in ("output", "marked_output", "buffers") or k.endswith("_output"):
                m[k] = line.split(" ", 1)[1].strip()
            else:
                m[k] = int(p[1])
    m["ram"] = m["data"] + m["bss"] + m["stack"]
    m["code"] = m["text"] - m["constants"]
    m["macs"] = sum(x[3] or 0 for x in m["model_ops"])
    return m


def read_tflm(path):
    t = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, key, rest = line.rstrip("\n").split(" ", 2)
            d = t.setdefault(name, {"ops": []})
            if key == "op":
                p = rest.split()
                d["ops"].append((int(p[0]), p[1], int(p[3]), int(p[5])))
            elif key in ("output", "wheel"):
                d[key] = rest
            else:
                d[key] = int(rest)
    return t


def read_snapshot(path):
    snap = {}
    if not os.path.exists(path):
        return None
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            p = line.split()
            snap[p[0]] = {p[i]: int(p[i + 1].replace(",", "")) for i in range(1, len(p), 2)}
    return snap


def read_op_checksums(path):
    """bench/tflm_outputs.py's tflm-ops.txt: model -> [(subgraph, op, opcode, tensor, bytes, fnv)]."""
    ops = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if p:
                ops.setdefault(p[0], []).append((int(p[1]), int(p[2]), p[3], int(p[4]), int(p[5]), p[6]))
    return ops


def op_check_errors(name, device, tflm):
    """Each op's output on the device (`op_check` lines, in the order they were printed) against
    TFLite Micro's intermediate tensors (in the order the ops run): the first op that differs."""
    got = {}
    for sg, op, t, h in device:
        if (sg, op, t) in got:
            return [f"{name}: op {op} of subgraph {sg} printed tensor {t}'s checksum twice"]
        got[(sg, op, t)] = h
    for sg, op, opcode, t, n, h in tflm:
        d = got.pop((sg, op, t), None)
        if d != h:
            before = f"the {op} ops before it equal" if op else "the first op"
            return [
                f"{name}: op {op} ({opcode}) of subgraph {sg} is the first op whose output differs from "
                f"TFLite Micro's: tensor {t} ({th(n)} B), FNV-1a {d or 'not printed'} on the device, "
                f"{h} in TFLite Micro ({before})"
            ]
    if got:
        (sg, op, t), _ = next(iter(got.items()))
        return [f"{name}: the device printed a checksum for tensor {t} of op {op} (subgraph {sg}), which TFLite Micro's list has not"]
    return []


def ratio(a, b):
    return f"{a / b:.3f}x" if b else "-"


def verdict(ok):
    return "met" if ok else "not met"


def model_report(m, t):
    name = m["name"]
    out = []
    out.append(
        f"{name}: {th(m['macs'])} MACs, {len(m['model_ops'])} ops, output {m['output']}: "
        "TFLite Micro's, bit for bit"
    )
    out.append(f"  {'':24} {'stowplan':>14} {'TFLM+CMSIS-NN':>14} {'ratio':>8}  goal")
    c_ratio = m["cycles"] / t["cycles"]
    rows = [
        ("instructions", m["instructions"], t["instructions"], ""),
        ("cycles (estimated)", m["cycles"], t["cycles"], f"<= {CYCLES_GOAL}x: {verdict(c_ratio <= CYCLES_GOAL)}"),
        ("RAM (B)", m["ram"], t["ram"], ""),
        ("flash code (B)", m["code"], t["code"], f"<= 1x: {verdict(m['code'] <= t['code'])}"),
        ("flash constants (B)", m["constants"], t["model_bytes"], ""),
        ("flash text (B)", m["text"], t["text"], f"<= 1x: {verdict(m['text'] <= t['text'])}"),
    ]
    for label, a, b, goal in rows:
        out.append(f"  {label:24} {th(a):>14} {th(b):>14} {ratio(a, b):>8}  {goal}".rstrip())
    out.append(
        f"  RAM: stowplan data {th(m['data'])} + bss {th(m['bss'])} (arena {th(m['arena'])}) + stack "
        f"peak {th(m['stack'])}; TFLM arena used {th(t['arena_used_bytes'])} + other data and bss "
        "(its stack not measured)"
    )
    out.append(
        f"  flash: stowplan constants = the model's buffers found in flash ({m['buffers']} of 16 B "
        f"or more); TFLM constants = the model file, {th(t['model_bytes'])} B"
    )
    cpi = m["cycles"] / m["instructions"] if m["instructions"] else 0
    out.append(f"  cycles per instruction {cpi:.3f} (TFLM {t['cycles'] / t['instructions']:.3f})")
    if name in PUBLISHED:
        p, who = PUBLISHED[name]
        out.append(f"  best published: {th(p)} cycles ({who}): stowplan takes {m['cycles'] / p:.2f}x as many")
    if name in INSTRUCTION_GOALS:
        g = INSTRUCTION_GOALS[name]
        out.append(
            f"  goal: below {th(g)} instructions: {verdict(m['instructions'] < g)} "
            f"({(m['instructions'] - g) * 100 / g:+.1f} %)"
        )
    # Per op: the marked binary's counts beside TFLM's profiler's.
    ops0 = [x for x in m["model_ops"] if x[0] == 0]
    tops = {k: (ins, cyc) for k, _, ins, cyc in t["ops"]}
    marked = {k: (ins, cyc) for k, ins, cyc in m["marked_ops"]}
    out.append(
        f"  {'op':>4}  {'opcode':20} {'MACs':>11} {'instructions':>12} {'cycles':>12} "
        f"{'TFLM instr.':>12} {'TFLM cycles':>12} {'cycles':>7}  {'kernel':<22} {'expected':>10}"
    )
    sums = {}
    for _, k, opcode, macs, kernel, expected in ops0:
        ins, cyc = marked.get(k, (0, 0))
        tins, tcyc = tops.get(k, (0, 0))
        s = sums.setdefault(opcode, [0, 0, 0, 0, 0, 0])
        for i, v in enumerate((1, macs or 0, ins, cyc, tins, tcyc)):
            s[i] += v
        # The expected instructions (`stowplan macs`'s model) and their error against the count.
        guess = "-" if expected is None else f"{th(expected)} ({(expected - ins) * 100 / max(ins, 1):+.0f} %)"
        out.append(
            f"  {k:>4}  {opcode:20} {th(macs) if macs else '-':>11} {th(ins):>12} {th(cyc):>12} "
            f"{th(tins):>12} {th(tcyc):>12} {ratio(cyc, tcyc):>7}  {kernel:<22} {guess:>10}"
        )
    for opcode, (n, macs, ins, cyc, tins, tcyc) in sorted(sums.items(), key=lambda x: -x[1][3]):
        label = f"{opcode} x{n}"
        out.append(
            f"  {'all':>4}  {label:20} {th(macs) if macs else '-':>11} {th(ins):>12} {th(cyc):>12} "
            f"{th(tins):>12} {th(tcyc):>12} {ratio(cyc, tcyc):>7}"
        )
    marked_sum = sum(x[1] for x in m["marked_ops"])
    out.append(
        f"  per op: the binary with op marks, whose invoke takes {th(m['marked_instructions'])} instructions "
        f"({(m['marked_instructions'] - m['instructions']) * 100 / m['instructions']:+.2f} %), "
        f"{th(marked_sum)} of them in the ops; TFLM's with its profiler (both counts include the marks' calls)"
    )
    return out


def markdown(models, tflm):
    rows = [
        "| model | MACs | instructions: stowplan / TFLM (ratio) | est. cycles: stowplan / TFLM (ratio) | "
        "best published (cycles) | RAM B: stowplan / TFLM | flash code B: stowplan / TFLM | "
        "model constants B: stowplan / TFLM | text B: stowplan / TFLM |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for m in models:
        t = tflm[m["name"]]
        pub = PUBLISHED.get(m["name"])
        rows.append(
            f"| {m['name']} | {th(m['macs'])} "
            f"| {th(m['instructions'])} / {th(t['instructions'])} ({m['instructions'] / t['instructions']:.2f}) "
            f"| {th(m['cycles'])} / {th(t['cycles'])} ({m['cycles'] / t['cycles']:.2f}) "
            f"| {th(pub[0]) if pub else '-'} "
            f"| {th(m['ram'])} / {th(t['ram'])} ({m['ram'] / t['ram']:.2f}) "
            f"| {th(m['code'])} / {th(t['code'])} ({m['code'] / t['code']:.2f}) "
            f"| {th(m['constants'])} / {th(t['model_bytes'])} "
            f"| {th(m['text'])} / {th(t['text'])} ({m['text'] / t['text']:.2f}) |"
        )
    return "\n".join(rows) + "\n"


def cores_table(models):
    """Instructions of one `invoke` per core beside the M4's: all bit-exact (checked before)."""
    rows = [
        "| model | Cortex-M4 (mps2-an386) | Cortex-M7 (mps2-an500) | Cortex-M33, DSP (mps2-an505) | "
        "Armv6-M, portable (on mps2-an385) | Armv6-M / M4 | text B: M4 / M33 / Armv6-M |",
        "|---|--:|--:|--:|--:|--:|--:|",
    ]
    for m in models:
        rows.append(
            f"| {m['name']} | {th(m['instructions'])} | {th(m['m7_instructions'])} | {th(m['m33_instructions'])} "
            f"| {th(m['m0_instructions'])} | {m['m0_instructions'] / m['instructions']:.2f} "
            f"| {th(m['text'])} / {th(m['m33_text'])} / {th(m['m0_text'])} |"
        )
    return "\n".join(rows) + "\n"


def snapshot_text(models):
    lines = [
        "# stowplan on the emulated Cortex-M4 (QEMU mps2-an386), one `invoke` of each benchmark model,",
        "# written by bench/run.sh (STOWPLAN_BLESS=1). bench/run.sh fails when a figure is more than",
        "# 0.5 % above it (its ceiling) or more than 0.5 % below it (stale: bless it). instructions:",
        "# exact count; cycles: the estimator's; ram: data + bss + stack peak; text: flash; code: text",
        "# minus constants, the model's buffers found in flash (bytes); m33_instructions, m0_instructions:",
        "# the Cortex-M33 (thumbv8m.main, DSP) and Armv6-M (portable kernels) binaries' exact counts.",
    ]
    for m in models:
        lines.append(m["name"] + " " + " ".join(f"{k} {th(m[k])}" for k in SNAPSHOT_FIELDS))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tflm", required=True)
    ap.add_argument("--outputs", required=True)
    ap.add_argument("--op-checksums")
    ap.add_argument("--snapshot", required=True)
    ap.add_argument("--report")
    ap.add_argument("--bless", action="store_true")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("measured", nargs="+")
    a = ap.parse_args()

    tflm = read_tflm(a.tflm)
    with open(a.outputs) as f:
        want = dict(line.rstrip("\n").split(" ", 1) for line in f if line.strip())
    models = [read_measured(p) for p in a.measured]
    op_sums = read_op_checksums(a.op_checksums) if a.op_checksums else None
    errors, checked = [], []
    for m in models:
        name = m["name"]
        if name not in tflm:
            errors.append(f"{name}: no figures in {a.tflm} (bench/tflm.sh {name})")
            continue
        if m.get("output") != want.get(name):
            errors.append(f"{name}: the output {m.get('output')} is not TFLite Micro's {want.get(name)}")
        if m.get("marked_output") != want.get(name):
            errors.append(
                f"{name}: the op-marks build's output {m.get('marked_output')} is not TFLite Micro's {want.get(name)}"
            )
        if op_sums is not None:
            if name not in op_sums:
                errors.append(f"{name}: no op checksums of TFLite Micro's in {a.op_checksums}")
            else:
                found = op_check_errors(name, m["op_checks"], op_sums[name])
                errors += found
                if not found:
                    checked.append(
                        f"{name}: every op's output is TFLite Micro's intermediate tensor, bit for bit "
                        f"({len({x[:2] for x in op_sums[name]})} ops, {th(sum(x[4] for x in op_sums[name]))} B, FNV-1a)"
                    )
        if m["icount_instructions"] != m["instructions"]:
            errors.append(
                f"{name}: the instruction counter counts {m['icount_instructions']}, the cycle estimator {m['instructions']}"
            )
        for core, board, _ in CORES:
            if m.get(f"{core}_output") != want.get(name):
                errors.append(
                    f"{name}: the output on the {board}, {m.get(f'{core}_output')}, is not TFLite Micro's {want.get(name)}"
                )
        # The same binary on QEMU's M7 as on its M4: the same instructions, or the runs differ.
        if m.get("m7_instructions") != m["instructions"]:
            errors.append(f"{name}: the M4's binary runs {m.get('m7_instructions')} instructions on the M7, {m['instructions']} on the M4")
        # The Armv8-M build takes the DSP kernels, the Armv6-M build does not.
        if not m.get("m33_smlad"):
            errors.append(f"{name}: the Cortex-M33 binary has no SMLAD: it did not take the DSP kernels")
        if m.get("m0_smlad") != 0:
            errors.append(f"{name}: the Armv6-M binary has {m.get('m0_smlad')} SMLAD instructions")
        n_ops = sum(1 for x in m["model_ops"] if x[0] == 0)
        if len(m["marked_ops"]) != n_ops:
            errors.append(f"{name}: {len(m['marked_ops'])} ops marked, the model has {n_ops} in subgraph 0")
    if errors:
        print("\n".join("error: " + e for e in errors), file=sys.stderr)
        return 1
    for line in checked:
        print(line)

    for m in models:
        print("\n".join(model_report(m, tflm[m["name"]])))
        print()
    table = markdown(models, tflm)
    print(table)
    print(
        "Instructions of one invoke on the other cores, each output TFLite Micro's, bit for bit:\n"
        + "\n".join(f"  {board}: {what}" for _, board, what in CORES)
    )
    cores = cores_table(models)
    print(cores)
    table += "\n" + cores
    if a.report:
        with open(a.report, "w") as f:
            f.write(table)

    text = snapshot_text(models)
    if a.bless:
        with open(a.snapshot, "w") as f:
            f.write(text)
        print(f"blessed {a.snapshot}")
        return 0
    snap = read_snapshot(a.snapshot)
    if snap is None:
        print(f"error: {a.snapshot} is absent: STOWPLAN_BLESS=1 bash bench/run.sh writes it", file=sys.stderr)
        return 1
    status = 0
    measured = {m["name"]: m for m in models}
    for name, fields in snap.items():
        m = measured.get(name)
        if m is None:
            if a.all:
                print(f"error: {name} is in {a.snapshot} but was not measured", file=sys.stderr)
                status = 1
            continue
        for k, v in fields.items():
            got = m.get(k)
            if got is None:
                print(f"error: {name}: {a.snapshot} has {k}, which the benchmark does not measure", file=sys.stderr)
                status = 1
            elif got > v * (1 + TOLERANCE):
                print(f"error: {name}: {k} {th(got)} is above its ceiling {th(int(v * (1 + TOLERANCE)))} ({a.snapshot}'s {th(v)} + 0.5 %)", file=sys.stderr)
                status = 1
            elif got < v * (1 - TOLERANCE):
                print(f"error: {name}: {k} {th(got)} is more than 0.5 % below {a.snapshot}'s {th(v)}: stale snapshot: bless it", file=sys.stderr)
                status = 1
            elif got != v:
                print(f"notice: {name}: {k} {th(got)} here, {th(v)} in {a.snapshot} ({(got - v) * 100 / v:+.3f} %, within 0.5 %)")
    for name in measured:
        if name not in snap:
            print(f"error: {name} is not in {a.snapshot}: bless it", file=sys.stderr)
            status = 1
    if status:
        print("error: bench/snapshot.txt does not hold: make it faster or smaller, or (if the change is meant) "
              "bless it: STOWPLAN_BLESS=1 bash bench/run.sh, and read the diff", file=sys.stderr)
    else:
        print(f"{a.snapshot} holds (every figure within 0.5 %)")
    return status


if __name__ == "__main__":
    sys.exit(main())
