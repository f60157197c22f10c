//! `SignalRfft`: TFLM's `signal/micro/kernels/rfft.cc` (`RfftInitAll`, `RfftPrepare`) and
//! KISS FFT's `kiss_fftr_alloc` (v130, as TFLM builds it), for the kernel
//! `stowplan::kernels::signal_rfft` (int16, int32 and float32). The twiddle factors and the
//! factorisation are computed here: `floor(0.5 + max * cos(phase))` (and `sin`) for the
//! fixed-point builds (`max` = 32767 or 2147483647), `(float)cos(phase)` for float, the phases
//! in double as KISS FFT computes them. The kernel's scratch is KISS FFT's complex work buffer,
//! `fft_length / 2` values.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::signal_options::{arity, int32, options};
use super::{Call, Lower, OpKind, Refusal, dims, input, invalid, output};
use crate::tflite::{DType, Model, Op};

/// `SignalRfft`.
pub const SIGNAL_RFFT: OpKind = OpKind {
    module: "signal_rfft",
    in_place: false,
    tflm_scratch,
    scratch,
    lower: Some(lower),
    fold: None,
    state: None,
    overwrite: None,
};

/// `fft_length` from the output's last dimension (`fft_length / 2 + 1` complex values).
fn fft_length(model: &Model, op: &Op) -> Option<u64> {
    dims(output(model, op, 0)?)?.last()?.checked_sub(2)
}

/// TFLM's request: `fft_length * sizeof(T)` bytes.
fn tflm_scratch(model: &Model, op: &Op) -> Option<Vec<u64>> {
    let element = input(model, op, 0)?.dtype.element_bytes()?;
    Some(vec![fft_length(model, op)?.checked_mul(element)?])
}

/// `fft_length / 2` complex values: one `i32` word each for int16, two otherwise.
fn scratch(model: &Model, op: &Op) -> Option<Vec<u64>> {
    let words: u64 = if input(model, op, 0)?.dtype == DType::Int16 {
        1
    } else {
        2
    };
    Some(vec![(fft_length(model, op)? / 2).checked_mul(words * 4)?])
}

/// KISS FFT's `kf_factor`: `(radix, remaining)` per stage, powers of 4 first, then 2, then odd
/// primes up to `floor(sqrt(n))`, the rest as one radix.
pub(crate) fn kf_factor(mut n: u64) -> Vec<(u64, u64)> {
    let mut p = 4u64;
    let floor_sqrt = (n as f64).sqrt().floor();
    let mut out = Vec::new();
    loop {
        while !n.is_multiple_of(p) {
            p = match p {
                4 => 2,
                2 => 3,
                _ => p + 2,
            };
            if p as f64 > floor_sqrt {
                p = n;
            }
        }
        n /= p;
        out.push((p, n));
        if n <= 1 {
            break;
        }
    }
    out
}

/// The twiddles of one KISS FFT build, interleaved, as literals.
fn cexp(dtype: DType, phases: &[f64]) -> TokenStream {
    let items = phases.iter().flat_map(|&ph| {
        let (c, s) = (ph.cos(), ph.sin());
        match dtype {
            DType::Int16 => [c, s]
                .map(|v| {
                    let l = Literal::i16_unsuffixed((0.5 + 32767.0 * v).floor() as i16);
                    quote!(#l)
                })
                .to_vec(),
            DType::Int32 => [c, s]
                .map(|v| {
                    let l = Literal::i32_unsuffixed((0.5 + 2_147_483_647.0 * v).floor() as i32);
                    quote!(#l)
                })
                .to_vec(),
            _ => [c, s]
                .map(|v| {
                    let l = Literal::f32_suffixed(v as f32);
                    quote!(#l)
                })
                .to_vec(),
        }
    });
    quote!(&[#(#items),*])
}

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let (k, pname) = (cx.k(), cx.params);
    arity(cx, 1, 1)?;
    let (inp, out) = (cx.input(0)?, cx.output(0)?);
    // RfftInitAll: the type from key 'T'; 'fft_length' is value 1.
    let map = options(cx)?;
    let t = map
        .get("T")
        .map_err(|e| Refusal::Invalid(format!("option T: {e}")))?
        .as_i32();
    let (dtype, ty) = match t {
        7 => (DType::Int16, quote!(i16)),
        2 => (DType::Int32, quote!(i32)),
        0 => (DType::Float32, quote!(f32)),
        other => {
            return invalid(format!(
                "option T is {other}; TFLM's SignalRfft takes int16 (7), int32 (2) or float32 (0) and fails otherwise"
            ));
        }
    };
    // RfftPrepare: the input and output of T, of one rank.
    cx.expect_type(inp, dtype, "input")?;
    cx.expect_type(out, dtype, "output")?;
    let (ishape, oshape) = (cx.shape(inp)?, cx.shape(out)?);
    if ishape.len() != oshape.len() || ishape.is_empty() {
        return invalid(format!(
            "{} and {} differ in rank (or have none); TFLM's Prepare requires one rank",
            inp.desc(),
            out.desc()
        ));
    }
    let fft = int32(&map, 1, "fft_length")?;
    let fft = usize::try_from(fft)
        .ok()
        .filter(|&n| n >= 2 && n % 2 == 0)
        .ok_or_else(|| {
            Refusal::Invalid(format!(
                "fft_length is {fft}; KISS FFT's real transform needs an even length (TFLM's state is null otherwise)"
            ))
        })?;
    let ilen = ishape.last().copied().unwrap_or(0);
    let olen = oshape.last().copied().unwrap_or(0);
    let isize = cx.elements(inp)?;
    if ilen == 0 || ilen > fft {
        return invalid(format!(
            "{} has frames of {ilen} values for an FFT of {fft}: TFLM zero-pads a frame up to fft_length",
            inp.desc()
        ));
    }
    let frames = isize / ilen;
    let want = fft + 2;
    if olen != want || cx.elements(out)? != frames.saturating_mul(want) {
        return invalid(format!(
            "{} has shape {oshape:?}; TFLM writes fft_length / 2 + 1 = {} complex values ({want} values) per input frame, {frames} frames",
            out.desc(),
            fft / 2 + 1
        ));
    }
    let ncfft = fft / 2;
    let factors = kf_factor(ncfft as u64);
    if let Some((p, _)) = factors.iter().find(|(p, _)| !(2..=5).contains(p)) {
        return invalid(format!(
            "fft_length {fft}: KISS FFT factors {ncfft} with radix {p}, whose generic butterfly TFLM's build runs on a null buffer (radices 2, 3, 4 and 5 only)"
        ));
    }
    let max = stowplan_max_factors();
    if factors.len() > max {
        return invalid(format!(
            "fft_length {fft} has more than {max} KISS FFT stages"
        ));
    }
    // KISS FFT's pi literals (both of them) are this double.
    let pi = std::f64::consts::PI;
    let n = ncfft as f64;
    let phases: Vec<f64> = (0..ncfft).map(|i| -2.0 * pi * (i as f64) / n).collect();
    let super_phases: Vec<f64> = (0..ncfft / 2)
        .map(|i| -pi * (((i + 1) as f64) / n + 0.5))
        .collect();
    let twiddles = cexp(dtype, &phases);
    let super_twiddles = cexp(dtype, &super_phases);
    let mut fac: Vec<TokenStream> = factors
        .iter()
        .map(|&(p, m)| {
            let (p, m) = (Literal::u64_unsuffixed(p), Literal::u64_unsuffixed(m));
            quote!([#p, #m])
        })
        .collect();
    let stages = Literal::usize_unsuffixed(fac.len());
    fac.resize(max, quote!([0, 0]));
    let lit = Literal::usize_unsuffixed;
    let (f, il, is, ol) = (lit(fft), lit(ilen), lit(isize), lit(want));
    Ok(Call {
        params: Some(quote! {
            pub const #pname: #k::SignalRfft<#ty> = #k::SignalRfft {
                fft_length: #f,
                input_length: #il,
                input_size: #is,
                output_length: #ol,
                factors: [#(#fac),*],
                stages: #stages,
                twiddles: #twiddles,
                super_twiddles: #super_twiddles,
            };
        }),
        body: quote!(#k::proven::signal_rfft(i0, &params::#pname, o0, s0);),
        reads: vec![0],
        check: Some(quote!(#k::check_signal_rfft(i0, &#pname, o0, s0))),
    })
}

/// The runtime's `MAX_FACTORS` (KISS FFT's `MAXFACTORS`).
const fn stowplan_max_factors() -> usize {
    32
}

#[cfg(test)]
mod tests {
    #[test]
    fn factors_as_kiss_fft() {
        assert_eq!(
            super::kf_factor(256),
            vec![(4, 64), (4, 16), (4, 4), (4, 1)]
        );
        assert_eq!(
            super::kf_factor(120),
            vec![(4, 30), (2, 15), (3, 5), (5, 1)]
        );
        assert_eq!(super::kf_factor(7), vec![(7, 1)]);
        assert_eq!(super::kf_factor(1), vec![(1, 1)]);
    }
}
