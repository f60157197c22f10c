//! Per-op views: what an op reads (shared views) and what it writes (mutable views), from one
//! borrow of the arena ([`Arena::views`](crate::Arena::views)).

use crate::{Element, Slot};

mod sealed {
    pub trait Item {}
    pub trait List {}
}

/// One thing an op reads: a [`Slot`] of the arena (viewed as `&[T]`), constant data
/// (`&'static [T]`, passed through as it is) or `()` (an omitted optional input, viewed as `()`).
///
/// Sealed: [`Arena::views`](crate::Arena::views) relies on exactly these.
pub trait Read<M>: Copy + sealed::Item {
    /// The view of it.
    type View<'a>;
    /// The bytes it takes in the arena, if any.
    #[doc(hidden)]
    fn span(&self) -> Option<(usize, usize)>;
    /// # Safety
    ///
    /// `base` points to the start of a 16-byte aligned arena that holds `span()` (if any),
    /// valid and not mutated through any other pointer for `'a`.
    #[doc(hidden)]
    unsafe fn view<'a>(self, base: *mut u8) -> Self::View<'a>;
}

/// One thing an op writes: a [`Slot`] of the arena, viewed as `&mut [T]`.
///
/// Sealed: [`Arena::views`](crate::Arena::views) relies on exactly this.
pub trait Write<M>: Copy + sealed::Item {
    /// The view of it.
    type View<'a>;
    /// The bytes it takes in the arena.
    #[doc(hidden)]
    fn span(&self) -> Option<(usize, usize)>;
    /// # Safety
    ///
    /// `base` points to the start of a 16-byte aligned arena that holds `span()`, valid for
    /// `'a`, and no other pointer reads or writes those bytes for `'a`.
    #[doc(hidden)]
    unsafe fn view<'a>(self, base: *mut u8) -> Self::View<'a>;
}

impl<M, T: Element> sealed::Item for Slot<M, T> {}
impl<T: Element> sealed::Item for &'static [T] {}
impl sealed::Item for () {}

impl<M, T: Element> Read<M> for Slot<M, T> {
    type View<'a> = &'a [T];
    #[inline]
    fn span(&self) -> Option<(usize, usize)> {
        Some((self.offset(), self.end()))
    }
    #[inline]
    unsafe fn view<'a>(self, base: *mut u8) -> Self::View<'a> {
        // SAFETY: the caller guarantees that the arena at `base` holds `offset..end`, so the
        // offset stays inside it.
        let ptr = unsafe { base.add(self.offset()) };
        // SAFETY:
        // - `ptr` addresses `self.bytes()` = `len × size_of::<T>()` initialised arena bytes, valid
        //   and not mutated elsewhere for `'a` (the caller's guarantee);
        // - it is aligned for `T`: `base` is 16-byte aligned (the caller's guarantee) and
        //   `Slot::new` asserted that the offset is a multiple of `align_of::<T>()` <= 16;
        // - any bit pattern is a valid `T` (`Element`).
        unsafe { core::slice::from_raw_parts(ptr.cast::<T>(), self.len()) }
    }
}

impl<M, T: Element> Read<M> for &'static [T] {
    type View<'a> = &'static [T];
    #[inline]
    fn span(&self) -> Option<(usize, usize)> {
        None
    }
    #[inline]
    unsafe fn view<'a>(self, _base: *mut u8) -> Self::View<'a> {
        self
    }
}

impl<M> Read<M> for () {
    type View<'a> = ();
    #[inline]
    fn span(&self) -> Option<(usize, usize)> {
        None
    }
    #[inline]
    unsafe fn view<'a>(self, _base: *mut u8) -> Self::View<'a> {}
}

impl<M, T: Element> Write<M> for Slot<M, T> {
    type View<'a> = &'a mut [T];
    #[inline]
    fn span(&self) -> Option<(usize, usize)> {
        Some((self.offset(), self.end()))
    }
    #[inline]
    unsafe fn view<'a>(self, base: *mut u8) -> Self::View<'a> {
        // SAFETY: the caller guarantees that the arena at `base` holds `offset..end`, so the
        // offset stays inside it.
        let ptr = unsafe { base.add(self.offset()) };
        // SAFETY:
        // - `ptr` addresses `self.bytes()` = `len × size_of::<T>()` initialised arena bytes, valid
        //   for `'a` and reached through no other pointer meanwhile (the caller's guarantee);
        // - it is aligned for `T` (as for `Read`), any bit pattern is a valid `T`, and any `T`
        //   written leaves initialised bytes.
        unsafe { core::slice::from_raw_parts_mut(ptr.cast::<T>(), self.len()) }
    }
}

/// What an op reads: a tuple of up to 24 [`Read`] items.
pub trait Reads<M>: sealed::List {
    /// A tuple of the items' views.
    type Views<'a>;
    /// Calls `f(index, start, end)` for each item in the arena.
    #[doc(hidden)]
    fn for_each_span<F: FnMut(usize, usize, usize)>(&self, f: F);
    /// # Safety
    ///
    /// As [`Read::view`], for every item.
    #[doc(hidden)]
    unsafe fn views<'a>(self, base: *mut u8) -> Self::Views<'a>;
}

/// What an op writes: a tuple of up to 24 [`Write`] items.
pub trait Writes<M>: sealed::List {
    /// A tuple of the items' views.
    type Views<'a>;
    /// Calls `f(index, start, end)` for each item.
    #[doc(hidden)]
    fn for_each_span<F: FnMut(usize, usize, usize)>(&self, f: F);
    /// # Safety
    ///
    /// As [`Write::view`], for every item; the items' spans are pairwise disjoint.
    #[doc(hidden)]
    unsafe fn views<'a>(self, base: *mut u8) -> Self::Views<'a>;
}

macro_rules! lists {
    ($($t:ident $i:tt),*) => {
        impl<$($t),*> sealed::List for ($($t,)*) {}

        impl<M, $($t: Read<M>),*> Reads<M> for ($($t,)*) {
            type Views<'a> = ($($t::View<'a>,)*);
            #[inline]
            #[allow(unused_mut, unused_variables)]
            fn for_each_span<F: FnMut(usize, usize, usize)>(&self, mut f: F) {
                $(if let Some((start, end)) = self.$i.span() {
                    f($i, start, end);
                })*
            }
            #[inline]
            #[allow(unused_variables, clippy::unused_unit)]
            unsafe fn views<'a>(self, base: *mut u8) -> Self::Views<'a> {
                // SAFETY: the caller's guarantee for every item is this function's own.
                ($(unsafe { self.$i.view(base) },)*)
            }
        }

        impl<M, $($t: Write<M>),*> Writes<M> for ($($t,)*) {
            type Views<'a> = ($($t::View<'a>,)*);
            #[inline]
            #[allow(unused_mut, unused_variables)]
            fn for_each_span<F: FnMut(usize, usize, usize)>(&self, mut f: F) {
                $(if let Some((start, end)) = self.$i.span() {
                    f($i, start, end);
                })*
            }
            #[inline]
            #[allow(unused_variables, clippy::unused_unit)]
            unsafe fn views<'a>(self, base: *mut u8) -> Self::Views<'a> {
                // SAFETY: the caller's guarantee for every item is this function's own, and the
                // items' spans are pairwise disjoint, so the mutable views do not alias.
                ($(unsafe { self.$i.view(base) },)*)
            }
        }
    };
}

lists!();
lists!(T0 0);
lists!(T0 0, T1 1);
lists!(T0 0, T1 1, T2 2);
lists!(T0 0, T1 1, T2 2, T3 3);
lists!(T0 0, T1 1, T2 2, T3 3, T4 4);
lists!(T0 0, T1 1, T2 2, T3 3, T4 4, T5 5);
lists!(T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6);
lists!(T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7);
lists!(T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8);
lists!(T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9);
lists!(T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10);
lists!(T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11);
lists!(T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11, T12 12);
lists!(T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11, T12 12, T13 13);
lists!(T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11, T12 12, T13 13, T14 14);
lists!(T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11, T12 12, T13 13, T14 14, T15 15);
lists!(T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11, T12 12, T13 13, T14 14, T15 15, T16 16);
lists!(T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11, T12 12, T13 13, T14 14, T15 15, T16 16, T17 17);
lists!(T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11, T12 12, T13 13, T14 14, T15 15, T16 16, T17 17, T18 18);
lists!(T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11, T12 12, T13 13, T14 14, T15 15, T16 16, T17 17, T18 18, T19 19);
lists!(T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11, T12 12, T13 13, T14 14, T15 15, T16 16, T17 17, T18 18, T19 19, T20 20);
lists!(T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11, T12 12, T13 13, T14 14, T15 15, T16 16, T17 17, T18 18, T19 19, T20 20, T21 21);
lists!(T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11, T12 12, T13 13, T14 14, T15 15, T16 16, T17 17, T18 18, T19 19, T20 20, T21 21, T22 22);
lists!(T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11, T12 12, T13 13, T14 14, T15 15, T16 16, T17 17, T18 18, T19 19, T20 20, T21 21, T22 22, T23 23);

/// Whether two byte ranges share a byte (empty ranges share none).
#[inline]
const fn overlap(a: (usize, usize), b: (usize, usize)) -> bool {
    a.0 < a.1 && b.0 < b.1 && a.0 < b.1 && b.0 < a.1
}

/// Checks that every slot of `reads` and `writes` lies inside an arena of `n` bytes and that no
/// slot of `writes` overlaps another slot of `writes` or a slot of `reads`:
/// `k × (k − 1) / 2` comparisons at most for `k` slots.
#[inline]
#[track_caller]
pub(crate) fn check<M, R: Reads<M>, W: Writes<M>>(reads: &R, writes: &W, n: usize) {
    reads.for_each_span(|i, start, end| {
        if end > n {
            beyond("input", i, (start, end), n);
        }
    });
    writes.for_each_span(|i, start, end| {
        if end > n {
            beyond("output", i, (start, end), n);
        }
        writes.for_each_span(|j, start2, end2| {
            if j > i && overlap((start, end), (start2, end2)) {
                overlapping(i, (start, end), "output", j, (start2, end2));
            }
        });
        reads.for_each_span(|j, start2, end2| {
            if overlap((start, end), (start2, end2)) {
                overlapping(i, (start, end), "input", j, (start2, end2));
            }
        });
    });
}

#[cold]
#[inline(never)]
#[track_caller]
fn beyond(what: &str, i: usize, (start, end): (usize, usize), n: usize) -> ! {
    panic!("{what} {i} of the op (bytes {start}..{end}) ends beyond the arena of {n} bytes")
}

#[cold]
#[inline(never)]
#[track_caller]
fn overlapping(
    i: usize,
    (start, end): (usize, usize),
    what: &str,
    j: usize,
    (start2, end2): (usize, usize),
) -> ! {
    panic!(
        "output {i} (bytes {start}..{end}) overlaps {what} {j} (bytes {start2}..{end2}) of the same op: their views would alias"
    )
}
