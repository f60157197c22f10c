//! LOGISTIC with its output over the input it consumes: element by element through the
//! in-place driver's elementwise walk.

use super::{LogisticS8, LogisticS16};
use crate::kernels::shared::in_place::{elementwise_on_one_buffer, kernel_on_one_buffer};

elementwise_on_one_buffer! {
    /// [`logistic_s8`](super::logistic_s8) on one buffer.
    logistic_s8(LogisticS8, i8) => |p, x| super::logistic_s8_one(p, x);
}

kernel_on_one_buffer! {
    /// [`logistic_s16`](super::logistic_s16) on one buffer.
    logistic_s16(LogisticS16, i16) => |p, x, o| super::logistic_s16(p, x, &mut o);
    /// [`logistic_f32`](super::logistic_f32) on one buffer (no parameters: `()`).
    logistic_f32((), f32) => |_, x, o| super::logistic_f32(x, &mut o);
}
