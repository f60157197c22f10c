//! Sets cfg `stowplan_dsp` for targets whose cores have the Cortex-M DSP extension, so the int8
//! kernels take its SIMD instructions (`src/kernels/shared/dsp.rs`):
//!
//! - the Armv7E-M targets (`thumbv7em-*`: Cortex-M4, M7), which always have it;
//! - the Armv8-M Mainline targets (`thumbv8m.main-*`) built for a core that has it: `-C
//!   target-cpu=` one of [`ARMV8M_DSP_CPUS`] (Cortex-M33, M35P, M52, M55, M85, STAR-MC1), or
//!   `-C target-feature=+dsp` (and no `-dsp` after it). The extension is optional on these
//!   cores, so a build for the bare target keeps the portable kernels: its code runs on every
//!   Armv8-M Mainline core.
//!
//! Stable rustc does not expose `target_feature = "dsp"`, hence the target's name and the
//! flags (`CARGO_ENCODED_RUSTFLAGS`, the flags of the target's crates). Armv6-M, Armv8-M
//! Baseline and the host keep the portable kernels.

/// The `-C target-cpu` values of Armv8-M Mainline cores with the DSP extension (LLVM's names,
/// which enable its `dsp` feature).
const ARMV8M_DSP_CPUS: &[&str] = &[
    "cortex-m33",
    "cortex-m35p",
    "cortex-m52",
    "cortex-m55",
    "cortex-m85",
    "star-mc1",
];

/// Whether the rustc flags (`CARGO_ENCODED_RUSTFLAGS`, split at 0x1f) select the DSP extension:
/// `+dsp` or `-dsp` in a `target-feature` (the last one wins, as in rustc), else a DSP core as
/// the last `target-cpu`.
fn flags_select_dsp(encoded: &str) -> bool {
    let flags: Vec<&str> = encoded.split('\x1f').collect();
    let mut cpu_has_dsp = false;
    let mut feature = None;
    let mut i = 0;
    while i < flags.len() {
        // `-C name=value`, `-Cname=value` or `--codegen name=value`.
        let option = match flags[i] {
            "-C" | "--codegen" => {
                i += 1;
                flags.get(i).copied().unwrap_or("")
            }
            flag => flag.strip_prefix("-C").unwrap_or(""),
        };
        if let Some(cpu) = option.strip_prefix("target-cpu=") {
            cpu_has_dsp = ARMV8M_DSP_CPUS.contains(&cpu);
        } else if let Some(features) = option.strip_prefix("target-feature=") {
            for f in features.split(',') {
                match f {
                    "+dsp" => feature = Some(true),
                    "-dsp" => feature = Some(false),
                    _ => {}
                }
            }
        }
        i += 1;
    }
    feature.unwrap_or(cpu_has_dsp)
}

fn main() {
    println!("cargo::rustc-check-cfg=cfg(stowplan_dsp)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    let target = std::env::var("TARGET").unwrap_or_default();
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    if target.starts_with("thumbv7em-")
        || (target.starts_with("thumbv8m.main-") && flags_select_dsp(&flags))
    {
        println!("cargo::rustc-cfg=stowplan_dsp");
    }
}
