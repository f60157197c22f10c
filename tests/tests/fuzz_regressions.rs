//! Replays the committed fuzz regression inputs (`fuzz/regressions/<target>/`) through the same
//! functions the cargo-fuzz targets call: minimized inputs that reached new code while fuzzing.

use stowplan_tests::{fuzz, repo_root};

fn replay(target: &str, body: fn(&[u8])) -> usize {
    let dir = repo_root().join("fuzz/regressions").join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    for path in &files {
        let data = std::fs::read(path).unwrap();
        body(&data);
    }
    files.len()
}

#[test]
fn model_plan() {
    assert!(replay("model_plan", fuzz::model_plan) > 0);
}

#[test]
fn problem_planners() {
    assert!(replay("problem_planners", fuzz::problem_planners) > 0);
}

#[test]
fn builder_roundtrip() {
    assert!(replay("builder_roundtrip", fuzz::builder_roundtrip) > 0);
}

#[test]
fn codegen() {
    assert!(replay("codegen", fuzz::codegen) > 0);
}

#[test]
fn model_gen() {
    assert!(replay("model_gen", fuzz::model_gen) > 0);
}
