#!/usr/bin/env bash
# Builds every firmware binary in one `cargo build` (with the features of the models
# ../shared/models has), runs them under QEMU and checks snapshots. First the default binary's
# three, so a change in the output,
# in the code's size or in what per-op access costs shows up as a diff in review:
#
#   expected.out  what the firmware prints (semihosting), exit status 0 required
#   size.txt      text/data/bss of the ELF (arm-none-eabi-size); .bss is the arena + overhead
#   views.s       the disassembly of `op_1_views` and `take_arena` (docs/guide.md: zero planning)
#
# Then the `streaming` binary (a stateful model over 50 invocations, each output printed and
# checked in the firmware against TFLM's from streaming-tflm.txt) and two more:
#
#   streaming.out           its output: every invocation's, RAM (arena, state, stack peak)
#                           beside TFLM's arena
#   streaming-size.txt      text/data/bss of its ELF and what .bss holds
#
# Then, when TFLite Micro's person_detect model is in ../shared/models (outside the repository),
# the `person_detect` binary (feature `person-detect`) and two more:
#
#   person-detect.out       its output (checked in the firmware against tflm-outputs.txt's) and
#                           stack peak
#   person-detect-size.txt  text/data/bss of its ELF and what .bss holds
#   conv-loop.s             the innermost loop of its int8 1x1 CONV_2D kernel (of the 1x1
#                           kernel's functions, the innermost loop with the most `smlad`s: the
#                           DSP extension's blocked matrix product)
#
# The same for TFLite Micro's micro_speech (binary `micro_speech`, feature `micro-speech`), whose
# output the firmware checks too (no snapshot: `icount.sh` counts its instructions). Both in one
# firmware sharing one arena (binary `group`, features `person-detect` and `micro-speech`):
#
#   group.out         its output (both models checked in the firmware, twice) and stack peak
#   group-size.txt    text/data/bss of its ELF and what .bss holds (the shared arena)
#
# Every binary is judged by TFLite Micro's outputs computed in this run: before the build,
# firmware_tflm.py runs the pinned wheel (the Python STOWPLAN_TFLM_PYTHON names, with
# tflite-micro) on every binary's model and input, and the committed copies the firmware
# builds its own checks from, streaming-tflm.txt and tflm-outputs.txt, must be what it computes;
# after the runs, every output line each binary printed must be the wheel's (mlp_float's within
# its tolerance). Without STOWPLAN_TFLM_PYTHON, or without the shared models, this prints a
# notice and checks what it can (each binary against the committed copies); with CI=true either
# is a failure.
#
# STOWPLAN_BLESS=1 rewrites the snapshots (and the committed copies of TFLM's outputs) instead of
# comparing them. Needs the toolchain pinned in rust-toolchain.toml with its thumb targets,
# qemu-system-arm and binutils-arm-none-eabi.
set -euo pipefail

cd "$(dirname "$0")"
repo_root=$(cd ../.. && pwd)
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo_root/target/cortex-m}"
# Built through a fixed path (../../bench/fixed_path.sh: the same bytes from every checkout).
# The runtime is a path dependency outside this workspace, so its panic locations carry the
# checkout's absolute path: name it /stowplan instead, so that the firmware's data (and the
# panic messages) are the same wherever the repository is cloned.
source ../../bench/fixed_path.sh
firmware_root "$repo_root"
export RUSTFLAGS="${RUSTFLAGS:-} --remap-path-prefix=$repo_root=/stowplan --remap-path-prefix=$fixed_root=/stowplan --remap-path-prefix=$CARGO_TARGET_DIR=/stowplan/target/cortex-m"
elf="$CARGO_TARGET_DIR/thumbv7em-none-eabihf/release/stowplan-example-cortex-m"
bless="${STOWPLAN_BLESS:-0}"

# What is outside the repository (the shared models, the wheel): a notice and a skip, or with
# CI=true a failure.
absent() {
    if [ "${CI:-}" = true ]; then
        echo "error: $1; with CI=true every firmware binary and every comparison runs" >&2
        exit 1
    fi
    echo "notice: $1; $2"
}

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# TFLite Micro's outputs for every binary, from the pinned wheel, before anything is built: the
# committed copies the firmware's build.rs reads must be what it computes (or, blessing, become
# it).
tflm_python=${STOWPLAN_TFLM_PYTHON:-}
if [ -n "$tflm_python" ]; then
    "$tflm_python" firmware_tflm.py oracles "$out"
    for f in streaming-tflm.txt tflm-outputs.txt; do
        [ -f "$out/$f" ] || continue
        if [ "$bless" = 1 ]; then
            cp "$out/$f" "$f"
            echo "blessed examples/cortex-m/$f"
        elif ! diff -u "$f" "$out/$f"; then
            echo "error: examples/cortex-m/$f is not what the pinned TFLite Micro computes; run STOWPLAN_BLESS=1 bash examples/cortex-m/run.sh and read the diff" >&2
            exit 1
        fi
    done
else
    absent "STOWPLAN_TFLM_PYTHON does not name a Python with tflite-micro" \
        "each binary checks its outputs against the committed copies of TFLM's only"
fi
ran=()

# One `cargo build` for every firmware binary: with the features of the models
# ../shared/models has (person_detect, micro_speech and group read them in place), so that
# every `cargo run` below reuses it.
pd_model=../../../shared/models/tflm_person_detect_int8.tflite
ms_model=../../../shared/models/tflm_micro_speech_int8.tflite
features=()
[ -f "$pd_model" ] && features+=(person-detect)
[ -f "$ms_model" ] && features+=(micro-speech)
build=(--manifest-path "$fixed_root/examples/cortex-m/Cargo.toml" --release --locked)
if [ "${#features[@]}" -gt 0 ]; then
    build+=(--features "$(IFS=,; echo "${features[*]}")")
fi
cargo build "${build[@]}" --bins

# A firmware that hangs (no semihosting exit) is a failure too.
status=0
timeout 60 cargo run "${build[@]}" >"$out/expected.out" || status=$?
cat "$out/expected.out"
if [ "$status" -ne 0 ]; then
    echo "error: the firmware exited with status $status" >&2
    exit 1
fi
ran+=(stowplan-example-cortex-m)

# text/data/bss of an ELF, then what .bss holds, symbol by symbol (bytes, name).
sizes() {
    arm-none-eabi-size "$1" | awk 'NR == 2 { printf "text %s\ndata %s\nbss %s\n", $1, $2, $3 }'
    arm-none-eabi-nm -C -S --size-sort "$1" | while read -r _ size kind name; do
        case $kind in b | B) echo "bss $((16#$size)) $name" ;; esac
    done
}
sizes "$elf" >"$out/size.txt"

disassemble() {
    arm-none-eabi-objdump -d -C --no-show-raw-insn --no-addresses "$elf" |
        awk -v f="$1" 'index($0, "<" f ">:") { on = 1 } on { print } on && /pop.*pc}/ { on = 0 }' |
        sed -e 's/[[:space:]]*$//' -e 's/\t/ /g'
}
{
    disassemble stowplan_example_cortex_m::op_1_views
    echo
    disassemble stowplan_example_cortex_m::take_arena
} >"$out/views.s"

snapshots=(expected.out size.txt views.s)
failed=0

# The stateful model, 50 invocations in a row, then a reset.
status=0
timeout 60 cargo run "${build[@]}" --bin streaming >"$out/streaming.out" || status=$?
cat "$out/streaming.out"
if [ "$status" -ne 0 ]; then
    echo "error: streaming exited with status $status" >&2
    exit 1
fi
sizes "$CARGO_TARGET_DIR/thumbv7em-none-eabihf/release/streaming" >"$out/streaming-size.txt"
snapshots+=(streaming.out streaming-size.txt)
ran+=(streaming)

# TFLite Micro's person_detect, read in place from ../shared/models when it is there.
model=../../../shared/models/tflm_person_detect_int8.tflite
if [ -f "$model" ]; then
    pd=("${build[@]}" --bin person_detect)
    start=$(date +%s%N)
    status=0
    timeout 300 cargo run "${pd[@]}" >"$out/person-detect.out" || status=$?
    ms=$((($(date +%s%N) - start) / 1000000))
    cat "$out/person-detect.out"
    if [ "$status" -ne 0 ]; then
        echo "error: person_detect exited with status $status" >&2
        exit 1
    fi
    echo "person_detect ran in $ms ms (cargo run: QEMU and cargo's start-up)"
    pd_elf="$CARGO_TARGET_DIR/thumbv7em-none-eabihf/release/person_detect"
    sizes "$pd_elf" >"$out/person-detect-size.txt"
    # Of the 1x1 CONV_2D's functions (the widened pixel pairs' loops, with the channel-pair
    # block inlined, the pixel pairs of the other layers and the entries they are inlined into),
    # the innermost loop with the most smlads (the first of equals): from the target of a
    # backward branch to it.
    arm-none-eabi-objdump -d -C --no-show-raw-insn "$pd_elf" |
        awk '/^[0-9a-f]+ <stowplan::kernels::conv::dsp::pointwise::(widened_in|widened|<impl [^>]*Epilogue>::pixel_pair|conv1x1_blocks|conv1x1_s8)(<.*>)?>:/ { on = 1; next }
            on && /^$/ { on = 0 }
            on { sub(/^ +/, ""); split($0, f, ":"); addr[n] = f[1]; line[n] = $0; n++ }
            END {
                best = 0
                for (j = 0; j < n; j++) {
                    if (line[j] !~ /\tb[a-z]*(\.[nw])?\t[0-9a-f]+ </) continue
                    split(line[j], t, "\t"); split(t[3], d, " ")
                    if (("0x" d[1]) + 0 > ("0x" addr[j]) + 0) continue
                    for (k = j; k > 0 && addr[k] != d[1]; k--) {}
                    # Innermost loops only: none with a backward branch of its own inside.
                    c = 0
                    for (i = k; i < j; i++) {
                        if (line[i] ~ /\tb[a-z]*(\.[nw])?\t[0-9a-f]+ </) {
                            split(line[i], u, "\t"); split(u[3], e, " ")
                            if (("0x" e[1]) + 0 <= ("0x" addr[i]) + 0) { c = -1; break }
                        }
                        if (line[i] ~ /\tsmlad\t/) c++
                    }
                    if (c > best) { best = c; from = k; to = j }
                }
                if (best == 0) exit 1
                for (k = from; k <= to; k++) { l = line[k]; sub(/^[0-9a-f]+:\t/, "", l); gsub(/\t/, " ", l); sub(/ [0-9a-f]+ </, " <", l); print l }
            }' >"$out/conv-loop.s" || {
        echo "error: no loop with smlad in person_detect's 1x1 CONV_2D kernel" >&2
        failed=1
    }
    snapshots+=(person-detect.out person-detect-size.txt conv-loop.s)
    ran+=(person_detect)
else
    absent "$model is absent" "skipping person_detect on QEMU"
fi

# TFLite Micro's micro_speech, the same way (its output checked in the firmware).
model=../../../shared/models/tflm_micro_speech_int8.tflite
if [ -f "$model" ]; then
    ms=("${build[@]}" --bin micro_speech)
    status=0
    timeout 60 cargo run "${ms[@]}" >"$out/micro-speech.out" || status=$?
    cat "$out/micro-speech.out"
    if [ "$status" -ne 0 ]; then
        echo "error: micro_speech exited with status $status" >&2
        exit 1
    fi
    ran+=(micro_speech)
else
    absent "$model is absent" "skipping micro_speech on QEMU"
fi

# Both models in one firmware, sharing one arena (binary `group`), when both are there.
if [ -f ../../../shared/models/tflm_person_detect_int8.tflite ] && [ -f "$model" ]; then
    group=("${build[@]}" --bin group)
    status=0
    timeout 300 cargo run "${group[@]}" >"$out/group.out" || status=$?
    cat "$out/group.out"
    if [ "$status" -ne 0 ]; then
        echo "error: group exited with status $status" >&2
        exit 1
    fi
    sizes "$CARGO_TARGET_DIR/thumbv7em-none-eabihf/release/group" >"$out/group-size.txt"
    snapshots+=(group.out group-size.txt)
    ran+=(group)
else
    absent "../shared/models lacks person_detect or micro_speech" "skipping the group on QEMU"
fi

# Every output line each binary printed against TFLite Micro's, computed above.
if [ -n "$tflm_python" ]; then
    "$tflm_python" firmware_tflm.py check "$out" "${ran[@]}" || failed=1
fi

for f in "${snapshots[@]}"; do
    if [ "$bless" = 1 ]; then
        cp "$out/$f" "$f"
        echo "blessed examples/cortex-m/$f"
    elif ! diff -u "$f" "$out/$f"; then
        echo "error: examples/cortex-m/$f is stale; run STOWPLAN_BLESS=1 bash examples/cortex-m/run.sh and read the diff" >&2
        failed=1
    fi
done
cat size.txt streaming-size.txt
if [ -f "$out/person-detect-size.txt" ]; then cat person-detect-size.txt; fi
exit "$failed"
