//! `SignalFilterBankSquareRoot`: TFLM's `signal/micro/kernels/filter_bank_square_root.cc` and
//! `filter_bank_square_root_common.cc` (`FilterBankSquareRootPrepare`), for the kernel
//! `stowplan::kernels::signal_filter_bank_square_root` (uint64 to uint32, an int32 shift read
//! when the op runs).

use quote::quote;

use super::signal_options::{arity, tensor};
use super::{Call, Lower, OpKind, Refusal, invalid, kernel};
use crate::tflite::DType;

/// `SignalFilterBankSquareRoot`.
pub const SIGNAL_FILTER_BANK_SQUARE_ROOT: OpKind = kernel("signal_filter_bank_square_root", lower);

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    // filter_bank_square_root_common.cc: uint64 input of rank 1, an int32 scalar, a uint32
    // output of rank 1.
    arity(cx, 2, 1)?;
    let (input, bits, out) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    let ilen = tensor(cx, input, 1, DType::Uint64, "input")?;
    tensor(cx, bits, 0, DType::Int32, "scale bits")?;
    let olen = tensor(cx, out, 1, DType::Uint32, "output")?;
    if olen.first() < ilen.first() {
        return invalid(format!(
            "{} is shorter than the input {}: TFLM writes one value per input channel",
            out.desc(),
            input.desc()
        ));
    }
    Ok(Call {
        params: None,
        body: quote!(#k::proven::signal_filter_bank_square_root(i0, i1, o0);),
        reads: vec![0, 1],
        check: Some(quote!(#k::check_signal_filter_bank_square_root(i0, i1, o0))),
    })
}
