//! The `build.rs` side of stowplan, and the `stowplan` command-line tool (`src/bin/stowplan.rs`).
//!
//! The build-script API (`Config::new().model(..).budget(..).generate()`, writing the same code
//! as `include_model!` into `OUT_DIR`, with review copies) arrives with the code generation work.
//! Today this crate holds the command-line tool; see the repository README for its usage.
#![forbid(unsafe_code)]
