#!/usr/bin/env bash
# The benchmark: every model of bench/ on the emulated Cortex-M4, stowplan beside TFLite Micro
# + CMSIS-NN, and the snapshot bench/snapshot.txt (its ceilings):
#
#   bash bench/run.sh                       # measure, print, compare with bench/snapshot.txt
#   STOWPLAN_BLESS=1 bash bench/run.sh      # rewrite bench/snapshot.txt instead (read the diff)
#
# For each model (bench_models in bench/common.sh: the six of bench/models, TFLite Micro's
# person_detect and micro_speech from ../shared/models) it builds one firmware binary of
# bench/firmware (its own workspace: thumbv7em-none-eabihf, the toolchain pinned in its
# rust-toolchain.toml, release profile as examples/cortex-m's: opt-level "s", LTO, one codegen
# unit), all in one `cargo build --bins` (the runtime compiled once), then again with the
# feature `op-marks` (generated `invoke` calling `marks::op_begin`/`op_end` around each op). It
# runs each under qemu-system-arm -machine mps2-an386 -cpu cortex-m4:
#
#   - the plain binary under the cycle estimator (../shared/benchmarks/cortex-m-cycles), marks at
#     icount_start/icount_end: instructions and estimated cycles of one `invoke`; its console:
#     the output (must be bench/tflm-outputs.txt's, TFLite Micro's for the same input) and the
#     stack peak (stowplan::stack); again under the instruction counter
#     (../shared/benchmarks/cortex-m-icount): the same instruction count, or it fails;
#   - the op-marks binary under the cycle estimator, marks at op_begin/op_end too: each op's
#     instructions and cycles (from its op_begin to its op_end); before the counted `invoke` it
#     runs one with the probe on (bench/firmware/src/lib.rs), whose `op_end` prints a checksum
#     of each op's output tensors: each must be TFLite Micro's intermediate tensor's;
#   - sizes: text, data, bss; RAM = data + bss + stack peak; flash text split by bench/flash.py
#     into the model's constants (its buffers found in the flash image) and code (the rest);
#   - the other cores, each binary on its QEMU board under the instruction counter (output and
#     instructions of one `invoke`): the plain binary on the Cortex-M7 (mps2-an500); one built
#     for thumbv8m.main-none-eabihf with `-C target-cpu=cortex-m33` (the DSP kernels) on the
#     Cortex-M33 (mps2-an505); one built for thumbv6m-none-eabi (Armv6-M: the portable kernels)
#     on the Cortex-M3 (mps2-an385);
#
# TFLite Micro's outputs and intermediate tensors are the pinned wheel's, computed in this run
# from the same models and input (bench/tflm_outputs.py --check --out: it also requires
# bench/tflm-outputs.txt, the committed copy, to be the same), with the Python that
# STOWPLAN_TFLM_PYTHON names (one with tflite-micro, as .ci/run's venv).
#
# then bench/report.py prints every figure beside TFLite Micro + CMSIS-NN's
# (bench/tflm-cmsis-nn.txt, made by bench/tflm.sh) with the ratios, the goals and the best
# published Cortex-M4 results, and compares with bench/snapshot.txt: a figure (instructions,
# cycles, RAM, text, code, constants of a model) above the snapshot's + 0.5 % fails (its
# ceiling), and so does one more than 0.5 % below it (stale: bless it).
#
# The counters and TFLite Micro's models are outside this repository, in ../shared (or
# STOWPLAN_SHARED_DIR): when the counters are absent this prints a notice and exits 0, when
# person_detect or micro_speech is absent it measures the six others, without
# STOWPLAN_TFLM_PYTHON it compares the outputs with bench/tflm-outputs.txt and checks no op; with
# CI=true each of these is a failure. Needs the pinned toolchain with its thumb target, qemu-system-arm,
# binutils-arm-none-eabi, gcc (the plugins) and python3. Work files: $CARGO_TARGET_DIR/bench-run.
set -euo pipefail
source "$(dirname "$0")/common.sh"
cd "$repo_root"
icount_dir=${STOWPLAN_ICOUNT_DIR:-$shared_dir/benchmarks/cortex-m-icount}
bless=${STOWPLAN_BLESS:-0}
host_rustflags=${RUSTFLAGS:-}
target_dir=${CARGO_TARGET_DIR:-$repo_root/target}
work=$target_dir/bench-run

absent() {
    if [ "${CI:-}" = true ]; then
        echo "error: $1; with CI=true every model, counter and check of the benchmark is required" >&2
        exit 1
    fi
    echo "notice: $1; $2"
}
if [ ! -f "$cycles_dir/build.sh" ] || [ ! -f "$icount_dir/plugin/build.sh" ]; then
    absent "the counters ($cycles_dir, $icount_dir) are absent" "nothing measured"
    exit 0
fi
features=()
if [ -f "$shared_models/tflm_person_detect_int8.tflite" ] && [ -f "$shared_models/tflm_micro_speech_int8.tflite" ]; then
    features=(shared-models)
else
    absent "$shared_models lacks TFLite Micro's person_detect or micro_speech model" "measuring the six models of bench/models"
fi

start=$SECONDS
rm -rf "$work"
mkdir -p "$work/plain" "$work/ops" "$work/runs" "$work/cores"

# TFLite Micro's outputs and each op's output checksums, from the pinned wheel, in this run.
tflm_python=${STOWPLAN_TFLM_PYTHON:-}
outputs=bench/tflm-outputs.txt
op_checks=()
if [ -n "$tflm_python" ]; then
    "$tflm_python" bench/tflm_outputs.py --check --out "$work"
    outputs=$work/tflm-outputs.txt
    op_checks=(--op-checksums "$work/tflm-ops.txt")
else
    absent "STOWPLAN_TFLM_PYTHON does not name a Python with tflite-micro" \
        "the outputs are compared with bench/tflm-outputs.txt, no op by op"
fi

# The counters, built into the target directory.
cycles_lib=$(bash "$cycles_dir/build.sh" "$target_dir/cycles")
bash "$icount_dir/plugin/build.sh" "$target_dir/icount" >/dev/null
icount_lib=$target_dir/icount/libicount.so
# The project's CLI (the root workspace, host flags): each op's opcode and MACs.
(
    if [ -n "$host_rustflags" ]; then export RUSTFLAGS="$host_rustflags"; else unset RUSTFLAGS; fi
    CARGO_TARGET_DIR=$target_dir cargo build -q --locked -p stowplan-build --bin stowplan
)
stowplan_cli=$target_dir/debug/stowplan

# The firmware: every binary in one build, then again with the op marks, through the fixed path
# (bench/fixed_path.sh: the same bytes from every checkout). The runtime is a path dependency
# outside the firmware's workspace: its panic locations would carry the checkout's absolute
# path, so it is named /stowplan (as examples/cortex-m/run.sh does). The target directory is
# examples/cortex-m's, with the same flags: the runtime and the other dependencies its run.sh
# compiled are reused.
source bench/fixed_path.sh
firmware_root "$repo_root"
build_start=$SECONDS
(
    cd bench/firmware
    export CARGO_TARGET_DIR=$target_dir/cortex-m
    export RUSTFLAGS="$host_rustflags --remap-path-prefix=$repo_root=/stowplan --remap-path-prefix=$fixed_root=/stowplan --remap-path-prefix=$target_dir=/stowplan/target"
    feature_list=$(IFS=,; echo "${features[*]:-}")
    release=$CARGO_TARGET_DIR/thumbv7em-none-eabihf/release
    manifest=(--manifest-path "$fixed_root/bench/firmware/Cargo.toml")
    cargo build "${manifest[@]}" --release --locked --bins ${feature_list:+--features "$feature_list"}
    while read -r name _; do
        [ -f "$release/bench_$name" ] && cp "$release/bench_$name" "$work/plain/$name.elf"
    done < <(bench_models)
    cargo build "${manifest[@]}" --release --locked --bins --features "op-marks${feature_list:+,$feature_list}"
    while read -r name _; do
        [ -f "$release/bench_$name" ] && cp "$release/bench_$name" "$work/ops/$name.elf"
    done < <(bench_models)
    # The other cores' plain binaries: Armv8-M Mainline for the Cortex-M33, whose DSP extension
    # the runtime's build script sees in `-C target-cpu` (the same kernels as the M4's), and
    # Armv6-M (the portable kernels).
    RUSTFLAGS="$RUSTFLAGS -C target-cpu=cortex-m33" cargo build "${manifest[@]}" --release --locked --bins \
        --target thumbv8m.main-none-eabihf ${feature_list:+--features "$feature_list"}
    cargo build "${manifest[@]}" --release --locked --bins --target thumbv6m-none-eabi \
        ${feature_list:+--features "$feature_list"}
    while read -r name _; do
        for core in m33:thumbv8m.main-none-eabihf m0:thumbv6m-none-eabi; do
            bin=$CARGO_TARGET_DIR/${core#*:}/release/bench_$name
            [ -f "$bin" ] && cp "$bin" "$work/cores/$name.${core%%:*}.elf"
        done
    done < <(bench_models)
)
build_took=$((SECONDS - build_start))

run_start=$SECONDS
models=()
while read -r name path; do
    model=$(model_file "$path")
    [ -f "$model" ] || continue
    models+=("$name")
    plain=$work/plain/$name.elf ops_elf=$work/ops/$name.elf
    r=$work/runs/$name
    s=$(symbol "$plain" icount_start) e=$(symbol "$plain" icount_end)
    count_cycles "$plain" "$r.cycles" "$s" "$e" >"$r.total"
    # The instruction counter on the same binary: the same count, or the two plugins disagree.
    status=0
    timeout "${TIMEOUT:-600}" qemu-system-arm -machine mps2-an386 -cpu cortex-m4 -nographic -monitor none \
        -semihosting-config enable=on,target=native -kernel "$plain" \
        -plugin "$icount_lib,out=$r.icount,marks=$s:$e" >/dev/null 2>&1 || status=$?
    [ "$status" -eq 0 ] || { echo "error: $name under the instruction counter: qemu exited with status $status" >&2; exit 1; }
    icount=$(awk -v s="$s" -v e="$e" '$1 == "mark" && $2 == s && a == "" { a = $3 } $1 == "mark" && $2 == e && a != "" && b == "" { b = $3 } END { printf "%.0f", b - a }' "$r.icount")
    count_cycles "$ops_elf" "$r.ops.cycles" "$(symbol "$ops_elf" icount_start)" "$(symbol "$ops_elf" icount_end)" \
        "$(symbol "$ops_elf" op_begin)" "$(symbol "$ops_elf" op_end)" >"$r.ops"
    "$stowplan_cli" macs "$model" --json >"$r.macs"
    # The other cores, each binary on its board under the instruction counter: the M4's binary
    # on the Cortex-M7 (mps2-an500), the Armv8-M one on the Cortex-M33 (mps2-an505), the Armv6-M
    # one on the Cortex-M3 (mps2-an385: QEMU has no Cortex-M0 board with the RAM; Armv6-M code
    # runs unchanged on an Armv7-M core).
    for run in m7:mps2-an500:cortex-m7:"$plain" m33:mps2-an505:cortex-m33:"$work/cores/$name.m33.elf" \
        m0:mps2-an385:cortex-m3:"$work/cores/$name.m0.elf"; do
        IFS=: read -r core board cpu elf <<<"$run"
        cs=$(symbol "$elf" icount_start) ce=$(symbol "$elf" icount_end)
        status=0
        timeout "${TIMEOUT:-600}" qemu-system-arm -machine "$board" -cpu "$cpu" -nographic -monitor none \
            -semihosting-config enable=on,target=native -kernel "$elf" \
            -plugin "$icount_lib,out=$r.$core.icount,marks=$cs:$ce" >"$r.$core.log" 2>&1 || status=$?
        [ "$status" -eq 0 ] || { tail -20 "$r.$core.log" >&2; echo "error: $name on $board ($cpu): qemu exited with status $status" >&2; exit 1; }
        awk -v s="$cs" -v e="$ce" -v c="$core" '$1 == "mark" && $2 == s && a == "" { a = $3 }
            $1 == "mark" && $2 == e && a != "" && b == "" { b = $3 }
            END { printf "%s_instructions %.0f\n", c, b - a }' "$r.$core.icount" >"$r.$core.txt"
        tr -d '\r' <"$r.$core.log" | sed -n "s/^output  */${core}_output /p" >>"$r.$core.txt"
        echo "${core}_smlad $(arm-none-eabi-objdump -d "$elf" | grep -c $'\tsmlad' || true)" >>"$r.$core.txt"
        sizes "$elf" | sed -n "s/^text /${core}_text /p" >>"$r.$core.txt"
    done
    {
        echo "name $name"
        echo "model_bytes $(stat -c %s "$model")"
        cat "$r.total"
        echo "icount_instructions $icount"
        sed -n 's/^output  *//p' "$r.cycles.log" | sed 's/^/output /'
        sed -n 's/^stack peak  *\([0-9]*\) B$/stack \1/p' "$r.cycles.log"
        sed -n 's/^arena  *\([0-9]*\) B$/arena \1/p' "$r.cycles.log"
        sizes "$plain"
        python3 bench/flash.py "$plain" "$model" | grep -E '^(constants|buffers) '
        sed -e 's/^op /marked_op /' -e 's/^instructions /marked_instructions /' -e 's/^cycles /marked_cycles /' "$r.ops"
        # The op-marks binary: its probed `invoke`'s checksums, and its counted one's output.
        grep '^op_check ' "$r.ops.cycles.log" || true
        sed -n 's/^output  *//p' "$r.ops.cycles.log" | sed 's/^/marked_output /'
        # Each op: subgraph, index, opcode, MACs, the kernel generated code runs (with its
        # epilogue form) and its expected instructions (`stowplan macs`), "-" where none.
        python3 bench/macs_ops.py "$r.macs"
        cat "$r.m7.txt" "$r.m33.txt" "$r.m0.txt"
    } >"$work/$name.txt"
done < <(bench_models)
run_took=$((SECONDS - run_start))

files=()
for name in "${models[@]}"; do files+=("$work/$name.txt"); done
args=(--tflm bench/tflm-cmsis-nn.txt --outputs "$outputs" "${op_checks[@]}" --snapshot bench/snapshot.txt --report "$work/report.md")
[ "$bless" = 1 ] && args+=(--bless)
[ "${#features[@]}" -gt 0 ] && args+=(--all)
status=0
python3 bench/report.py "${args[@]}" "${files[@]}" || status=$?
echo "bench: firmware build ${build_took} s, QEMU runs ${run_took} s, all $((SECONDS - start)) s"
exit $status
