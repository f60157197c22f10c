//! `SignalFftAutoScale`: TFLM's `signal/micro/kernels/fft_auto_scale_kernel.cc` and
//! `fft_auto_scale_common.cc` (`FftAutoScalePrepare`), for the kernel
//! `stowplan::kernels::signal_fft_auto_scale` (int16, with an int32 scalar output).

use quote::quote;

use super::signal_options::{arity, tensor};
use super::{Call, Lower, OpKind, Refusal, invalid, kernel};
use crate::tflite::DType;

/// `SignalFftAutoScale`.
pub const SIGNAL_FFT_AUTO_SCALE: OpKind = kernel("signal_fft_auto_scale", lower);

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    // fft_auto_scale_common.cc: one input, two outputs; input and output int16 of rank 1, the
    // scale an int32 scalar.
    arity(cx, 1, 2)?;
    let (input, out, scale) = (cx.input(0)?, cx.output(0)?, cx.output(1)?);
    let ishape = tensor(cx, input, 1, DType::Int16, "input")?;
    let oshape = tensor(cx, out, 1, DType::Int16, "output")?;
    tensor(cx, scale, 0, DType::Int32, "scale bits")?;
    // FftAutoScaleEval scales the output's length of input.
    if oshape.first() > ishape.first() {
        return invalid(format!(
            "{} is longer than the input {}: TFLM reads its length of input",
            out.desc(),
            input.desc()
        ));
    }
    Ok(Call {
        params: None,
        body: quote!(#k::proven::signal_fft_auto_scale(i0, o0, o1);),
        reads: vec![0],
        check: Some(quote!(#k::check_signal_fft_auto_scale(i0, o0, o1))),
    })
}
