//! `SignalWindow`: TFLM's `signal/micro/kernels/window.cc` (`WindowInit`, `WindowPrepare`),
//! for the kernel `stowplan::kernels::signal_window` (int16).

use quote::quote;

use super::signal_options::{arity, int32, options, shift};
use super::{Call, Lower, OpKind, Refusal, invalid, kernel};
use crate::tflite::DType;

/// `SignalWindow`.
pub const SIGNAL_WINDOW: OpKind = kernel("signal_window", lower);

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let (k, pname) = (cx.k(), cx.params);
    // window.cc:WindowPrepare: two inputs, one output, int16; weights of rank 1, the input of
    // rank 1 or more and of the output's rank.
    arity(cx, 2, 1)?;
    let (input, weights, out) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    let (ishape, wshape, oshape) = (cx.shape(input)?, cx.shape(weights)?, cx.shape(out)?);
    if ishape.is_empty() || wshape.len() != 1 || oshape.len() != ishape.len() {
        return invalid(format!(
            "SignalWindow with input rank {}, weights rank {}, output rank {}: TFLM's Prepare requires weights of rank 1 and an input of rank 1 or more, of the output's rank",
            ishape.len(),
            wshape.len(),
            oshape.len()
        ));
    }
    for (t, role) in [(input, "input"), (weights, "weights"), (out, "output")] {
        cx.expect_type(t, DType::Int16, role)?;
    }
    // WindowInit: 'shift' is value 0.
    let map = options(cx)?;
    let shift = shift(int32(&map, 0, "shift")?, "shift", 31)?;
    let (n, w) = (cx.elements(input)?, cx.elements(weights)?);
    // WindowEval steps through the input by the weights' length.
    if w == 0 || n % w != 0 {
        return invalid(format!(
            "{} has {n} values and the weights {w}: TFLM's kernel steps by the weights' length, which never ends for 0 and reads past the input unless it divides the input",
            input.desc()
        ));
    }
    if cx.elements(out)? != n {
        return invalid(format!(
            "{} has {} values and the input {n}; TFLM writes one per input value",
            out.desc(),
            cx.elements(out)?
        ));
    }
    let s = proc_macro2::Literal::u32_unsuffixed(shift);
    Ok(Call {
        params: Some(quote! {
            pub const #pname: #k::SignalWindow = #k::SignalWindow { shift: #s };
        }),
        body: quote!(#k::proven::signal_window(i0, i1, &params::#pname, o0);),
        reads: vec![0, 1],
        check: Some(quote!(#k::check_signal_window(i0, i1, &#pname, o0))),
    })
}
