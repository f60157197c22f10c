//! Puts `memory.x` where the linker finds it, links with cortex-m-rt's `link.x`, and writes
//! `OUT_DIR/io.rs`: the model's input and the output TFLite computed for it
//! (`tests/models/mlp_float/io.json`), as constants; `OUT_DIR/streaming_tflm.rs`: TFLite
//! Micro's output of each of the streaming binary's invocations and its arena figure
//! (`streaming-tflm.txt`, from `streaming_tflm.py`); and `OUT_DIR/person_detect_tflm.rs`,
//! `OUT_DIR/micro_speech_tflm.rs`: TFLite Micro's output of each model for the firmware's input
//! (`tflm-outputs.txt`, from `firmware_tflm.py`). The committed files are snapshots of the pinned
//! wheel's outputs: `run.sh` recomputes them and requires them unchanged, and judges every
//! binary's printed outputs by the recomputed values.

use std::path::PathBuf;

#[path = "../shared/io_json.rs"]
mod io_json;

const IO_JSON: &str = "../../tests/models/mlp_float/io.json";
const STREAMING_TFLM: &str = "streaming-tflm.txt";
const TFLM_OUTPUTS: &str = "tflm-outputs.txt";

/// `pub const EXPECTED: [i8; n]` for the line `{name} [a, b, ...]` of `tflm-outputs.txt`.
fn tflm_output(text: &str, name: &str) -> Result<String, String> {
    let line = text
        .lines()
        .find(|l| l.split(' ').next() == Some(name))
        .ok_or(format!("{TFLM_OUTPUTS}: no line for {name}"))?;
    let values: Vec<i8> = line[name.len()..]
        .trim()
        .strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
        .ok_or(format!(
            "{TFLM_OUTPUTS}: {line:?} is not `{name} [a, b, ...]`"
        ))?
        .split(", ")
        .map(str::parse)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("{TFLM_OUTPUTS}: {line:?}: {e}"))?;
    let items: Vec<String> = values.iter().map(i8::to_string).collect();
    Ok(format!(
        "/// What TFLite Micro outputs for the firmware's input (`src/input.rs`): the pinned wheel\n\
         /// (`tflite-micro`, reference kernels) run by `firmware_tflm.py` ({TFLM_OUTPUTS}).\n\
         pub const EXPECTED: [i8; {}] = [{}];\n",
        values.len(),
        items.join(", ")
    ))
}

/// `EXPECTED: [[i8; 2]; n]` and `TFLM_ARENA_USED` from `streaming-tflm.txt`: lines
/// `invocations N`, `output K [a, b]` for K = 0..N, `tflm arena used BYTES (...)`.
fn streaming_constants(text: &str) -> Result<String, String> {
    let mut lines = text.lines();
    let n: usize = lines
        .next()
        .and_then(|l| l.strip_prefix("invocations "))
        .and_then(|v| v.parse().ok())
        .ok_or("streaming-tflm.txt: the first line is not `invocations N`")?;
    let mut outputs = Vec::with_capacity(n);
    for k in 0..n {
        let line = lines
            .next()
            .ok_or(format!("streaming-tflm.txt: output {k} is missing"))?;
        let values = line
            .strip_prefix(&format!("output {k} ["))
            .and_then(|rest| rest.strip_suffix(']'))
            .ok_or(format!(
                "streaming-tflm.txt: {line:?} is not `output {k} [a, b]`"
            ))?;
        let values: Vec<i8> = values
            .split(", ")
            .map(str::parse)
            .collect::<Result<_, _>>()
            .map_err(|e| format!("streaming-tflm.txt: {line:?}: {e}"))?;
        if values.len() != 2 {
            return Err(format!("streaming-tflm.txt: {line:?} has not 2 values"));
        }
        outputs.push(format!("[{}, {}]", values[0], values[1]));
    }
    let arena: usize = lines
        .next()
        .and_then(|l| l.strip_prefix("tflm arena used "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .ok_or("streaming-tflm.txt: the last line is not `tflm arena used BYTES ...`")?;
    Ok(format!(
        "/// TFLite Micro's output of each invocation, in order ({STREAMING_TFLM}).\n\
         const EXPECTED: [[i8; 2]; {n}] = [{}];\n\
         /// Bytes of TFLite Micro's arena for the model, as it reports them (`print_allocations`).\n\
         const TFLM_ARENA_USED: usize = {arena};\n",
        outputs.join(", ")
    ))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?);
    std::fs::copy("memory.x", out.join("memory.x"))?;
    println!("cargo::rustc-link-search={}", out.display());
    // cortex-m-rt's linker script (it includes memory.x). Here rather than in
    // .cargo/config.toml's rustflags, which a RUSTFLAGS variable (as CI sets) would replace.
    println!("cargo::rustc-link-arg-bins=-Tlink.x");
    println!("cargo::rerun-if-changed=memory.x");
    println!("cargo::rerun-if-changed={IO_JSON}");
    let json = std::fs::read_to_string(IO_JSON)?;
    std::fs::write(
        out.join("io.rs"),
        io_json::constants(&json, "tests/models/mlp_float/io.json"),
    )?;
    println!("cargo::rerun-if-changed={STREAMING_TFLM}");
    let text = std::fs::read_to_string(STREAMING_TFLM)?;
    std::fs::write(out.join("streaming_tflm.rs"), streaming_constants(&text)?)?;
    println!("cargo::rerun-if-changed={TFLM_OUTPUTS}");
    let text = std::fs::read_to_string(TFLM_OUTPUTS)?;
    for name in ["person_detect", "micro_speech"] {
        std::fs::write(
            out.join(format!("{name}_tflm.rs")),
            tflm_output(&text, name)?,
        )?;
    }
    Ok(())
}
