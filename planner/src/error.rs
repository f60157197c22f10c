//! Errors, with messages that name the subgraph, op and tensor involved: [`PlanArenaError`],
//! [`plan_model`](crate::plan_model)'s; the model's own ([`ReadModelError`], [`TensorDesc`],
//! [`OpDesc`]) are the format's, in [`crate::tflite`], and re-exported here.

use std::fmt;

use crate::plan::ProblemError;
pub use crate::tflite::{OpDesc, ReadModelError, TensorDesc};

/// Why a model could not be planned: [`crate::plan_model`]'s error.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PlanArenaError {
    /// The model cannot be read or is invalid.
    Model(ReadModelError),
    /// The options are invalid (for example an alignment that is not a power of two).
    Problem(ProblemError),
    /// The plan failed verification. For online plans this is a bug in stowplan; it also
    /// reports an offline plan that is misaligned or collides with itself where not allowed.
    Unverified {
        /// What the verifier found, with tensor and op names.
        reason: String,
    },
}

impl fmt::Display for PlanArenaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Model(e) => e.fmt(f),
            Self::Problem(e) => e.fmt(f),
            Self::Unverified { reason } => write!(f, "plan failed verification: {reason}"),
        }
    }
}

impl std::error::Error for PlanArenaError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Model(e) => Some(e),
            Self::Problem(e) => Some(e),
            Self::Unverified { .. } => None,
        }
    }
}

impl From<ReadModelError> for PlanArenaError {
    fn from(e: ReadModelError) -> Self {
        Self::Model(e)
    }
}

impl From<ProblemError> for PlanArenaError {
    fn from(e: ProblemError) -> Self {
        Self::Problem(e)
    }
}
