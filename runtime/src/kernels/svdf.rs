//! SVDF: TFLM's `EvalIntegerSvdfReference` (int8 input and output, int8 or int16 state and time
//! weights) and `EvalFloatSvdfReference` (`tensorflow/lite/micro/kernels/svdf_common.cc`).
//!
//! The state (`activation_state`, `[batches, filters × memory]`) is a variable tensor the op
//! updates in place: every call shifts it left by one element, writes the feature matmul of the
//! new input into each filter's last column and reduces it with the time weights. TFLM computes
//! the time products into a scratch buffer and then sums each unit's `rank` filters into a
//! second one; here each unit's sum is accumulated directly, adding the same terms in the same
//! order (so no scratch is needed and every bit is the same).

use super::shared::check::{KernelError, check, elements, length, optional_length, require};
use stowplan_math::tanhf;

use stowplan_math::sse;

use super::shared::{Requant, sized, sized_mut};

/// The sizes of an SVDF.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SvdfShape {
    /// The input's and output's first dimension.
    pub batches: usize,
    /// The input's second dimension (the feature weights' second).
    pub input_size: usize,
    /// The feature and time weights' first dimension (`units × rank`).
    pub filters: usize,
    /// Filters summed per output unit (`SVDFOptions.rank`, positive).
    pub rank: usize,
    /// The time weights' second dimension: inputs each filter remembers.
    pub memory: usize,
}

impl SvdfShape {
    /// `filters / rank`: the output's second dimension (0 for a zero rank).
    #[must_use]
    pub const fn units(&self) -> usize {
        match self.filters.checked_div(self.rank) {
            Some(u) => u,
            None => 0,
        }
    }
}

/// Parameters of an int8 SVDF (TFLM's `OpDataSvdf`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SvdfS8 {
    /// The sizes.
    pub shape: SvdfShape,
    /// The input zero point.
    pub input_zero_point: i32,
    /// The state's zero point.
    pub state_zero_point: i32,
    /// The output zero point.
    pub output_zero_point: i32,
    /// `QuantizeMultiplier(input_scale × feature_scale / state_scale)` (`effective_scale_1`).
    pub feature: Requant,
    /// `QuantizeMultiplier(state_scale × time_scale / output_scale)` (`effective_scale_2`).
    pub time: Requant,
}

/// The fused activation of a float SVDF, as TFLM's `ActivationValFloat` applies it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SvdfActivation {
    /// None.
    None,
    /// `fmax(0, x)`.
    Relu,
    /// `fmax(-1, fmin(x, 1))`.
    ReluN1To1,
    /// `fmax(0, fmin(x, 6))`.
    Relu6,
    /// `tanhf(x)`.
    Tanh,
    /// `signbit(x)` as 1 or 0.
    SignBit,
}

/// Parameters of a float SVDF.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SvdfF32 {
    /// The sizes.
    pub shape: SvdfShape,
    /// The fused activation.
    pub activation: SvdfActivation,
}

/// The state and time weights' element types of the integer SVDF.
trait StateType: Copy {
    const MIN: i32;
    const MAX: i32;
    fn widen(self) -> i32;
    /// The C++ conversion of an `int` to this type (modulo 2^bits).
    fn narrow(v: i32) -> Self;
}

impl StateType for i8 {
    const MIN: i32 = i8::MIN as i32;
    const MAX: i32 = i8::MAX as i32;
    fn widen(self) -> i32 {
        i32::from(self)
    }
    fn narrow(v: i32) -> Self {
        v as i8
    }
}

impl StateType for i16 {
    const MIN: i32 = i16::MIN as i32;
    const MAX: i32 = i16::MAX as i32;
    fn widen(self) -> i32 {
        i32::from(self)
    }
    fn narrow(v: i32) -> Self {
        v as i16
    }
}

/// The slices of an SVDF sized to its shape, or `None` if one is too short.
struct Sized<'a, W, S, O> {
    input: &'a [W],
    feature: &'a [W],
    time: &'a [S],
    state: &'a mut [S],
    output: &'a mut [O],
}

fn sized_all<'a, W, S, O>(
    s: &SvdfShape,
    input: &'a [W],
    feature: &'a [W],
    time: &'a [S],
    state: &'a mut [S],
    output: &'a mut [O],
) -> Option<Sized<'a, W, S, O>> {
    if s.rank == 0 || !s.filters.is_multiple_of(s.rank) {
        return None;
    }
    Some(Sized {
        input: sized(input, &[s.batches, s.input_size])?,
        feature: sized(feature, &[s.filters, s.input_size])?,
        time: sized(time, &[s.filters, s.memory])?,
        state: sized_mut(state, &[s.batches, s.filters, s.memory])?,
        output: sized_mut(output, &[s.batches, s.units()])?,
    })
}

/// Shifts the state left by one element (the whole `[batches × filters × memory]` buffer, as
/// TFLM's loop does; each filter's last column is written next).
fn shift_state<T: Copy>(state: &mut [T]) {
    if !state.is_empty() {
        state.copy_within(1.., 0);
    }
}

/// The feature pass: for each batch and filter, `dot(weights, input row)` into the filter's
/// last state column (nothing when `memory` is 0).
fn feature_pass<W, S, O>(s: &SvdfShape, v: &mut Sized<'_, W, S, O>, dot: impl Fn(&[W], &[W]) -> S) {
    let (n_input, n_filter, n_memory) = (s.input_size, s.filters, s.memory);
    if n_memory == 0 {
        return;
    }
    for b in 0..s.batches {
        let row = v.input.get(b * n_input..(b + 1) * n_input).unwrap_or(&[]);
        for f in 0..n_filter {
            let weights = v.feature.get(f * n_input..(f + 1) * n_input).unwrap_or(&[]);
            if let Some(slot) = v
                .state
                .get_mut((b * n_filter + f) * n_memory + n_memory - 1)
            {
                *slot = dot(weights, row);
            }
        }
    }
}

/// The time pass: for each batch and unit, in order, `add(bias or zero, sum(time weights,
/// state row))` over the unit's `rank` filters, written through `out`.
fn time_pass<W, S, O, A: Copy>(
    s: &SvdfShape,
    v: &mut Sized<'_, W, S, O>,
    bias: Option<&[A]>,
    zero: A,
    sum: impl Fn(&[S], &[S]) -> A,
    add: impl Fn(A, A) -> A,
    out: impl Fn(A) -> O,
) {
    let (n_filter, n_memory, n_rank) = (s.filters, s.memory, s.rank);
    let mut outputs = v.output.iter_mut();
    for b in 0..s.batches {
        for u in 0..s.units() {
            let mut acc = bias.and_then(|bias| bias.get(u)).copied().unwrap_or(zero);
            for r in 0..n_rank {
                let f = u * n_rank + r;
                let weights = v.time.get(f * n_memory..(f + 1) * n_memory).unwrap_or(&[]);
                let start = (b * n_filter + f) * n_memory;
                let row = v.state.get(start..start + n_memory).unwrap_or(&[]);
                acc = add(acc, sum(weights, row));
            }
            if let Some(o) = outputs.next() {
                *o = out(acc);
            }
        }
    }
}

/// The integer SVDF for state and time weights of type `T`.
fn svdf_integer<T: StateType>(
    p: &SvdfS8,
    input: &[i8],
    feature: &[i8],
    time: &[T],
    bias: Option<&[i32]>,
    state: &mut [T],
    output: &mut [i8],
) {
    let s = &p.shape;
    let Some(mut v) = sized_all(s, input, feature, time, state, output) else {
        return;
    };
    shift_state(v.state);
    // Feature matmul: each filter's dot product with the input row, rescaled to the state,
    // clamped to its type and stored (plus the state's zero point) in the filter's last column.
    feature_pass(s, &mut v, |weights, row| {
        let mut dot: i32 = 0;
        for (&w, &x) in weights.iter().zip(row) {
            dot = dot.wrapping_add(
                i32::from(w).wrapping_mul(i32::from(x).wrapping_sub(p.input_zero_point)),
            );
        }
        let dot = p.feature.apply(dot).clamp(T::MIN, T::MAX);
        T::narrow(p.state_zero_point.wrapping_add(dot))
    });
    // Time: each filter's state row against its time weights; reduce: each unit the bias plus
    // its `rank` filters; rescale to the output.
    time_pass(
        s,
        &mut v,
        bias,
        0,
        |weights, row| {
            let mut sum: i32 = 0;
            for (&w, &x) in weights.iter().zip(row) {
                sum = sum.wrapping_add(
                    w.widen()
                        .wrapping_mul(x.widen().wrapping_sub(p.state_zero_point)),
                );
            }
            sum
        },
        i32::wrapping_add,
        |acc| {
            p.time
                .apply(acc)
                .wrapping_add(p.output_zero_point)
                .clamp(i32::from(i8::MIN), i32::from(i8::MAX)) as i8
        },
    );
}

/// What every SVDF kernel needs of its sizes and its slices' lengths.
const fn check_svdf(
    s: &SvdfShape,
    input: usize,
    feature: usize,
    time: usize,
    bias: Option<usize>,
    state: usize,
    output: usize,
) -> Result<(), KernelError> {
    check!(require(
        s.rank >= 1 && s.filters.is_multiple_of(s.rank),
        "the rank is 0 or does not divide the filters"
    ));
    check!(length("input", elements(&[s.batches, s.input_size]), input));
    check!(length(
        "feature",
        elements(&[s.filters, s.input_size]),
        feature
    ));
    check!(length("time", elements(&[s.filters, s.memory]), time));
    check!(length(
        "state",
        elements(&[s.batches, s.filters, s.memory]),
        state
    ));
    check!(length("output", elements(&[s.batches, s.units()]), output));
    optional_length("bias", Some(s.units()), bias)
}

/// [`svdf_s8`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_svdf_s8(
    p: &SvdfS8,
    input: usize,
    feature: usize,
    time: usize,
    bias: Option<usize>,
    state: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_svdf(&p.shape, input, feature, time, bias, state, output)
}

/// int8 SVDF with an int8 state and int8 time weights: TFLM's `EvalInt8SvdfReference`.
///
/// Shift the state left by one; for each batch and filter, `sum(feature * (input -
/// input_zero_point))` (int32, wrapping), `MultiplyByQuantizedMultiplier` by `feature`,
/// clamped to int8, plus `state_zero_point`, into the filter's last state column; for each
/// batch and unit, the bias (or 0) plus, for each of its `rank` filters, `sum(time * (state -
/// state_zero_point))`; `MultiplyByQuantizedMultiplier` by `time`, plus `output_zero_point`,
/// clamped to int8. The fused activation is not applied (TFLM's integer kernel ignores it).
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_svdf_s8`]) hold:
/// `input` is `[batches, input_size]`, `feature` `[filters, input_size]`, `time` `[filters,
/// memory]`, `state` `[batches, filters × memory]`, `output` `[batches, filters / rank]`
/// (lengths exactly the products), `bias` (if any) holds `filters / rank` values; `rank > 0`
/// divides `filters`.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn svdf_s8(
    p: &SvdfS8,
    input: &[i8],
    feature: &[i8],
    time: &[i8],
    bias: Option<&[i32]>,
    state: &mut [i8],
    output: &mut [i8],
) -> Result<(), KernelError> {
    check_svdf_s8(
        p,
        input.len(),
        feature.len(),
        time.len(),
        bias.map(<[i32]>::len),
        state.len(),
        output.len(),
    )?;
    proven::svdf_s8(p, input, feature, time, bias, state, output);
    Ok(())
}

/// [`svdf_s8_s16`]'s preconditions, as [`check_svdf_s8`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_svdf_s8_s16(
    p: &SvdfS8,
    input: usize,
    feature: usize,
    time: usize,
    bias: Option<usize>,
    state: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_svdf(&p.shape, input, feature, time, bias, state, output)
}

/// int8 SVDF with an int16 state and int16 time weights: TFLM's `EvalInt16SvdfReference`, as
/// [`svdf_s8`] with the feature products clamped to int16.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_svdf_s8_s16`])
/// hold: as [`svdf_s8`]'s.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn svdf_s8_s16(
    p: &SvdfS8,
    input: &[i8],
    feature: &[i8],
    time: &[i16],
    bias: Option<&[i32]>,
    state: &mut [i16],
    output: &mut [i8],
) -> Result<(), KernelError> {
    check_svdf_s8_s16(
        p,
        input.len(),
        feature.len(),
        time.len(),
        bias.map(<[i32]>::len),
        state.len(),
        output.len(),
    )?;
    proven::svdf_s8_s16(p, input, feature, time, bias, state, output);
    Ok(())
}

/// glibc's `fmaxf` on x86-64: the other argument if one is NaN, else the larger, `y` when they
/// compare equal (so `fmaxf(0, -0)` is `-0`).
fn fmaxf(x: f32, y: f32) -> f32 {
    if x.is_nan() {
        y
    } else if y.is_nan() || x > y {
        x
    } else {
        y
    }
}

/// glibc's `fminf` on x86-64: the other argument if one is NaN, else the smaller, `y` when they
/// compare equal.
fn fminf(x: f32, y: f32) -> f32 {
    if x.is_nan() {
        y
    } else if y.is_nan() || x < y {
        x
    } else {
        y
    }
}

/// TFLM's `ActivationValFloat` (`activation_utils.h`), with `TfLiteMax`/`TfLiteMin` as
/// `std::fmax`/`std::fmin` and `std::tanh` as glibc's `tanhf`. The wheel's build passes the
/// value first to `fmaxf` (`fmaxf(a, 0)` for `TfLiteMax(0.0f, a)`: `-0` becomes `+0`).
fn activation_val_f32(act: SvdfActivation, a: f32) -> f32 {
    match act {
        SvdfActivation::None => a,
        SvdfActivation::Relu => fmaxf(a, 0.0),
        SvdfActivation::ReluN1To1 => fmaxf(fminf(a, 1.0), -1.0),
        SvdfActivation::Relu6 => fmaxf(fminf(a, 6.0), 0.0),
        SvdfActivation::Tanh => tanhf(a),
        SvdfActivation::SignBit => {
            if a.is_sign_negative() {
                1.0
            } else {
                0.0
            }
        }
    }
}

/// [`svdf_f32`]'s preconditions, as [`check_svdf_s8`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_svdf_f32(
    p: &SvdfF32,
    input: usize,
    feature: usize,
    time: usize,
    bias: Option<usize>,
    state: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_svdf(&p.shape, input, feature, time, bias, state, output)
}

/// float SVDF: TFLM's `EvalFloatSvdfReference` and `ApplyTimeWeightsBiasAndActivation`.
///
/// Shift the state left by one; each filter's dot product with the input row (`dot += w * x`
/// from 0, in order) into its last state column; each unit the bias (or 0) plus, in order, its
/// `rank` filters' `sum(time * state)` (each from 0, in order); then the activation.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_svdf_f32`]) hold:
/// as [`svdf_s8`]'s.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn svdf_f32(
    p: &SvdfF32,
    input: &[f32],
    feature: &[f32],
    time: &[f32],
    bias: Option<&[f32]>,
    state: &mut [f32],
    output: &mut [f32],
) -> Result<(), KernelError> {
    check_svdf_f32(
        p,
        input.len(),
        feature.len(),
        time.len(),
        bias.map(<[f32]>::len),
        state.len(),
        output.len(),
    )?;
    proven::svdf_f32(p, input, feature, time, bias, state, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`svdf_s8`](super::svdf_s8), its [`check`](super::check_svdf_s8) proven.
    #[inline]
    pub fn svdf_s8(
        p: &SvdfS8,
        input: &[i8],
        feature: &[i8],
        time: &[i8],
        bias: Option<&[i32]>,
        state: &mut [i8],
        output: &mut [i8],
    ) {
        debug_assert!(
            super::check_svdf_s8(
                p,
                input.len(),
                feature.len(),
                time.len(),
                bias.map(<[i32]>::len),
                state.len(),
                output.len()
            )
            .is_ok()
        );
        svdf_integer(p, input, feature, time, bias, state, output);
    }

    /// [`svdf_s8_s16`](super::svdf_s8_s16), its [`check`](super::check_svdf_s8_s16) proven.
    #[inline]
    pub fn svdf_s8_s16(
        p: &SvdfS8,
        input: &[i8],
        feature: &[i8],
        time: &[i16],
        bias: Option<&[i32]>,
        state: &mut [i16],
        output: &mut [i8],
    ) {
        debug_assert!(
            super::check_svdf_s8_s16(
                p,
                input.len(),
                feature.len(),
                time.len(),
                bias.map(<[i32]>::len),
                state.len(),
                output.len()
            )
            .is_ok()
        );
        svdf_integer(p, input, feature, time, bias, state, output);
    }

    /// [`svdf_f32`](super::svdf_f32), its [`check`](super::check_svdf_f32) proven.
    #[inline]
    pub fn svdf_f32(
        p: &SvdfF32,
        input: &[f32],
        feature: &[f32],
        time: &[f32],
        bias: Option<&[f32]>,
        state: &mut [f32],
        output: &mut [f32],
    ) {
        debug_assert!(
            super::check_svdf_f32(
                p,
                input.len(),
                feature.len(),
                time.len(),
                bias.map(<[f32]>::len),
                state.len(),
                output.len()
            )
            .is_ok()
        );
        let s = &p.shape;
        let Some(mut v) = sized_all(s, input, feature, time, state, output) else {
            return;
        };
        shift_state(v.state);
        // The wheel's build: `dot` first in the sum.
        let dot = |weights: &[f32], row: &[f32]| {
            let mut dot = 0.0_f32;
            for (&w, &x) in weights.iter().zip(row) {
                dot = sse::add(dot, sse::mul(w, x));
            }
            dot
        };
        feature_pass(s, &mut v, dot);
        time_pass(s, &mut v, bias, 0.0, dot, sse::add, |acc| {
            activation_val_f32(p.activation, acc)
        });
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec;
    use std::vec::Vec;

    use super::*;

    /// A direct transcription of TFLM's `EvalIntegerSvdfReference`: the two scratch buffers,
    /// the loops as TFLM writes them.
    #[allow(clippy::too_many_arguments)]
    fn reference<T: StateType>(
        p: &SvdfS8,
        input: &[i8],
        feature: &[i8],
        time: &[T],
        bias: Option<&[i32]>,
        state: &mut [T],
        output: &mut [i8],
    ) {
        let s = p.shape;
        let (nb, ni, nf, nm, nr) = (s.batches, s.input_size, s.filters, s.memory, s.rank);
        let nu = nf / nr;
        for i in 0..nb * nf * nm - 1 {
            state[i] = state[i + 1];
        }
        for b in 0..nb {
            for r in 0..nf {
                let mut dot = 0i32;
                for c in 0..ni {
                    dot += i32::from(feature[r * ni + c])
                        * (i32::from(input[b * ni + c]) - p.input_zero_point);
                }
                let dot = p.feature.apply(dot).clamp(T::MIN, T::MAX);
                state[(b * nf + r) * nm + nm - 1] = T::narrow(p.state_zero_point + dot);
            }
        }
        let mut scratch = vec![0i32; nb * nf];
        for b in 0..nb {
            for i in 0..nf {
                for j in 0..nm {
                    scratch[b * nf + i] += time[i * nm + j].widen()
                        * (state[(b * nf + i) * nm + j].widen() - p.state_zero_point);
                }
            }
        }
        let mut out = vec![0i32; nb * nu];
        for b in 0..nb {
            for j in 0..nu {
                out[b * nu + j] = bias.map_or(0, |bias| bias[j]);
            }
            for i in 0..nu {
                for j in 0..nr {
                    out[b * nu + i] += scratch[b * nf + i * nr + j];
                }
            }
        }
        for (o, &x) in output.iter_mut().zip(&out) {
            *o = (p.time.apply(x) + p.output_zero_point).clamp(-128, 127) as i8;
        }
    }

    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        *seed >> 33
    }

    #[test]
    fn integer_svdf_matches_tflm_loops_over_a_sequence() {
        let mut seed = 7u64;
        for rank in 1..=3 {
            let shape = SvdfShape {
                batches: 2,
                input_size: 5,
                filters: 2 * rank,
                rank,
                memory: 4,
            };
            let p = SvdfS8 {
                shape,
                input_zero_point: -3,
                state_zero_point: 9,
                output_zero_point: -5,
                feature: Requant {
                    multiplier: 1_518_500_250,
                    shift: -6,
                },
                time: Requant {
                    multiplier: 1_300_000_000,
                    shift: -5,
                },
            };
            let feature: Vec<i8> = (0..shape.filters * 5)
                .map(|_| lcg(&mut seed) as i8)
                .collect();
            let time8: Vec<i8> = (0..shape.filters * 4)
                .map(|_| lcg(&mut seed) as i8)
                .collect();
            let time16: Vec<i16> = (0..shape.filters * 4)
                .map(|_| lcg(&mut seed) as i16)
                .collect();
            let bias: Vec<i32> = (0..2)
                .map(|_| (lcg(&mut seed) % 2000) as i32 - 1000)
                .collect();
            let n = 2 * shape.filters * 4;
            let (mut s8, mut r8) = (vec![9i8; n], vec![9i8; n]);
            let (mut s16, mut r16) = (vec![9i16; n], vec![9i16; n]);
            for _ in 0..if cfg!(miri) { 3 } else { 40 } {
                let input: Vec<i8> = (0..10).map(|_| lcg(&mut seed) as i8).collect();
                let (mut a, mut b) = ([0i8; 4], [0i8; 4]);
                svdf_s8(&p, &input, &feature, &time8, Some(&bias), &mut s8, &mut a).unwrap();
                reference(&p, &input, &feature, &time8, Some(&bias), &mut r8, &mut b);
                assert_eq!((a, &s8), (b, &r8));
                svdf_s8_s16(&p, &input, &feature, &time16, None, &mut s16, &mut a).unwrap();
                reference(&p, &input, &feature, &time16, None, &mut r16, &mut b);
                assert_eq!((a, &s16), (b, &r16));
            }
        }
    }

    #[test]
    fn float_svdf_shifts_the_state_and_sums_rank_filters() {
        // One batch, one input, two filters of rank 2 (one unit), memory 2.
        let p = SvdfF32 {
            shape: SvdfShape {
                batches: 1,
                input_size: 1,
                filters: 2,
                rank: 2,
                memory: 2,
            },
            activation: SvdfActivation::None,
        };
        let (feature, time) = ([1.0, 2.0], [1.0, 10.0, 100.0, 1000.0]);
        let mut state = [0.0; 4];
        let mut out = [0.0];
        svdf_f32(
            &p,
            &[3.0],
            &feature,
            &time,
            Some(&[0.5]),
            &mut state,
            &mut out,
        )
        .unwrap();
        // state: [0, 3, 0, 6]: 10 * 3 + 1000 * 6 + 0.5.
        assert_eq!(state, [0.0, 3.0, 0.0, 6.0]);
        assert_eq!(out, [6030.5]);
        svdf_f32(&p, &[1.0], &feature, &time, None, &mut state, &mut out).unwrap();
        // Shifted: [3, 0, 6, 6] then the last columns: [3, 1, 6, 2].
        assert_eq!(state, [3.0, 1.0, 6.0, 2.0]);
        assert_eq!(out, [3.0 + 10.0 + 600.0 + 2000.0]);
    }

    #[test]
    fn float_activations_follow_fmax_and_fmin() {
        use SvdfActivation as A;
        assert_eq!(activation_val_f32(A::Relu, f32::NAN), 0.0);
        // fmaxf(-0, 0) is its second argument: +0.
        assert_eq!(activation_val_f32(A::Relu, -0.0).to_bits(), 0);
        assert_eq!(activation_val_f32(A::Relu6, -0.0).to_bits(), 0);
        assert_eq!(activation_val_f32(A::ReluN1To1, f32::NAN), 1.0);
        assert_eq!(activation_val_f32(A::Relu6, f32::NAN), 6.0);
        assert_eq!(activation_val_f32(A::Relu6, 7.0), 6.0);
        assert_eq!(activation_val_f32(A::SignBit, -0.0), 1.0);
        assert_eq!(activation_val_f32(A::SignBit, 2.0), 0.0);
    }

    #[test]
    fn inconsistent_shapes_write_nothing() {
        let p = SvdfF32 {
            shape: SvdfShape {
                batches: 1,
                input_size: 1,
                filters: 3,
                rank: 2,
                memory: 2,
            },
            activation: SvdfActivation::None,
        };
        let mut state = [1.0; 6];
        let mut out = [7.0];
        assert_eq!(
            svdf_f32(&p, &[3.0], &[1.0; 3], &[1.0; 6], None, &mut state, &mut out),
            Err(KernelError::Parameters(
                "the rank is 0 or does not divide the filters"
            ))
        );
        assert_eq!((state, out), ([1.0; 6], [7.0]));
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        let shape = SvdfShape {
            batches: 2,
            input_size: 3,
            filters: 4,
            rank: 2,
            memory: 2,
        };
        let pf = SvdfF32 {
            shape,
            activation: SvdfActivation::None,
        };
        let r = crate::kernels::Requant {
            multiplier: 1 << 30,
            shift: 0,
        };
        let p8 = SvdfS8 {
            shape,
            input_zero_point: 0,
            state_zero_point: 0,
            output_zero_point: 0,
            feature: r,
            time: r,
        };
        // input, feature, time, bias, state, output.
        let ok = [6, 12, 8, 2, 16, 4];
        refuses(ok, [Exact; 6], |[i, f, t, b, s, o]| {
            let (mut state, mut out) = (vec![7.0; s], vec![7.0; o]);
            let r = svdf_f32(
                &pf,
                &vec![0.0; i],
                &vec![0.0; f],
                &vec![0.0; t],
                Some(&vec![0.0; b]),
                &mut state,
                &mut out,
            );
            (r, untouched(&state, 7.0) && untouched(&out, 7.0))
        });
        refuses(ok, [Exact; 6], |[i, f, t, b, s, o]| {
            let (mut state, mut out) = (vec![7_i8; s], vec![7_i8; o]);
            let r = svdf_s8(
                &p8,
                &vec![0; i],
                &vec![0; f],
                &vec![0; t],
                Some(&vec![0; b]),
                &mut state,
                &mut out,
            );
            (r, untouched(&state, 7) && untouched(&out, 7))
        });
        refuses(ok, [Exact; 6], |[i, f, t, b, s, o]| {
            let (mut state, mut out) = (vec![7_i16; s], vec![7_i8; o]);
            let r = svdf_s8_s16(
                &p8,
                &vec![0; i],
                &vec![0; f],
                &vec![0; t],
                Some(&vec![0; b]),
                &mut state,
                &mut out,
            );
            (r, untouched(&state, 7) && untouched(&out, 7))
        });
    }
}
