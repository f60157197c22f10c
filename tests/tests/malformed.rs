//! The malformed-model suite (`tests/src/malformed.rs`): every case gives its specific error
//! through the library and through `build.rs`; the CLI (`build-support/tests/malformed_cli.rs`)
//! and `include_model!` (`tests/ui-malformed/`, run by `tests/tests/ui.rs`) are checked against
//! the same messages, kept in `tests/models/malformed/EXPECTED.txt`.

use stowplan_planner::{Options, plan_model};
use stowplan_tests::malformed::CASES;
use stowplan_tests::repo_root;

#[test]
fn at_least_25_cases() {
    assert!(CASES.len() >= 25, "{}", CASES.len());
}

#[test]
fn library_errors() {
    let mut wrong = Vec::new();
    for case in CASES {
        match plan_model(&(case.build)(), &Options::default()) {
            Ok(_) => wrong.push(format!("{}: planned", case.name)),
            Err(e) if e.to_string() != case.message => wrong.push(format!("{}: {e}", case.name)),
            Err(_) => {}
        }
    }
    assert!(
        wrong.is_empty(),
        "unexpected results:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn build_rs_errors() {
    for case in CASES {
        let path = format!("models/malformed/{}.tflite", case.name);
        let err = stowplan_build::Config::new()
            .model(&path)
            .manifest_dir(repo_root().join("tests"))
            .render()
            .map(|_| ())
            .unwrap_err();
        assert_eq!(err.to_string(), format!("{path}: {}", case.message));
    }
}

#[test]
fn expected_messages_file_is_current() {
    let text: String = CASES
        .iter()
        .map(|c| format!("{}\t{}\n", c.name, c.message))
        .collect();
    let path = repo_root().join("tests/models/malformed/EXPECTED.txt");
    if std::env::var_os("STOWPLAN_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &text).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(&path).unwrap_or_default(),
        text,
        "run STOWPLAN_BLESS=1 cargo test -p stowplan-tests --test malformed"
    );
}

#[test]
fn ui_cases_are_current() {
    let dir = repo_root().join("tests/ui-malformed");
    let bless = std::env::var_os("STOWPLAN_BLESS").is_some_and(|v| v == "1");
    for case in CASES {
        let text = format!(
            "stowplan::include_model!(\"models/malformed/{}.tflite\");\n\nfn main() {{}}\n",
            case.name
        );
        let path = dir.join(format!("{}.rs", case.name.replace('_', "-")));
        if bless {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &text).unwrap();
        }
        assert_eq!(
            std::fs::read_to_string(&path).unwrap_or_default(),
            text,
            "{}",
            path.display()
        );
        // trybuild checks the compiler output against this file: it must carry the suite's message.
        let stderr = std::fs::read_to_string(path.with_extension("stderr")).unwrap_or_default();
        let first = stderr.lines().next().unwrap_or_default();
        assert_eq!(
            first,
            format!(
                "error: models/malformed/{}.tflite: {}",
                case.name, case.message
            ),
            "{}",
            case.name
        );
    }
}
