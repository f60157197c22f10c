//! An alignment smaller than the model's widest planned element is raised to that element's
//! size: every tensor's typed view then sits at an offset its type allows, and the plan
//! reports the alignment it used.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType};
use stowplan_planner::{Options, plan_model};

/// int8 -> CAST -> int32 -> CAST -> int8 -> CAST -> int16, odd sizes so that packing with
/// alignment 1 would put the wider tensors at odd offsets.
fn mixed_widths() -> Vec<u8> {
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let a = b.tensor(sg, "a", DType::Int8, &[1, 7]);
    let w = b.tensor(sg, "w", DType::Int32, &[1, 7]);
    let c = b.tensor(sg, "c", DType::Int8, &[1, 7]);
    let h = b.tensor(sg, "h", DType::Int16, &[1, 7]);
    b.op(sg, BuiltinOp::CAST, &[a], &[w]);
    b.op(sg, BuiltinOp::CAST, &[w], &[c]);
    b.op(sg, BuiltinOp::CAST, &[c], &[h]);
    b.io(sg, &[a], &[h]);
    b.finish()
}

#[test]
fn a_smaller_alignment_is_raised_to_the_widest_element() {
    let bytes = mixed_widths();
    for alignment in [1, 2, 4] {
        let options = Options {
            alignment,
            ..Options::default()
        };
        let plan = plan_model(&bytes, &options).expect("a plan");
        assert_eq!(plan.problem.alignment(), 4, "asked {alignment}");
        for (id, t) in plan.model.tensors.iter().enumerate() {
            let Some(offset) = plan.offset(t.id) else {
                continue;
            };
            let width = t.dtype.element_bytes().expect("a fixed width");
            assert_eq!(offset % width, 0, "tensor {id} ({:?}) at {offset}", t.dtype);
        }
    }
    // A larger one stays as asked.
    let options = Options {
        alignment: 16,
        ..Options::default()
    };
    assert_eq!(
        plan_model(&bytes, &options).unwrap().problem.alignment(),
        16
    );
}

#[test]
fn an_int8_model_keeps_an_alignment_of_one() {
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let a = b.tensor(sg, "a", DType::Int8, &[5, 1]);
    let c = b.tensor(sg, "c", DType::Int8, &[1, 5]);
    let d = b.tensor(sg, "d", DType::Int8, &[1, 5]);
    b.op(sg, BuiltinOp::RESHAPE, &[a], &[c]);
    b.op(sg, BuiltinOp::ABS, &[c], &[d]);
    b.io(sg, &[a], &[d]);
    let options = Options {
        alignment: 1,
        ..Options::default()
    };
    let plan = plan_model(&b.finish(), &options).expect("a plan");
    assert_eq!(plan.problem.alignment(), 1);
}
