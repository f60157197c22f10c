//! UI tests of `include_model!`: one mistake per file in `tests/ui/`, with the exact compiler
//! output in the `.stderr` beside it (rewrite with `TRYBUILD=overwrite` and read the diff).
//!
//! trybuild compiles each case in a scratch crate, so the macro resolves model paths against
//! `STOWPLAN_MANIFEST_DIR`, which this test sets to `tests/` by running itself again with it.

use std::process::Command;

use stowplan_tests::repo_root;

#[test]
fn ui() {
    if std::env::var_os("STOWPLAN_MANIFEST_DIR").is_none() {
        let status = Command::new(std::env::current_exe().unwrap())
            .args(["ui", "--exact", "--test-threads=1"])
            .env(
                "STOWPLAN_MANIFEST_DIR",
                repo_root().join("tests").canonicalize().unwrap(),
            )
            .status()
            .unwrap();
        assert!(status.success(), "UI tests failed");
        return;
    }
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/*.rs");
    // The malformed-model suite, one model per file (tests/src/malformed.rs).
    t.compile_fail("ui-malformed/*.rs");
}
