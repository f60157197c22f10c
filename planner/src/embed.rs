//! Writing a plan into the model as an `OfflineMemoryAllocation` entry, so stock TensorFlow
//! Lite Micro firmware uses it with no code change.
//!
//! The entry is TFLM's format: int32 little-endian words `0` (version), the number of
//! subgraphs, the number of tensors over all subgraphs, then one offset per tensor in subgraph
//! order, `-1` for tensors TFLM does not plan (constants, variables, zero-size tensors, resource
//! handles). TFLM places those offsets first and plans only its kernels' scratch buffers around
//! them, with the same lifetimes, so the plan must be made under exactly TFLM's rules: it is
//! (this crate's lifetimes and planned set are TFLM's, and no tensors are merged), and with
//! TFLM's alignment of 16. The plan also reserves room for the scratch buffers TFLM's reference
//! kernels request ([`crate::arena`], [`KernelScratch::Tflm`]): TFLM places them first-fit
//! around the fixed offsets, and a plan without room for them would make its arena grow.
//!
//! The file is written by [`crate::tflite::write::with_metadata`], which keeps every byte of
//! the original and prepends a new root.
//!
//! Refused, with a reason: plans with a different alignment than TFLM's 16, plans that put a
//! tensor at an offset an int32 word cannot hold (beyond 2,147,483,647), and models the
//! writer refuses (fields of the `Model` table this version does not know, data stored after
//! the flatbuffer).

use std::fmt;

use crate::arena::KernelScratch;
use crate::graph::Placement;
use crate::tflite::{OFFLINE_PLAN_METADATA, write};
use crate::{ModelPlan, OfflinePolicy, Options, PlanArenaError, plan_model};

/// Why a model cannot be embedded.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EmbedPlanError {
    /// The model cannot be planned.
    Plan(PlanArenaError),
    /// Embedding it would not be safe; the reason says why.
    Refused(String),
}

impl fmt::Display for EmbedPlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Plan(e) => e.fmt(f),
            Self::Refused(reason) => write!(f, "cannot embed a plan: {reason}"),
        }
    }
}

impl std::error::Error for EmbedPlanError {}

/// The words of the offline plan for `plan`: TFLM's format.
#[must_use]
pub fn offline_words(plan: &ModelPlan) -> Vec<i32> {
    let mut words = vec![
        0,
        i32::try_from(plan.model.subgraphs.len()).unwrap_or(i32::MAX),
    ];
    words.push(i32::try_from(plan.model.tensors.len()).unwrap_or(i32::MAX));
    for (tensor, info) in plan.model.tensors.iter().zip(&plan.tensors) {
        let offset = match info.placement {
            Placement::Arena => plan
                .offset(tensor.id)
                .and_then(|o| i32::try_from(o).ok())
                .unwrap_or(-1),
            _ => -1,
        };
        words.push(offset);
    }
    words
}

/// Plans `bytes` with `options` (offline plans replaced, never honoured; TFLM's kernel scratch
/// reserved) and returns the model with the plan embedded, and the plan.
///
/// # Errors
///
/// [`EmbedPlanError`] if the model cannot be planned or cannot be rewritten safely.
pub fn embed(bytes: &[u8], options: &Options) -> Result<(Vec<u8>, ModelPlan), EmbedPlanError> {
    if options.alignment != 16 {
        return Err(EmbedPlanError::Refused(
            "TFLite Micro aligns every planned size and offset to 16; plan with alignment 16"
                .to_owned(),
        ));
    }
    let options = Options {
        offline: OfflinePolicy::Replan,
        kernel_scratch: KernelScratch::Tflm,
        ..options.clone()
    };
    let plan = plan_model(bytes, &options).map_err(EmbedPlanError::Plan)?;
    // The entry's words are int32: an offset beyond i32::MAX would be written as -1 ("plan
    // online") and TFLM would plan that tensor elsewhere.
    for (tensor, info) in plan.model.tensors.iter().zip(&plan.tensors) {
        if info.placement != Placement::Arena {
            continue;
        }
        if let Some(offset) = plan.offset(tensor.id)
            && i32::try_from(offset).is_err()
        {
            return Err(EmbedPlanError::Refused(format!(
                "{} is at offset {}, beyond {}, the largest offset TFLite Micro's int32 offline plan holds",
                tensor.desc(),
                crate::emit::thousands(offset),
                crate::emit::thousands(i32::MAX as u64),
            )));
        }
    }
    let words: Vec<u8> = offline_words(&plan)
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let out = write::with_metadata(bytes, &plan.model, OFFLINE_PLAN_METADATA, &words)
        .map_err(EmbedPlanError::Refused)?;
    Ok((out, plan))
}
