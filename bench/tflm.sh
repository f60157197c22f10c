#!/usr/bin/env bash
# Measures TFLite Micro + CMSIS-NN on every benchmark model and writes bench/tflm-cmsis-nn.txt,
# the reference figures bench/run.sh prints beside stowplan's:
#
#   bash bench/tflm.sh            # rewrite bench/tflm-cmsis-nn.txt (a few minutes on 2 cores)
#   bash bench/tflm.sh vww kws    # measure only these (printed, the file is left alone)
#
# Everything third-party is read in place from ../shared (never copied into the repository):
# the harness ../shared/benchmarks/tflm-cortex-m (TFLM 90b983c, CMSIS-NN 4ab83cc, Debian's GCC
# 12.2, TFLM's own Makefile flags for cortex_m_generic cortex-m4+fp release_with_logs, its
# MicroProfiler on), which must have been set up once (its README: `bash setup.sh MIRROR_ROOT`,
# the work dir in $TFLM_HARNESS_WORK, default /tmp/tflm-harness), and the cycle estimator
# ../shared/benchmarks/cortex-m-cycles. For each model: the harness's build.sh (kernels
# cmsis_nn, its default input: xorshift32 from state 1, the low byte of each state, as
# bench/firmware's), its run.sh with PER_OP=1 (the icount plugin: instructions of one Invoke()
# + 4, every op's, arena_used_bytes, the output, text/data/bss), and one more run under the
# cycle estimator with marks at the same bracket (icount_start/icount_end) and at every op's
# profiler events (op_begin/op_end): estimated cycles of the Invoke and of each op. The two
# plugins' instruction counts must agree, and TFLM's output is compared with the pinned Python
# wheel's (bench/tflm-outputs.txt; see the harness README on rare +-1 differences of per-tensor
# FULLY_CONNECTED).
#
# Lines of the file, per model NAME (counts are exact; cycles are the estimator's):
#   NAME model_bytes N                     the .tflite's size (the firmware embeds it whole)
#   NAME instructions N / NAME cycles N    one Invoke() + 4 (the harness's bracket)
#   NAME arena_used_bytes N                MicroInterpreter::arena_used_bytes()
#   NAME text N / data N / bss N           arm-none-eabi-size (bss holds a 2 MiB arena)
#   NAME code N                            text - model_bytes
#   NAME ram N                             data + bss - 2 MiB + arena_used_bytes (no stack)
#   NAME output [..]                       the int8 output TFLM gives on QEMU
#   NAME wheel same|differs [..]           against the wheel's (bench/tflm-outputs.txt)
#   NAME op K OPCODE instructions N cycles N    every op's Eval (profiler events)
set -euo pipefail
source "$(dirname "$0")/common.sh"
cd "$repo_root"

work=${TFLM_HARNESS_WORK:-/tmp/tflm-harness}
for f in "$harness_dir/build.sh" "$harness_dir/run.sh" "$cycles_dir/build.sh"; do
    [ -f "$f" ] || { echo "error: $f is absent (../shared)" >&2; exit 1; }
done
[ -f "$work/lib-cmsis_nn.env" ] || {
    echo "error: the harness is not set up in $work: run its setup.sh (see $harness_dir/README.md)" >&2
    exit 1
}
export TFLM_HARNESS_WORK=$work
out_dir=$work/bench
mkdir -p "$out_dir"
cycles_lib=$(bash "$cycles_dir/build.sh" "$out_dir/cycles")
stowplan_cli=$repo_root/target/debug/stowplan
cargo build -q --locked -p stowplan-build --bin stowplan

only=("$@")
arena=2097152
{
    echo "# TFLite Micro + CMSIS-NN on the emulated Cortex-M4 (QEMU mps2-an386), one Invoke() of each"
    echo "# benchmark model on the xorshift32 input, measured by bench/tflm.sh with the harness of"
    echo "# ../shared/benchmarks/tflm-cortex-m and the cycle estimator of ../shared/benchmarks/cortex-m-cycles."
    sed 's/^/# /' "$work/sources.txt"
    echo "# toolchain: $(arm-none-eabi-gcc --version | head -1)"
    echo "# qemu: $(qemu-system-arm --version | head -1)"
} >"$out_dir/tflm-cmsis-nn.txt"

while read -r name path; do
    if [ "${#only[@]}" -gt 0 ] && [[ " ${only[*]} " != *" $name "* ]]; then continue; fi
    model=$(model_file "$path")
    [ -f "$model" ] || { echo "error: $model is absent" >&2; exit 1; }
    echo "== $name" >&2
    d=$out_dir/$name
    rm -rf "$d"
    bash "$harness_dir/build.sh" "$model" cmsis_nn "$d" >"$d.build.log" 2>&1 || {
        tail -20 "$d.build.log" >&2
        exit 1
    }
    elf=$(tail -1 "$d.build.log")
    PER_OP=1 bash "$harness_dir/run.sh" "$elf" >"$d.run.txt"
    count_cycles "$elf" "$d.cycles" "$(symbol "$elf" icount_start)" "$(symbol "$elf" icount_end)" \
        "$(symbol "$elf" op_begin)" "$(symbol "$elf" op_end)" >"$d.cycles.txt"
    ops "$model" >"$d.ops"
    want=$(awk -v n="$name" '$1 == n { sub(/^[^ ]+ /, ""); print }' bench/tflm-outputs.txt)
    awk -v name="$name" -v bytes="$(stat -c %s "$model")" -v arena="$arena" -v want="$want" '
        FILENAME == ARGV[1] {
            if ($1 == "instructions") ins = $2
            if ($1 == "arena_used_bytes") used = $2
            if ($1 == "text" || $1 == "data" || $1 == "bss") size[$1] = $2
            if ($1 == "output_int8") { o = $0; sub(/^output_int8 /, "", o) }
            if ($1 == "op") opins[$2] = $4
            next
        }
        FILENAME == ARGV[2] {
            if ($1 == "instructions") cins = $2
            if ($1 == "cycles") cyc = $2
            if ($1 == "op") { ocins[$2] = $4; ocyc[$2] = $6; nop++ }
            next
        }
        { opcode[$1] = $2; nops++ }
        END {
            if (cins != ins) { printf "error: %s: the cycle estimator counts %s instructions, the icount plugin %s\n", name, cins, ins > "/dev/stderr"; exit 1 }
            if (nop != nops) { printf "error: %s: %d ops marked, the model has %d\n", name, nop, nops > "/dev/stderr"; exit 1 }
            printf "%s model_bytes %d\n", name, bytes
            printf "%s instructions %s\n%s cycles %s\n", name, ins, name, cyc
            printf "%s arena_used_bytes %s\n", name, used
            printf "%s text %s\n%s data %s\n%s bss %s\n", name, size["text"], name, size["data"], name, size["bss"]
            printf "%s code %d\n", name, size["text"] - bytes
            printf "%s ram %d\n", name, size["data"] + size["bss"] - arena + used
            printf "%s output %s\n", name, o
            printf "%s wheel %s %s\n", name, (o == want ? "same" : "differs"), want
            for (k = 0; k < nops; k++) {
                if (opins[k] != ocins[k]) { printf "error: %s op %d: %s instructions by the estimator, %s by icount\n", name, k, ocins[k], opins[k] > "/dev/stderr"; exit 1 }
                printf "%s op %d %s instructions %s cycles %s\n", name, k, opcode[k], ocins[k], ocyc[k]
            }
        }' "$d.run.txt" "$d.cycles.txt" "$d.ops" | tee -a "$out_dir/tflm-cmsis-nn.txt" | grep -v " op " >&2
done < <(bench_models)

if [ "${#only[@]}" -eq 0 ]; then
    cp "$out_dir/tflm-cmsis-nn.txt" bench/tflm-cmsis-nn.txt
    echo "wrote bench/tflm-cmsis-nn.txt" >&2
else
    cat "$out_dir/tflm-cmsis-nn.txt"
fi
