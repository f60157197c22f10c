//! `SignalDelay`: TFLM's `signal/micro/kernels/delay.cc` (`DelayInit`, `DelayPrepare`,
//! `DelayReset`), for the kernel `stowplan::kernels::signal_delay` (int16). Its delay lines
//! (one per row of the input, `delay_length` samples each, TFLM's circular buffers in
//! persistent memory, zeros after Prepare and Reset) are kernel state in the persistent region,
//! which the generated `reset` sets to 0.

use quote::quote;

use super::signal_options::{arity, int32, options, options_in};
use super::{Call, Lower, OpKind, Refusal, dims, input, invalid, kernel};
use crate::tflite::{DType, Model, Op};

/// `SignalDelay`.
pub const SIGNAL_DELAY: OpKind = OpKind {
    state: Some(state_bytes),
    ..kernel("signal_delay", lower)
};

/// Option position (keys in sorted order), as `DelayInit` reads it.
const DELAY_LENGTH: usize = 0;

/// Rows and samples per row of the input (TFLM's `outer_dims` and `frame_size`), `None` for a
/// scalar or an empty innermost dimension.
fn rows_and_frame(shape: &[u64]) -> Option<(u64, u64)> {
    let (&frame, outer) = shape.split_last()?;
    if frame == 0 {
        return None;
    }
    let rows = outer.iter().try_fold(1_u64, |n, &d| n.checked_mul(d))?;
    Some((rows, frame))
}

/// The delay lines' bytes: rows × `delay_length` int16.
pub(super) fn state_bytes(model: &Model, file: &[u8], op: &Op) -> Option<u64> {
    let (rows, _) = rows_and_frame(&dims(input(model, op, 0)?)?)?;
    let map = options_in(file, op)?;
    let delay = u64::try_from(map.element_raw(DELAY_LENGTH)?.0 as i32).ok()?;
    rows.checked_mul(delay)?.checked_mul(2)
}

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let (k, pname) = (cx.k(), cx.params);
    // DelayPrepare: one input and one output, both int16.
    arity(cx, 1, 1)?;
    let (x, y) = (cx.input(0)?, cx.output(0)?);
    cx.expect_type(x, DType::Int16, "input")?;
    cx.expect_type(y, DType::Int16, "output")?;
    let shape: Vec<u64> = cx.shape(x)?.iter().map(|&d| d as u64).collect();
    let Some((rows, frame)) = rows_and_frame(&shape) else {
        return invalid(format!(
            "{} has shape {shape:?}; TFLM's DelayPrepare divides by its innermost dimension",
            x.desc()
        ));
    };
    // DelayEval writes as many values as the input holds, whatever the output's shape.
    let (n_in, n_out) = (cx.elements(x)?, cx.elements(y)?);
    if n_in != n_out {
        return invalid(format!(
            "{} holds {n_out} values and {} {n_in}; TFLM's DelayEval writes {n_in}",
            y.desc(),
            x.desc()
        ));
    }
    let map = options(cx)?;
    let delay = int32(&map, DELAY_LENGTH, "delay_length")?;
    let Ok(delay) = usize::try_from(delay) else {
        return invalid(format!(
            "delay_length is {delay}; TFLM sizes its circular buffers with it"
        ));
    };
    let lit = proc_macro2::Literal::u64_unsuffixed;
    let (f, r, d) = (lit(frame), lit(rows), lit(delay as u64));
    Ok(Call {
        params: Some(quote! {
            pub const #pname: #k::SignalDelay = #k::SignalDelay {
                frame_size: #f,
                rows: #r,
                delay_length: #d,
            };
        }),
        // No delay keeps no state (and the op gets no state view).
        body: if delay == 0 {
            quote!(#k::proven::signal_delay(&params::#pname, i0, o0, &mut []);)
        } else {
            quote!(#k::proven::signal_delay(&params::#pname, i0, o0, p0);)
        },
        reads: vec![0],
        check: Some(if delay == 0 {
            quote!(#k::check_signal_delay(&#pname, i0, o0, 0))
        } else {
            quote!(#k::check_signal_delay(&#pname, i0, o0, p0))
        }),
    })
}
