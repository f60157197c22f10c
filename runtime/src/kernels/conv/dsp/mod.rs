//! CONV_2D blocked for the Cortex-M DSP extension (cfg `stowplan_dsp`; compiled on the host for
//! the tests, with the instructions' portable twins): the pointwise matrix product, every
//! other int8 shape with one group, and the int16 kernels.

pub(crate) mod gathered;
pub(crate) mod pointwise;
pub(crate) mod s16;
pub(crate) mod window;

use crate::kernels::conv::kernel::{
    GATHERED, KERNEL_BITS, POINTWISE, PORTABLE, WIDENED, WIDENED_64, WIDENED_336, WINDOW,
};
use crate::kernels::shared::requant::{
    EPILOGUE_BITS, EPILOGUE_GENERAL, EPILOGUE_SHIFT1, EPILOGUE_SHIFT2,
};
use crate::kernels::shared::{ConvS8, Part};

/// The int8 CONV_2D of `p` on `part` of its geometry as the Cortex-M DSP extension runs it,
/// with kernel `K` ([`kernel`](crate::kernels::conv::kernel)): the widened 1 x 1 pixel pairs
/// for whole geometries (the in-place driver's pointwise chunks are whole), whole geometries of
/// short filter rows gathered ([`gathered`]: first layers), the blocked windows for every other
/// shape with one group (the other 1 x 1 layers too), on any part ([`window`]), then the 1 x 1
/// kernel's pixel pairs; [`ANY`](crate::kernels::conv::kernel::ANY) tries them in that order. A
/// whole geometry of one-pixel-wide images (a 1-D convolution) runs as its rows
/// ([`ConvGeometry::columns_as_rows`](crate::kernels::shared::ConvGeometry::columns_as_rows):
/// the same bytes, blocked in pixel pairs).
/// Returns `false`, having written nothing, for what kernel `K` does not take (grouped
/// convolution, [`PORTABLE`]): the caller runs the portable kernel then.
#[inline(always)]
pub(crate) fn conv2d_s8_part<const K: u8>(
    p: &ConvS8,
    part: Part,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) -> bool {
    let rows;
    let whole = part == Part::WHOLE;
    let p = match p.geometry.columns_as_rows() {
        Some(geometry) if whole => {
            rows = ConvS8 { geometry, ..*p };
            &rows
        }
        _ => p,
    };
    // The kernel is `K`'s low bits; its epilogue bits go to the kernel (which runs the form
    // they name, or finds it).
    match K & KERNEL_BITS {
        POINTWISE => whole && pointwise::conv1x1_s8::<K>(p, input, filter, bias, output),
        GATHERED => {
            (whole && gathered::conv_s8::<K>(p, input, filter, bias, output))
                || window_s8::<K>(p, part, input, filter, bias, output)
        }
        WINDOW => window_s8::<K>(p, part, input, filter, bias, output),
        WIDENED_64 | WIDENED | WIDENED_336 => {
            whole && pointwise::widened_s8::<K>(p, input, filter, bias, output)
        }
        PORTABLE => false,
        _ => {
            (whole
                && (pointwise::widened_s8::<K>(p, input, filter, bias, output)
                    || gathered::conv_s8::<K>(p, input, filter, bias, output)))
                || window_s8::<K>(p, part, input, filter, bias, output)
                || (whole && pointwise::conv1x1_s8::<K>(p, input, filter, bias, output))
        }
    }
}

/// The int8 CONV_2D of `p`'s whole geometry with kernel `K`'s working memory in `scratch` (the
/// arena's: [`conv2d_s8_scratch`](crate::kernels::conv::kernel::conv2d_s8_scratch)): the
/// widened 1 x 1 pixel pairs, or the window kernel's whole windows. A 1-D convolution runs as
/// its rows, as [`conv2d_s8_part`] runs it. Returns `false`, having written nothing, for what
/// the kernel does not take (the caller runs the portable kernel then).
pub(crate) fn conv2d_s8_scratch_s8<const K: u8>(
    p: &ConvS8,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
    scratch: &mut [u32],
) -> bool {
    let rows;
    let p = match p.geometry.columns_as_rows() {
        Some(geometry) => {
            rows = ConvS8 { geometry, ..*p };
            &rows
        }
        None => p,
    };
    match K & KERNEL_BITS {
        WIDENED_64 | WIDENED | WIDENED_336 => {
            pointwise::widened_scratch_s8::<K>(p, input, filter, bias, output, scratch)
        }
        WINDOW => window::conv_scratch_s8::<K>(p, input, filter, bias, output, scratch),
        _ => false,
    }
}

/// [`window::conv_s8`] for kernel `K`: one copy per epilogue form, whichever kernel falls back
/// to it (`GATHERED`'s parts and the window kernel's own calls share it).
#[inline(always)]
fn window_s8<const K: u8>(
    p: &ConvS8,
    part: Part,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) -> bool {
    match K & EPILOGUE_BITS {
        EPILOGUE_SHIFT2 => {
            window::conv_s8::<{ WINDOW | EPILOGUE_SHIFT2 }>(p, part, input, filter, bias, output)
        }
        EPILOGUE_SHIFT1 => {
            window::conv_s8::<{ WINDOW | EPILOGUE_SHIFT1 }>(p, part, input, filter, bias, output)
        }
        EPILOGUE_GENERAL => {
            window::conv_s8::<{ WINDOW | EPILOGUE_GENERAL }>(p, part, input, filter, bias, output)
        }
        _ => window::conv_s8::<WINDOW>(p, part, input, filter, bias, output),
    }
}

/// A layer's input and output: two slices, or one buffer holding both (the kernels' own walks
/// of one buffer, [`pointwise`]'s widened pixel pairs and [`window`]'s).
pub(super) enum Tensors<'a> {
    Apart(&'a [i8], &'a mut [i8]),
    One(&'a mut [i8]),
}

impl Tensors<'_> {
    /// The `n` input elements from `i`, if inside.
    #[inline(always)]
    pub(super) fn input(&self, i: usize, n: usize) -> Option<&[i8]> {
        match self {
            Tensors::Apart(x, _) => x.get(i..)?.get(..n),
            Tensors::One(b) => b.get(i..)?.get(..n),
        }
    }

    /// The `m` output elements from `o`, if inside.
    #[inline(always)]
    pub(super) fn output(&mut self, o: usize, m: usize) -> Option<&mut [i8]> {
        match self {
            Tensors::Apart(_, y) => y.get_mut(o..)?.get_mut(..m),
            Tensors::One(b) => b.get_mut(o..)?.get_mut(..m),
        }
    }

    /// The `n` input elements from `i` and the `m` output elements from `o` at once, if both
    /// are inside and (on one buffer) they share no element.
    pub(super) fn apart(
        &mut self,
        (i, n): (usize, usize),
        (o, m): (usize, usize),
    ) -> Option<(&[i8], &mut [i8])> {
        match self {
            Tensors::Apart(x, y) => Some((x.get(i..)?.get(..n)?, y.get_mut(o..)?.get_mut(..m)?)),
            Tensors::One(b) => {
                if o.checked_add(m)? <= i {
                    let (lo, hi) = b.split_at_mut_checked(i)?;
                    Some((hi.get(..n)?, lo.get_mut(o..)?.get_mut(..m)?))
                } else if i.checked_add(n)? <= o {
                    let (lo, hi) = b.split_at_mut_checked(o)?;
                    Some((lo.get(i..)?.get(..n)?, hi.get_mut(..m)?))
                } else {
                    None
                }
            }
        }
    }
}
