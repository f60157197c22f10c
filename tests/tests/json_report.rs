//! The streamed JSON report (`emit::write_model_json`, what `stowplan plan --json` prints) is
//! byte for byte the report as one value (`emit::model_json(..).to_string()`), on every test
//! model that plans, with and without generated `invoke`'s options (folding, aliased reshapes,
//! overlaps), and on each family of `stowplan_tests::scale`.

use std::path::{Path, PathBuf};

use stowplan_planner::{Options, emit, plan_model};
use stowplan_tests::repo_root;
use stowplan_tests::scale::{Family, build};

/// Every `.tflite` file under `dir`, sorted.
fn models_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            models_under(&path, out);
        } else if path.extension().is_some_and(|e| e == "tflite") {
            out.push(path);
        }
    }
}

/// Checks both forms of `bytes`' report under `options`; false when the model does not plan.
fn same_report(bytes: &[u8], options: &Options, name: &str) -> bool {
    let Ok(plan) = plan_model(bytes, options) else {
        return false;
    };
    let whole = emit::model_json(&plan, name).to_string();
    let mut streamed = Vec::new();
    emit::write_model_json(&plan, name, &mut streamed).unwrap();
    assert!(
        streamed == whole.as_bytes(),
        "{name}: the streamed report differs from model_json"
    );
    true
}

#[test]
fn the_streamed_report_is_model_json_on_every_test_model() {
    let mut files = Vec::new();
    models_under(&repo_root().join("tests/models"), &mut files);
    let mut planned = 0;
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let name = path.display().to_string();
        for invoke in [false, true] {
            let options = Options::default().with_invoke(invoke);
            if same_report(&bytes, &options, &name) {
                planned += 1;
            }
        }
    }
    // The synthetic and example models plan (the malformed ones do not).
    assert!(planned >= 2 * 20, "only {planned} reports compared");
}

#[test]
fn the_streamed_report_is_model_json_on_every_scale_family() {
    for family in Family::ALL {
        let bytes = build(family, 2_000, 7);
        assert!(
            same_report(&bytes, &Options::default(), family.name()),
            "{} does not plan",
            family.name()
        );
    }
}
