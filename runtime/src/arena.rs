//! The arena, its views, and a `static` home for it.

use core::cell::UnsafeCell;
use core::marker::PhantomData;
use core::sync::atomic::{AtomicBool, Ordering};

use crate::op::{Reads, Writes};
use crate::{Align, Element, Slot, SupportedAlign};

/// Storage of `N` bytes for the region marked `M`, its address aligned to `A` bytes (at least
/// 16; `A` defaults to 16).
///
/// Generated code names it `net::Arena` (and `net::PersistentArena` for variable tensors). Its
/// marker type `M` is the generated module's own (`net::Activations`), so a slot of one model
/// does not fit another model's arena even when both are the same size. A model planned with
/// `align = 64` gets `Arena<Activations, ARENA_BYTES, 64>`: offsets that are multiples of 64 from
/// an address that is one too. `A` is a power of two up to 4,096 ([`SupportedAlign`]); the
/// type's size is `N` rounded up to `A` (generated arenas are already multiples of their
/// alignment).
///
/// [`Arena::new`] is a `const fn` that only zeroes the bytes, so an arena can live in a local
/// variable (a host program, `fn main() -> !` on a device) or in a `static` through
/// [`StaticArena`] (its zero bytes go to `.bss`). Nothing is planned at run time: the views
/// below check that a slot lies inside the arena, and with the slot a constant even that check
/// is folded away by the optimiser.
///
/// The bytes start zeroed and are always initialised, and every [`Element`] type accepts any
/// bit pattern, so a view of a slot another op wrote before (as another type) is valid, if
/// meaningless.
///
/// ```
/// pub enum Net {}
/// let arena = stowplan::Arena::<Net, 128, 64>::new();
/// assert_eq!(core::mem::align_of_val(&arena), 64);
/// assert_eq!(arena.as_bytes().as_ptr() as usize % 64, 0);
/// assert_eq!(core::mem::align_of::<stowplan::Arena<Net, 128>>(), 16);
/// ```
#[repr(C, align(16))]
pub struct Arena<M, const N: usize, const A: usize = 16>
where
    Align<A>: SupportedAlign,
{
    // Zero bytes at offset 0 that raise the struct's alignment to `A`; `bytes` starts at
    // offset 0 too.
    _align: [<Align<A> as SupportedAlign>::Archetype; 0],
    bytes: [u8; N],
    _marker: PhantomData<fn() -> M>,
}

impl<M, const N: usize, const A: usize> Arena<M, N, A>
where
    Align<A>: SupportedAlign,
{
    /// The size in bytes.
    pub const BYTES: usize = N;

    /// The alignment of its address in bytes: `A`, or 16 if `A` is smaller.
    pub const ALIGN: usize = core::mem::align_of::<Self>();

    /// A zeroed arena.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            _align: [],
            bytes: [0; N],
            _marker: PhantomData,
        }
    }

    /// All bytes.
    #[must_use]
    pub const fn as_bytes(&self) -> &[u8; N] {
        &self.bytes
    }

    /// All bytes, writable.
    pub const fn as_bytes_mut(&mut self) -> &mut [u8; N] {
        &mut self.bytes
    }

    /// A shared view of one slot's elements.
    ///
    /// # Panics
    ///
    /// If the slot ends beyond the arena. Slots of a generated module are proven to lie inside
    /// it when the crate compiles, so this can only happen with a slot made by hand.
    #[inline]
    #[must_use]
    #[track_caller]
    pub fn view<T: Element>(&self, slot: Slot<M, T>) -> &[T] {
        assert!(slot.end() <= N, "slot ends beyond the arena");
        let bytes = &self.bytes[slot.byte_range()];
        // SAFETY:
        // - `bytes` is `slot.bytes() == slot.len() * size_of::<T>()` initialised bytes of the
        //   arena (the range checked just above), borrowed from `&self`, so they stay valid and
        //   unmutated for the returned lifetime;
        // - the pointer is aligned for `T`: `bytes` starts `slot.offset()` bytes into the arena,
        //   which is aligned to at least 16 (`align(16)`, raised by `_align`) and holds the array
        //   at offset 0 (after the zero-sized `_align` only), and `Slot::new` asserted that the
        //   offset is a multiple of `align_of::<T>()` and that `align_of::<T>()` is at most 16;
        // - every bit pattern is a valid `T` (`Element` is sealed to padding-free number types).
        unsafe { core::slice::from_raw_parts(bytes.as_ptr().cast::<T>(), slot.len()) }
    }

    /// A mutable view of one slot's elements.
    ///
    /// # Panics
    ///
    /// If the slot ends beyond the arena (see [`Arena::view`]).
    #[inline]
    #[must_use]
    #[track_caller]
    pub fn view_mut<T: Element>(&mut self, slot: Slot<M, T>) -> &mut [T] {
        assert!(slot.end() <= N, "slot ends beyond the arena");
        let bytes = &mut self.bytes[slot.byte_range()];
        // SAFETY: as in `view`, and the bytes are borrowed mutably from `&mut self`, so this is
        // the only reference to them for the returned lifetime; any `T` written through it leaves
        // initialised bytes behind.
        unsafe { core::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast::<T>(), slot.len()) }
    }

    /// All the views one op needs at once: shared views of what it reads, mutable views of
    /// what it writes.
    ///
    /// `reads` is a tuple of up to 24 inputs, each a [`Slot`] of this arena (viewed as
    /// `&[T]`), constant data (`&'static [T]`, passed through) or `()` (an omitted optional
    /// input); `writes` is a tuple of up to 24 slots of this arena (viewed as `&mut [T]`).
    /// Generated modules call this from one function per op (`net::ops::op_3(&mut arena)`).
    ///
    /// The views borrow the arena mutably, so no other view of it can be taken while they live.
    ///
    /// # Panics
    ///
    /// If a slot ends beyond the arena, or if a slot written overlaps another slot written or
    /// a slot read (the message names both and their bytes). The check is `k × (k − 1) / 2`
    /// comparisons for `k` slots; generated op functions are proven disjoint when the crate
    /// compiles, and with constant slots the optimiser removes the check entirely (see the
    /// guide's "Zero planning at run time" (docs/guide.md)).
    ///
    /// ```
    /// pub enum Net {}
    /// const X: stowplan::Slot<Net, f32> = stowplan::Slot::new(0, 4);
    /// const Y: stowplan::Slot<Net, i8> = stowplan::Slot::new(16, 4);
    /// static W: [f32; 4] = [1.0, 2.0, 3.0, 4.0];
    ///
    /// let mut arena = stowplan::Arena::<Net, 32>::new();
    /// arena.view_mut(X).copy_from_slice(&[0.5; 4]);
    /// let ((x, w, ()), (y,)) = arena.views((X, &W[..], ()), (Y,));
    /// for ((y, x), w) in y.iter_mut().zip(x).zip(w) {
    ///     *y = (x * w) as i8;
    /// }
    /// assert_eq!(arena.view(Y), &[0, 1, 1, 2]);
    /// ```
    ///
    /// ```should_panic
    /// pub enum Net {}
    /// const X: stowplan::Slot<Net, f32> = stowplan::Slot::new(0, 4);
    /// const Y: stowplan::Slot<Net, f32> = stowplan::Slot::new(8, 4);
    /// let mut arena = stowplan::Arena::<Net, 32>::new();
    /// // panics: output 0 (bytes 8..24) overlaps input 0 (bytes 0..16)
    /// let _ = arena.views((X,), (Y,));
    /// ```
    #[inline]
    #[track_caller]
    pub fn views<R: Reads<M>, W: Writes<M>>(
        &mut self,
        reads: R,
        writes: W,
    ) -> (R::Views<'_>, W::Views<'_>) {
        crate::op::check(&reads, &writes, N);
        // `base` comes from `as_mut_ptr` on the whole array, borrowed mutably from `&mut self`
        // for the returned lifetime `'_`, so it may be used for all `N` bytes while the views
        // live, and nothing else reaches them meanwhile.
        let base = self.bytes.as_mut_ptr();
        // SAFETY: `op::check` returned, so every slot of `reads` lies inside the `N` bytes at
        // `base` (which is 16-byte aligned: the array is the `align(16)` arena's first field),
        // and no slot of `writes` shares a byte with a slot of `reads`, so no mutable view
        // overlaps these shared ones (slots of `reads` may overlap each other).
        let read = unsafe { reads.views(base) };
        // SAFETY: `op::check` returned, so every slot of `writes` lies inside the `N` bytes at
        // `base` and shares no byte with another slot of `writes` or with a slot of `reads`:
        // each mutable view is the only reference to its bytes.
        let written = unsafe { writes.views(base) };
        (read, written)
    }
}

/// A model of a group sharing one arena: implemented by a group's generated module for the
/// arena marker of each of its models (`audio::kws::Activations: Member<audio::Shared>`), so
/// that [`Arena::lend`] lends the group's arena to its own models only.
pub trait Member<G> {}

impl<G, const N: usize, const A: usize> Arena<G, N, A>
where
    Align<A>: SupportedAlign,
{
    /// The first `K` bytes of this arena as the arena of model `M`, a member of group `G`:
    /// models that run one at a time share the bytes, each through its own typed arena, and the
    /// borrow of `self` keeps two of them from being used at once.
    ///
    /// Generated groups name it once per model (`audio::kws(&mut arena)`). A compile error
    /// (when the call is instantiated) if the model's arena is larger than this one (`K > N`),
    /// is aligned more, or has padding (`K` not a multiple of its alignment).
    ///
    /// ```
    /// pub enum Group {}
    /// pub enum Kws {}
    /// pub enum Cmd {}
    /// impl stowplan::Member<Group> for Kws {}
    /// impl stowplan::Member<Group> for Cmd {}
    ///
    /// let mut shared = stowplan::Arena::<Group, 64>::new();
    /// let kws: &mut stowplan::Arena<Kws, 48> = shared.lend();
    /// kws.as_bytes_mut()[0] = 7;
    /// let cmd: &mut stowplan::Arena<Cmd, 64> = shared.lend();
    /// assert_eq!(cmd.as_bytes()[0], 7, "the same bytes");
    /// ```
    #[inline]
    #[must_use]
    pub fn lend<M: Member<G>, const K: usize, const B: usize>(&mut self) -> &mut Arena<M, K, B>
    where
        Align<B>: SupportedAlign,
    {
        const {
            assert!(K <= N, "a model's arena is larger than the group's");
            assert!(
                core::mem::align_of::<Arena<M, K, B>>() <= core::mem::align_of::<Self>(),
                "a model's arena is aligned more than the group's"
            );
            assert!(
                core::mem::size_of::<Arena<M, K, B>>() == K,
                "a model's arena must be a multiple of its alignment to be lent"
            );
        }
        let this: *mut Self = self;
        // SAFETY: `Arena<M, K, B>` is `repr(C)`: a zero-length array, `[u8; K]` at offset 0 and a
        // zero-sized marker, `K` bytes in all (the assertion above: no padding); `Self` holds
        // `[u8; N]` at offset 0 with `K <= N` (asserted), so the cast pointer covers the first
        // `K` bytes of `self.bytes`, never `Self`'s padding, and is aligned for the target (its
        // alignment is at most `Self`'s, asserted). Every byte is an initialised `u8`
        // and every value of the target is `K` such bytes, so reads and writes through it,
        // including writes of a whole `Arena<M, K, B>`, leave initialised bytes behind. The
        // reference is derived from `&mut self` and lives no longer, so it is the only one.
        unsafe { &mut *this.cast::<Arena<M, K, B>>() }
    }
}

impl<M, const N: usize, const A: usize> Default for Arena<M, N, A>
where
    Align<A>: SupportedAlign,
{
    fn default() -> Self {
        Self::new()
    }
}

impl<M, const N: usize, const A: usize> core::fmt::Debug for Arena<M, N, A>
where
    Align<A>: SupportedAlign,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Arena")
            .field("bytes", &N)
            .field("align", &Self::ALIGN)
            .finish()
    }
}

/// An [`Arena`] for a `static`: handed out once as `&'static mut Arena`.
///
/// This is the recommended home of an arena on a device: the zero bytes of
/// `StaticArena::new()` go to `.bss`, so the arena costs no flash and no stack, and its size
/// shows in the linker's figures. Generated modules name it `net::StaticArena`.
///
/// ```
/// stowplan::include_model!("models/residual.tflite");
///
/// static ARENA: residual::StaticArena = residual::StaticArena::new();
///
/// let arena: &'static mut residual::Arena = ARENA.take().expect("taken once");
/// arena.view_mut(residual::X).fill(1.0);
/// assert!(ARENA.take().is_none(), "a second take gets nothing");
/// ```
///
/// No `static mut` is involved. Where the target has compare-and-swap
/// (`target_has_atomic = "8"`: hosts, Armv7-M, Armv8-M), [`StaticArena::take`] claims the arena
/// with one atomic swap of a flag. Armv6-M (`thumbv6m-none-eabi`, Cortex-M0/M0+) has none:
/// there, enable the runtime's feature `critical-section` and `take` claims the arena inside
/// `critical_section::with` (the firmware links one implementation, such as the `cortex-m`
/// crate's feature `critical-section-single-core`, or its HAL's); without the feature a call to
/// `take` is a compile error that says this. Other ways on Armv6-M: keep the arena in `main`'s
/// frame (`let mut arena = net::Arena::new();` in a `fn main() -> !` lives for the whole
/// program), or call the `unsafe` [`StaticArena::take_unchecked`] once at the start of `main`.
///
/// Cost: the flag. With an arena of `N` bytes (a multiple of its alignment) the `StaticArena` is
/// `N` bytes plus its alignment (16 unless raised), the flag padded to it.
#[repr(C)]
pub struct StaticArena<M, const N: usize, const A: usize = 16>
where
    Align<A>: SupportedAlign,
{
    arena: UnsafeCell<Arena<M, N, A>>,
    taken: AtomicBool,
}

// SAFETY: a shared `&StaticArena` gives access to the arena only through `take` (which lets
// exactly one caller past, on any number of threads: an atomic swap of `taken`, or without
// compare-and-swap a load and a store of it inside one critical section, which no other core or
// interrupt handler enters meanwhile) and `take_unchecked` (whose caller promises no other take
// ran or runs), so at most one `&mut Arena` ever exists, and `Arena<M, N, A>` is `Send` (bytes,
// a zero-length array of a plain alignment type and a `PhantomData<fn() -> M>`), so handing it
// to the thread that took it is sound.
unsafe impl<M, const N: usize, const A: usize> Sync for StaticArena<M, N, A> where
    Align<A>: SupportedAlign
{
}

/// Why `StaticArena::take` does not compile on a target without compare-and-swap: see
/// [`StaticArena`]. Never implemented.
#[cfg(not(any(target_has_atomic = "8", feature = "critical-section")))]
#[diagnostic::on_unimplemented(
    message = "`StaticArena::take` needs compare-and-swap, which this target (Armv6-M?) does not have: enable the feature `critical-section` of `stowplan` and link a critical-section implementation (such as `cortex-m` with its feature `critical-section-single-core`)",
    label = "`take` needs the `stowplan` feature `critical-section` on this target",
    note = "or keep the arena in `main`'s frame (`let mut arena = net::Arena::new();` in `fn main() -> !`), or call the unsafe `take_unchecked` once at the start of `main`"
)]
pub trait TakeNeedsCriticalSection {
    /// Never called: no type implements this trait.
    fn unreachable() -> !;
}

impl<M, const N: usize, const A: usize> StaticArena<M, N, A>
where
    Align<A>: SupportedAlign,
{
    /// A zeroed arena, not yet taken.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            arena: UnsafeCell::new(Arena::new()),
            taken: AtomicBool::new(false),
        }
    }

    /// Sets the flag and says whether this caller was the first: one atomic swap.
    #[cfg(target_has_atomic = "8")]
    fn claim(&self) -> bool {
        !self.taken.swap(true, Ordering::Acquire)
    }

    /// Sets the flag and says whether this caller was the first: a load and a store inside one
    /// critical section, for targets without compare-and-swap.
    #[cfg(all(not(target_has_atomic = "8"), feature = "critical-section"))]
    fn claim(&self) -> bool {
        critical_section::with(|_| {
            let taken = self.taken.load(Ordering::Acquire);
            self.taken.store(true, Ordering::Relaxed);
            !taken
        })
    }

    /// The arena, the first time; `None` after that.
    ///
    /// On a target without compare-and-swap (Armv6-M) it needs the feature `critical-section`;
    /// see [`StaticArena`].
    #[cfg(any(target_has_atomic = "8", feature = "critical-section"))]
    #[cfg_attr(
        docsrs,
        doc(cfg(any(target_has_atomic = "8", feature = "critical-section")))
    )]
    #[must_use]
    #[allow(
        clippy::mut_from_ref,
        reason = "the flag hands the arena out once: the `UnsafeCell` pattern of a static"
    )]
    pub fn take(&'static self) -> Option<&'static mut Arena<M, N, A>> {
        if !self.claim() {
            return None;
        }
        // SAFETY: `claim` returned `true` to this caller only (an atomic swap, or a load and a
        // store inside one critical section): every other `take` sees the flag set, and
        // `take_unchecked` requires that no take ran before it, and sets the flag for those
        // after it. So no other reference to the arena exists, and none will; `self` is
        // `'static`.
        Some(unsafe { &mut *self.arena.get() })
    }

    /// On a target without compare-and-swap and without the feature `critical-section`, `take`
    /// does not compile, with a message saying what to do (see [`StaticArena`]).
    #[cfg(not(any(target_has_atomic = "8", feature = "critical-section")))]
    #[must_use]
    pub fn take(&'static self) -> Option<&'static mut Arena<M, N, A>>
    where
        Self: TakeNeedsCriticalSection,
    {
        <Self as TakeNeedsCriticalSection>::unreachable()
    }

    /// The arena, without the flag's atomic swap or critical section that [`StaticArena::take`]
    /// needs: for targets without compare-and-swap (Armv6-M) and no critical-section
    /// implementation.
    ///
    /// # Safety
    ///
    /// No `take` or `take_unchecked` of this `StaticArena` may have run before, and none may
    /// run at the same time (on another core, or in an interrupt handler that preempts this
    /// call), and no other `take_unchecked` may run later. Calling it once, as the first thing
    /// in `main`, before interrupts that could take the arena are enabled, meets this. Later
    /// calls to `take` return `None`.
    #[must_use]
    #[allow(
        clippy::mut_from_ref,
        reason = "the caller promises a single take: the `UnsafeCell` pattern of a static"
    )]
    pub unsafe fn take_unchecked(&'static self) -> &'static mut Arena<M, N, A> {
        self.taken.store(true, Ordering::Relaxed);
        // SAFETY: the caller guarantees that no take ran before or runs beside this one and no
        // other `take_unchecked` runs later; a later `take` sees the flag stored above and returns
        // `None`. So this is the only reference to the arena, ever; `self` is `'static`.
        unsafe { &mut *self.arena.get() }
    }

    /// Whether the arena was taken.
    pub fn is_taken(&self) -> bool {
        self.taken.load(Ordering::Relaxed)
    }
}

impl<M, const N: usize, const A: usize> Default for StaticArena<M, N, A>
where
    Align<A>: SupportedAlign,
{
    fn default() -> Self {
        Self::new()
    }
}

impl<M, const N: usize, const A: usize> core::fmt::Debug for StaticArena<M, N, A>
where
    Align<A>: SupportedAlign,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("StaticArena")
            .field("bytes", &N)
            .field("align", &Arena::<M, N, A>::ALIGN)
            .field("taken", &self.is_taken())
            .finish()
    }
}
