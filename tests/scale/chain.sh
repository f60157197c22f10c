#!/usr/bin/env bash
# Times `stowplan plan --json` on a chain of RELUs (docs/planning.md, "Scaling with the tensor
# count"): builds the CLI and `scale-model` in release, writes the chain, and runs
#   /usr/bin/time -v stowplan plan --json chain.tflite > /dev/null
# failing unless the wall time is under MAX_SECONDS (20) and the maximum resident set under
# MAX_MB (2048). Heavy (a 76 MB model, about a gigabyte of memory): run by hand, not in CI.
#
# usage: tests/scale/chain.sh [OPS] [--check-json]
#   OPS           ops in the chain (default 1000000: OPS + 1 tensors)
#   --check-json  also parse the report with python3 (about 25 s and 2 GB more)
# environment: MAX_SECONDS, MAX_MB, CARGO_TARGET_DIR as for cargo.
set -euo pipefail

ops=1000000
check_json=false
for arg in "$@"; do
    case "$arg" in
        --check-json) check_json=true ;;
        ''|*[!0-9_]*) echo "usage: $0 [OPS] [--check-json]" >&2; exit 2 ;;
        *) ops=${arg//_/} ;;
    esac
done
max_seconds=${MAX_SECONDS:-20}
max_mb=${MAX_MB:-2048}

if ! /usr/bin/time -v true 2>/dev/null; then
    echo "error: needs GNU time as /usr/bin/time (with -v)" >&2
    exit 2
fi

cd "$(dirname "$0")/../.."
cargo build --release -q -p stowplan-build --bin stowplan
cargo build --release -q -p stowplan-tests --bin scale-model
target=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
bin="$target/release"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bin/scale-model" chain "$((ops + 1))" "$work/chain.tflite"

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
/usr/bin/time -v "$bin/stowplan" plan --json "$work/chain.tflite" >/dev/null 2>"$work/time.txt" || {
    cat "$work/time.txt" >&2
    echo "error: stowplan plan --json failed" >&2
    exit 1
}
# "Elapsed (wall clock) time (h:mm:ss or m:ss): 0:07.74"
seconds=$(awk -F': ' '/Elapsed \(wall clock\)/ {
    n = split($2, p, ":"); s = 0
    for (i = 1; i <= n; i++) s = s * 60 + p[i]
    printf "%.2f", s
}' "$work/time.txt")
rss_kb=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$work/time.txt")
rss_mb=$((rss_kb / 1024))
echo "chain of $ops ops: ${seconds} s wall, ${rss_mb} MB max RSS (limits ${max_seconds} s, ${max_mb} MB)"

status=0
if ! awk -v s="$seconds" -v m="$max_seconds" 'BEGIN { exit !(s < m) }'; then
    echo "error: ${seconds} s, expected under ${max_seconds} s" >&2
    status=1
fi
if [ "$rss_mb" -ge "$max_mb" ]; then
    echo "error: ${rss_mb} MB, expected under ${max_mb} MB" >&2
    status=1
fi

if $check_json; then
    "$bin/stowplan" plan --json "$work/chain.tflite" >"$work/chain.json"
    python3 -c '
import json, sys
ops = int(sys.argv[1])
with open(sys.argv[2]) as f:
    report = json.load(f)
assert len(report["tensors"]) == ops + 1, len(report["tensors"])
assert len(report["ops"]) == ops, len(report["ops"])
print("the report is valid JSON: %d tensors, %d ops, arena %d bytes" % (ops + 1, ops, report["arena_bytes"]))
' "$ops" "$work/chain.json" || status=1
fi
exit $status
