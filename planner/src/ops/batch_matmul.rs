//! BATCH_MATMUL: TFLM's `batch_matmul.cc` / `batch_matmul_common.cc` (`BatchMatMulPrepare`,
//! `ReshapeOutputTensor`) and `GetQuantizedConvolutionMultipler` in `kernel_util.cc`, for the
//! kernels `stowplan::kernels::batch_matmul_f32`, `batch_matmul_s8` and `batch_matmul_s16`.
//!
//! TFLM's `Prepare` checks that both operands have rank 2 to 5 and the output's type, that the
//! batch dimensions broadcast and the depths agree, then rewrites the output's dimensions to
//! the broadcast batches and `[rows, columns]` (TFLM cannot resize, so the element count must
//! not change, and the output's rank must be at least the operands'). It keeps transposed
//! copies of the operands in persistent buffers, not in scratch: stowplan's kernels read the
//! operands where they are.

use quote::quote;

use super::{Call, Lower, OpKind, Refusal, i32_lit, invalid, kernel, product, requant, usize_lits};
use crate::quant;
use crate::tflite::{DType, OpOptions};

/// BATCH_MATMUL.
pub const BATCH_MATMUL: OpKind = kernel("batch_matmul", lower);

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    if cx.op.inputs.len() != 2 || cx.op.outputs.len() != 1 {
        return invalid(format!(
            "BATCH_MATMUL has {} inputs and {} outputs; TFLM's needs 2 and 1",
            cx.op.inputs.len(),
            cx.op.outputs.len()
        ));
    }
    let lhs = cx.input(0)?;
    let rhs = cx.input(1)?;
    let out = cx.output(0)?;
    // Without options TFLM's parser keeps its defaults: no adjoints.
    let (adj_x, adj_y) = match cx.op.options {
        OpOptions::BatchMatMul { adj_x, adj_y, .. } => (adj_x, adj_y),
        OpOptions::None => (false, false),
        _ => return invalid("its options are not BatchMatMulOptions"),
    };
    // batch_matmul.cc:188-197: float32, int8 or int16, all three alike.
    if !matches!(lhs.dtype, DType::Float32 | DType::Int8 | DType::Int16)
        || lhs.dtype != rhs.dtype
        || lhs.dtype != out.dtype
    {
        return invalid(format!(
            "{} is {}, {} {} and {} {}; TFLM's BATCH_MATMUL takes float32, int8 or int16, all alike (its Prepare fails)",
            lhs.desc(),
            lhs.dtype,
            rhs.desc(),
            rhs.dtype,
            out.desc(),
            out.dtype
        ));
    }
    let (ls, rs) = (cx.shape(lhs)?, cx.shape(rhs)?);
    for (t, s) in [(lhs, &ls), (rhs, &rs)] {
        if !(2..=5).contains(&s.len()) {
            return invalid(format!(
                "{} has rank {}; TFLM's BATCH_MATMUL takes ranks 2 to 5",
                t.desc(),
                s.len()
            ));
        }
    }
    let l = cx.shape_n::<5>(lhs)?;
    let r = cx.shape_n::<5>(rhs)?;
    // batch_matmul.cc:255-264: each batch dimension equal, or 1 in one of the operands.
    let mut dims = Vec::new();
    let output_rank = ls.len().max(rs.len());
    for (&x, &y) in l.iter().zip(&r).take(3).skip(5 - output_rank) {
        if x != y && x != 1 && y != 1 {
            return invalid(format!(
                "{} and {} have batch dimensions {x} and {y}, which do not broadcast",
                lhs.desc(),
                rhs.desc()
            ));
        }
        dims.push(if x == 1 { y } else { x });
    }
    let (rows, depth) = if adj_x { (l[4], l[3]) } else { (l[3], l[4]) };
    let (columns, rhs_depth) = if adj_y { (r[3], r[4]) } else { (r[4], r[3]) };
    if depth != rhs_depth {
        return invalid(format!(
            "{} has depth {depth} and {} {rhs_depth} (adj_x {adj_x}, adj_y {adj_y}); they must agree",
            lhs.desc(),
            rhs.desc()
        ));
    }
    dims.extend([rows, columns]);
    // batch_matmul_common.cc ReshapeOutputTensor: the output's rank at least the operands',
    // its element count unchanged.
    let out_rank = cx.shape(out)?.len();
    if out_rank < output_rank || product(&dims) != Some(cx.elements(out)?) {
        return invalid(format!(
            "{} has shape {:?}; BATCH_MATMUL makes {dims:?} (TFLM cannot resize it)",
            out.desc(),
            cx.shape(out)?
        ));
    }
    let (li, ri) = (usize_lits(&l), usize_lits(&r));
    let shape = quote!(#k::BatchMatMulShape { lhs: #li, rhs: #ri, adj_x: #adj_x, adj_y: #adj_y });
    let (params, f) = match lhs.dtype {
        DType::Float32 => (
            quote!(pub const #pname: #k::BatchMatMulF32 = #k::BatchMatMulF32 { shape: #shape };),
            quote!(batch_matmul_f32),
        ),
        dtype => {
            let (ls, lz) = cx.quant(lhs)?;
            let (rs, rz) = cx.quant(rhs)?;
            let (os, oz) = cx.quant(out)?;
            if dtype == DType::Int16 && (lz != 0 || rz != 0 || oz != 0) {
                // batch_matmul.cc:239-241.
                return invalid(format!(
                    "{}, {} and {} have zero points {lz}, {rz} and {oz}; an int16 BATCH_MATMUL needs 0",
                    lhs.desc(),
                    rhs.desc(),
                    out.desc()
                ));
            }
            // GetQuantizedConvolutionMultipler (the 4-argument one): the left-hand side as the
            // input, the right-hand side as the filter.
            let m = quant::fully_connected_multipliers(ls, &[rs], os)
                .first()
                .copied()
                .unwrap_or((0, 0));
            let m = requant(cx.rt, m);
            let (lo, hi) = if dtype == DType::Int8 {
                (i32::from(i8::MIN), i32::from(i8::MAX))
            } else {
                (i32::from(i16::MIN), i32::from(i16::MAX))
            };
            let (lo, hi) = (i32_lit(lo), i32_lit(hi));
            let (lo_off, ro_off, oo) = (
                i32_lit(cx.offset(lhs)?),
                i32_lit(cx.offset(rhs)?),
                i32_lit(oz),
            );
            (
                quote!(pub const #pname: #k::BatchMatMulQ = #k::BatchMatMulQ {
                    shape: #shape, lhs_offset: #lo_off, rhs_offset: #ro_off, output_offset: #oo,
                    requant: #m, act_min: #lo, act_max: #hi,
                };),
                if dtype == DType::Int8 {
                    quote!(batch_matmul_s8)
                } else {
                    quote!(batch_matmul_s16)
                },
            )
        }
    };
    Ok(Call {
        params: Some(params),
        body: quote!(#k::proven::#f(&params::#pname, i0, i1, o0);),
        reads: vec![0, 1],
        check: Some({
            let check_f = quote::format_ident!("check_{}", f.to_string());
            quote!(#k::#check_f(&#pname, i0, i1, o0))
        }),
    })
}
