//! `SignalFilterBankSpectralSubtraction`: TFLM's
//! `signal/micro/kernels/filter_bank_spectral_subtraction.cc` (`...Init`, `...Prepare`,
//! `...Reset`), for the kernel `stowplan::kernels::signal_filter_bank_spectral_subtraction`
//! (uint32). Its noise estimate (`num_channels` uint32, TFLM's persistent buffer, set to 0 by
//! its Prepare and its Reset) is kernel state in the persistent region, which the generated
//! `reset` sets to 0.

use proc_macro2::Literal;
use quote::quote;

use super::signal_options::{arity, boolean, count, int32, options, options_in, shift, tensor};
use super::{Call, Lower, OpKind, Refusal, invalid, kernel};
use crate::tflite::{DType, Model, Op};

/// `SignalFilterBankSpectralSubtraction`.
pub const SIGNAL_FILTER_BANK_SPECTRAL_SUBTRACTION: OpKind = OpKind {
    state: Some(state_bytes),
    ..kernel("signal_filter_bank_spectral_subtraction", lower)
};

/// Option positions (keys in sorted order), as `FilterBankSpectralSubtractionInit` reads them.
const ALTERNATE_ONE_MINUS_SMOOTHING: usize = 0;
const ALTERNATE_SMOOTHING: usize = 1;
const CLAMPING: usize = 2;
const MIN_SIGNAL_REMAINING: usize = 3;
const NUM_CHANNELS: usize = 4;
const ONE_MINUS_SMOOTHING: usize = 5;
const SMOOTHING: usize = 6;
const SMOOTHING_BITS: usize = 7;
const SPECTRAL_SUBTRACTION_BITS: usize = 8;

/// The noise estimate's bytes: `num_channels * 4`.
pub(super) fn state_bytes(_: &Model, file: &[u8], op: &Op) -> Option<u64> {
    let map = options_in(file, op)?;
    let nc = map.element_raw(NUM_CHANNELS)?.0 as i32;
    u64::try_from(nc).ok()?.checked_mul(4)
}

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let (k, pname) = (cx.k(), cx.params);
    // ...Prepare: one input, two outputs, all uint32 of rank 1.
    arity(cx, 1, 2)?;
    let (input, out, noise) = (cx.input(0)?, cx.output(0)?, cx.output(1)?);
    let ilen = tensor(cx, input, 1, DType::Uint32, "input")?;
    let olen = tensor(cx, out, 1, DType::Uint32, "output")?;
    let nlen = tensor(cx, noise, 1, DType::Uint32, "noise estimate")?;
    let map = options(cx)?;
    let u = |i: usize, name: &str| int32(&map, i, name).map(|v| v as u32);
    let nc = count(int32(&map, NUM_CHANNELS, "num_channels")?, "num_channels")?;
    let (il, ol, nl) = (
        ilen.first().copied().unwrap_or(0),
        olen.first().copied().unwrap_or(0),
        nlen.first().copied().unwrap_or(0),
    );
    if il < nc || ol < nc || nl > nc {
        return invalid(format!(
            "num_channels is {nc} with an input of {il}, an output of {ol} and a noise estimate of {nl} values: TFLM reads and writes num_channels values and copies the noise estimate's length from its {nc}"
        ));
    }
    let smoothing_bits = shift(
        int32(&map, SMOOTHING_BITS, "smoothing_bits")?,
        "smoothing_bits",
        31,
    )?;
    let ss_bits = shift(
        int32(&map, SPECTRAL_SUBTRACTION_BITS, "spectral_subtraction_bits")?,
        "spectral_subtraction_bits",
        63,
    )?;
    let lit = Literal::u32_unsuffixed;
    let (s, oms, a, aoms, msr) = (
        lit(u(SMOOTHING, "smoothing")?),
        lit(u(ONE_MINUS_SMOOTHING, "one_minus_smoothing")?),
        lit(u(ALTERNATE_SMOOTHING, "alternate_smoothing")?),
        lit(u(
            ALTERNATE_ONE_MINUS_SMOOTHING,
            "alternate_one_minus_smoothing",
        )?),
        lit(u(MIN_SIGNAL_REMAINING, "min_signal_remaining")?),
    );
    let clamping = boolean(&map, CLAMPING, "clamping")?;
    let (n, sb, ssb) = (
        Literal::usize_unsuffixed(nc),
        lit(smoothing_bits),
        lit(ss_bits),
    );
    Ok(Call {
        params: Some(quote! {
            pub const #pname: #k::SignalSpectralSubtraction = #k::SignalSpectralSubtraction {
                num_channels: #n,
                smoothing: #s,
                one_minus_smoothing: #oms,
                alternate_smoothing: #a,
                alternate_one_minus_smoothing: #aoms,
                min_signal_remaining: #msr,
                smoothing_bits: #sb,
                spectral_subtraction_bits: #ssb,
                clamping: #clamping,
            };
        }),
        body: quote!(#k::proven::signal_filter_bank_spectral_subtraction(i0, &params::#pname, o0, o1, p0);),
        reads: vec![0],
        check: Some(
            quote!(#k::check_signal_filter_bank_spectral_subtraction(i0, &#pname, o0, o1, p0)),
        ),
    })
}
