//! BROADCAST_ARGS: TFLM's `reference_ops::BroadcastArgs` (int32 and int64 shapes).

/// The element types of BROADCAST_ARGS' shapes; TFLM takes each value as an `int`.
pub trait ShapeValue: Copy {
    /// `static_cast<int>` of the value (the low 32 bits of an int64, as x86-64 truncates).
    fn to_int(self) -> i32;
    /// The value of an `int` stored into the type.
    fn from_int(v: i32) -> Self;
}

impl ShapeValue for i32 {
    fn to_int(self) -> i32 {
        self
    }
    fn from_int(v: i32) -> Self {
        v
    }
}

impl ShapeValue for i64 {
    fn to_int(self) -> i32 {
        self as i32
    }
    fn from_int(v: i32) -> Self {
        i64::from(v)
    }
}

/// BROADCAST_ARGS: TFLM's `reference_ops::BroadcastArgs`: the broadcast of two shapes, aligned
/// at their ends (a missing dimension is 1): output dimension `i` from the end is the other
/// shape's where one is 1, else the first's. Where neither is 1 and they differ TFLM's
/// `TFLITE_CHECK_EQ` aborts; this kernel writes the first shape's value.
///
/// # Preconditions
///
/// `output.len()` is the output's length (at least the longer shape's).
pub fn broadcast_args<T: ShapeValue>(shape1: &[T], shape2: &[T], output: &mut [T]) {
    let n = output.len();
    let back = |shape: &[T], i: usize| {
        shape
            .len()
            .checked_sub(1 + i)
            .and_then(|j| shape.get(j))
            .map_or(1, |&v| v.to_int())
    };
    for (k, o) in output.iter_mut().enumerate() {
        let i = n - 1 - k;
        let (a, b) = (back(shape1, i), back(shape2, i));
        *o = T::from_int(if a == 1 { b } else { a });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasts_shapes_from_the_end() {
        let mut out = [0_i32; 4];
        broadcast_args(&[2, 1, 3], &[5, 1], &mut out);
        assert_eq!(out, [1, 2, 5, 3]);
        let mut out = [0_i64; 2];
        broadcast_args(&[1_i64 << 32 | 7], &[1, 1], &mut out);
        assert_eq!(out, [1, 7]);
    }
}
