//! Each op's kernel as generated `invoke` chooses it when the crate compiles, and what it is
//! expected to cost on the Cortex-M4: the report `stowplan macs` prints beside each op's
//! multiply-accumulates.
//!
//! The choice is the lowering's own (the op is lowered as `invoke` lowers it, on one buffer
//! where the default options' plan writes its output over its input, and the kernel it records
//! is read back, [`crate::ops::Lower::chosen`]), so the report names the kernel the generated
//! code calls with those options. Ops with a single kernel have no choice to report.
//!
//! The expected cost is a linear model of each DSP kernel, fitted on the benchmark set's
//! per-op instruction counts (`bench/run.sh`, Cortex-M4 under QEMU; `bench/fit_costs.py`
//! refits it and prints each op's error): instructions ≈ `per_mac` × MACs + `per_output` ×
//! output elements + `per_pixel` × output pixels + `per_call`. It is an estimate for comparing
//! layers and kernels, not a count.

use std::cell::Cell;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::graph::tensor_infos;
use crate::macs::{MacsError, model_macs};
use crate::ops::{self, KernelChoice, Lower};
use crate::tflite::{BuiltinOp, OpIndex, Opcode, SubgraphIndex, read_model};

/// One op's kernel and expected cost.
#[derive(Clone, Debug, PartialEq)]
pub struct OpKernel {
    /// Its subgraph.
    pub subgraph: SubgraphIndex,
    /// Its index in the subgraph.
    pub index: OpIndex,
    /// What it does.
    pub opcode: Opcode,
    /// Its multiply-accumulates ([`crate::macs`]).
    pub macs: Option<u64>,
    /// The elements of its first output (`None` if its shape is not known).
    pub outputs: Option<u64>,
    /// Its first output's pixels: its elements over its last dimension (`None` if its shape is
    /// not known or has no dimension).
    pub pixels: Option<u64>,
    /// The kernel generated code runs it with, for ops that have several (int8 CONV_2D,
    /// DEPTHWISE_CONV_2D, FULLY_CONNECTED and ADD); `None` for the others and for an op that does
    /// not lower.
    pub choice: Option<KernelChoice>,
    /// Its expected Cortex-M4 instructions ([`expected_instructions`]), for a DSP kernel.
    pub expected_instructions: Option<u64>,
}

/// One DSP kernel's cost model: instructions ≈ `per_mac` × MACs + `per_output` × output
/// elements + `per_pixel` × output pixels + `per_call`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cost {
    /// Instructions per multiply-accumulate.
    pub per_mac: f64,
    /// Instructions per output element (the epilogue).
    pub per_output: f64,
    /// Instructions per output pixel (a window's walk, its edges).
    pub per_pixel: f64,
    /// Instructions per call.
    pub per_call: f64,
}

/// The cost model of each DSP kernel with the epilogue form `shift2` (every benchmark layer's),
/// by the runtime's kernel name ([`family`]'s), as `bench/fit_costs.py` fits it (the benchmark
/// of 2026-12-07; the comments give the ops and distinct shapes each is fitted on).
pub const COSTS: &[(&str, Cost)] = &[
    (
        "gathered",
        Cost {
            per_mac: 1.1873,
            per_output: 18.3092,
            per_pixel: 564.2239,
            per_call: 0.0,
        },
    ), // 4 ops, 4 shapes
    (
        "interleaved_folded",
        Cost {
            per_mac: 1.4757,
            per_output: 20.5283,
            per_pixel: 228.0161,
            per_call: 0.0,
        },
    ), // 15 ops, 10 shapes
    (
        "one_to_eight",
        Cost {
            per_mac: 2.8707,
            per_output: 49.2502,
            per_pixel: 0.0000,
            per_call: 0.0,
        },
    ), // 2 ops, 2 shapes
    (
        "pointwise",
        Cost {
            per_mac: 1.7583,
            per_output: 37.9960,
            per_pixel: 59.4542,
            per_call: 0.0,
        },
    ), // 28 ops, 14 shapes, the round before (no benchmark layer takes it now)
    (
        "rows",
        Cost {
            per_mac: 1.6581,
            per_output: 28.5308,
            per_pixel: 194.2333,
            per_call: 0.0,
        },
    ), // 16 ops, 11 shapes, the round before (one benchmark layer takes it now)
    (
        "taps",
        Cost {
            per_mac: 0.0000,
            per_output: 44.2476,
            per_pixel: 77.5949,
            per_call: 0.0,
        },
    ), // 46 ops, 19 shapes
    (
        "widened",
        Cost {
            per_mac: 1.2127,
            per_output: 16.0194,
            per_pixel: 79.5356,
            per_call: 6465.0,
        },
    ), // 60 ops, 24 shapes
    (
        "window",
        Cost {
            per_mac: 1.4203,
            per_output: 0.0000,
            per_pixel: 567.2950,
            per_call: 42278.1,
        },
    ), // 19 ops, 13 shapes
];

/// The name a kernel's cost is modelled under: `widened` for the widened pixel pairs
/// (`widened_64`, `widened`, `widened_336`: one loop, their buffers apart), the kernel's own
/// name for the others.
#[must_use]
pub fn family(kernel: &str) -> &str {
    match kernel {
        "widened_64" | "widened_336" => "widened",
        _ => kernel,
    }
}

/// The Cortex-M4 instructions kernel `choice` is expected to take for `macs`
/// multiply-accumulates, `outputs` output elements and `pixels` output pixels ([`COSTS`]);
/// `None` for the portable loop and for a kernel or form the benchmark set does not run.
#[must_use]
pub fn expected_instructions(
    choice: KernelChoice,
    macs: u64,
    outputs: u64,
    pixels: u64,
) -> Option<u64> {
    if choice.epilogue != Some("shift2") {
        return None;
    }
    let name = family(choice.kernel);
    let (_, c) = COSTS.iter().find(|(k, _)| *k == name)?;
    #[allow(clippy::cast_precision_loss)]
    let estimate = c.per_mac * macs as f64
        + c.per_output * outputs as f64
        + c.per_pixel * pixels as f64
        + c.per_call;
    // A rounded non-negative estimate far below 2^64 (the counts are a model's).
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Some(estimate.max(0.0).round() as u64)
}

/// Every op of the model in `bytes`, in model order, with its MACs, the kernel generated
/// `invoke` runs it with (for ops with several) and that kernel's expected cost; `shapes` as
/// for planning.
///
/// # Errors
///
/// What [`model_macs`] returns.
pub fn model_kernels(
    bytes: &[u8],
    shapes: &[crate::graph::ShapeOverride],
) -> Result<Vec<OpKernel>, MacsError> {
    let macs = model_macs(bytes, shapes)?;
    let model = read_model(bytes)?;
    let tensors = tensor_infos(&model, shapes, false, false)?;
    // The ops whose outputs generated `invoke` writes over their inputs with the default
    // options (their kernels are chosen for one buffer): the pairs the plan overlaps. A model
    // that cannot be planned runs nothing; its ops are reported as on two buffers.
    let options = crate::Options {
        shapes: shapes.to_vec(),
        ..crate::Options::default()
    }
    .with_invoke(true);
    let overlapped = crate::plan_model(bytes, &options)
        .map(|p| p.overlapped())
        .unwrap_or_default();
    let on_one_buffer = |op: &crate::tflite::Op| {
        let declared = ops::overwrite_of(&op.opcode)?;
        let input = op.inputs.get(declared.input).copied().flatten()?;
        let i = model.tensor(op.subgraph, input)?.id;
        let o = model.tensor(op.subgraph, *op.outputs.first()?)?.id;
        overlapped.contains(&(i, o)).then_some(declared)
    };
    let state = crate::persistent::State::default();
    let folded = ops::FoldedData::new();
    let rt: TokenStream = quote!(::stowplan);
    let mut out = Vec::with_capacity(macs.len());
    for (op, m) in model.ops.iter().zip(macs) {
        let several = matches!(
            op.opcode,
            Opcode::Builtin(
                BuiltinOp::CONV_2D
                    | BuiltinOp::DEPTHWISE_CONV_2D
                    | BuiltinOp::FULLY_CONNECTED
                    | BuiltinOp::ADD
            )
        );
        let choice = several
            .then(|| {
                let cell = Cell::new(None);
                let params = format_ident!("OP_{}", op.index.0);
                let one = on_one_buffer(op);
                let cx = Lower {
                    model: &model,
                    tensors: &tensors,
                    state: &state,
                    bytes,
                    op,
                    rt: &rt,
                    params: &params,
                    folded: &folded,
                    overlap: one.map(|_| (0, 0)),
                    overwrite: one,
                    chosen: Some(&cell),
                    scratch: &[],
                };
                let lowered = ops::kind(&op.opcode)
                    .and_then(|k| k.lower)
                    .map(|lower| lower(&cx));
                // A refused op runs no kernel: nothing to report.
                matches!(lowered, Some(Ok(_))).then(|| cell.get()).flatten()
            })
            .flatten();
        let shape: Option<Vec<u64>> = op
            .outputs
            .first()
            .and_then(|&t| model.tensor(op.subgraph, t))
            .and_then(|t| tensors.get(t.id.get()))
            .and_then(|info| info.shape.iter().map(|&d| u64::try_from(d).ok()).collect());
        let product = |dims: &[u64]| dims.iter().try_fold(1u64, |n, &d| n.checked_mul(d));
        let outputs = shape.as_deref().and_then(product);
        let pixels = shape
            .as_deref()
            .and_then(|s| s.split_last())
            .and_then(|(_, rest)| product(rest));
        let expected_instructions = match (choice, m.macs, outputs, pixels) {
            (Some(c), Some(macs), Some(outputs), Some(pixels)) => {
                expected_instructions(c, macs, outputs, pixels)
            }
            _ => None,
        };
        out.push(OpKernel {
            subgraph: op.subgraph,
            index: op.index,
            opcode: m.opcode,
            macs: m.macs,
            outputs,
            pixels,
            choice,
            expected_instructions,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every modelled name is the family of a kernel the runtime has, each with the epilogue
    /// form of every benchmark layer; no coefficient is negative.
    #[test]
    fn costs_name_the_runtime_kernels() {
        use crate::kernels::{conv_kernel, depthwise_kernel, fully_connected_kernel};
        let names: Vec<&str> = (0..16)
            .map(conv_kernel::name)
            .chain((0..16).map(depthwise_kernel::name))
            .chain((0..16).map(fully_connected_kernel::name))
            .filter(|n| *n != "unknown" && *n != "any")
            .collect();
        for (name, c) in COSTS {
            assert!(
                names.iter().any(|n| family(n) == *name),
                "{name} is no kernel's"
            );
            for v in [c.per_mac, c.per_output, c.per_pixel, c.per_call] {
                assert!(v >= 0.0 && v.is_finite(), "{name}: {c:?}");
            }
        }
        assert_eq!(family("widened_336"), "widened");
        assert_eq!(family("pointwise"), "pointwise");
        let choice = |kernel, epilogue| KernelChoice { kernel, epilogue };
        // The portable loop and the other forms have no model; a DSP kernel's estimate grows
        // with the work.
        assert_eq!(
            expected_instructions(choice("portable", None), 10, 10, 1),
            None
        );
        assert_eq!(
            expected_instructions(choice("pointwise", Some("general")), 10, 10, 1),
            None
        );
        let small = expected_instructions(choice("widened_64", Some("shift2")), 4096, 64, 1);
        let large = expected_instructions(choice("widened_64", Some("shift2")), 40960, 640, 10);
        assert!(small.unwrap() < large.unwrap(), "{small:?} {large:?}");
    }
}
