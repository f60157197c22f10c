//! Which loop runs an int8 ADD, chosen when the crate compiles.
//!
//! [`add_s8`](super::add_s8) chooses its loop at every call, from the shapes, the offsets and
//! the forms of the three scalings, so a firmware that calls it links every loop. Generated code
//! instead evaluates [`add_s8_kernel`] in a constant, when the crate compiles, and calls the
//! proven entries `add_s8_with::<K>` (and the one-buffer `overlap::add_s8_with::<K>`) with it:
//! only the loop each ADD runs is linked, and no choice is made at run time. The outputs are
//! the same whatever the kernel; on targets without the DSP extension every kernel is the
//! portable walk. A constant other than the layer's choice (or [`ANY`] and [`PORTABLE`]) fails
//! the entries' check ([`add_s8_takes`]).

use super::AddS8;
use crate::kernels::shared::broadcast::{BinaryShape, offset_fits};
use crate::kernels::shared::requant::apply_form;

/// Chosen at every call, as [`add_s8`](super::add_s8) does.
pub const ANY: u8 = 0;
/// The same shapes, each element's three scalings in their general forms.
pub const SAME: u8 = 1;
/// The same shapes with one input's multiplier 1/2, the other's a right shift of 1 and the
/// output's of 2 and more: the residual connections' scalings, written out per element.
pub const SAME_HALF_SHIFT1: u8 = 2;
/// [`SAME_HALF_SHIFT1`] with the other input's right shift of 2 and more.
pub const SAME_HALF_SHIFT2: u8 = 3;
/// [`SAME_HALF_SHIFT1`] with both inputs' multipliers 1/2.
pub const SAME_HALVES: u8 = 4;
/// The second input a single element, its term computed once.
pub const SECOND_SCALAR: u8 = 5;
/// The first input a single element, its term computed once.
pub const FIRST_SCALAR: u8 = 6;
/// The portable walk: the other broadcasts, input offsets out of the halfword lanes' range,
/// and every ADD on targets without the DSP extension.
pub const PORTABLE: u8 = 7;

/// The kernel's name, for reports and messages: its constant's name in lower case (`"any"` for
/// [`ANY`], `"unknown"` for a value that names no kernel).
#[must_use]
pub const fn name(kernel: u8) -> &'static str {
    match kernel {
        ANY => "any",
        SAME => "same",
        SAME_HALF_SHIFT1 => "same_half_shift1",
        SAME_HALF_SHIFT2 => "same_half_shift2",
        SAME_HALVES => "same_halves",
        SECOND_SCALAR => "second_scalar",
        FIRST_SCALAR => "first_scalar",
        PORTABLE => "portable",
        _ => "unknown",
    }
}

/// Whether two shapes are the same.
const fn same(a: &[usize; 6], b: &[usize; 6]) -> bool {
    let mut d = 0;
    while d < 6 {
        if a[d] != b[d] {
            return false;
        }
        d += 1;
    }
    true
}

/// Whether a shape has one element.
const fn one(a: &[usize; 6]) -> bool {
    let mut d = 0;
    while d < 6 {
        if a[d] != 1 {
            return false;
        }
        d += 1;
    }
    true
}

/// The loop [`add_s8`](super::add_s8) runs `p` with on a core with the DSP extension: for the
/// same shapes, the residual connections' written-out scalings ([`SAME_HALF_SHIFT1`],
/// [`SAME_HALF_SHIFT2`], [`SAME_HALVES`]) when one input's multiplier is 1/2 and the output's
/// a right shift of 2 and more, else [`SAME`]; [`SECOND_SCALAR`] or [`FIRST_SCALAR`] for a
/// single-element input; [`PORTABLE`] for the other broadcasts and for input offsets out of
/// the halfword lanes' range.
#[must_use]
pub const fn add_s8_kernel(p: &AddS8) -> u8 {
    if !offset_fits(p.input1_offset) || !offset_fits(p.input2_offset) {
        return PORTABLE;
    }
    let s: &BinaryShape = &p.shape;
    if same(&s.input1, &s.output) && same(&s.input2, &s.output) {
        let (f1, f2, fo) = (
            apply_form(p.input1),
            apply_form(p.input2),
            apply_form(p.output),
        );
        if (f1 == 4 || f2 == 4) && fo == 2 {
            let other = if f1 == 4 { f2 } else { f1 };
            return match other {
                4 => SAME_HALVES,
                2 => SAME_HALF_SHIFT2,
                1 => SAME_HALF_SHIFT1,
                _ => SAME,
            };
        }
        SAME
    } else if same(&s.input1, &s.output) && one(&s.input2) {
        SECOND_SCALAR
    } else if one(&s.input1) && same(&s.input2, &s.output) {
        FIRST_SCALAR
    } else {
        PORTABLE
    }
}

/// Whether `kernel` runs `p`: [`ANY`] and [`PORTABLE`] run every ADD, every other kernel the
/// ADDs [`add_s8_kernel`] chooses it for.
#[must_use]
pub const fn add_s8_takes(kernel: u8, p: &AddS8) -> bool {
    kernel == ANY || kernel == PORTABLE || kernel == add_s8_kernel(p)
}
