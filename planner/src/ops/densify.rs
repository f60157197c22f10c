//! DENSIFY: TensorFlow Lite's `densify.cc` (TFLM has no such kernel), for the kernel
//! `stowplan::kernels::densify`: a constant sparse tensor (`SparsityParameters`) written out
//! dense. stowplan evaluates it only when the crate compiles ([`crate::fold`]); on the device it
//! has no kernel.

use super::{Call, Lower, OpKind, Refusal, invalid, kernel, le_bytes, unsupported, with_element};
use crate::kernels;
use crate::tflite::{DimensionFormat, Sparsity, Tensor};

/// DENSIFY.
pub const DENSIFY: OpKind = OpKind {
    fold: Some(fold),
    ..kernel("densify", lower)
};

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let (input, out) = (cx.input(0)?, cx.output(0)?);
    check(cx, input, out)?;
    unsupported(format!(
        "the runtime has no DENSIFY kernel: it runs only folded when the crate compiles, and {} was not",
        out.desc()
    ))
}

/// TensorFlow Lite's `densify.cc` Prepare checks: one constant sparse input of the output's
/// type and shape.
fn check<'t>(cx: &Lower<'_>, input: &'t Tensor, out: &Tensor) -> Result<&'t Sparsity, Refusal> {
    if cx.op.inputs.len() != 1 || cx.op.outputs.len() != 1 {
        return invalid("DENSIFY takes 1 input and 1 output");
    }
    cx.same_type(input, out)?;
    let Some(sparsity) = input.sparsity.as_ref() else {
        return invalid(format!("{} of DENSIFY is not sparse", input.desc()));
    };
    if cx.shape(input)? != cx.shape(out)? {
        return invalid(format!(
            "{} and {} differ in shape",
            input.desc(),
            out.desc()
        ));
    }
    Ok(sparsity)
}

/// The values a sparse constant's buffer holds (not its shape's: the encoding says where
/// they go).
fn sparse_values<'a>(cx: &Lower<'a>, t: &Tensor) -> Result<&'a [u8], Refusal> {
    cx.model
        .buffers
        .get(t.buffer.get())
        .and_then(|b| b.data.clone())
        .and_then(|r| cx.bytes.get(r))
        .ok_or_else(|| Refusal::Unsupported(format!("{} has no data", t.desc())))
}

/// The dense tensor, on the host ([`super::Folding`]): the runtime's kernel.
pub(super) fn fold(cx: &Lower<'_>) -> Result<Vec<Vec<u8>>, Refusal> {
    let (input, out) = (cx.input(0)?, cx.output(0)?);
    let sparsity = check(cx, input, out)?;
    let shape = cx.shape(out)?;
    let bad = |why: String| Refusal::Invalid(format!("{} of DENSIFY: {why}", input.desc()));
    let usize_of =
        |v: i32, what: &str| usize::try_from(v).map_err(|_| bad(format!("{what} {v} is negative")));
    let traversal_order = sparsity
        .traversal_order
        .iter()
        .map(|&v| usize_of(v, "traversal order entry"))
        .collect::<Result<Vec<_>, _>>()?;
    let block_map = sparsity
        .block_map
        .iter()
        .map(|&v| usize_of(v, "block map entry"))
        .collect::<Result<Vec<_>, _>>()?;
    if block_map.iter().any(|&d| d >= shape.len()) {
        return Err(bad(format!(
            "block map {block_map:?} for rank {}",
            shape.len()
        )));
    }
    let mut levels = Vec::with_capacity(sparsity.dim_metadata.len());
    for (l, m) in sparsity.dim_metadata.iter().enumerate() {
        let dense = m.format == DimensionFormat::Dense;
        if !dense && m.segments.windows(2).any(|w| w.first() > w.get(1)) {
            return Err(bad(format!("the segments of level {l} decrease")));
        }
        levels.push(kernels::DensifyLevel {
            dense,
            size: if dense {
                usize_of(m.dense_size, "dense size")?
            } else {
                0
            },
            segments: &m.segments,
            indices: &m.indices,
        });
    }
    let p = kernels::Densify {
        shape: &shape,
        traversal_order: &traversal_order,
        block_map: &block_map,
        levels: &levels,
    };
    let data = sparse_values(cx, input)?;
    let dtype = out.dtype;
    with_element!(
        dtype,
        T => {
            let values = super::values::<T>(data);
            let mut o = cx.output_values::<T>(0)?;
            if let Err(e) = kernels::densify(&p, &values, &mut o) {
                return Err(bad(format!(
                    "its encoding (traversal order {traversal_order:?}, block map {block_map:?}, {} levels, {} values) does not fit shape {shape:?}: {e}",
                    levels.len(),
                    values.len()
                )));
            }
            Ok(vec![le_bytes(&o)])
        },
        unsupported(format!("DENSIFY of {dtype}"))
    )
}
