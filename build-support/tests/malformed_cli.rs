//! The malformed-model suite through the CLI: for every model in `tests/models/malformed/`
//! listed in `EXPECTED.txt` (written by the suite, `tests/src/malformed.rs`), one line on
//! stderr with the suite's message and exit status 1.

use std::path::PathBuf;
use std::process::Command;

#[test]
fn every_malformed_model_fails_with_its_message() {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let expected =
        std::fs::read_to_string(repo.join("tests/models/malformed/EXPECTED.txt")).unwrap();
    let mut count = 0;
    for line in expected.lines() {
        let (name, message) = line.split_once('\t').unwrap();
        let path = format!("tests/models/malformed/{name}.tflite");
        let out = Command::new(env!("CARGO_BIN_EXE_stowplan"))
            .args(["plan", &path])
            .current_dir(&repo)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{name}");
        assert!(out.stdout.is_empty(), "{name}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(stderr, format!("error: {path}: {message}\n"), "{name}");
        count += 1;
    }
    assert!(count >= 25, "{count}");
}
