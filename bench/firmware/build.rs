//! Puts `memory.x` where the linker finds it and links the binaries with cortex-m-rt's `link.x`.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?);
    std::fs::copy("memory.x", out.join("memory.x"))?;
    println!("cargo::rustc-link-search={}", out.display());
    // Here rather than in .cargo/config.toml's rustflags, which a RUSTFLAGS variable (as CI
    // sets) would replace.
    println!("cargo::rustc-link-arg-bins=-Tlink.x");
    println!("cargo::rerun-if-changed=memory.x");
    Ok(())
}
