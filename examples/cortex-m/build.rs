//! Puts `memory.x` where the linker finds it, links with cortex-m-rt's `link.x`, and writes `OUT_DIR/io.rs`: the model's input and
//! the output TFLite computed for it (`tests/models/mlp_float/io.json`), as constants.

use std::path::PathBuf;

#[path = "../shared/io_json.rs"]
mod io_json;

const IO_JSON: &str = "../../tests/models/mlp_float/io.json";

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
    Ok(())
}
