//! Bounds-checked slice access the kernels share: a slice cut to its shape once, elements and
//! runs read without panicking (0 or empty past the end), packed int4 elements, and the
//! portable int8 dot product.

/// `(sum(input * filter), sum(filter))` over the pairs of `input` and `filter`, wrapping like
/// TFLM's int32 accumulators; the int8 kernels add their offsets' terms afterwards (equal
/// modulo 2^32 to adding the offsets to every element), which keeps the loop vectorisable.
#[inline(always)]
#[cfg(not(stowplan_dsp))]
pub(crate) fn dot_s8(input: &[i8], filter: &[i8]) -> (i32, i32) {
    let mut products: i32 = 0;
    let mut filter_sum: i32 = 0;
    for (&x, &f) in input.iter().zip(filter) {
        products = products.wrapping_add(i32::from(x) * i32::from(f));
        filter_sum = filter_sum.wrapping_add(i32::from(f));
    }
    (products, filter_sum)
}

/// The first `dims.iter().product()` elements of `slice`, or `None` if the product overflows
/// or `slice` is shorter. Kernels size their slices once with it, so that every index they
/// compute afterwards is below a slice's length and cannot overflow.
#[inline(always)]
pub(crate) fn sized<'a, T>(slice: &'a [T], dims: &[usize]) -> Option<&'a [T]> {
    slice.get(..product(dims)?)
}

/// [`sized`] for the output.
#[inline(always)]
pub(crate) fn sized_mut<'a, T>(slice: &'a mut [T], dims: &[usize]) -> Option<&'a mut [T]> {
    slice.get_mut(..product(dims)?)
}

/// The product of `dims`, or `None` if it overflows.
#[inline(always)]
pub(crate) fn product(dims: &[usize]) -> Option<usize> {
    dims.iter().try_fold(1_usize, |n, &d| n.checked_mul(d))
}

/// The element at `index`, or the default (0) past the end: never panics.
#[inline(always)]
pub(crate) fn at<T: Copy + Default>(slice: &[T], index: usize) -> T {
    match slice.get(index) {
        Some(&value) => value,
        None => T::default(),
    }
}
/// The run of `len` filter elements from `start` of a slice filter (empty past its end).
#[inline(always)]
pub(crate) fn run<T>(filter: &[T], start: usize, len: usize) -> &[T] {
    match filter.get(start..start.saturating_add(len)) {
        Some(run) => run,
        None => &[],
    }
}

/// Element `index` of a packed int4 tensor as TFLM's `UnpackDenseInt4IntoInt8` unpacks it: two
/// per byte, the low nibble first, each sign-extended (`static_cast<int8_t>(byte << 4) >> 4`
/// and `byte >> 4`); 0 past the end.
#[inline(always)]
pub(crate) fn int4_at(packed: &[u8], index: usize) -> i8 {
    let byte = at(packed, index / 2) as i8;
    if index.is_multiple_of(2) {
        byte.wrapping_shl(4) >> 4
    } else {
        byte >> 4
    }
}

/// The element count a packed int4 buffer backs for a tensor of `elements` elements: the count
/// if the buffer holds at least `ceil(elements / 2)` bytes, else 0 (nothing is read).
#[inline(always)]
pub(crate) fn int4_elements(packed: &[u8], elements: Option<usize>) -> usize {
    match elements {
        Some(n) if packed.len() >= n.div_ceil(2) => n,
        _ => 0,
    }
}
