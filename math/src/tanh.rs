//! `tanhf`, which TFLM's float TANH calls through `std::tanh(float)`.
//!
//! glibc 2.36's `sysdeps/ieee754/flt-32/s_tanhf.c` (Sun's fdlibm, in `f32` arithmetic) on
//! [`expm1f`]: `1 - 2 / (expm1(2|x|) + 2)` for `|x| >= 1`, `-t / (t + 2)` with `t =
//! expm1(-2|x|)` below, `±1` from 22 on. glibc builds it once for x86-64 (no FMA variant).

use crate::expm1::expm1f;
use crate::quiet;

/// `tanh(x)` rounded to `f32`, as glibc's `tanhf` (`±1` for `±inf` and `|x| >= 22`, `x` for
/// `±0`, `x` quietened for NaN).
#[must_use]
pub fn tanhf(x: f32) -> f32 {
    let jx = x.to_bits() as i32;
    let ix = jx & 0x7fff_ffff;
    if ix >= 0x7f80_0000 {
        // tanh(±inf) = ±1, tanh(NaN) = NaN: `one / x ± one`.
        if x.is_nan() {
            return quiet(x);
        }
        return if jx >= 0 { 1.0 } else { -1.0 };
    }
    let z = if ix < 0x41b0_0000 {
        // |x| < 22.
        if ix == 0 {
            return x;
        }
        if ix < 0x2400_0000 {
            // |x| < 2^-55: tanh(x) ~= x.
            return x * (1.0 + x);
        }
        let ax = f32::from_bits(ix as u32);
        if ix >= 0x3f80_0000 {
            // |x| >= 1.
            let t = expm1f(2.0 * ax);
            1.0 - 2.0 / (t + 2.0)
        } else {
            let t = expm1f(-2.0 * ax);
            -t / (t + 2.0)
        }
    } else {
        // |x| >= 22: `one - tiny`, which rounds to 1.
        1.0
    };
    if jx >= 0 { z } else { -z }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{inputs, same};

    #[test]
    fn matches_the_host_c_library() {
        let edges = [22.0, 1.0, f32::from_bits(0x2400_0000), 0.5, 9.0];
        for x in inputs(if cfg!(miri) { 100 } else { 300_000 }, 12.0, &edges) {
            let (got, want) = (tanhf(x), x.tanh());
            assert!(
                same(got, want),
                "tanh {x:e} ({:#x}): {got:e} ({:#x}) vs {want:e} ({:#x})",
                x.to_bits(),
                got.to_bits(),
                want.to_bits()
            );
        }
    }
}
