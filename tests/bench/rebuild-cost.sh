#!/usr/bin/env bash
# Incremental rebuild cost of a crate that includes a model with `include_model!` (tables
# only, and with `invoke = true` and a call to it), against the same crate without the macro. Usage (from the repository root):
#
#   bash tests/bench/rebuild-cost.sh [MODEL.tflite]   # default ../shared/models/tflm_person_detect_int8.tflite
#
# It makes two scratch crates under target/bench-rebuild (never committed), builds each once,
# then touches src/main.rs and times `cargo build` three times, printing the median.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
model=${1:-$root/../shared/models/tflm_person_detect_int8.tflite}
if [ ! -f "$model" ]; then
    echo "notice: $model is absent; give a model path" >&2
    exit 0
fi
model=$(cd "$(dirname "$model")" && pwd)/$(basename "$model")
work=$root/target/bench-rebuild
export CARGO_TARGET_DIR=$work/target
mkdir -p "$work"

make_crate() { # name, main.rs body, runtime features
    local dir=$work/$1
    mkdir -p "$dir/src"
    cat > "$dir/Cargo.toml" <<TOML
[package]
name = "bench-$1"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
stowplan = { path = "$root/runtime", features = [${3:-}] }

[workspace]
TOML
    printf '%s\n' "$2" > "$dir/src/main.rs"
}

rel=$(python3 -c "import os,sys; print(os.path.relpath(sys.argv[1], sys.argv[2]))" "$model" "$work/with")
make_crate with "stowplan::include_model!(\"$rel\", name = net);
fn main() { println!(\"{} {}\", net::ARENA_BYTES, net::TENSORS.len()); }"
make_crate invoke "stowplan::include_model!(\"$rel\", name = net, invoke = true);
fn main() { let mut a = Box::new(net::Arena::new()); net::invoke(&mut a); println!(\"{}\", a.as_bytes()[0]); }" '"kernels"'
make_crate without "fn main() { println!(\"{} {}\", 0, 0); }"

median() { sort -n | sed -n 2p; }
for kind in without with invoke; do
    dir=$work/$kind
    (cd "$dir" && cargo build -q 2>/dev/null)
    times=$(for _ in 1 2 3; do
        touch "$dir/src/main.rs"
        start=$(date +%s%N)
        (cd "$dir" && cargo build -q)
        echo $(( ($(date +%s%N) - start) / 1000000 ))
    done | median)
    case $kind in
        without) what="without include_model!" ;;
        with) what="with include_model!" ;;
        invoke) what="with include_model!(..., invoke = true) and the kernels" ;;
    esac
    echo "$what: incremental rebuild ${times} ms (median of 3, dev profile)"
done
echo "model: $(basename "$model"), $(stat -c %s "$model") bytes"
