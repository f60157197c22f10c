//! Puts the board's memory map where the linker finds it, as `memory.x`, and links the binaries
//! with cortex-m-rt's `link.x`: `memory-an505.x` for Armv8-M Mainline (`thumbv8m.main-*`, run on
//! QEMU's mps2-an505, a Cortex-M33), `memory-an386.x` for the others (mps2-an385, -an386 and
//! -an500, one memory map for the Cortex-M3, M4 and M7). Neither is named `memory.x`: the linker
//! looks in the package's directory before the search path.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?);
    let target = std::env::var("TARGET")?;
    let map = if target.starts_with("thumbv8m.main-") {
        "memory-an505.x"
    } else {
        "memory-an386.x"
    };
    std::fs::copy(map, out.join("memory.x"))?;
    println!("cargo::rustc-link-search={}", out.display());
    // Here rather than in .cargo/config.toml's rustflags, which a RUSTFLAGS variable (as CI
    // sets) would replace.
    println!("cargo::rustc-link-arg-bins=-Tlink.x");
    println!("cargo::rerun-if-changed=memory-an386.x");
    println!("cargo::rerun-if-changed=memory-an505.x");
    Ok(())
}
