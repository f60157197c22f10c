//! LOGICAL_AND and LOGICAL_OR with broadcasting (TFLM's `logical.cc` / `logical_common.cc`:
//! `BinaryFunction` / `BroadcastBinaryFunction4DSlow` of `LogicalAnd` / `LogicalOr`) and
//! LOGICAL_NOT (`elementwise.cc`). Bools are bytes: 0 is false, anything else true; the output
//! is 0 or 1.

use super::shared::broadcast::{BinaryShape, broadcast};

/// LOGICAL_AND: `x && y`.
///
/// # Preconditions
///
/// Each slice holds its shape's element count; every input dimension equals the output's or
/// is 1.
pub fn logical_and(p: &BinaryShape, input1: &[u8], input2: &[u8], output: &mut [u8]) {
    broadcast(p, input1, input2, output, |x, y| u8::from(x != 0 && y != 0));
}

/// LOGICAL_OR: `x || y`.
///
/// # Preconditions
///
/// As [`logical_and`].
pub fn logical_or(p: &BinaryShape, input1: &[u8], input2: &[u8], output: &mut [u8]) {
    broadcast(p, input1, input2, output, |x, y| u8::from(x != 0 || y != 0));
}

/// LOGICAL_NOT: `!x`, element by element.
///
/// # Preconditions
///
/// `input.len() == output.len()`.
pub fn logical_not(input: &[u8], output: &mut [u8]) {
    for (o, &x) in output.iter_mut().zip(input) {
        *o = u8::from(x == 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truth_tables() {
        let shape = BinaryShape {
            input1: [1, 1, 1, 1, 1, 4],
            input2: [1, 1, 1, 1, 1, 4],
            output: [1, 1, 1, 1, 1, 4],
        };
        let (a, b) = ([0, 0, 1, 1], [0, 1, 0, 1]);
        let mut out = [9; 4];
        logical_and(&shape, &a, &b, &mut out);
        assert_eq!(out, [0, 0, 0, 1]);
        logical_or(&shape, &a, &b, &mut out);
        assert_eq!(out, [0, 1, 1, 1]);
        logical_not(&a, &mut out);
        assert_eq!(out, [1, 1, 0, 0]);
    }
}
