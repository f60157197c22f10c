//! `SignalFilterBank`: TFLM's `signal/micro/kernels/filter_bank.cc` (`FilterBankInit`,
//! `FilterBankPrepare`), for the kernel `stowplan::kernels::signal_filter_bank` (uint32
//! energies, int16 weights and tables, uint64 output). Its work area (`num_channels + 1`
//! uint64, rewritten every invocation) is not needed: the kernel writes each channel's sum
//! straight to the output.

use proc_macro2::Literal;
use quote::quote;

use super::signal_options::{arity, count, int32, options, tensor};
use super::{Call, Lower, OpKind, Refusal, invalid, kernel};
use crate::tflite::DType;

/// `SignalFilterBank`.
pub const SIGNAL_FILTER_BANK: OpKind = kernel("signal_filter_bank", lower);

fn i16s(data: &[u8]) -> Vec<i16> {
    data.chunks_exact(2)
        .map(|c| {
            i16::from_le_bytes([
                c.first().copied().unwrap_or(0),
                c.get(1).copied().unwrap_or(0),
            ])
        })
        .collect()
}

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let (k, pname) = (cx.k(), cx.params);
    // filter_bank.cc:FilterBankPrepare: six inputs of rank 1 (uint32, then int16), a uint64
    // output of rank 1.
    arity(cx, 6, 1)?;
    let input = cx.input(0)?;
    let ilen = tensor(cx, input, 1, DType::Uint32, "input")?
        .first()
        .copied()
        .unwrap_or(0);
    let roles = [
        "weights",
        "unweights",
        "channel frequency starts",
        "channel weight starts",
        "channel widths",
    ];
    let mut lens = Vec::new();
    for (i, role) in roles.iter().enumerate() {
        let t = cx.input(i + 1)?;
        lens.push(
            tensor(cx, t, 1, DType::Int16, role)?
                .first()
                .copied()
                .unwrap_or(0),
        );
    }
    let out = cx.output(0)?;
    let olen = tensor(cx, out, 1, DType::Uint64, "output")?
        .first()
        .copied()
        .unwrap_or(0);
    // FilterBankInit: 'num_channels' is value 0.
    let map = options(cx)?;
    let nc = count(int32(&map, 0, "num_channels")?, "num_channels")?;
    // The tables decide where the kernel reads: they must be constants, checked here.
    let table = |i: usize| -> Result<Vec<i16>, Refusal> {
        let t = cx.input(i)?;
        Ok(i16s(cx.build_constant(
            t,
            roles.get(i - 1).copied().unwrap_or("table"),
        )?))
    };
    let (freq, wstart, widths) = (table(3)?, table(4)?, table(5)?);
    let channels = nc + 1;
    if freq.len() < channels || wstart.len() < channels || widths.len() < channels {
        return invalid(format!(
            "num_channels is {nc} but the channel tables hold {}, {} and {} values; TFLM reads {channels} of each",
            freq.len(),
            wstart.len(),
            widths.len()
        ));
    }
    let (wlen, ulen) = (
        lens.first().copied().unwrap_or(0),
        lens.get(1).copied().unwrap_or(0),
    );
    for i in 0..channels {
        let (f, w, n) = (
            freq.get(i).copied().unwrap_or(0),
            wstart.get(i).copied().unwrap_or(0),
            widths.get(i).copied().unwrap_or(0),
        );
        if n <= 0 {
            continue;
        }
        let ok = |start: i16, len: usize| {
            usize::try_from(start).is_ok_and(|s| s + usize::from(n.unsigned_abs()) <= len)
        };
        if !ok(f, ilen) || !ok(w, wlen) || !ok(w, ulen) {
            return invalid(format!(
                "channel {i} spans input values {f}.. and weights {w}.. for {n} values, outside the input ({ilen}) or the weights ({wlen}, {ulen}): TFLM reads there"
            ));
        }
    }
    if olen > nc {
        return invalid(format!(
            "{} holds {olen} values but num_channels is {nc}: TFLM copies the output's length from its {nc}-channel work area",
            out.desc()
        ));
    }
    let n = Literal::usize_unsuffixed(nc);
    Ok(Call {
        params: Some(quote! {
            pub const #pname: #k::SignalFilterBank = #k::SignalFilterBank { num_channels: #n };
        }),
        body: quote!(#k::proven::signal_filter_bank(i0, i1, i2, i3, i4, i5, &params::#pname, o0);),
        reads: vec![0, 1, 2, 3, 4, 5],
        check: Some(quote!(#k::check_signal_filter_bank(i0, i1, i2, i3, i4, i5, &#pname, o0))),
    })
}
