//! What the signal library's ops share at build time: their custom options, read as TFLM's
//! `FlexbufferWrapper` reads them (`signal/micro/kernels/*.cc`, `*Init`): by position among
//! the map's values (keys in sorted order), each value's inline bytes as `ReadInt64` or
//! `ReadUInt64` read them, whatever its type.

use super::{Lower, Refusal, invalid, unsupported};
use crate::tflite::flexbuffer::{self, Map};
use crate::tflite::{DType, Op, Tensor};

/// The op's options map (`Invalid` when TFLM would read past its options).
pub(super) fn options<'a>(cx: &Lower<'a>) -> Result<Map<'a>, Refusal> {
    let Some(range) = cx.op.custom_options.clone() else {
        return invalid(format!(
            "{} has no custom_options, from which TFLM reads its options",
            cx.name()
        ));
    };
    let bytes = cx
        .bytes
        .get(range)
        .ok_or_else(|| Refusal::Invalid("its custom_options lie outside the file".to_owned()))?;
    options_of(bytes).map_err(Refusal::Invalid)
}

/// The options map of custom options `bytes`.
pub(super) fn options_of(bytes: &[u8]) -> Result<Map<'_>, String> {
    match flexbuffer::root_map(bytes) {
        Ok(Some(m)) => Ok(m),
        Ok(None) => Err(
            "its custom_options are not a FlexBuffers map, whose values TFLM reads by position"
                .to_owned(),
        ),
        Err(e) => Err(format!(
            "its custom_options are not a valid FlexBuffers map: {e}"
        )),
    }
}

/// The options of `op` in `file` (for the size functions, which see no [`Lower`]).
pub(super) fn options_in<'a>(file: &'a [u8], op: &Op) -> Option<Map<'a>> {
    options_of(file.get(op.custom_options.clone()?)?).ok()
}

/// `ElementAsInt32(i)` of option `name` (for messages).
pub(super) fn int32(map: &Map<'_>, i: usize, name: &str) -> Result<i32, Refusal> {
    map.element_raw(i)
        .map(|(v, _)| v as i32)
        .ok_or_else(|| missing(map, i, name))
}

/// `ElementAsBool(i)` of option `name`.
pub(super) fn boolean(map: &Map<'_>, i: usize, name: &str) -> Result<bool, Refusal> {
    map.element_raw(i)
        .map(|(_, u)| u != 0)
        .ok_or_else(|| missing(map, i, name))
}

fn missing(map: &Map<'_>, i: usize, name: &str) -> Refusal {
    Refusal::Invalid(format!(
        "option {name} is value {i} of the options, which hold {} (TFLM reads past them)",
        map.len()
    ))
}

/// An option used as a shift count: 0 to `max` (TFLM's shifts by more are undefined).
pub(super) fn shift(v: i32, name: &str, max: u32) -> Result<u32, Refusal> {
    match u32::try_from(v) {
        Ok(s) if s <= max => Ok(s),
        _ => unsupported(format!(
            "option {name} is {v}; TFLM shifts by it, which C++ defines for 0 to {max} only"
        )),
    }
}

/// The op has `ins` inputs and `outs` outputs (TFLM's Prepare checks).
pub(super) fn arity(cx: &Lower<'_>, ins: usize, outs: usize) -> Result<(), Refusal> {
    if cx.op.inputs.len() == ins && cx.op.outputs.len() == outs {
        Ok(())
    } else {
        invalid(format!(
            "{} has {} inputs and {} outputs; TFLM's Prepare requires {ins} and {outs}",
            cx.name(),
            cx.op.inputs.len(),
            cx.op.outputs.len()
        ))
    }
}

/// The tensor has `rank` dimensions and type `dtype` (TFLM's Prepare checks); its shape.
pub(super) fn tensor(
    cx: &Lower<'_>,
    t: &Tensor,
    rank: usize,
    dtype: DType,
    role: &str,
) -> Result<Vec<usize>, Refusal> {
    let shape = cx.shape(t)?;
    if shape.len() != rank {
        return invalid(format!(
            "{} ({role} of {}) has {} dimensions; TFLM's Prepare requires {rank}",
            t.desc(),
            cx.name(),
            shape.len()
        ));
    }
    cx.expect_type(t, dtype, role)?;
    Ok(shape)
}

/// `usize` of a model value known not to be negative.
pub(super) fn count(v: i32, what: &str) -> Result<usize, Refusal> {
    usize::try_from(v)
        .map_err(|_| Refusal::Invalid(format!("{what} is {v}; it cannot be negative")))
}
