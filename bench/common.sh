# Sourced by bench/run.sh and bench/tflm.sh: where things are, and the counting both engines share.
# shellcheck shell=bash

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_root=$(cd "$bench_dir/.." && pwd)
# What lies outside the repository, read in place (never copied into it).
shared_dir=${STOWPLAN_SHARED_DIR:-$repo_root/../shared}
cycles_dir=${STOWPLAN_CYCLES_DIR:-$shared_dir/benchmarks/cortex-m-cycles}
harness_dir=${STOWPLAN_TFLM_HARNESS:-$shared_dir/benchmarks/tflm-cortex-m}
shared_models=$shared_dir/models

# The benchmark's models in order: NAME PATH (relative to the repository root; shared: in
# ../shared/models).
bench_models() {
    cat <<'EOF'
vww bench/models/vww/vww.tflite
kws bench/models/kws/kws.tflite
ic bench/models/ic/ic.tflite
ad bench/models/ad/ad.tflite
mbv2 bench/models/mbv2/mbv2.tflite
tcn bench/models/tcn/tcn.tflite
person_detect shared:tflm_person_detect_int8.tflite
micro_speech shared:tflm_micro_speech_int8.tflite
EOF
}

# model_file PATH: the file of a bench_models path.
model_file() {
    case $1 in
        shared:*) echo "$shared_models/${1#shared:}" ;;
        *) echo "$repo_root/$1" ;;
    esac
}

# symbol ELF NAME: the address of NAME (an exact symbol, or the one whose demangled name ends
# with ::NAME), Thumb bit dropped, as 0x...; empty when absent.
symbol() {
    local a
    a=$(arm-none-eabi-nm -C "$1" | awk -v s="$2" '
        $3 == s || substr($0, length($0) - length(s) - 1) == "::" s { a = $1 }
        END { print a }')
    [ -z "$a" ] || printf '0x%x\n' $((0x$a & ~1))
}

# count_cycles ELF OUT START END [OP_BEGIN OP_END]: runs ELF under QEMU (mps2-an386, Cortex-M4)
# with the cycle-estimating plugin (built into $cycles_lib), marks at the bracket and at the op
# marks; the plugin's file goes to OUT, the console to OUT.log. Then prints
#   instructions N / cycles N          from START's first instruction to END's first one
#   op K instructions N cycles N       each top-level op: from its OP_BEGIN to its OP_END (nested
#                                      marks, control flow's, count with their op)
count_cycles() {
    local elf=$1 out=$2 s=$3 e=$4 ob=${5:-} oe=${6:-}
    local marks="$s:$e${ob:+:$ob}${oe:+:$oe}"
    local status=0
    timeout "${TIMEOUT:-600}" qemu-system-arm -machine mps2-an386 -cpu cortex-m4 -nographic -monitor none \
        -semihosting-config enable=on,target=native -kernel "$elf" \
        -plugin "$cycles_lib,out=$out,marks=$marks" >"$out.log" 2>&1 || status=$?
    tr -d '\r' <"$out.log" >"$out.log.tmp" && mv "$out.log.tmp" "$out.log"
    if [ "$status" -ne 0 ] || ! grep -q '^total ' "$out"; then
        tail -20 "$out.log" >&2
        echo "error: $elf under the cycle counter: qemu-system-arm exited with status $status" >&2
        return 1
    fi
    awk -v s="$s" -v e="$e" -v ob="${ob:-none}" -v oe="${oe:-none}" -v elf="$elf" '
        BEGIN { n = 0; depth = 0 }
        # Addresses as the plugin prints them and `symbol` gives them: 0x, lower-case hex.
        $1 == "mark" {
            a = $2
            if (a == s && !started) { started = 1; i0 = $3; c0 = $4; next }
            if (a == e && started && !ended) { ended = 1; i1 = $3; c1 = $4; next }
            if (!started || ended) next
            if (a == ob) { depth++; if (depth == 1) { bi = $3; bc = $4 } }
            else if (a == oe && depth > 0) {
                depth--
                if (depth == 0) { oi[n] = $3 - bi; oc[n] = $4 - bc; n++ }
            }
        }
        END {
            if (!ended) { print "error: " elf " did not reach both marks of the bracket" > "/dev/stderr"; exit 1 }
            printf "instructions %.0f\ncycles %.0f\n", i1 - i0, c1 - c0
            for (k = 0; k < n; k++) printf "op %d instructions %.0f cycles %.0f\n", k, oi[k], oc[k]
        }' "$out"
}

# sizes ELF: text, data and bss of an ELF (arm-none-eabi-size), one "NAME N" line each.
sizes() {
    arm-none-eabi-size "$1" | awk 'NR == 2 { printf "text %s\ndata %s\nbss %s\n", $1, $2, $3 }'
}

# ops MODEL: "INDEX OPCODE" for each op of subgraph 0, from the project's CLI (`stowplan macs`,
# built into the root workspace's target directory).
ops() {
    "$stowplan_cli" macs "$1" | awk 'NF == 4 && $1 == "0" && $2 ~ /^[0-9]+$/ { print $2, $3 }'
}
