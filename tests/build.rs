//! Whether the shared real models are present (`../shared` beside the repository, or the folder
//! `STOWPLAN_SHARED` names): when they are not, the tests that read them are marked ignored
//! (`cfg(shared_models)` unset), so that `cargo test` counts them as ignored instead of passing
//! them.

use std::path::PathBuf;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(shared_models)");
    println!("cargo::rerun-if-env-changed=STOWPLAN_SHARED");
    let dir = std::env::var_os("STOWPLAN_SHARED").map_or_else(
        || {
            PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default())
                .join("../../shared")
        },
        PathBuf::from,
    );
    let models = dir.join("models");
    if models.is_dir() {
        println!("cargo::rustc-cfg=shared_models");
        // Watched while present, so that removing it is noticed.
        println!("cargo::rerun-if-changed={}", models.display());
    } else {
        // A missing path would rerun this script on every build; setting STOWPLAN_SHARED (or
        // touching this file) looks again.
        println!("cargo::rerun-if-changed=build.rs");
    }
}
