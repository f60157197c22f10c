//! STRIDED_SLICE: TFLM's `strided_slice.cc` / `strided_slice_common.cc` (`StridedSlicePrepare`,
//! `CheckOutputSize`) and the index set-up of `reference_ops::StridedSlice`
//! (`strided_slice_logic.h`: `StridedSlicePadIndices`, `StridedSliceStartForAxis`,
//! `StridedSliceEndForAxis`), for the kernel `stowplan::kernels::strided_slice` (any element
//! type).
//!
//! As TFLM's micro kernel: `begin`, `end` and `strides` are constants read as int32, ranks up
//! to 4; `ellipsis_mask` and `new_axis_mask` are ignored (set to 0) and so is `offset` (never
//! copied into the kernel's parameters); the masks are `uint16_t`.

use quote::quote;

use super::{
    Call, Lower, OpKind, Refusal, i32_lits, invalid, kernel, pad_front, raw_i32s, usize_lits,
};
use crate::tflite::{DType, OpOptions};

/// STRIDED_SLICE.
pub const STRIDED_SLICE: OpKind = kernel("strided_slice", lower);

/// TFLM's `kMaxDim` ("input dim should not exceed 4").
const MAX_RANK: usize = 4;

/// The types `StridedSliceEval` takes.
const TYPES: &[DType] = &[
    DType::Float32,
    DType::Int8,
    DType::Int16,
    DType::Int32,
    DType::Bool,
];

/// `strided_slice::Clamp`.
fn clamp(v: i32, lo: i32, hi: i32) -> i32 {
    if hi < v {
        hi
    } else if v < lo {
        lo
    } else {
        v
    }
}

/// One dimension of `tflite::StridedSliceParams`: its indices and its bits of the masks.
#[derive(Clone, Copy, Default)]
struct Axis {
    start: i32,
    stop: i32,
    stride: i32,
    begin_mask: bool,
    end_mask: bool,
    shrink: bool,
}

/// `strided_slice::StartForAxis` (Prepare's `CheckOutputSize`).
fn start_for_axis(a: &Axis, size: i32) -> i32 {
    if size == 0 {
        return 0;
    }
    let mut start = a.start;
    if a.begin_mask {
        start = if a.stride > 0 { i32::MIN } else { i32::MAX };
    }
    if start < 0 {
        start = start.wrapping_add(size);
    }
    if a.stride > 0 {
        clamp(start, 0, size)
    } else {
        clamp(start, -1, size - 1)
    }
}

/// `strided_slice::StopForAxis`.
fn stop_for_axis(a: &Axis, size: i32, start: i32) -> i32 {
    if size == 0 {
        return 0;
    }
    if a.shrink {
        return start.wrapping_add(1);
    }
    let mut stop = a.stop;
    if a.end_mask {
        stop = if a.stride > 0 { i32::MAX } else { i32::MIN };
    }
    if stop < 0 {
        stop = stop.wrapping_add(size);
    }
    if a.stride > 0 {
        clamp(stop, 0, size)
    } else {
        clamp(stop, -1, size - 1)
    }
}

/// `strided_slice::StridedSliceStartForAxis` (the kernel's).
fn kernel_start(a: &Axis, size: i32) -> i32 {
    let mut start = a.start;
    if start < 0 {
        start = start.wrapping_add(size);
    }
    start = if a.stride > 0 {
        clamp(start, 0, size)
    } else {
        clamp(start, -1, size - 1)
    };
    if a.begin_mask {
        start = if a.stride > 0 { 0 } else { size - 1 };
    }
    start
}

/// `strided_slice::StridedSliceEndForAxis` (the kernel's; `offset` is false).
fn kernel_end(a: &Axis, size: i32, start: i32) -> i32 {
    if a.shrink {
        return if start >= size {
            start
        } else {
            start.wrapping_add(1)
        };
    }
    let mut end = a.stop;
    if end < 0 {
        end = end.wrapping_add(size);
    }
    end = if a.stride > 0 {
        clamp(end, 0, size)
    } else {
        clamp(end, -1, size - 1)
    };
    if a.end_mask {
        end = if a.stride > 0 { size } else { -1 };
    }
    end
}

/// How many indices TFLM's loop `for (i = start; stride > 0 ? i < stop : i > stop; i +=
/// stride)` visits, and whether its last `i += stride` stays inside int32.
fn visits(start: i32, stop: i32, stride: i32) -> (i64, bool) {
    let (a, b, s) = (i64::from(start), i64::from(stop), i64::from(stride));
    let n = if s > 0 && b > a {
        (b - a + s - 1) / s
    } else if s < 0 && a > b {
        (a - b - s - 1) / -s
    } else {
        0
    };
    let after = a + n * s;
    (n, i32::try_from(after).is_ok())
}

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    if cx.op.inputs.len() != 4 || cx.op.outputs.len() != 1 {
        return invalid("STRIDED_SLICE takes 4 inputs and 1 output (TFLM's Prepare)");
    }
    let input = cx.input(0)?;
    let out = cx.output(0)?;
    let ishape = cx.shape(input)?;
    let dims = ishape.len();
    if dims > MAX_RANK {
        return invalid(format!(
            "{} has rank {dims}; TFLM's STRIDED_SLICE takes up to {MAX_RANK}",
            input.desc()
        ));
    }
    let read = |i: usize, role: &str| -> Result<Vec<i32>, Refusal> {
        let t = cx.input(i)?;
        let data = cx.tflm_constant(t, role)?;
        raw_i32s(data, dims).ok_or_else(|| {
            Refusal::Invalid(format!(
                "{} ({role}) holds fewer than {dims} int32 values, which TFLM reads",
                t.desc()
            ))
        })
    };
    let (begin, end, strides) = (read(1, "begin")?, read(2, "end")?, read(3, "strides")?);
    let (begin_mask, end_mask, shrink) = match cx.op.options {
        OpOptions::StridedSlice {
            begin_mask,
            end_mask,
            shrink_axis_mask,
            ..
        } => (begin_mask, end_mask, shrink_axis_mask),
        OpOptions::None => (0, 0, 0),
        _ => return invalid("its options are not StridedSliceOptions"),
    };
    // BuildStridedSliceParams: the masks into uint16_t fields, ellipsis and new axis 0; then
    // StridedSlicePadIndices to 5 dimensions (the added ones first: start 0, stop 1, stride 1,
    // in both the begin and the end mask; the masks shifted, still 16 bits wide).
    let (begin_mask, end_mask, shrink) = (begin_mask as u16, end_mask as u16, shrink as u16);
    let bit = |m: u16, d: usize| u32::from(m) & (1_u32 << d) != 0;
    let axes: Vec<Axis> = (0..dims)
        .map(|d| Axis {
            start: begin.get(d).copied().unwrap_or(0),
            stop: end.get(d).copied().unwrap_or(0),
            stride: strides.get(d).copied().unwrap_or(0),
            begin_mask: bit(begin_mask, d),
            end_mask: bit(end_mask, d),
            shrink: bit(shrink, d),
        })
        .collect();
    // CheckOutputSize (strided_slice_common.cc:90-125).
    let mut kept = Vec::with_capacity(dims);
    for (d, (a, &n)) in axes.iter().zip(&ishape).enumerate() {
        if a.stride == 0 {
            return invalid(format!(
                "stride {d} is 0 (TFLM's Prepare: it must be non-zero)"
            ));
        }
        let size = i32::try_from(n).unwrap_or(i32::MAX);
        let b = start_for_axis(a, size);
        let e = if a.shrink {
            b.wrapping_add(1)
        } else {
            stop_for_axis(a, size, b)
        };
        if !a.shrink {
            let q = stowplan_math::ceilf(e.wrapping_sub(b) as f32 / a.stride as f32);
            kept.push(usize::try_from((q as i32).max(0)).unwrap_or(0));
        }
    }
    cx.expect_shape(out, &kept)?;
    cx.same_type(input, out)?;
    cx.one_of(out, TYPES)?;
    let pad = 5 - dims;
    let padded = Axis {
        start: 0,
        stop: 1,
        stride: 1,
        begin_mask: true,
        end_mask: true,
        shrink: false,
    };
    let shifted = |m: u16, d: usize| bit((u32::from(m) << pad) as u16, d + pad);
    let shape5 = pad_front::<5, usize>(&ishape, 1)
        .ok_or_else(|| Refusal::Invalid(format!("rank {dims} above 5")))?;
    let mut start = [0_i32; 5];
    let mut stop = [0_i32; 5];
    let mut stride = [1_i32; 5];
    let mut visited = 1_i64;
    let all = core::iter::repeat_n(padded, pad).chain(axes.iter().enumerate().map(|(d, a)| Axis {
        begin_mask: shifted(begin_mask, d),
        end_mask: shifted(end_mask, d),
        shrink: shifted(shrink, d),
        ..*a
    }));
    for (d, (a, ((s, e), st))) in all
        .zip(start.iter_mut().zip(stop.iter_mut()).zip(stride.iter_mut()))
        .enumerate()
    {
        let n = i32::try_from(shape5.get(d).copied().unwrap_or(1)).unwrap_or(i32::MAX);
        *s = kernel_start(&a, n);
        *e = kernel_end(&a, n, *s);
        *st = a.stride;
        let (count, fits) = visits(*s, *e, a.stride);
        if !fits {
            return invalid(format!(
                "STRIDED_SLICE's index along dimension {d} steps past int32 (stride {})",
                a.stride
            ));
        }
        visited = visited.saturating_mul(count);
    }
    let elements = cx.elements(out)?;
    if usize::try_from(visited).ok() != Some(elements) {
        return invalid(format!(
            "TFLM's STRIDED_SLICE kernel visits {visited} elements for {} of {elements} (a shrunk axis past the end, or with a negative stride)",
            out.desc()
        ));
    }
    let (i, s, e, st) = (
        usize_lits(&shape5),
        i32_lits(&start),
        i32_lits(&stop),
        i32_lits(&stride),
    );
    Ok(Call {
        params: Some(
            quote!(pub const #pname: #k::StridedSlice = #k::StridedSlice {
            input: #i, start: #s, stop: #e, stride: #st,
        };),
        ),
        body: quote!(#k::proven::strided_slice(&params::#pname, i0, o0);),
        reads: vec![0],
        check: Some(quote!(#k::check_strided_slice(&#pname, i0, o0))),
    })
}
