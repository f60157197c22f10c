//! The row of the op table ([`OpKind`]): everything the build knows about one op kind, each
//! fact a field its module fills in, so that adding an op is its module and one line of
//! `BUILTINS` or `CUSTOM` (`ops/mod.rs`).

use std::fmt;

use super::lower::{Call, Lower, Refusal};
use super::overwrite::Overwrite;
use crate::tflite::{Model, Op};

/// Lowers an op to its kernel call.
pub type Lowering = fn(&Lower<'_>) -> Result<Call, Refusal>;

/// Evaluates an op whose inputs are all constants when the crate compiles ([`crate::fold`]):
/// the bytes of each output (little-endian, each exactly its shape), computed by the runtime's
/// own kernel (`crate::kernels`, the very source the device compiles) with the parameters the
/// op's lowering computes, after the lowering's checks. A refusal leaves the op to the device.
pub type Folding = fn(&Lower<'_>) -> Result<Vec<Vec<u8>>, Refusal>;

/// The bytes of state an op's kernel keeps across invocations outside any tensor, from the
/// model and its file (`None` where the op is invalid: its lowering says why).
pub type StateBytes = fn(&Model, &[u8], &Op) -> Option<u64>;

/// The scratch buffers of an op's kernel, in bytes (`None`: none, or shapes the kernel would
/// refuse).
pub type Scratch = fn(&Model, &Op) -> Option<Vec<u64>>;

/// Everything the build knows about one op kind.
#[derive(Clone, Copy)]
pub struct OpKind {
    /// The module's name (`conv`): its kernel's in `stowplan::kernels`, its conformance file's.
    pub module: &'static str,
    /// The output is the input's bytes reinterpreted (RESHAPE and the like): generated `invoke`
    /// may give it its input's buffer when the input has no later reader.
    pub in_place: bool,
    /// The scratch buffers TFLM's reference kernel requests in its `Prepare`, in request order,
    /// in bytes (`None`: none, or shapes that kernel would refuse).
    pub tflm_scratch: Scratch,
    /// The scratch buffers stowplan's own kernel needs while it runs, in bytes, each planned in
    /// the arena for the op's time only and handed to the kernel as the views `s0`, `s1`, ..
    /// (`&mut [i32]`: each size a multiple of 4).
    pub scratch: Scratch,
    /// Lowers the op to its kernel call; `None` while the runtime has no kernel for the kind.
    pub lower: Option<Lowering>,
    /// How the kind is evaluated when the crate compiles, if its module can ([`Folding`]).
    pub fold: Option<Folding>,
    /// The state its kernel keeps across invocations outside any tensor (TFLM's persistent
    /// buffers that its `Reset` sets to 0), if it keeps any.
    pub state: Option<StateBytes>,
    /// What its kernels can do with the output over the input they consume, if anything
    /// ([`Overwrite`]).
    pub overwrite: Option<Overwrite>,
}

impl fmt::Debug for OpKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpKind")
            .field("module", &self.module)
            .field("in_place", &self.in_place)
            .field("lower", &self.lower.is_some())
            .field("fold", &self.fold.is_some())
            .field("state", &self.state.is_some())
            .field("overwrite", &self.overwrite)
            .finish_non_exhaustive()
    }
}

/// No scratch.
pub(super) fn no_scratch(_: &Model, _: &Op) -> Option<Vec<u64>> {
    None
}

/// An op kind with a kernel and nothing else: no scratch, no folding, no state, no overwrite
/// (a module sets what else its kind has with `OpKind { field: .., ..kernel(module, lower) }`).
pub(super) const fn kernel(module: &'static str, lower: Lowering) -> OpKind {
    OpKind {
        module,
        in_place: false,
        tflm_scratch: no_scratch,
        scratch: no_scratch,
        lower: Some(lower),
        fold: None,
        state: None,
        overwrite: None,
    }
}
