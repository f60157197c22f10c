#!/usr/bin/env bash
# Builds the firmware, runs it under QEMU and checks three snapshots, so a change in the output,
# in the code's size or in what per-op access costs shows up as a diff in review:
#
#   expected.out  what the firmware prints (semihosting), exit status 0 required
#   size.txt      text/data/bss of the ELF (arm-none-eabi-size); .bss is the arena + overhead
#   views.s       the disassembly of `op_1_views` and `take_arena` (README: zero planning)
#
# STOWPLAN_BLESS=1 rewrites the snapshots instead of comparing them. Needs the toolchain pinned
# in rust-toolchain.toml with its thumb targets, qemu-system-arm and binutils-arm-none-eabi.
set -euo pipefail

cd "$(dirname "$0")"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/../../target/cortex-m}"
elf="$CARGO_TARGET_DIR/thumbv7em-none-eabihf/release/stowplan-example-cortex-m"
bless="${STOWPLAN_BLESS:-0}"

cargo build --release --locked

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# A firmware that hangs (no semihosting exit) is a failure too.
status=0
timeout 60 cargo run --release --locked >"$out/expected.out" || status=$?
cat "$out/expected.out"
if [ "$status" -ne 0 ]; then
    echo "error: the firmware exited with status $status" >&2
    exit 1
fi

arm-none-eabi-size "$elf" | awk 'NR == 2 { printf "text %s\ndata %s\nbss %s\n", $1, $2, $3 }' >"$out/size.txt"
# What .bss holds, symbol by symbol (bytes, name).
arm-none-eabi-nm -C -S --size-sort "$elf" | while read -r _ size kind name; do
    case $kind in b | B) echo "bss $((16#$size)) $name" ;; esac
done >>"$out/size.txt"

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

failed=0
for f in expected.out size.txt views.s; do
    if [ "$bless" = 1 ]; then
        cp "$out/$f" "$f"
        echo "blessed examples/cortex-m/$f"
    elif ! diff -u "$f" "$out/$f"; then
        echo "error: examples/cortex-m/$f is stale; run STOWPLAN_BLESS=1 bash examples/cortex-m/run.sh and read the diff" >&2
        failed=1
    fi
done
cat size.txt
exit "$failed"
