//! The golden generated files compile (so their const assertions hold) and say what the plan
//! says.

include!("../expected/chain.rs");
include!("../expected/residual.rs");
include!("../expected/branches.rs");
include!("../expected/if_else.rs");
include!("../expected/while_loop.rs");
include!("../expected/call_once.rs");
include!("../expected/variables.rs");
include!("../expected/offline_plan.rs");
include!("../expected/all_types.rs");
include!("../expected/dynamic_dim.rs");
include!("../expected/mlp_float.rs");
include!("../expected/mlp_int8.rs");
include!("../expected/cnn_int8.rs");
include!("../expected/tf_cond_if.rs");
include!("../expected/tf_while_loop.rs");
include!("../expected/tf_call_once.rs");

use stowplan_planner::{Options, plan_model};
use stowplan_tests::repo_root;

#[test]
fn figures_and_slots_match_the_plan() {
    assert_eq!(
        (
            chain::ARENA_BYTES,
            chain::LOWER_BOUND_BYTES,
            chain::NAIVE_BYTES
        ),
        (512, 512, 1024)
    );
    assert_eq!(
        (
            chain::T0.offset(),
            chain::T1.offset(),
            chain::T2.offset(),
            chain::T3.offset()
        ),
        (256, 0, 256, 0)
    );
    assert_eq!(chain::T0.len(), 64);
    assert_eq!(
        (chain::PLANNER, chain::PLAN_BY, chain::PROVEN_OPTIMAL),
        ("auto", "greedy", true)
    );
    assert_eq!(residual::A.byte_range(), 256..384);
    assert_eq!(if_else::ARENA_BYTES, 272);
    assert_eq!(if_else::SG1_THEN_X.offset(), 0);
    assert_eq!(variables::PERSISTENT_BYTES, 848);
    assert_eq!(variables::STATE1.byte_range(), 0..640);
    assert_eq!(variables::STATE2.byte_range(), 640..840);
    assert_eq!(dynamic_dim::X.len(), 20);
    assert_eq!(size_of::<all_types::Arena>(), 432);
    assert_eq!(align_of::<all_types::Arena>(), 16);
    assert_eq!(size_of::<variables::PersistentArena>(), 848);
}

#[test]
fn constants_are_typed_views_of_the_model_data() {
    assert_eq!(branches::W.len(), 16 * 48);
    assert!(branches::W.iter().all(|&w| w == 1));
    assert_eq!(while_loop::SG1_COND_LIMIT, &[3]);
    assert_eq!(while_loop::SG2_BODY_ONE, &[1]);
    assert_eq!(call_once::SG1_INIT_ZEROS, &[0.0f32; 8]);
}

#[test]
fn tables_list_every_tensor_and_op() {
    for (tensors, ops, path) in [
        (
            cnn_int8::TENSORS,
            cnn_int8::OPS,
            "tests/models/cnn_int8/cnn_int8.tflite",
        ),
        (
            tf_cond_if::TENSORS,
            tf_cond_if::OPS,
            "tests/models/cond_if/cond_if.tflite",
        ),
        (
            mlp_int8::TENSORS,
            mlp_int8::OPS,
            "tests/models/mlp_int8/mlp_int8.tflite",
        ),
    ] {
        let bytes = std::fs::read(repo_root().join(path)).unwrap();
        let plan = plan_model(&bytes, &Options::default()).unwrap();
        assert_eq!(tensors.len(), plan.model.tensors.len(), "{path}");
        assert_eq!(ops.len(), plan.model.ops.len(), "{path}");
        for (t, info) in plan.model.tensors.iter().zip(tensors) {
            assert_eq!(info.name, t.name);
            assert_eq!(info.dtype, t.dtype.name());
            match info.location {
                stowplan::Location::Arena { offset, bytes } => {
                    assert_eq!(Some(offset as u64), plan.offset(t.id));
                    assert_eq!(Some(bytes as u64), plan.tensors[t.id.get()].bytes);
                }
                stowplan::Location::Constant(data) => {
                    let range = plan.model.buffers[t.buffer.get()].data.clone().unwrap();
                    assert_eq!(data, &bytes[range.clone()]);
                    assert_eq!(
                        data.as_ptr() as usize % 16,
                        0,
                        "constant data is 16-byte aligned"
                    );
                }
                stowplan::Location::Persistent { .. } | stowplan::Location::None => {}
            }
        }
        for (op, info) in plan.model.ops.iter().zip(ops) {
            assert_eq!(info.opcode, op.opcode.to_string());
            assert_eq!(info.outputs.len(), op.outputs.len());
        }
    }
    assert_eq!(
        tf_cond_if::OPS.iter().filter(|o| o.opcode == "IF").count(),
        1
    );
    assert_eq!(mlp_int8::INPUTS.len(), 1);
}

#[path = "../../examples/shared/kernels.rs"]
mod kernels;
#[path = "../../examples/shared/mlp_float.rs"]
mod mlp;

#[test]
fn op_functions_view_the_planned_slots() {
    let mut arena = mlp_float::Arena::new();
    let base = arena.as_bytes().as_ptr() as usize;
    let ((x, w, b), (y,)) = mlp_float::ops::op_0(&mut arena);
    assert_eq!(
        x.as_ptr() as usize - base,
        mlp_float::SERVING_DEFAULT_X_0.offset()
    );
    assert_eq!(x.len(), 1);
    assert_eq!((w, b), (mlp_float::MATMUL_5, mlp_float::RELU));
    assert_eq!(y.as_ptr() as usize - base, 64);
    assert_eq!(y.len(), 16);
    y.fill(2.5);
    let ((h, _, _), (y,)) = mlp_float::ops::op_1(&mut arena);
    assert_eq!(h, &[2.5; 16]);
    assert_eq!(y.as_ptr() as usize - base, 0);
    // Ops reading or writing variable tensors get no function; the rest do.
    let mut arena = call_once::Arena::new();
    let ((x, value), (y,)) = call_once::ops::op_3(&mut arena);
    assert_eq!((x.len(), value.len(), y.len()), (8, 8, 8));
    let mut arena = cnn_int8::Arena::new();
    let ((_, weights, bias), (out,)) = cnn_int8::ops::op_0(&mut arena);
    assert!(!weights.is_empty() && !bias.is_empty());
    assert_eq!(out.len(), cnn_int8::RELU_10.len());
}

#[test]
fn mlp_float_inference_matches_tflite() {
    let io: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("tests/models/mlp_float/io.json")).unwrap(),
    )
    .unwrap();
    let data = |key: &str| -> Vec<f32> {
        io[key][0]["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap() as f32)
            .collect()
    };
    let mut arena = mlp_float::Arena::new();
    let output = mlp::infer(&mut arena, &data("inputs"));
    assert!(mlp::matches(output, &data("outputs")), "{output:?}");
    // Twice in the same arena: no state is left behind.
    let again = mlp::infer(&mut arena, &data("inputs")).to_vec();
    assert_eq!(again, data("outputs"));
}
