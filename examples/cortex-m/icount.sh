#!/usr/bin/env bash
# Counts the instructions of one inference on the emulated Cortex-M4 (QEMU mps2-an386), exactly:
# TFLite Micro's person_detect and micro_speech, each run by the generated `invoke` of the
# firmware binaries `person_detect` and `micro_speech` (release profile: opt-level "s", LTO).
#
#   bash examples/cortex-m/icount.sh
#
# prints, per model, the instructions between the firmware's two marks (`icount_start` and
# `icount_end`, around `invoke`), then per call of a kernel function (an op, when its kernel is
# one function): the instructions from its entry to the next call's (the last one's up to
# `icount_end`), i.e. the kernel with the glue of its op, and their sum by kernel function.
#
# The counter is a QEMU TCG plugin outside this repository, in ../shared/benchmarks/cortex-m-icount
# (or STOWPLAN_ICOUNT_DIR), and the models are in ../shared/models: when either is absent this
# prints a notice and exits 0. Needs what run.sh needs, and gcc for the plugin (built into the
# target directory).
set -euo pipefail

cd "$(dirname "$0")"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/../../target/cortex-m}"
# The runtime is a path dependency outside this workspace, so its panic locations carry the
# checkout's absolute path: name it /stowplan instead, so that the firmware's data (and the
# panic messages) are the same wherever the repository is cloned.
export RUSTFLAGS="${RUSTFLAGS:-} --remap-path-prefix=$(cd ../.. && pwd)=/stowplan"
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
# every kernel function (`stowplan::kernels::MODULE::NAME`, not the fixed-point helpers), and
# the per-block histogram; then prints the figures.
count() {
    local elf="$CARGO_TARGET_DIR/thumbv7em-none-eabihf/release/$1"
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
        ($2 ~ /^stowplan::kernels::[a-z0-9_]+::[a-z0-9_]+$/ && $2 !~ /::fixed::/) || $1 == s || $1 == e { print $1 }' \
        "$out/symbols" | sort -u | paste -sd:)
    timeout 300 qemu-system-arm -machine mps2-an386 -cpu cortex-m4 -nographic \
        -semihosting-config enable=on,target=native -kernel "$elf" \
        -plugin "$plugin_dir/libicount.so,out=$out/counts,marks=$marks,hist=1" >"$out/stdout"
    # The kernel function each executed block belongs to: the outermost `stowplan::kernels::`
    # frame of its address's inlining chain (the debug info's), else the function it is in.
    awk '$1 == "tb" { print $2 }' "$out/counts" >"$out/blocks"
    arm-none-eabi-addr2line -a -f -i -C -e "$elf" <"$out/blocks" |
        awk '/^0x/ { if (a != "") print a, k; a = $1; k = ""; expect = 1; next }
            expect { expect = 0; if ($0 ~ /^stowplan::kernels::/) k = $0; next }
            { expect = 1 }
            END { if (a != "") print a, k }' >"$out/owners"
    awk -v s="$start" -v e="$end" -v model="$1" '
        FILENAME == ARGV[1] { name[$1] = substr($0, length($1) + 2); next }
        FILENAME == ARGV[2] { a = $1; sub(/^0x0*/, "0x", a); owner[a] = substr($0, length($1) + 2); next }
        $1 == "mark" { addr[n] = $2; at[n] = $3; n++; next }
        $1 == "tb" { k = owner[$2]; if (k != "") by[k] += $3 * $4; next }
        END {
            for (i = 0; i < n; i++) {
                if (addr[i] == s) first = i
                if (addr[i] == e) last = i
            }
            printf "%s: %d instructions in invoke\n", model, at[last] - at[first]
            calls = last - first - 1
            if (calls > 0 && calls <= 100) {
                printf "  per call of a kernel function (exact: entry to the next entry):\n"
                printf "     - %10d  (invoke up to the first call: ops whose kernels are inlined)\n", at[first + 1] - at[first]
                for (i = first + 1; i < last; i++)
                    printf "    %2d %10d  %s\n", i - first - 1, at[i + 1] - at[i], name[addr[i]]
            }
            printf "  by kernel function, inlined ones included (blocks x executions):\n"
            for (k in by) printf "    %10d  %s\n", by[k], k | "sort -k1,1nr"
            close("sort -k1,1nr")
        }' "$out/symbols" "$out/owners" "$out/counts"
}

count person_detect
count micro_speech
