//! What a person sees when a `build.rs` using `stowplan-build` fails: real scratch crates built by
//! cargo, their output captured. Errors read as sentences (`cargo::error=` lines, never a
//! struct's `Debug`), a missing review copy is written with a warning, a stale one says what
//! changed and how to accept it.

use std::path::{Path, PathBuf};
use std::process::Command;

use stowplan_tests::repo_root;

/// A scratch crate outside the workspace whose build script runs `main_body`, with the
/// synthetic model `model` as `models/net.tflite`.
fn scratch(name: &str, model: &str, main_body: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("build-script")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("models")).unwrap();
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let build_support = repo_root().join("build-support").canonicalize().unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n\
             [build-dependencies]\nstowplan-build = {{ path = {:?} }}\n\n[workspace]\n",
            build_support.to_string_lossy()
        ),
    )
    .unwrap();
    // The workspace's lock file, so that the scratch crate builds with the same versions offline.
    std::fs::copy(repo_root().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    std::fs::write(dir.join("build.rs"), main_body).unwrap();
    std::fs::write(dir.join("src/main.rs"), "fn main() {}\n").unwrap();
    set_model(&dir, model);
    dir
}

fn set_model(dir: &Path, model: &str) {
    std::fs::copy(
        repo_root().join("tests/models/synthetic").join(model),
        dir.join("models/net.tflite"),
    )
    .unwrap();
}

/// `cargo build` of the scratch crate: (success, stderr).
fn build(dir: &Path) -> (bool, String) {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["build", "--offline"])
        .current_dir(dir)
        .env(
            "CARGO_TARGET_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("build-script-target"),
        )
        .env_remove("STOWPLAN_BLESS")
        .env_remove("STOWPLAN_MANIFEST_DIR")
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const QUIET_MAIN: &str = r#"fn main() {
    let _ = stowplan_build::Config::new()
        .model("models/net.tflite")
        .budget(256)
        .generate();
}
"#;

const QUESTION_MARK_MAIN: &str = r#"fn main() -> Result<(), Box<dyn std::error::Error>> {
    stowplan_build::Config::new()
        .model("models/net.tflite")
        .budget(256)
        .generate()?;
    Ok(())
}
"#;

const REVIEW_MAIN: &str = r#"fn main() {
    let _ = stowplan_build::Config::new()
        .model("models/net.tflite")
        .review_copy("src/generated/net.rs")
        .generate();
}
"#;

const OVER_BUDGET: &str = "models/net.tflite: arena needs 384 bytes but the budget is 256 (over by 128); peak at op 2 (ADD) of subgraph 0 with a 128 + b 128 + out 128; the lower bound is 384; no plan can fit: shrink the tensors live at the peak (smaller shapes or overrides) or raise the budget";

#[test]
fn build_script_output_reads_as_sentences() {
    // Over budget, with the documented `fn main()`: the reason alone, as cargo's error.
    let dir = scratch("quiet-main", "residual.tflite", QUIET_MAIN);
    let (ok, stderr) = build(&dir);
    assert!(!ok, "built over budget:\n{stderr}");
    assert!(
        stderr.contains(&format!("error: quiet-main@0.1.0: {OVER_BUDGET}\n")),
        "{stderr}"
    );
    assert!(!stderr.contains("Model {"), "Debug output:\n{stderr}");
    assert!(!stderr.contains("--- stderr"), "cargo's dump:\n{stderr}");

    // With `?` from `main`: the same sentence first, and again in cargo's dump, never a struct.
    let dir = scratch("question-mark-main", "residual.tflite", QUESTION_MARK_MAIN);
    let (ok, stderr) = build(&dir);
    assert!(!ok, "built over budget:\n{stderr}");
    assert!(
        stderr.contains(&format!("error: question-mark-main@0.1.0: {OVER_BUDGET}\n")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("Error: {OVER_BUDGET}\n")),
        "{stderr}"
    );
    assert!(!stderr.contains("Model {"), "Debug output:\n{stderr}");

    // A review copy: written on the first build with a warning, then kept.
    let dir = scratch("review-copy", "chain.tflite", REVIEW_MAIN);
    let (ok, stderr) = build(&dir);
    assert!(ok, "{stderr}");
    assert!(
        stderr.contains("warning: review-copy@0.1.0: review copy src/generated/net.rs did not exist: wrote it; commit it, and later builds fail if the plan changes\n"),
        "{stderr}"
    );
    let copy = std::fs::read_to_string(dir.join("src/generated/net.rs")).unwrap();
    assert!(copy.starts_with("// @generated by stowplan-build "));
    let (ok, stderr) = build(&dir);
    assert!(ok && !stderr.contains("warning"), "{stderr}");

    // The model changes: the build fails with what changed, then how to accept it.
    set_model(&dir, "residual.tflite");
    let (ok, stderr) = build(&dir);
    assert!(!ok, "a stale review copy passed:\n{stderr}");
    let lines: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("error: review-copy@0.1.0: "))
        .collect();
    assert_eq!(
        lines.first().copied(),
        Some("review copy src/generated/net.rs is stale; what changed:"),
        "{stderr}"
    );
    assert!(lines.contains(&"  arena: 512 B -> 384 B"), "{stderr}");
    assert!(
        lines.contains(&"  ops changed (1): op 2 RELU -> ADD"),
        "{stderr}"
    );
    assert_eq!(
        lines.last().copied(),
        Some(
            "to accept the new plan, build with STOWPLAN_BLESS=1 (`STOWPLAN_BLESS=1 cargo build`) and commit the diff"
        ),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("src/generated/net.rs")).unwrap(),
        copy,
        "a stale copy was rewritten without STOWPLAN_BLESS"
    );
}

/// The README's code block that starts with `start`.
fn readme_block(readme: &str, start: &str) -> String {
    let start = readme
        .find(&format!("```rust,ignore\n{start}"))
        .unwrap_or_else(|| panic!("the README has no block starting with {start:?}"));
    let body = &readme[start + "```rust,ignore\n".len()..];
    body[..body.find("```\n").expect("the block ends")].to_owned()
}

/// The README's quick start, followed as a new user would, in a crate outside the repository:
/// the runtime and `stowplan-build` by path (the README's "checkout" form, the repository
/// checked out beside the crate), its `build.rs` and `src/main.rs` blocks verbatim, a real
/// model (the CNN of the desktop example) as `models/net.tflite`. The first build writes the
/// review copy with a warning; the program runs `invoke` and prints TFLite's output for
/// TFLite's input (`io.json`). The README's other Rust blocks compile in the crate's library:
/// the `include_model!` line, and the opening example on person_detect when the shared models
/// are present.
#[cfg(unix)]
#[test]
fn the_readme_quick_start_runs_in_a_crate_outside_the_repository() {
    let root = repo_root().canonicalize().unwrap();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    for form in [
        r#"stowplan = { path = "../stowplan/runtime", features = ["kernels"] }"#,
        r#"{ path = "../stowplan/build-support" }"#,
    ] {
        assert!(readme.contains(form), "the README no longer shows {form}");
    }
    let base = std::env::temp_dir().join(format!("stowplan-readme-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let app = base.join("app");
    std::fs::create_dir_all(app.join("models")).unwrap();
    std::fs::create_dir_all(app.join("src")).unwrap();
    // The checkout beside the crate, as the README's path form assumes.
    std::os::unix::fs::symlink(&root, base.join("stowplan")).unwrap();
    std::fs::write(
        app.join("Cargo.toml"),
        "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n\
         [dependencies]\n\
         stowplan = { path = \"../stowplan/runtime\", features = [\"kernels\"] }\n\n\
         [build-dependencies]\n\
         stowplan-build = { path = \"../stowplan/build-support\" }\n\n[workspace]\n",
    )
    .unwrap();
    // The workspace's lock file, so that the crate builds with the same versions offline.
    std::fs::copy(root.join("Cargo.lock"), app.join("Cargo.lock")).unwrap();
    std::fs::write(app.join("build.rs"), readme_block(&readme, "// build.rs\n")).unwrap();
    std::fs::write(
        app.join("src/main.rs"),
        readme_block(&readme, "// src/main.rs\n"),
    )
    .unwrap();
    // The other blocks, as they are: the macro line in a module, the opening example (a
    // fragment that reads `image`) in a function.
    let mut lib = format!(
        "//! The README's other blocks.\n#![allow(dead_code, unused_variables)]\n\npub mod macro_line {{\n{}}}\n",
        readme_block(&readme, "stowplan::include_model!(\"models/net.tflite\"")
    );
    let person_detect = root.join("../shared/models/tflm_person_detect_int8.tflite");
    if person_detect.is_file() {
        std::fs::copy(&person_detect, app.join("models/person_detect.tflite")).unwrap();
        lib.push_str(&format!(
            "\npub fn opening(image: [i8; 96 * 96]) {{\n{}}}\n",
            readme_block(
                &readme,
                "stowplan::include_model!(\"models/person_detect.tflite\""
            )
        ));
    }
    std::fs::write(app.join("src/lib.rs"), lib).unwrap();
    let cnn = root.join("tests/models/cnn_int8");
    std::fs::copy(cnn.join("cnn_int8.tflite"), app.join("models/net.tflite")).unwrap();
    let io: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(cnn.join("io.json")).unwrap()).unwrap();
    let values = |v: &serde_json::Value| -> Vec<i8> {
        v["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| i8::try_from(x.as_i64().unwrap()).unwrap())
            .collect()
    };
    let input = values(&io["inputs"][0]);
    let expected = values(&io["outputs"][0]);
    assert_eq!(input.len(), 144);
    std::fs::write(
        app.join("models/input.bin"),
        input
            .iter()
            .map(|x| x.to_ne_bytes()[0])
            .collect::<Vec<u8>>(),
    )
    .unwrap();

    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["run", "--offline"])
        .current_dir(&app)
        .env(
            "CARGO_TARGET_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("readme-target"),
        )
        .env_remove("STOWPLAN_BLESS")
        .env_remove("STOWPLAN_MANIFEST_DIR")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("warning: app@0.1.0: review copy src/generated/net.rs did not exist: wrote it; commit it, and later builds fail if the plan changes\n"),
        "{stderr}"
    );
    assert_eq!(stdout.trim_end(), format!("{expected:?}"), "{stderr}");
    let copy = std::fs::read_to_string(app.join("src/generated/net.rs")).unwrap();
    assert!(
        copy.starts_with("// @generated by stowplan-build "),
        "{copy}"
    );
    assert!(
        copy.contains("pub fn invoke(arena: &mut Arena)"),
        "no invoke in the copy"
    );
    let _ = std::fs::remove_dir_all(&base);
}
