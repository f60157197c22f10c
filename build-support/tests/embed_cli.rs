//! `stowplan embed`: writes a model TFLite Micro reads with our plan; bad input is one line and
//! a non-zero exit.

use std::path::PathBuf;
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn run(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_stowplan"))
        .args(args)
        .current_dir(repo())
        .output()
        .unwrap()
}

#[test]
fn embeds_and_the_plan_is_honoured() {
    let out = std::env::temp_dir().join(format!("stowplan-embed-{}.tflite", std::process::id()));
    let o = out.to_str().unwrap();
    let r = run(&["embed", "tests/models/synthetic/if_else.tflite", "-o", o]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let said = String::from_utf8(r.stdout).unwrap();
    assert!(
        said.starts_with(&format!(
            "wrote {o}: OfflineMemoryAllocation places 9 tensors; arena 272 B"
        )),
        "{said}"
    );
    // Planning the written model honours the embedded plan.
    let r = run(&["plan", o, "--json"]);
    assert!(r.status.success());
    let v: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    assert_eq!(v["offline_plan"], "honoured");
    assert_eq!(v["arena_bytes"], 272);
    assert!(
        v["tensors"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["placement"] == "arena")
            .all(|t| t["fixed"] == true)
    );
    std::fs::remove_file(&out).unwrap();
}

#[test]
fn bad_embeds_fail_with_one_line() {
    for (args, code, expected) in [
        (
            &["embed", "tests/models/synthetic/chain.tflite"][..],
            2,
            "error: embed needs -o OUT.tflite",
        ),
        (
            &["embed", "tests/models/synthetic/chain.tflite", "-o"][..],
            2,
            "error: -o needs a file name",
        ),
        (
            &[
                "embed",
                "tests/models/synthetic/chain.tflite",
                "-o",
                "/x",
                "--json",
            ][..],
            2,
            "error: embed takes a model",
        ),
        (
            &[
                "embed",
                "tests/models/synthetic/chain.tflite",
                "-o",
                "/x",
                "--align",
                "64",
            ][..],
            1,
            "error: tests/models/synthetic/chain.tflite: cannot embed a plan: TFLite Micro aligns",
        ),
        (
            &[
                "embed",
                "tests/models/malformed/truncated.tflite",
                "-o",
                "/x",
            ][..],
            1,
            "error: tests/models/malformed/truncated.tflite: malformed TFLite flatbuffer",
        ),
    ] {
        let r = run(args);
        assert_eq!(r.status.code(), Some(code), "{args:?}");
        let err = String::from_utf8(r.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with(expected), "{args:?}: {err}");
    }
}
