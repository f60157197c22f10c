//! The synthetic models: committed files match the builder, and each plans as worked out by hand
//! from TFLite Micro's rules (lifetimes, greedy order and first fit).

use std::path::PathBuf;

use stowplan_planner::graph::{Placement, ShapeOverride};
use stowplan_planner::plan::Planner;
use stowplan_planner::tflite::TensorId;
use stowplan_planner::{ModelPlan, Options, ReadModelError, plan_model};
use stowplan_tests::{SYNTHETIC, repo_root};

fn dir() -> PathBuf {
    repo_root().join("tests/models/synthetic")
}

#[test]
fn committed_models_match_the_builder() {
    let bless = std::env::var_os("STOWPLAN_BLESS").is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    let mut notes = String::from(
        "# Synthetic test models\n\nBuilt by `tests/src/lib.rs` with the Rust model builder; rewrite with\n`STOWPLAN_BLESS=1 cargo test -p stowplan-tests --test synthetic`.\n\n",
    );
    for s in SYNTHETIC {
        let path = dir().join(format!("{}.tflite", s.name));
        let built = (s.build)();
        notes.push_str(&format!("- `{}.tflite`: {}\n", s.name, s.note));
        if bless {
            std::fs::create_dir_all(dir()).unwrap();
            std::fs::write(&path, &built).unwrap();
        } else if std::fs::read(&path).ok().as_deref() != Some(&built[..]) {
            stale.push(s.name);
        }
    }
    let malformed = stowplan_tests::malformed::CASES
        .iter()
        .map(|c| (c.name, c.build));
    for (name, build) in stowplan_tests::MALFORMED
        .iter()
        .map(|s| (s.name, s.build))
        .chain(malformed)
    {
        let path = repo_root()
            .join("tests/models/malformed")
            .join(format!("{name}.tflite"));
        let built = build();
        if bless {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &built).unwrap();
        } else if std::fs::read(&path).ok().as_deref() != Some(&built[..]) {
            stale.push(name);
        }
    }
    // The runtime's package carries a copy of one (its doctests read it from the package alone).
    let copy = repo_root().join("runtime/models/residual.tflite");
    let built = stowplan_tests::residual();
    if bless {
        std::fs::write(&copy, &built).unwrap();
    } else if std::fs::read(&copy).ok().as_deref() != Some(&built[..]) {
        stale.push("runtime/models/residual.tflite");
    }
    let readme = dir().join("README.md");
    if bless {
        std::fs::write(&readme, &notes).unwrap();
    } else if std::fs::read_to_string(&readme).ok().as_deref() != Some(&notes[..]) {
        stale.push("README.md");
    }
    assert!(
        stale.is_empty(),
        "stale synthetic models {stale:?}: run STOWPLAN_BLESS=1 cargo test -p stowplan-tests --test synthetic"
    );
}

fn plan(build: fn() -> Vec<u8>) -> ModelPlan {
    plan_model(&build(), &Options::default()).unwrap()
}

fn offsets(p: &ModelPlan, ids: &[u32]) -> Vec<Option<u64>> {
    ids.iter().map(|&i| p.offset(TensorId(i))).collect()
}

#[test]
fn chain_reuses_dead_tensors() {
    let p = plan(stowplan_tests::chain);
    assert_eq!(p.arena_bytes(), 512);
    assert_eq!(p.lower_bound_bytes(), 512);
    assert_eq!(p.naive_bytes(), 1024);
    assert_eq!(
        offsets(&p, &[0, 1, 2, 3]),
        [Some(256), Some(0), Some(256), Some(0)]
    );
}

#[test]
fn residual_keeps_the_skip_tensor() {
    let p = plan(stowplan_tests::residual);
    assert_eq!((p.arena_bytes(), p.lower_bound_bytes()), (384, 384));
    assert_eq!(
        offsets(&p, &[0, 1, 2, 3]),
        [Some(0), Some(256), Some(128), Some(0)]
    );
    assert_eq!(p.peak_scope(), Some(Some(3)));
}

#[test]
fn branches_pack_to_the_lower_bound() {
    let p = plan(stowplan_tests::branches);
    assert_eq!((p.arena_bytes(), p.lower_bound_bytes()), (128, 128));
    // The weight is a constant: not planned.
    assert_eq!(p.tensors[1].placement, Placement::None);
    assert_eq!(
        offsets(&p, &[0, 2, 3, 4]),
        [Some(0), Some(112), Some(64), Some(0)]
    );
}

#[test]
fn if_else_plans_callee_blocks() {
    let p = plan(stowplan_tests::if_else);
    assert_eq!((p.arena_bytes(), p.lower_bound_bytes()), (272, 272));
    assert_eq!(
        offsets(&p, &[0, 1, 2, 3, 4, 5, 6, 7, 8]),
        [
            Some(256),
            Some(192),
            Some(128),
            Some(0),
            Some(0),
            Some(64),
            Some(0),
            Some(64),
            Some(0)
        ]
    );
}

#[test]
fn while_loop_keeps_loop_inputs_until_after_the_body() {
    let p = plan(stowplan_tests::while_loop);
    assert_eq!((p.arena_bytes(), p.lower_bound_bytes()), (560, 560));
}

#[test]
fn call_once_leaves_resource_handles_out() {
    let p = plan(stowplan_tests::call_once);
    assert_eq!((p.arena_bytes(), p.lower_bound_bytes()), (96, 96));
    assert_eq!(p.buffer_tensors, [TensorId(0), TensorId(2), TensorId(3)]);
    assert_eq!(p.tensors[1].placement, Placement::None);
    assert_eq!(p.tensors[4].placement, Placement::None);
}

#[test]
fn variables_go_to_the_persistent_region() {
    let p = plan(stowplan_tests::variables);
    assert_eq!((p.arena_bytes(), p.lower_bound_bytes()), (80, 80));
    assert_eq!((p.persistent_bytes, p.persistent_raw_bytes), (848, 840));
    assert_eq!(p.tensors[1].placement, Placement::Persistent);
    assert_eq!(p.offset(TensorId(1)), None);
}

#[test]
fn offline_plan_fixes_offsets_and_replan_ignores_them() {
    let p = plan(stowplan_tests::offline_plan);
    assert_eq!(
        offsets(&p, &[0, 1, 2, 3]),
        [Some(256), Some(0), Some(256), Some(0)]
    );
    assert_eq!(p.tensors[1].fixed_offset, Some(0));
    assert_eq!(p.tensors[2].fixed_offset, Some(256));
    assert!(p.declared_aliases.is_empty());
    let replanned = plan_model(
        &stowplan_tests::offline_plan(),
        &Options {
            offline: stowplan_planner::OfflinePolicy::Replan,
            ..Options::default()
        },
    )
    .unwrap();
    assert!(replanned.tensors.iter().all(|t| t.fixed_offset.is_none()));
    assert_eq!(replanned.arena_bytes(), 512);
}

#[test]
fn dynamic_dim_needs_an_override_for_each_dynamic_tensor() {
    let err = plan_model(&stowplan_tests::dynamic_dim(), &Options::default()).unwrap_err();
    assert!(
        matches!(&err, stowplan_planner::PlanArenaError::Model(ReadModelError::DynamicShape { tensor, .. }) if tensor.name == "x")
    );
    assert_eq!(
        err.to_string(),
        "tensor 0 \"x\" of subgraph 0 has a dynamic shape [-1,10]; give its shape (for example --shape x=1x96x96x1), or serve it from a buffer cache at run time (dynamic = \"cache\")"
    );
    let shapes: Vec<ShapeOverride> = ["x=4x10", "1=4x10", "y=4x10"]
        .iter()
        .map(|s| s.parse().unwrap())
        .collect();
    let p = plan_model(
        &stowplan_tests::dynamic_dim(),
        &Options {
            shapes,
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(p.tensors[0].bytes, Some(160));
    assert_eq!((p.arena_bytes(), p.lower_bound_bytes()), (320, 320));
    // Overrides must respect the known dimensions and the rank.
    for bad in ["x=4x11", "x=4", "nope=1x10", "9=1x10"] {
        let shapes = vec![bad.parse().unwrap()];
        let err = plan_model(
            &stowplan_tests::dynamic_dim(),
            &Options {
                shapes,
                ..Options::default()
            },
        )
        .unwrap_err();
        assert!(
            matches!(
                err,
                stowplan_planner::PlanArenaError::Model(ReadModelError::BadShapeOverride { .. })
            ),
            "{bad}: {err}"
        );
    }
}

#[test]
fn all_types_have_their_element_sizes() {
    let p = plan(stowplan_tests::all_types);
    let bytes: Vec<(String, u64)> = p
        .model
        .tensors
        .iter()
        .zip(&p.tensors)
        .skip(1)
        .map(|(t, i)| (t.dtype.name().to_owned(), i.bytes.unwrap()))
        .collect();
    let expected = [
        ("float32", 12),
        ("float16", 6),
        ("int32", 12),
        ("uint8", 3),
        ("int64", 24),
        ("bool", 3),
        ("int16", 6),
        ("complex64", 24),
        ("int8", 3),
        ("float64", 24),
        ("complex128", 48),
        ("uint64", 24),
        ("uint32", 12),
        ("uint16", 6),
        ("int4", 3),
        ("bfloat16", 6),
        ("int2", 3),
        ("uint4", 3),
        ("float8_e4m3fn", 3),
        ("float8_e5m2", 3),
    ];
    let expected: Vec<(String, u64)> = expected
        .iter()
        .map(|(n, b)| ((*n).to_owned(), *b))
        .collect();
    assert_eq!(bytes, expected);
    assert_eq!(p.lower_bound_bytes(), 432);
    assert_eq!(p.profile.raw_bytes, 231);
    assert_eq!(p.arena_bytes(), 432);
}

#[test]
fn linear_never_reuses() {
    for s in SYNTHETIC.iter().filter(|s| s.name != "dynamic_dim") {
        let p = plan_model(
            &(s.build)(),
            &Options {
                planner: Planner::Linear,
                offline: stowplan_planner::OfflinePolicy::Replan,
                ..Options::default()
            },
        )
        .unwrap();
        assert_eq!(p.arena_bytes(), p.naive_bytes(), "{}", s.name);
    }
}
