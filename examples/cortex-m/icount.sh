#!/usr/bin/env bash
# Counts the instructions of one inference on the emulated Cortex-M4 (QEMU mps2-an386), exactly:
# TFLite Micro's person_detect and micro_speech, each run by the generated `invoke` of the
# firmware binaries `person_detect` and `micro_speech` (release profile: opt-level "s", LTO;
# built by the same `cargo build` as run.sh's, so after run.sh it builds nothing), and compares
# the figures with the snapshot icount.txt:
#
#   bash examples/cortex-m/icount.sh
#   STOWPLAN_BLESS=1 bash examples/cortex-m/icount.sh     # rewrites icount.txt instead
#
# icount.txt holds, per model: the instructions between the firmware's two marks (`icount_start`
# and `icount_end`, around `invoke`), the model's multiply-accumulates (`stowplan macs`, the
# root workspace's CLI) and the instructions per MAC, TFLite Micro's figures with and without
# CMSIS-NN beside them; then, when each op with MACs is one call of a kernel function (as in
# person_detect), per op: the instructions from its kernel's entry to the next op's (the glue of
# the op, and the ops whose kernels are inlined after it, included), its MACs and instructions
# per MAC, and the sum by op type; and per kernel function (through the debug info's inlining
# chains: blocks x executions; micro_speech's kernels are all inlined into `invoke`).
#
# The comparison: a model's total above the snapshot's + 0.5 % fails (the ceiling), and so does
# one more than 0.5 % below it (the snapshot is stale: bless it). The other counts may move by
# 0.5 % of themselves or 0.25 % of their model's total, whichever is more (64 instructions at
# least), and the derived figures (per MAC, ratios) with them: a margin from when the firmware's
# code followed the checkout's path (the runtime is a path dependency outside this workspace,
# whose absolute path cargo hashes into every symbol; a checkout at another path gave
# person_detect's conv1x1_s8 24,184 more instructions); it is now built through a fixed path
# (../../bench/fixed_path.sh) and is the same bytes from every checkout. Every other field is
# exact. It also
# prints whether each model meets its targets (TFLM + CMSIS-NN's count; the goal below it).
#
# The counter is a QEMU TCG plugin outside this repository, in ../shared/benchmarks/cortex-m-icount
# (or STOWPLAN_ICOUNT_DIR), and the models are in ../shared/models: when either is absent this
# prints a notice and exits 0, but with CI=true it fails. Needs what run.sh needs, and gcc with
# QEMU's plugin header (the counter carries it) for the plugin, built into the target directory.
set -euo pipefail

cd "$(dirname "$0")"
root=$(cd ../.. && pwd)
# The host's flags, for the `stowplan` CLI in the root workspace's target directory (as CI's
# other steps build it).
host_rustflags="${RUSTFLAGS:-}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target/cortex-m}"
# As run.sh builds it: through the fixed path, panic locations named /stowplan.
source ../../bench/fixed_path.sh
firmware_root "$root"
export RUSTFLAGS="${RUSTFLAGS:-} --remap-path-prefix=$root=/stowplan --remap-path-prefix=$fixed_root=/stowplan --remap-path-prefix=$CARGO_TARGET_DIR=/stowplan/target/cortex-m"
counter="${STOWPLAN_ICOUNT_DIR:-../../../shared/benchmarks/cortex-m-icount}"
models=../../../shared/models
bless="${STOWPLAN_BLESS:-0}"

# The reference figures (TFLite Micro 90b983c, CMSIS-NN 4ab83cc, GCC 12.2, counted with the same
# plugin on the same machine and input): TFLM + CMSIS-NN, TFLM's reference kernels; and the goal.
pd_cmsis=22929749 pd_ref=95660712 pd_goal=18000000
ms_cmsis=1495558 ms_ref=9310512 ms_goal=1200000

absent() {
    if [ "${CI:-}" = true ]; then
        echo "error: $1; with CI=true the instruction count is required" >&2
        exit 1
    fi
    echo "notice: $1; nothing counted"
    exit 0
}
if [ ! -f "$counter/plugin/build.sh" ]; then
    absent "the instruction counter ($counter) is absent"
fi
if [ ! -f "$models/tflm_person_detect_int8.tflite" ] || [ ! -f "$models/tflm_micro_speech_int8.tflite" ]; then
    absent "$models lacks TFLite Micro's person_detect or micro_speech model"
fi

models=$(cd "$models" && pwd)
plugin_dir="$CARGO_TARGET_DIR/icount"
bash "$counter/plugin/build.sh" "$plugin_dir" >/dev/null
# run.sh's build, word for word (every binary, both models' features): nothing to do after it.
cargo build --manifest-path "$fixed_root/examples/cortex-m/Cargo.toml" --release --locked \
    --features person-detect,micro-speech --bins

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Each op's multiply-accumulates, by the project's CLI (the root workspace, its target dir).
macs() {
    (
        cd "$root"
        export CARGO_TARGET_DIR="$root/target"
        if [ -n "$host_rustflags" ]; then export RUSTFLAGS="$host_rustflags"; else unset RUSTFLAGS; fi
        cargo run -q --locked -p stowplan-build --bin stowplan -- macs "$1"
    )
}

# count BINARY MODEL CMSIS REFERENCE: runs BINARY under the counter with a mark at both brackets
# and at the entry of every kernel function (`stowplan::kernels::OP::NAME` and the one-buffer
# entries `stowplan::kernels::OP::in_place::NAME`, not what the ops share in `kernels::shared`
# nor the DSP loops of each op's `dsp` module), and the per-block histogram; then writes its
# part of the snapshot.
count() {
    local elf="$CARGO_TARGET_DIR/thumbv7em-none-eabihf/release/$1"
    macs "$2" >"$out/macs"
    # "ADDRESS NAME" of every function (Thumb bit dropped), demangled.
    arm-none-eabi-nm -C --defined-only "$elf" |
        awk 'BEGIN { split("1 0 3 2 5 4 7 6 9 8 b a d c f e", m); for (i = 1; i < 16; i += 2) even[m[i]] = m[i + 1] }
            $2 ~ /^[tT]$/ {
                a = $1; sub(/^0+/, "", a); last = substr(a, length(a), 1)
                if (last in even) a = substr(a, 1, length(a) - 1) even[last]
                name = $0; sub(/^[^ ]+ [^ ]+ /, "", name); print "0x" a, name
            }' >"$out/symbols"
    local start end marks
    start=$(awk '/::icount::icount_start$/ { print $1 }' "$out/symbols")
    end=$(awk '/::icount::icount_end$/ { print $1 }' "$out/symbols")
    marks=$(awk -v s="$start" -v e="$end" '
        ($2 ~ /^stowplan::kernels::[a-z0-9_]+(::in_place)?::[a-z0-9_]+$/ && $2 !~ /^stowplan::kernels::shared::/) || $1 == s || $1 == e { print $1 }' \
        "$out/symbols" | sort -u | paste -sd:)
    local status=0
    timeout 300 qemu-system-arm -machine mps2-an386 -cpu cortex-m4 -nographic \
        -semihosting-config enable=on,target=native -kernel "$elf" \
        -plugin "$plugin_dir/libicount.so,out=$out/counts,marks=$marks,hist=1" >"$out/stdout" || status=$?
    if [ "$status" -ne 0 ]; then
        # The counter is written against QEMU 7.2's plugin API: a QEMU that no longer accepts
        # that version refuses to load it (its message is above).
        echo "error: $1 under the counter: qemu-system-arm exited with status $status" >&2
        return 1
    fi
    # The kernel function each executed block belongs to: the outermost `stowplan::kernels::`
    # frame of its address's inlining chain (the debug info's), else the function it is in.
    awk '$1 == "tb" { print $2 }' "$out/counts" >"$out/blocks"
    arm-none-eabi-addr2line -a -f -i -C -e "$elf" <"$out/blocks" |
        awk '/^0x/ { if (a != "") print a, k; a = $1; k = ""; expect = 1; next }
            expect { expect = 0; if ($0 ~ /^stowplan::kernels::/) k = $0; next }
            { expect = 1 }
            END { if (a != "") print a, k }' >"$out/owners"
    awk -v s="$start" -v e="$end" -v model="$1" -v cmsis="$3" -v ref="$4" '
        function th(n,   s, o) {
            s = sprintf("%d", n); o = ""
            while (length(s) > 3) { o = "," substr(s, length(s) - 2) o; s = substr(s, 1, length(s) - 3) }
            return s o
        }
        function per(i, m) { return m > 0 ? sprintf("%.2f", i / m) : "-" }
        # The keys of array a in k[1..n], in byte order (the same in every locale); returns n.
        function sorted(a, k,   n, i, j, t) {
            n = 0
            for (t in a) k[++n] = t
            for (i = 2; i <= n; i++)
                for (j = i; j > 1 && k[j - 1] > k[j]; j--) { t = k[j]; k[j] = k[j - 1]; k[j - 1] = t }
            return n
        }
        BEGIN { n = 0; nops = 0; total_macs = 0 }
        FILENAME == ARGV[1] { name[$1] = substr($0, length($1) + 2); next }
        FILENAME == ARGV[2] { a = $1; sub(/^0x0*/, "0x", a); owner[a] = substr($0, length($1) + 2); next }
        FILENAME == ARGV[3] {
            # stowplan macs: "SUBGRAPH OP OPCODE MACS KERNEL EXPECTED" rows.
            if (NF == 6 && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/) {
                op[nops] = $2; opcode[nops] = $3; opsg[nops] = $1
                m = $4; gsub(",", "", m); opmacs[nops] = m == "-" ? m : m + 0; if (m != "-") total_macs += m
                nops++
            }
            next
        }
        $1 == "mark" { addr[n] = $2; at[n] = $3; n++; next }
        $1 == "tb" { k = owner[$2]; if (k != "") by[k] += $3 * $4; next }
        END {
            first = -1; last = -1
            for (i = 0; i < n; i++) {
                if (addr[i] == s && first < 0) first = i
                if (addr[i] == e) last = i
            }
            if (first < 0 || last < 0) { print "error: " model " did not reach both marks" > "/dev/stderr"; exit 1 }
            total = at[last] - at[first]
            printf "%s: %s instructions in one invoke, %s MACs, %s per MAC\n", model, th(total), th(total_macs), per(total, total_macs)
            printf "  TFLite Micro + CMSIS-NN          %s instructions, %s per MAC: this invoke takes %.3fx as many\n", th(cmsis), per(cmsis, total_macs), total / cmsis
            printf "  TFLite Micro, reference kernels  %s instructions, %s per MAC: this invoke takes %.3fx as many\n", th(ref), per(ref, total_macs), total / ref
            # Per op, when the ops with MACs (all in subgraph 0) are the calls of kernel
            # functions, one each, in order, of the kernel module of their op type.
            kernel["CONV_2D"] = "conv"; kernel["DEPTHWISE_CONV_2D"] = "depthwise_conv"; kernel["FULLY_CONNECTED"] = "fully_connected"
            calls = last - first - 1; nmac = 0; ok = 1
            for (j = 0; j < nops; j++) {
                if (opsg[j] != 0) ok = 0
                if (opmacs[j] != "-") mac[nmac++] = j
            }
            if (calls != nmac || calls == 0) ok = 0
            for (c = 0; ok && c < calls; c++) {
                fn = name[addr[first + 1 + c]]; sub(/^stowplan::kernels::/, "", fn)
                # An op whose output lies over its input is one call of its one-buffer entry
                # (`conv::in_place::conv2d_s8` for the module `conv`).
                sub(/::.*/, "", fn)
                if (fn != kernel[opcode[mac[c]]]) ok = 0
            }
            if (ok) {
                printf "  per op: instructions from its kernel'\''s entry to the next op'\''s (ops whose kernels are inlined count with the op before)\n"
                printf "    %12s  %4s  %-18s %10s  %7s  %s\n", "instructions", "op", "opcode", "MACs", "per MAC", "with"
                with = ""
                for (j = 0; j < mac[0]; j++) with = with (with == "" ? "" : ", ") op[j] " " opcode[j]
                line = sprintf("    %12s  %4s  %-18s %10s  %7s  %s", th(at[first + 1] - at[first]), "-", "(invoke)", "", "", with)
                sub(/ +$/, "", line); print line
                for (c = 0; c < calls; c++) {
                    j = mac[c]; span = at[first + 2 + c] - at[first + 1 + c]
                    stop = c + 1 < calls ? mac[c + 1] : nops
                    with = ""
                    for (w = j + 1; w < stop; w++) with = with (with == "" ? "" : ", ") op[w] " " opcode[w]
                    line = sprintf("    %12s  %4s  %-18s %10s  %7s  %s", th(span), op[j], opcode[j], th(opmacs[j]), per(span, opmacs[j]), with)
                    sub(/ +$/, "", line); print line
                    type_ins[opcode[j]] += span; type_macs[opcode[j]] += opmacs[j]; type_ops[opcode[j]]++
                }
                printf "  by op type (the spans above):\n"
                nt = sorted(type_ins, keys)
                for (i = 1; i <= nt; i++) {
                    t = keys[i]
                    printf "    %12s  %s: %d ops, %s MACs, %s per MAC\n", th(type_ins[t]), t, type_ops[t], th(type_macs[t]), per(type_ins[t], type_macs[t])
                }
            }
            if (!ok && nmac > 0) {
                printf "  ops with MACs (no call of a kernel function each: see the functions below):\n"
                for (c = 0; c < nmac; c++) {
                    j = mac[c]
                    printf "      op %s (subgraph %s)  %s  %s MACs\n", op[j], opsg[j], opcode[j], th(opmacs[j])
                }
            }
            printf "  by kernel function, inlined ones included (blocks x executions):\n"
            nk = sorted(by, keys)
            for (i = 1; i <= nk; i++) printf "    %12s  %s\n", th(by[keys[i]]), keys[i]
        }' "$out/symbols" "$out/owners" "$out/macs" "$out/counts"
}

{
    echo "# Instructions of one \`invoke\` on the emulated Cortex-M4 (QEMU mps2-an386, every executed"
    echo "# instruction counted), written by icount.sh (STOWPLAN_BLESS=1). icount.sh fails when a"
    echo "# total is above its ceiling, this total + 0.5 %, or more than 0.5 % below it (bless it);"
    echo "# the other counts may move by 0.5 %, or 0.25 % of their model's total (64 at least), between"
    echo "# checkouts; every other field is exact."
    count person_detect "$models/tflm_person_detect_int8.tflite" "$pd_cmsis" "$pd_ref"
    count micro_speech "$models/tflm_micro_speech_int8.tflite" "$ms_cmsis" "$ms_ref"
} >"$out/icount.txt"
cat "$out/icount.txt"

# The targets, as information (the ceilings that fail are the snapshot's).
targets() {
    awk -v model="$1" -v cmsis="$2" -v goal="$3" '
        function th(n,   s, o) {
            s = sprintf("%d", n); o = ""
            while (length(s) > 3) { o = "," substr(s, length(s) - 2) o; s = substr(s, 1, length(s) - 3) }
            return s o
        }
        $1 == model ":" {
            n = $2; gsub(",", "", n); n += 0
            printf "%s: %s instructions; target at most %s (TFLite Micro + CMSIS-NN): %s; goal below %s: %s\n", model, th(n), th(cmsis),
                n <= cmsis ? "met" : sprintf("not met (%+.1f %%)", (n - cmsis) * 100 / cmsis), th(goal),
                n < goal ? "met" : sprintf("not met (%+.1f %%)", (n - goal) * 100 / goal)
        }' "$out/icount.txt"
}
targets person_detect "$pd_cmsis" "$pd_goal"
targets micro_speech "$ms_cmsis" "$ms_goal"

if [ "$bless" = 1 ]; then
    cp "$out/icount.txt" icount.txt
    echo "blessed examples/cortex-m/icount.txt"
    exit 0
fi
if [ ! -f icount.txt ]; then
    echo "error: examples/cortex-m/icount.txt is absent; run STOWPLAN_BLESS=1 bash examples/cortex-m/icount.sh" >&2
    exit 1
fi

# Line by line: the same fields but the counts and the figures derived from them (a number with
# a decimal point); a total within 0.5 % of the snapshot's, another count within 0.5 % of itself
# or 0.25 % of its model's total (64 at least). Exit 2 for a stale line, 3 for a total above its ceiling, 4 for one far below.
status=0
awk '
    function th(n,   s, o) {
        s = sprintf("%d", n); o = ""
        while (length(s) > 3) { o = "," substr(s, length(s) - 2) o; s = substr(s, 1, length(s) - 3) }
        return s o
    }
    # The line with its counts and derived figures masked; the count in cnt, its kind in kind.
    function skeleton(line,   f, nf, i, r) {
        nf = split(line, f, " "); kind = ""; cnt = ""
        if (line ~ /^[a-z_]+: [0-9,]+ instructions in one invoke/) { kind = "total"; cnt = f[2]; f[2] = "<n>" }
        else if (line ~ /^     *[0-9][0-9,]* /) { kind = "count"; cnt = f[1]; f[1] = "<n>" }
        r = ""
        for (i = 1; i <= nf; i++) {
            if (f[i] ~ /^-?[0-9]+\.[0-9]+x?:?$/) f[i] = "<d>"
            r = r (i > 1 ? " " : "") f[i]
        }
        gsub(",", "", cnt)
        return r
    }
    FILENAME == ARGV[1] { want[++nw] = $0; next }
    { got[++ng] = $0 }
    END {
        if (nw != ng) { printf "error: icount.txt has %d lines, this count %d\n", nw, ng > "/dev/stderr"; exit 2 }
        status = 0; moved = 0; differs = 0; model_total = 0
        for (i = 1; i <= nw; i++) {
            a = skeleton(want[i]); wk = kind; wc = cnt + 0
            b = skeleton(got[i]); gk = kind; gc = cnt + 0
            if (a != b) {
                if (status == 0) status = 2
                if (differs++ == 0) printf "error: line %d differs beyond its counts\n", i > "/dev/stderr"
                continue
            }
            if (wk == "") continue
            d = gc - wc; tol = wc * 0.005
            split(got[i], f, ":"); what = f[1]
            if (wk == "total") {
                model_total = wc
                if (gc > int(wc + tol)) {
                    printf "error: %s takes %s instructions in one invoke, above its ceiling of %s (icount.txt'\''s %s + 0.5 %%)\n", what, th(gc), th(int(wc + tol)), th(wc) > "/dev/stderr"
                    status = 3
                } else if (gc < wc - tol) {
                    printf "error: %s takes %s instructions in one invoke, more than 0.5 %% below icount.txt'\''s %s: stale snapshot: bless it\n", what, th(gc), th(wc) > "/dev/stderr"
                    if (status != 3) status = 4
                } else if (d != 0) {
                    printf "notice: %s: %s instructions here, %s in icount.txt (%+.3f %%, within 0.5 %%)\n", what, th(gc), th(wc), d * 100 / wc
                }
                continue
            }
            if (tol < model_total * 0.0025) tol = model_total * 0.0025
            if (tol < 64) tol = 64
            if (d > tol || -d > tol) {
                if (moved++ == 0) first_moved = i
                if (status == 0) status = 2
            }
        }
        if (moved > 0) printf "error: %d counts moved by more than 0.5 %% (or 0.25 %% of the total; 64 at least), the first on line %d\n", moved, first_moved > "/dev/stderr"
        exit status
    }' icount.txt "$out/icount.txt" || status=$?
[ "$status" -eq 0 ] || diff -u icount.txt "$out/icount.txt" || true
case $status in
    0) echo "examples/cortex-m/icount.txt holds (totals within 0.5 %)" ;;
    3) echo "error: above the ceiling: make it faster, or (if the rise is meant) bless it: STOWPLAN_BLESS=1 bash examples/cortex-m/icount.sh, and read the diff" >&2 ;;
    *) echo "error: stale snapshot: bless it: STOWPLAN_BLESS=1 bash examples/cortex-m/icount.sh, and read the diff" >&2 ;;
esac
[ "$status" -eq 0 ] || exit 1
