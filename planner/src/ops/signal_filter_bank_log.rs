//! `SignalFilterBankLog`: TFLM's `signal/micro/kernels/filter_bank_log.cc`
//! (`FilterBankLogInit`, `FilterBankLogPrepare`), for the kernel
//! `stowplan::kernels::signal_filter_bank_log` (uint32 to int16). The log table of TFLM's
//! `signal/src/log.cc` is computed here, when the crate builds: `round(65536 * (log2(1 +
//! i/128) - i/128))` for `i` in `0..=128`, then a 0 (the table TFLM's source holds).

use proc_macro2::Literal;
use quote::quote;

use super::signal_options::{arity, int32, options, shift, tensor};
use super::{Call, Lower, OpKind, Refusal, invalid, kernel};
use crate::tflite::DType;

/// `SignalFilterBankLog`.
pub const SIGNAL_FILTER_BANK_LOG: OpKind = kernel("signal_filter_bank_log", lower);

/// TFLM's `kLogLut`, from its formula.
pub(crate) fn log_lut() -> Vec<u16> {
    (0..=128u32)
        .map(|i| {
            let x = f64::from(i) / 128.0;
            ((65536.0 * ((1.0 + x).log2() - x)) + 0.5).floor() as u16
        })
        .chain([0])
        .collect()
}

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let (k, pname) = (cx.k(), cx.params);
    // filter_bank_log.cc:FilterBankLogPrepare: uint32 in, int16 out, both of rank 1.
    arity(cx, 1, 1)?;
    let (input, out) = (cx.input(0)?, cx.output(0)?);
    let il = tensor(cx, input, 1, DType::Uint32, "input")?;
    let ol = tensor(cx, out, 1, DType::Int16, "output")?;
    if ol.first() < il.first() {
        return invalid(format!(
            "{} is shorter than the input {}: TFLM writes one value per input channel",
            out.desc(),
            input.desc()
        ));
    }
    // FilterBankLogInit: 'input_correction_bits' is value 0, 'output_scale' value 1.
    let map = options(cx)?;
    let bits = shift(
        int32(&map, 0, "input_correction_bits")?,
        "input_correction_bits",
        31,
    )?;
    let scale = int32(&map, 1, "output_scale")? as u32;
    let lut = log_lut().into_iter().map(Literal::u16_unsuffixed);
    let (b, s) = (
        Literal::u32_unsuffixed(bits),
        Literal::u32_unsuffixed(scale),
    );
    Ok(Call {
        params: Some(quote! {
            pub const #pname: #k::SignalFilterBankLog = #k::SignalFilterBankLog {
                output_scale: #s,
                input_correction_bits: #b,
                lut: [#(#lut),*],
            };
        }),
        body: quote!(#k::proven::signal_filter_bank_log(i0, &params::#pname, o0);),
        reads: vec![0],
        check: Some(quote!(#k::check_signal_filter_bank_log(i0, &#pname, o0))),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn log_table_is_tflms() {
        let t = super::log_lut();
        assert_eq!(t.len(), 130);
        // Spot values of TFLM's kLogLut.
        for (i, v) in [
            (0, 0),
            (1, 224),
            (2, 442),
            (57, 5641),
            (64, 5568),
            (127, 142),
            (128, 0),
            (129, 0),
        ] {
            assert_eq!(t[i], v, "entry {i}");
        }
    }
}
