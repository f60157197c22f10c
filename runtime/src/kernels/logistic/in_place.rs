//! LOGISTIC with its output over the input it consumes: element by element through the
//! in-place driver's elementwise walk.

use super::{LogisticS8, LogisticS16};
use crate::kernels::shared::in_place::elementwise_on_one_buffer;

elementwise_on_one_buffer! {
    mod proven_logistic;
    /// [`logistic_s8`](super::logistic_s8) on one buffer.
    logistic_s8, check_logistic_s8 (LogisticS8, i8) => value(|p, x| crate::kernels::logistic::logistic_s8_one(p, x));
    /// [`logistic_s16`](super::logistic_s16) on one buffer.
    logistic_s16, check_logistic_s16 (LogisticS16, i16) => kernel(|p, x, o| crate::kernels::logistic::proven::logistic_s16(p, x, &mut o));
    /// [`logistic_f32`](super::logistic_f32) on one buffer (no parameters: `()`).
    logistic_f32, check_logistic_f32 ((), f32) => kernel(|_, x, o| crate::kernels::logistic::proven::logistic_f32(x, &mut o));
}
