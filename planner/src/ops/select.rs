//! SELECT_V2: TFLM's `select.cc` (`SelectPrepare`, `CheckBroadcastShape`), for the kernel
//! `stowplan::kernels::select` (float32, int8, int16, as TFLM's Eval).

use quote::quote;

use super::{Call, Lower, OpKind, Refusal, invalid, kernel, unsupported, usize_lits};
use crate::tflite::DType;

/// SELECT_V2.
pub const SELECT_V2: OpKind = kernel("select", lower);

/// TFLM's `CheckBroadcastShape` (select.cc:38-63) on the planned shapes: the output has the
/// largest rank, and each of its dimensions is the largest of the inputs' (0 if one is 0), every
/// input's 1 or that.
fn check_broadcast(shapes: [&[usize]; 3], output: &[usize]) -> Result<(), String> {
    let out_dims = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    if out_dims != output.len() {
        return Err(format!(
            "the output has rank {}, the inputs' largest is {out_dims}",
            output.len()
        ));
    }
    for i in 0..out_dims {
        let d = shapes.map(|s| {
            s.len()
                .checked_sub(i + 1)
                .and_then(|j| s.get(j).copied())
                .unwrap_or(1)
        });
        let min = d.iter().copied().min().unwrap_or(1);
        let mut max = d.iter().copied().max().unwrap_or(1);
        if min == 0 {
            max = 0;
        }
        if d.iter().any(|&x| x != 1 && x != max) {
            return Err(format!("the inputs' shapes {shapes:?} do not broadcast"));
        }
        let o = output
            .len()
            .checked_sub(i + 1)
            .and_then(|j| output.get(j).copied());
        if o != Some(max) {
            return Err(format!(
                "the output's shape {output:?} is not the broadcast of {shapes:?}"
            ));
        }
    }
    Ok(())
}

/// `shape` right-aligned into 6 dimensions.
fn six(shape: &[usize]) -> Result<[usize; 6], Refusal> {
    if shape.len() > 6 {
        return unsupported(format!(
            "a SELECT_V2 shape of rank {}; the kernel takes at most 6",
            shape.len()
        ));
    }
    let mut out = [1usize; 6];
    for (o, d) in out.iter_mut().skip(6 - shape.len()).zip(shape) {
        *o = *d;
    }
    Ok(out)
}

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    // select.cc:71-72
    if cx.op.inputs.len() != 3 || cx.op.outputs.len() != 1 {
        return invalid(format!(
            "SELECT_V2 has {} inputs and {} outputs; TFLM's Prepare needs 3 and 1",
            cx.op.inputs.len(),
            cx.op.outputs.len()
        ));
    }
    let (cond, x, y, out) = (cx.input(0)?, cx.input(1)?, cx.input(2)?, cx.output(0)?);
    // select.cc:85-87: a bool condition, x and y of one type (the output takes it).
    cx.expect_type(cond, DType::Bool, "condition")?;
    cx.same_type(x, y)?;
    cx.same_type(x, out)?;
    if !matches!(x.dtype, DType::Float32 | DType::Int8 | DType::Int16) {
        return unsupported(format!(
            "the runtime has no SELECT_V2 kernel for {} (nor has TFLM's)",
            x.dtype
        ));
    }
    let (sc, sx, sy, so) = (cx.shape(cond)?, cx.shape(x)?, cx.shape(y)?, cx.shape(out)?);
    let (nc, nx, ny, no) = (
        cx.elements(cond)?,
        cx.elements(x)?,
        cx.elements(y)?,
        cx.elements(out)?,
    );
    // select.cc:90-93, reference select.h:38-44: all of one element, or the same shapes, run
    // element by element.
    let shapes = if nc == 1 && nx == 1 && ny == 1 && no == 1 {
        [[1usize; 6]; 4]
    } else if sc == sx && sx == sy {
        if no != nx {
            return invalid(format!("{} has {no} elements, its inputs {nx}", out.desc()));
        }
        let s = six(&sx)?;
        [s; 4]
    } else {
        check_broadcast([&sc, &sx, &sy], &so)
            .map_err(|e| Refusal::Invalid(format!("{e} (TFLM's Prepare fails)")))?;
        [six(&sc)?, six(&sx)?, six(&sy)?, six(&so)?]
    };
    let [c, xs, ys, os] = shapes.map(|s| usize_lits(&s));
    Ok(Call {
        params: Some(quote!(pub const #pname: #k::SelectShape = #k::SelectShape {
            condition: #c, x: #xs, y: #ys, output: #os,
        };)),
        body: quote!(#k::proven::select(&params::#pname, i0, i1, i2, o0);),
        reads: vec![0, 1, 2],
        check: Some(quote!(#k::check_select(&#pname, i0, i1, i2, o0))),
    })
}
