//! ELU: TFLM's `elu.cc`: `reference_ops::Elu` (float) and, for int8, the 256-entry table its
//! `Prepare` fills (`PopulateLookupTable`) looked up by `EvalUsingLookupTable`.

pub(crate) mod in_place;

use super::shared::unary::elementwise_kernels;
use stowplan_math::expm1f;

/// Parameters of an int8 ELU: TFLM's `OpData::table`, which the build computes as TFLM's
/// `PopulateLookupTable` does (`expf`, `roundf` of glibc's algorithms).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EluS8 {
    /// The output for each input, indexed by the input's bits (`static_cast<uint8_t>(x)`).
    pub table: &'static [i8; 256],
}

elementwise_kernels! {
    /// int8 ELU: TFLM's `EvalUsingLookupTable`: `table[uint8(x)]` for each element, in order.
    pub fn elu_s8 / check_elu_s8(p: &EluS8, input: &[i8], output: &mut [i8]) {
        for (o, &x) in output.iter_mut().zip(input) {
            *o = p.table.get(usize::from(x as u8)).copied().unwrap_or(0);
        }
    }

    /// float ELU: TFLM's `reference_ops::Elu`: `x < 0 ? expm1(x) : x` (`TfLiteExpm1`, glibc's
    /// `expm1f`), NaN unchanged.
    pub fn elu_f32 / check_elu_f32(input: &[f32], output: &mut [f32]) {
        for (o, &x) in output.iter_mut().zip(input) {
            *o = if x < 0.0 { expm1f(x) } else { x };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static TABLE: [i8; 256] = {
        let mut t = [0_i8; 256];
        let mut i = 0;
        while i < 256 {
            t[i] = (i as u8 as i8).wrapping_neg();
            i += 1;
        }
        t
    };

    #[test]
    fn looks_up_by_the_bits() {
        let mut out = [0_i8; 3];
        elu_s8(&EluS8 { table: &TABLE }, &[-128, -1, 5], &mut out).unwrap();
        assert_eq!(out, [-128, 1, -5]);
        let mut f = [0.0_f32; 3];
        elu_f32(&[-1.0, 2.0, -0.0], &mut f).unwrap();
        assert_eq!(f[0], expm1f(-1.0));
        assert_eq!(f[1], 2.0);
        assert_eq!(f[2].to_bits(), 0x8000_0000);
    }
}
