#!/usr/bin/env bash
# Counts the instructions of one inference on the emulated Cortex-M4 (QEMU mps2-an386), exactly:
# TFLite Micro's person_detect and micro_speech, each run by the generated `invoke` of the
# firmware binaries `person_detect` and `micro_speech` (release profile: opt-level "s", LTO).
#
#   bash examples/cortex-m/icount.sh
#
# prints, per model, the instructions between the firmware's two marks (`icount_start` and
# `icount_end`, around `invoke`), then per op: the instructions from the entry of one kernel
# function to the entry of the next (the last op's up to `icount_end`), i.e. the kernel with the
# glue of its op, and their sum by kernel function.
#
# The counter is a QEMU TCG plugin outside this repository, in ../shared/benchmarks/cortex-m-icount
# (or STOWPLAN_ICOUNT_DIR), and the models are in ../shared/models: when either is absent this
# prints a notice and exits 0. Needs what run.sh needs, and gcc for the plugin (built into the
# target directory).
set -euo pipefail

cd "$(dirname "$0")"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/../../target/cortex-m}"
counter="${STOWPLAN_ICOUNT_DIR:-../../../shared/benchmarks/cortex-m-icount}"
models=../../../shared/models
if [ ! -f "$counter/plugin/build.sh" ]; then
    echo "notice: the instruction counter ($counter) is absent; nothing counted"
    exit 0
fi
if [ ! -f "$models/tflm_person_detect_int8.tflite" ] || [ ! -f "$models/tflm_micro_speech_int8.tflite" ]; then
    echo "notice: $models lacks TFLite Micro's person_detect or micro_speech model; nothing counted"
    exit 0
fi

plugin_dir="$CARGO_TARGET_DIR/icount"
bash "$counter/plugin/build.sh" "$plugin_dir" >/dev/null
cargo build --release --locked --features person-detect,micro-speech \
    --bin person_detect --bin micro_speech

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# count BINARY: runs it under the counter with a mark at both brackets and at the entry of
# every kernel function, then prints the figures.
count() {
    local elf="$CARGO_TARGET_DIR/thumbv7em-none-eabihf/release/$1"
    # "ADDRESS NAME" of every function (Thumb bit dropped), demangled.
    arm-none-eabi-nm -C --defined-only "$elf" |
        awk '$2 ~ /^[tT]$/ { a = strtonum("0x" $1); a -= a % 2; $1 = ""; $2 = ""; sub(/^  /, ""); printf "0x%x %s\n", a, $0 }' \
            >"$out/symbols"
    local start end marks
    start=$(awk '/::icount::icount_start$/ { print $1 }' "$out/symbols")
    end=$(awk '/::icount::icount_end$/ { print $1 }' "$out/symbols")
    marks=$(awk -v s="$start" -v e="$end" '/stowplan::kernels::/ || $1 == s || $1 == e { print $1 }' \
        "$out/symbols" | sort -u | paste -sd:)
    timeout 300 qemu-system-arm -machine mps2-an386 -cpu cortex-m4 -nographic \
        -semihosting-config enable=on,target=native -kernel "$elf" \
        -plugin "$plugin_dir/libicount.so,out=$out/counts,marks=$marks" >"$out/stdout"
    awk -v s="$start" -v e="$end" -v model="$1" '
        FNR == NR { name[$1] = substr($0, length($1) + 2); next }
        $1 == "mark" { addr[n] = $2; at[n] = $3; n++ }
        END {
            for (i = 0; i < n; i++) {
                if (addr[i] == s) first = i
                if (addr[i] == e) last = i
            }
            printf "%s: %d instructions in invoke\n", model, at[last] - at[first]
            op = 0
            for (i = first + 1; i < last; i++) {
                k = name[addr[i]]
                c = at[i + 1] - at[i]
                printf "  op %2d %10d  %s\n", op++, c, k
                sum[k] += c
            }
            printf "  by kernel function:\n"
            for (k in sum) printf "  %10d  %s\n", sum[k], k | "sort -k1,1nr"
            close("sort -k1,1nr")
        }' "$out/symbols" "$out/counts"
}

count person_detect
count micro_speech
