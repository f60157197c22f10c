//! `SignalEnergy`: TFLM's `signal/micro/kernels/energy.cc` (`EnergyInit`, `EnergyPrepare`),
//! for the kernel `stowplan::kernels::signal_energy` (complex int16 to uint32).

use proc_macro2::Literal;
use quote::quote;

use super::signal_options::{arity, int32, options, tensor};
use super::{Call, Lower, OpKind, Refusal, invalid, kernel};
use crate::tflite::DType;

/// `SignalEnergy`.
pub const SIGNAL_ENERGY: OpKind = kernel("signal_energy", lower);

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let (k, pname) = (cx.k(), cx.params);
    // energy.cc:EnergyPrepare: int16 input and uint32 output, both of rank 1.
    arity(cx, 1, 1)?;
    let (input, out) = (cx.input(0)?, cx.output(0)?);
    let ishape = tensor(cx, input, 1, DType::Int16, "input")?;
    let oshape = tensor(cx, out, 1, DType::Uint32, "output")?;
    // EnergyInit: 'end_index' is value 0, 'start_index' value 1.
    let map = options(cx)?;
    let end = int32(&map, 0, "end_index")?;
    let start = int32(&map, 1, "start_index")?;
    let complex = ishape.first().copied().unwrap_or(0) / 2;
    let olen = oshape.first().copied().unwrap_or(0);
    if start < end {
        let (s, e) = (usize::try_from(start), usize::try_from(end));
        match (s, e) {
            (Ok(s), Ok(e)) if e <= complex && e <= olen => {
                let _ = s;
            }
            _ => {
                return invalid(format!(
                    "start_index {start} and end_index {end} reach outside {} ({complex} complex values) or {} ({olen} values): TFLM reads and writes there",
                    input.desc(),
                    out.desc()
                ));
            }
        }
    }
    let (s, e) = (
        usize::try_from(start).unwrap_or(0),
        usize::try_from(end).unwrap_or(0),
    );
    let (s, e) = (Literal::usize_unsuffixed(s), Literal::usize_unsuffixed(e));
    Ok(Call {
        params: Some(quote! {
            pub const #pname: #k::SignalEnergy = #k::SignalEnergy { start: #s, end: #e };
        }),
        body: quote!(#k::proven::signal_energy(i0, &params::#pname, o0);),
        reads: vec![0],
        check: Some(quote!(#k::check_signal_energy(i0, &#pname, o0))),
    })
}
