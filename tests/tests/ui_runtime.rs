//! Compile-fail tests of the runtime's views: one misuse per file in `tests/ui-runtime/`, with
//! the exact compiler output in the `.stderr` beside it (rewrite with `TRYBUILD=overwrite` and
//! read the diff). Each shows that safe code cannot get two aliasing `&mut` to arena bytes, nor
//! use a slot with an arena it was not planned for.
//!
//! As in `ui.rs`, the test runs itself again with `STOWPLAN_MANIFEST_DIR` set to `tests/`, so
//! the macro finds the models from trybuild's scratch crate.

use std::process::Command;

use stowplan_tests::repo_root;

#[test]
fn ui_runtime() {
    if std::env::var_os("STOWPLAN_MANIFEST_DIR").is_none() {
        let status = Command::new(std::env::current_exe().unwrap())
            .args(["ui_runtime", "--exact", "--test-threads=1"])
            .env(
                "STOWPLAN_MANIFEST_DIR",
                repo_root().join("tests").canonicalize().unwrap(),
            )
            .status()
            .unwrap();
        assert!(status.success(), "runtime UI tests failed");
        return;
    }
    let t = trybuild::TestCases::new();
    t.compile_fail("ui-runtime/*.rs");
}
