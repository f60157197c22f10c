//! Sets cfg `stowplan_dsp` for targets whose cores all have the Cortex-M DSP extension, so the
//! int8 kernels take its SIMD instructions (`src/kernels/shared/dsp.rs`): the Armv7E-M targets
//! (`thumbv7em-*`: Cortex-M4, M7). Stable rustc does not expose `target_feature = "dsp"` for
//! them, hence the target's name. Armv8-M Mainline (`thumbv8m.main-*`) has the extension as an
//! option only (a Cortex-M33 may lack it), so it keeps the portable kernels, as Armv6-M and the
//! host do.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(stowplan_dsp)");
    println!("cargo::rerun-if-changed=build.rs");
    let target = std::env::var("TARGET").unwrap_or_default();
    if target.starts_with("thumbv7em-") {
        println!("cargo::rustc-cfg=stowplan_dsp");
    }
}
