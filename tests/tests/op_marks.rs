//! `invoke` with `op_marks = path`: the generated code calls `path::op_begin(subgraph, op)` and
//! `path::op_end(subgraph, op, arena)` around every op, in the order the ops run (control flow's ops
//! nested in their op's marks), and computes exactly what it computes without them.

use stowplan_planner::codegen::{GenerateError, generate};
use stowplan_planner::{Options, plan_model};
use stowplan_tests::{repo_root, test_codegen};

stowplan::include_model!("models/cnn_int8/cnn_int8.tflite", name = cnn, invoke = true);
stowplan::include_model!(
    "models/cnn_int8/cnn_int8.tflite",
    name = cnn_marked,
    invoke = true,
    op_marks = crate::marks
);
stowplan::include_model!(
    "models/cond_if/cond_if.tflite",
    name = cond_marked,
    invoke = true,
    op_marks = super::marks
);

/// The marks: each call recorded, in order, per thread (each test runs on its own).
mod marks {
    use std::cell::RefCell;

    /// (`true` for `op_begin`, subgraph, op).
    pub type Mark = (bool, usize, usize);

    thread_local! {
        static CALLS: RefCell<Vec<Mark>> = const { RefCell::new(Vec::new()) };
        /// The arena's bytes as the last `op_end` saw them.
        static ARENA: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    }

    pub fn op_begin(subgraph: usize, op: usize) {
        CALLS.with(|c| c.borrow_mut().push((true, subgraph, op)));
    }

    pub fn op_end(subgraph: usize, op: usize, arena: &[u8]) {
        ARENA.with(|a| a.replace(arena.to_vec()));
        CALLS.with(|c| c.borrow_mut().push((false, subgraph, op)));
    }

    /// The arena's bytes the last `op_end` was given.
    pub fn last_arena() -> Vec<u8> {
        ARENA.with(|a| a.borrow().clone())
    }

    /// The calls so far, cleared.
    pub fn take() -> Vec<Mark> {
        CALLS.with(|c| std::mem::take(&mut *c.borrow_mut()))
    }
}

/// The number of ops of each subgraph of a model of tests/models.
fn ops_per_subgraph(model: &str) -> Vec<usize> {
    let bytes = std::fs::read(repo_root().join("tests/models").join(model)).unwrap();
    let plan = plan_model(&bytes, &Options::default()).unwrap();
    plan.model.subgraphs.iter().map(|s| s.op_count).collect()
}

#[test]
fn every_op_runs_between_its_marks_and_computes_the_same() {
    let n = ops_per_subgraph("cnn_int8/cnn_int8.tflite")[0];
    assert_eq!(n, 10);
    for seed in 0..4_i32 {
        let input: Vec<i8> = (0..144)
            .map(|i| ((i * 37 + seed * 101) % 256 - 128) as i8)
            .collect();
        let mut plain = cnn::Arena::new();
        plain.view_mut(cnn::inputs::INPUT_0).copy_from_slice(&input);
        cnn::invoke(&mut plain);
        let mut marked = cnn_marked::Arena::new();
        marked
            .view_mut(cnn_marked::inputs::INPUT_0)
            .copy_from_slice(&input);
        marks::take();
        cnn_marked::invoke(&mut marked);
        let calls = marks::take();
        let want: Vec<marks::Mark> = (0..n).flat_map(|k| [(true, 0, k), (false, 0, k)]).collect();
        assert_eq!(calls, want, "seed {seed}");
        // The last op's `op_end` was given the arena as `invoke` leaves it.
        assert_eq!(marks::last_arena(), marked.as_bytes(), "seed {seed}");
        assert_eq!(
            marked.view(cnn_marked::outputs::OUTPUT_0),
            plain.view(cnn::outputs::OUTPUT_0),
            "seed {seed}"
        );
    }
}

#[test]
fn control_flow_ops_run_between_the_marks_of_their_op() {
    let ops = ops_per_subgraph("cond_if/cond_if.tflite");
    assert_eq!(ops, [6, 2, 2]);
    // Inputs by position: 0 is `s` (the condition's input, one value), 1 is `x`.
    assert_eq!(cond_marked::inputs::INPUT_0.len(), 1);
    let mut seen = Vec::new();
    for s in [0.75_f32, -0.75] {
        let mut arena = cond_marked::Arena::new();
        arena.view_mut(cond_marked::inputs::INPUT_0)[0] = s;
        arena
            .view_mut(cond_marked::inputs::INPUT_1)
            .copy_from_slice(&[0.5, -0.25, 1.0, 0.0, -1.0, 0.75, 0.125, -0.5]);
        marks::take();
        cond_marked::invoke(&mut arena);
        let calls = marks::take();
        // Subgraph 0's ops in order; the IF (op 3) encloses every op of one branch.
        let top: Vec<marks::Mark> = calls.iter().copied().filter(|c| c.1 == 0).collect();
        let want: Vec<marks::Mark> = (0..6).flat_map(|k| [(true, 0, k), (false, 0, k)]).collect();
        assert_eq!(top, want, "s = {s}");
        let begin = calls.iter().position(|c| *c == (true, 0, 3)).unwrap();
        let end = calls.iter().position(|c| *c == (false, 0, 3)).unwrap();
        let inner = &calls[begin + 1..end];
        assert_eq!(inner.len(), 4, "s = {s}: {inner:?}");
        let branch = inner[0].1;
        assert!(branch == 1 || branch == 2);
        assert_eq!(
            inner,
            [
                (true, branch, 0),
                (false, branch, 0),
                (true, branch, 1),
                (false, branch, 1)
            ]
        );
        seen.push(branch);
    }
    assert_ne!(seen[0], seen[1], "each sign of s takes its own branch");
}

#[test]
fn the_emitted_calls_are_around_each_step() {
    let bytes = std::fs::read(repo_root().join("tests/models/cnn_int8/cnn_int8.tflite")).unwrap();
    let plan = plan_model(&bytes, &Options::default().with_invoke(true)).unwrap();
    let plain = generate(&plan, &bytes, &test_codegen("cnn", true)).unwrap();
    let mut cg = test_codegen("cnn", true);
    cg.op_marks = Some(syn::parse_quote!(crate::marks));
    let marked = generate(&plan, &bytes, &cg).unwrap();
    let text = prettyplease::unparse(&syn::parse2(marked).unwrap());
    let plain_text = prettyplease::unparse(&syn::parse2(plain).unwrap());
    // Each op's step between its two calls, in order, inside `invoke`.
    let body = &text[text.find("pub fn invoke(").unwrap()..];
    let mut at = 0;
    for k in 0..10 {
        let begin = format!("crate::marks::op_begin(0, {k});");
        let end = format!("crate::marks::op_end(0, {k}, arena.as_bytes());");
        let b = at
            + body[at..]
                .find(&begin)
                .unwrap_or_else(|| panic!("no {begin}"));
        let e = b + body[b..].find(&end).unwrap_or_else(|| panic!("no {end}"));
        let step = body[b + begin.len()..e].trim();
        if k == 7 {
            // The RESHAPE shares its input's bytes: nothing runs, the marks stay.
            assert!(step.is_empty(), "op 7: {step}");
        } else {
            assert!(
                step.contains("ops::op_"),
                "op {k}'s views between its marks"
            );
        }
        at = e;
    }
    // Nothing else differs: take the calls out and the default code is left.
    let stripped: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("crate::marks::op_"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(stripped, plain_text);
    assert!(!plain_text.contains("op_begin"));
}

#[test]
fn op_marks_without_invoke_is_an_error() {
    let bytes = std::fs::read(repo_root().join("tests/models/cnn_int8/cnn_int8.tflite")).unwrap();
    let plan = plan_model(&bytes, &Options::default()).unwrap();
    let mut cg = test_codegen("cnn", false);
    cg.op_marks = Some(syn::parse_quote!(crate::marks));
    let e = generate(&plan, &bytes, &cg).unwrap_err();
    assert!(matches!(e, GenerateError::OpMarks { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "op_marks = crate::marks needs invoke = true: the marks are calls between the ops of the generated `invoke`"
    );
}

#[test]
fn config_refuses_bad_op_marks() {
    let dir = std::env::temp_dir().join(format!("stowplan-op-marks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tests = repo_root().join("tests");
    for (invoke, path, message) in [
        (
            false,
            "crate::marks",
            "op_marks \"crate::marks\" needs invoke(true): the marks are calls between the ops of the generated `invoke`",
        ),
        (
            true,
            "crate::marks::",
            "op_marks path \"crate::marks::\": unexpected end of input, expected identifier; expected the path of a module, such as \"crate::marks\"",
        ),
        (
            true,
            "1 + 2",
            "op_marks path \"1 + 2\": expected identifier; expected the path of a module, such as \"crate::marks\"",
        ),
    ] {
        let e = stowplan_build::Config::new()
            .model("models/cnn_int8/cnn_int8.tflite")
            .manifest_dir(&tests)
            .out_dir(&dir)
            .bless(false)
            .invoke(invoke)
            .op_marks(path)
            .generate()
            .unwrap_err();
        assert!(
            matches!(e, stowplan_build::BuildError::BadOption(_)),
            "{path}: {e:?}"
        );
        assert_eq!(e.to_string(), message, "{path}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
