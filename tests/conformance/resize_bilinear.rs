//! RESIZE_BILINEAR: float32 (with the special values) and int8; up- and down-sampling, with
//! `align_corners` or `half_pixel_centers` (both together: refused by TFLM's Prepare and by
//! stowplan).

use stowplan_planner::tflite::DType;

use crate::resize_nearest_neighbor::{OPTIONS, draw};
use crate::suite::{self, Spec, Target, Variant};

/// The types TFLM's RESIZE_BILINEAR takes.
const TYPES: [(&str, DType); 2] = [("float32", DType::Float32), ("int8", DType::Int8)];

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    for (tname, dtype) in TYPES {
        for (options, align, half) in OPTIONS {
            let spec = Spec {
                op: "resize_bilinear",
                builtin: "RESIZE_BILINEAR",
                types: tname.to_owned(),
                options: options.to_owned(),
                shape: "up and down",
            };
            let target = if align && half {
                // Refused by both: a few models.
                Target {
                    values: 0,
                    models: 3,
                }
            } else {
                target
            };
            out.push(suite::fill_with_sets(seed, spec, target, |rng, _| {
                let d = draw(rng, "RESIZE_BILINEAR", dtype, align, half)?;
                let n = d.inputs.first().map_or(0, |i| i.len);
                let sets = if dtype == DType::Float32 {
                    (0..3)
                        .map(|k| suite::cycle_f32(n, &suite::F32_SPECIALS, k * 5))
                        .collect()
                } else {
                    Vec::new()
                };
                Some((d, sets))
            }));
        }
    }
    // int16: TFLM's Eval refuses it (resize_bilinear.cc:103-106), and so does stowplan.
    let spec = Spec {
        op: "resize_bilinear",
        builtin: "RESIZE_BILINEAR",
        types: "int16".to_owned(),
        options: String::new(),
        shape: "refused",
    };
    out.push(suite::fill(
        seed,
        spec,
        Target {
            values: 0,
            models: 3,
        },
        |rng, _| draw(rng, "RESIZE_BILINEAR", DType::Int16, false, false),
    ));
    out
}
