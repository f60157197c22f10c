//! `SignalPCAN`: TFLM's `signal/micro/kernels/pcan.cc` (`PcanInit`, `PcanPrepare`), for the
//! kernel `stowplan::kernels::signal_pcan` (uint32 with an int16 gain table).

use proc_macro2::Literal;
use quote::quote;

use super::signal_options::{arity, int32, options, shift, tensor};
use super::{Call, Lower, OpKind, Refusal, invalid, kernel, unsupported};
use crate::tflite::DType;

/// `SignalPCAN`.
pub const SIGNAL_PCAN: OpKind = kernel("signal_pcan", lower);

/// The gain table's entries TFLM's `WideDynamicFunction` may read (`4 * 32 - 6 + 2`, plus 1).
const LUT_ENTRIES: usize = 125;

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let (k, pname) = (cx.k(), cx.params);
    // pcan.cc:PcanPrepare: three inputs and one output of rank 1: uint32, uint32, int16,
    // uint32.
    arity(cx, 3, 1)?;
    let (input, noise, lut, out) = (cx.input(0)?, cx.input(1)?, cx.input(2)?, cx.output(0)?);
    let il = tensor(cx, input, 1, DType::Uint32, "input")?;
    let nl = tensor(cx, noise, 1, DType::Uint32, "noise estimate")?;
    let ll = tensor(cx, lut, 1, DType::Int16, "gain table")?;
    let ol = tensor(cx, out, 1, DType::Uint32, "output")?;
    // PcanInit: 'snr_shift' is value 0.
    let map = options(cx)?;
    let snr_shift = shift(int32(&map, 0, "snr_shift")?, "snr_shift", 63)?;
    if ol != il || nl.first() < il.first() {
        return invalid(format!(
            "{} and the noise estimate {} against the input {}: TFLM copies the output's length of input and reads a noise value per input channel",
            out.desc(),
            noise.desc(),
            input.desc()
        ));
    }
    if ll.first().copied().unwrap_or(0) < LUT_ENTRIES {
        return unsupported(format!(
            "{} has fewer than {LUT_ENTRIES} entries, which TFLM reads past for large noise estimates",
            lut.desc()
        ));
    }
    let s = Literal::u32_unsuffixed(snr_shift);
    Ok(Call {
        params: Some(quote! {
            pub const #pname: #k::SignalPcan = #k::SignalPcan { snr_shift: #s };
        }),
        body: quote!(#k::proven::signal_pcan(i0, i1, i2, &params::#pname, o0);),
        reads: vec![0, 1, 2],
        check: Some(quote!(#k::check_signal_pcan(i0, i1, i2, &#pname, o0))),
    })
}
