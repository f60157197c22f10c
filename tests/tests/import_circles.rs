//! No import circle among a crate's modules ([`stowplan_tests::import_circles`]): the planner
//! and the runtime; and the check itself, on small trees written here.

use std::path::{Path, PathBuf};

use stowplan_tests::import_circles::{circles, report};
use stowplan_tests::repo_root;

/// Fails naming every circle of the crate whose root file is `root`.
fn no_circle(root: &Path, exclude: &[&str]) {
    let found = report(root, exclude).unwrap();
    assert!(
        found.is_empty(),
        "import circles in {}:\n{found}",
        root.display()
    );
}

#[test]
fn planner_has_no_import_circle() {
    // The generated flatbuffer code, and the runtime's kernels (`src/runtime_kernels` links to
    // `runtime/src/kernels`: checked with the runtime).
    no_circle(
        &repo_root().join("planner/src/lib.rs"),
        &["tflite_generated.rs", "runtime_kernels"],
    );
}

// Each op's kernels in a folder of their own, the shared machinery below them (`kernels/shared`).
#[test]
fn runtime_has_no_import_circle() {
    no_circle(&repo_root().join("runtime/src/lib.rs"), &[]);
}

/// A crate written into a fresh folder under the system's temporary directory: `(path, text)`
/// pairs, paths relative to its `src/`. Removed when dropped.
struct Tree(PathBuf);

impl Tree {
    fn new(name: &str, files: &[(&str, &str)]) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "stowplan-import-circles-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in files {
            let path = dir.join("src").join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        Self(dir)
    }

    fn root(&self) -> PathBuf {
        self.0.join("src/lib.rs")
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `graph` uses `ops`, `ops` uses `state`, `state` uses `graph` (through `crate::`, a `use`, and
/// a qualified path in code); `plan` is outside the circle, and `ops`'s own children form one
/// of their own, one edge through a re-export of `ops/mod.rs`.
const CIRCLES: &[(&str, &str)] = &[
    (
        "lib.rs",
        "pub mod graph;\npub mod ops;\npub mod plan;\npub mod state;\npub struct Options;\n",
    ),
    (
        "graph.rs",
        "use crate::ops::Lower;\n// crate::plan::Plan in a comment is no reference\n\
         pub struct TensorInfo;\npub fn f(_: &Lower) -> crate::Options { crate::Options }\n",
    ),
    (
        "ops/mod.rs",
        "mod conv;\nmod lower;\npub use lower::Lower;\nuse lower::helper;\n",
    ),
    (
        "ops/lower.rs",
        "pub struct Lower { pub state: crate::state::State }\n\
         pub(super) fn helper() { super::conv::call() }\n",
    ),
    (
        "ops/conv.rs",
        "use super::helper;\npub(super) fn call() {}\n",
    ),
    (
        "state.rs",
        "pub struct State;\npub fn g() -> usize { let s = \"crate::ops::Lower\"; \
         core::mem::size_of::<crate::graph::TensorInfo>() + s.len() }\n",
    ),
    (
        "plan.rs",
        "use crate::graph::TensorInfo;\npub struct Plan(TensorInfo);\n",
    ),
];

#[test]
fn finds_the_circles_of_a_tree_and_names_them() {
    let tree = Tree::new("circles", CIRCLES);
    let found = circles(&tree.root(), &[]).unwrap();
    let members: Vec<(&str, Vec<&str>)> = found
        .iter()
        .map(|c| {
            (
                c.module.as_str(),
                c.members.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        members,
        [
            ("crate", vec!["graph", "ops", "state"]),
            ("crate::ops", vec!["conv", "lower"]),
        ]
    );
    // Each edge with a reference that makes it; the string and the comment make none.
    let text = report(&tree.root(), &[]).unwrap();
    assert!(
        text.contains("graph → ops  (graph.rs: crate::ops::Lower)"),
        "{text}"
    );
    assert!(
        text.contains("ops → state  (ops/lower.rs: crate::state::State)"),
        "{text}"
    );
    assert!(
        text.contains("state → graph  (state.rs: crate::graph::TensorInfo)"),
        "{text}"
    );
    assert!(
        text.contains("conv → lower  (ops/conv.rs: super::helper)"),
        "{text}"
    );
    assert!(!text.contains("plan"), "{text}");
    assert!(!text.contains("\"crate::ops::Lower\""), "{text}");
}

#[test]
fn a_tree_without_circles_passes() {
    // The same modules with the shared types in a leaf (`types`) and the helper out of the
    // circle inside `ops`: `ops/mod.rs` may name its children, they may name its own items.
    let tree = Tree::new(
        "layers",
        &[
            (
                "lib.rs",
                "pub mod graph;\npub mod ops;\npub mod state;\npub mod types;\n",
            ),
            ("types.rs", "pub struct State;\npub struct TensorInfo;\n"),
            (
                "graph.rs",
                "use crate::types::TensorInfo;\npub fn f(_: TensorInfo) {}\n",
            ),
            (
                "ops/mod.rs",
                "mod conv;\nmod lower;\npub use lower::Lower;\nuse lower::helper;\n\
                 pub fn table() { conv::call() }\n",
            ),
            (
                "ops/lower.rs",
                "pub struct Lower { pub state: crate::types::State }\npub(super) fn helper() {}\n",
            ),
            (
                "ops/conv.rs",
                "use super::helper;\npub(super) fn call() { helper() }\n",
            ),
            (
                "state.rs",
                "pub use crate::types::State;\npub fn g(_: &crate::ops::Lower) {}\n",
            ),
        ],
    );
    assert_eq!(circles(&tree.root(), &[]).unwrap(), []);
    assert_eq!(report(&tree.root(), &[]).unwrap(), "");
}

#[test]
fn an_excluded_file_is_not_read_and_a_missing_one_is_an_error() {
    // `gen.rs` would close a circle, but it is excluded; `missing` has no file.
    let tree = Tree::new(
        "exclude",
        &[
            ("lib.rs", "pub mod a;\npub mod gen;\n"),
            ("a.rs", "pub fn f() { crate::gen::g() }\n"),
            ("gen.rs", "pub fn g() { crate::a::f() }\n"),
        ],
    );
    assert_eq!(circles(&tree.root(), &["gen.rs"]).unwrap(), []);
    assert_eq!(circles(&tree.root(), &[]).unwrap().len(), 1);
    let broken = Tree::new("missing", &[("lib.rs", "mod missing;\n")]);
    let err = circles(&broken.root(), &[]).unwrap_err();
    assert!(err.contains("module `missing`"), "{err}");
}
