//! TFLM's `(multiplier, shift)` pair, on its own: the kernels (`kernels::shared::requant`, which
//! gives it its methods and re-exports it) and the DSP extension's epilogues (`dsp`, which read
//! its two words) both use it, and neither imports the other for it. Declared by the crate's
//! root, as `dsp` is; it lives in the kernels' folder so that the planner, which compiles the
//! kernels' files, finds it too.

/// TFLM's `(quantized_multiplier, shift)` pair from `QuantizeMultiplier`: the real multiplier
/// `multiplier * 2^(shift - 31)`; `shift > 0` is a left shift. Laid out as two words, the
/// multiplier first (the DSP epilogue reads them so).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Requant {
    /// Q0.31 significand in `[2^30, 2^31)`, or 0.
    pub multiplier: i32,
    /// Power-of-two exponent; positive shifts left.
    pub shift: i32,
}
