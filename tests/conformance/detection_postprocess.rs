//! `TFLite_Detection_PostProcess` (custom op): the fast non-max suppression (one class per
//! detection, and 2 or 3 asked of a single class) and the regular one, with and without a background class, over two shape
//! classes, its options in a FlexBuffers map written at every byte width (some keys absent,
//! some numbers of the other kind: a float count, a double threshold).
//!
//! TFLM's fast path writes only the detections it makes, and its interpreter runs a model's
//! input sets one after another in the same arena: a set with fewer detections than the last
//! would show the last one's in TFLM and what the fresh arena holds in stowplan. So the fast
//! variants always make `max_detections` of them: the anchors lie two to a cell of a grid (one
//! centre, two sizes), the boxes stay inside their cell (encodings below 1 in magnitude), so a
//! detection suppresses at most the other box of its cell, `max_detections` is at most half
//! the boxes, and the score threshold lets every box through. The regular path writes every
//! output (zeros past its detections): its anchors, thresholds and scores are free.
//!
//! More than one class per detection is not drawn: TFLM then writes its `j`-th entry at `k *
//! j + j % k` (its entry counter doubles as the detection index), so positions between stay
//! whatever its arena held before (garbage in the first run: 0.0 or NaN), which no kernel can
//! reproduce; the runtime's kernel writes the same positions (its unit tests check them).

use stowplan_planner::tflite::DType;
use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::flexbuffer::{WriteValue, write_map};

use crate::suite::{self, Draft, InputSpec, Rng, Spec, Target, Variant, f32_bytes};

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    for nms in ["fast", "fast 2-3 classes per detection of 1", "regular"] {
        for background in [true, false] {
            for shape in ["small", "large"] {
                let spec = Spec {
                    op: "detection_postprocess",
                    builtin: "TFLite_Detection_PostProcess",
                    types: "float32".to_owned(),
                    options: format!("{nms}{}", if background { " background" } else { "" }),
                    shape,
                };
                out.push(suite::fill(seed, spec, target, |rng, index| {
                    draw(rng, index, nms, background, shape)
                }));
            }
        }
    }
    out
}

/// A float option as the converter writes it (a float), or now and then as a double that is
/// no float, or as an integer when it is one.
fn float_option(rng: &mut Rng, v: f32) -> WriteValue {
    match rng.below(8) {
        0 if v.fract() == 0.0 => WriteValue::Int(v as i64),
        1 => WriteValue::Float(f64::from(v) + f64::from(v) * 1e-12),
        _ => WriteValue::Float(f64::from(v)),
    }
}

/// An integer option, now and then written as a float.
fn int_option(rng: &mut Rng, v: i64) -> WriteValue {
    if rng.chance(0.15) {
        WriteValue::Float(v as f64 + 0.25)
    } else {
        WriteValue::Int(v)
    }
}

fn draw(rng: &mut Rng, index: usize, nms: &str, background: bool, shape: &str) -> Option<Draft> {
    let regular = nms == "regular";
    let num_classes = match (nms, shape) {
        ("fast 2-3 classes per detection of 1", _) => 1,
        (_, "small") => rng.size(1, 4),
        _ => rng.size(3, 12),
    };
    let ncwb = num_classes + usize::from(background);
    // Anchors: two per cell of a g x g grid (fast), or anywhere (regular).
    let g = match shape {
        "small" => rng.size(2, 3),
        _ => rng.size(4, 7),
    };
    let n = if regular {
        rng.size(2, 2 * g * g)
    } else {
        2 * g * g
    };
    let cell = 1.0 / g as f32;
    let mut anchors = Vec::with_capacity(4 * n);
    for i in 0..n {
        if regular {
            let (y, x) = (rng.uniform(0.0, 1.0) as f32, rng.uniform(0.0, 1.0) as f32);
            let (h, w) = (rng.uniform(0.05, 0.6) as f32, rng.uniform(0.05, 0.6) as f32);
            anchors.extend([y, x, h, w]);
        } else {
            let c = i / 2;
            let (cy, cx) = (((c / g) as f32 + 0.5) * cell, ((c % g) as f32 + 0.5) * cell);
            let size = if i % 2 == 0 { 0.5 } else { 0.3 };
            let aspect = rng.uniform(0.7, 1.0) as f32;
            anchors.extend([cy, cx, size * cell * aspect, size * cell]);
        }
    }
    let k = match nms {
        "fast" => 1,
        "fast 2-3 classes per detection of 1" => rng.size(2, 3),
        _ => rng.size(1, 3),
    };
    let per_detection = if regular { 1 } else { k.min(num_classes) };
    let max_detections = if regular {
        rng.size(1, 12)
    } else {
        rng.size(1, n / 2)
    };
    let detections_per_class = rng.size(1, 20);
    let iou = match index % 4 {
        0 => 1.0,
        1 => 0.5,
        _ => rng.uniform(0.05, 0.95) as f32,
    };
    let score_threshold = if regular {
        rng.pick(&[-1e30, -0.5, 0.0, 0.3, 1.0])
    } else {
        -1e30
    };
    let scales = [
        rng.pick(&[10.0, 5.0, 1.0]),
        rng.pick(&[10.0, 5.0, 1.0]),
        rng.pick(&[5.0, 2.0, 1.0]),
        rng.pick(&[5.0, 2.0, 1.0]),
    ];
    let mut entries = vec![
        ("max_detections", int_option(rng, max_detections as i64)),
        ("max_classes_per_detection", int_option(rng, k as i64)),
        ("nms_score_threshold", float_option(rng, score_threshold)),
        ("nms_iou_threshold", float_option(rng, iou)),
        ("num_classes", int_option(rng, num_classes as i64)),
        ("y_scale", float_option(rng, scales[0])),
        ("x_scale", float_option(rng, scales[1])),
        ("h_scale", float_option(rng, scales[2])),
        ("w_scale", float_option(rng, scales[3])),
    ];
    // detections_per_class defaults to 100 and use_regular_nms to false when absent.
    if regular || rng.chance(0.5) {
        entries.push((
            "detections_per_class",
            int_option(rng, detections_per_class as i64),
        ));
    }
    if regular || rng.chance(0.5) {
        entries.push(("use_regular_nms", WriteValue::Bool(regular)));
    }
    let width = rng.pick(&[1, 2, 4, 8]);
    let options = write_map(&entries, width);

    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let dims = |v: &[usize]| -> Vec<i32> { v.iter().map(|&d| d as i32).collect() };
    let boxes = b.tensor(sg, "box_encodings", DType::Float32, &dims(&[1, n, 4]));
    let scores = b.tensor(
        sg,
        "class_predictions",
        DType::Float32,
        &dims(&[1, n, ncwb]),
    );
    let anchor_t = b.constant(
        sg,
        "anchors",
        DType::Float32,
        &dims(&[n, 4]),
        &f32_bytes(&anchors),
    );
    let detections = if regular {
        max_detections
    } else {
        max_detections * per_detection
    };
    let ob = b.tensor(
        sg,
        "detection_boxes",
        DType::Float32,
        &dims(&[1, detections, 4]),
    );
    let oc = b.tensor(
        sg,
        "detection_classes",
        DType::Float32,
        &dims(&[1, detections]),
    );
    let os = b.tensor(
        sg,
        "detection_scores",
        DType::Float32,
        &dims(&[1, detections]),
    );
    let on = b.tensor(sg, "num_detections", DType::Float32, &[1]);
    b.custom_with_options(
        sg,
        "TFLite_Detection_PostProcess",
        &[boxes, scores, anchor_t],
        &[ob, oc, os, on],
        &options,
    );
    b.io(sg, &[boxes, scores], &[ob, oc, os, on]);
    let note = format!(
        "boxes {n} classes {num_classes} (with background {ncwb}) max detections {max_detections} classes per detection {k} per class {detections_per_class} iou {iou} threshold {score_threshold} scales {scales:?} options width {width}"
    );
    // Box encodings of magnitude 1e-3 (the edge sets are 1: the boxes stay in their cell and
    // valid); scores of magnitude 1.
    let inputs = vec![
        InputSpec::float(n * 4, 1e-3),
        InputSpec::float(n * ncwb, 1.0),
    ];
    Some(Draft::new(&b, inputs, 6 * detections + 1, note))
}
