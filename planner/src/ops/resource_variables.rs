//! READ_VARIABLE and ASSIGN_VARIABLE: TFLM's `read_variable.cc` and `assign_variable.cc`, a
//! copy between the value tensor and the resource variable's bytes in the persistent region
//! ([`crate::state`]), for the kernel `stowplan::kernels::copy`. (VAR_HANDLE runs nothing: its
//! handle is resolved when the crate compiles.)

use quote::quote;

use super::{Call, Lower, OpKind, Refusal, invalid, kernel};
use crate::tflite::{Tensor, TensorId};

/// READ_VARIABLE.
pub const READ_VARIABLE: OpKind = kernel("resource_variables", read);
/// ASSIGN_VARIABLE.
pub const ASSIGN_VARIABLE: OpKind = kernel("resource_variables", assign);

/// The value tensor must have the variable's type and size.
fn check(cx: &Lower<'_>, value: &Tensor) -> Result<(), Refusal> {
    let handle = cx.input(0)?;
    let base = cx
        .model
        .subgraphs
        .get(cx.op.subgraph.get())
        .map_or(0, |s| s.first_tensor);
    let id = TensorId(u32::try_from(base + handle.index.get()).unwrap_or(u32::MAX));
    let Some(var) = cx.state.variable_of(id) else {
        return invalid(format!(
            "{} is not a handle stowplan can follow",
            handle.desc()
        ));
    };
    if var.dtype != value.dtype {
        return invalid(format!(
            "{} is {} but resource variable {:?} holds {}",
            value.desc(),
            value.dtype,
            var.shared_name,
            var.dtype
        ));
    }
    Ok(())
}

fn read(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let out = cx.output(0)?;
    check(cx, out)?;
    Ok(Call {
        params: None,
        body: quote!(#k::proven::copy(i0, o0);),
        reads: vec![0],
        check: Some(quote!(#k::check_copy(i0, o0))),
    })
}

fn assign(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let value = cx.input(1)?;
    check(cx, value)?;
    Ok(Call {
        params: None,
        body: quote!(#k::proven::copy(i1, m0);),
        reads: vec![1],
        check: Some(quote!(#k::check_copy(i1, m0))),
    })
}
