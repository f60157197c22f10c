//! The device side of stowplan: what firmware links.
//!
//! `#![no_std]`, no heap, no planning, no dependencies but optional ones (`critical-section`, `defmt`). The code that `stowplan::include_model!`
//! (or the `build.rs` helper in `stowplan-build`) generates for a model names the types here:
//!
//! - [`Arena`]: aligned storage (16 bytes, or the plan's alignment above that) of exactly the
//!   planned size, one type per model region
//!   (the generated module's marker type `M` keeps one model's slots away from another's arena,
//!   even one of the same size); [`StaticArena`] keeps one in a `static`;
//! - [`Slot`]: where one tensor lives in an arena (offset and element count, checked against the
//!   element type's alignment when the constant is evaluated);
//! - views: [`Arena::view`] (`&[T]`) and [`Arena::view_mut`] (`&mut [T]`) of one slot, and
//!   [`Arena::views`], every input (shared) and output (mutable) of one op at once, which the
//!   generated `ops::op_N` functions call;
//! - [`Element`]: the element types a slot can have;
//! - [`cache`]: buffers for tensors whose size is known only at run time, MLX's cache rules;
//! - tables describing the model ([`TensorInfo`], [`OpInfo`]);
//! - with feature `kernels`, module `kernels`: reference kernels bit-exact with TensorFlow Lite Micro.
//!
//! Generated code reaches the rest through `#[doc(hidden)] pub mod __private_v1`; the version in
//! the name turns a mismatch between generator and runtime into an unresolved path.
//!
//! # Soundness
//!
//! Every view borrows the arena: shared views `&self`, mutable views and op views `&mut self`.
//! So the borrow checker refuses two live views of one arena when either is mutable, a view kept
//! while another op's views are taken, and a view that outlives its arena (`tests/ui-runtime/`
//! holds one compile-fail case per misuse). Within one op, [`Arena::views`] hands out several
//! views from one borrow; it checks that no output overlaps another output or an input
//! (`k(k-1)/2` comparisons for `k` slots, with a panic naming both slots and their bytes). The
//! generated op functions are also proven disjoint when the crate compiles (a `const`
//! assertion per op), so the check can never fire for them, and with their constant slots the
//! optimiser folds it away: getting every view of an op costs a few address computations and
//! no branch (the guide's "Zero planning at run time" (docs/guide.md) shows the Cortex-M4 assembly).
//!
//! Slots carry the marker type of their region; the element types are sealed to plain numbers
//! for which every bit pattern is valid, so viewing reused arena bytes as another type is never
//! undefined behaviour (TFLite's BOOL is viewed as raw `u8`, FLOAT16 as raw `u16`).
//!
//! # The generated module
//!
//! `include_model!("models/net.tflite", budget = 48 * 1024)` (feature `macros`, on by default)
//! or `stowplan_build::Config` in `build.rs` plans the model while the crate compiles and gives
//! a module `net` with:
//!
//! - `ARENA_BYTES`, `LOWER_BOUND_BYTES`, `NAIVE_BYTES`, `ALIGN`, `PERSISTENT_BYTES`, `PLANNER`,
//!   `MODEL_PATH`, `MODEL_SHA256`;
//! - `Arena` and `PersistentArena`: [`Arena`] types of exactly the planned sizes, with this
//!   model's own marker types (`Activations`, `Persistent`), and `StaticArena`, the arena for a
//!   `static` ([`StaticArena`]); with `align = 64` their address is 64-byte aligned too
//!   (`Arena<Activations, ARENA_BYTES, 64>`);
//! - a typed [`Slot`] constant per tensor in the arena or the persistent region, documented with
//!   its name, type, shape, lifetime, offset and size;
//! - each constant tensor as a typed `&'static` slice of its data (never the whole model file);
//! - `INPUTS`, `OUTPUTS` (indexes into `TENSORS`), `TENSORS` ([`TensorInfo`]) and `OPS`
//!   ([`OpInfo`], in execution order);
//! - `inputs::INPUT_0`, `inputs::INPUT_1`, ... and `outputs::OUTPUT_0`, ...: the model's inputs
//!   and outputs by position, whatever the converter named them (each the same slot as the
//!   constant named after its tensor);
//! - compile-time assertions: every slot inside its region, slots live at the same time
//!   disjoint, the arena within the budget;
//! - `ops::op_N` (`ops::sgS_op_N` in subgraph `S`): the views of op `N`'s inputs and outputs
//!   from one borrow of the arena, for every op whose tensors are all in the arena, constants or
//!   omitted (the module docs list the others: ops on variable tensors, for now).
//!
//! ```
//! stowplan::include_model!("models/residual.tflite", budget = "1 KiB");
//!
//! assert_eq!(residual::ARENA_BYTES, 384);
//! assert_eq!(residual::LOWER_BOUND_BYTES, 384);
//! assert_eq!(residual::OPS[2].opcode, "ADD");
//!
//! let mut arena = residual::Arena::new();
//! // `inputs::INPUT_0` is the model's first input whatever its name (here `x`: `residual::X`).
//! arena.view_mut(residual::inputs::INPUT_0).fill(-1.0);
//! // Op 0 is a RELU: it reads `x` and writes `a`.
//! let ((x,), (a,)) = residual::ops::op_0(&mut arena);
//! for (a, x) in a.iter_mut().zip(x) {
//!     *a = x.max(0.0);
//! }
//! assert!(arena.view(residual::A).iter().all(|&a| a == 0.0));
//! ```
//!
//! A budget the plan exceeds is a compile error on the `budget` argument; so is, with code
//! E0080, a generated assertion that does not hold (for example in a review copy edited by hand):
//!
//! ```compile_fail,E0080
//! pub enum Activations {}
//! // Offset 2 is not aligned for f32: the constant fails to evaluate.
//! pub const X: stowplan::Slot<Activations, f32> = stowplan::Slot::new(2, 4);
//! ```
//!
//! `include_models!(name = pair, model("models/residual.tflite"), model(...))` (or
//! `Config::member`) gives one such module per model inside a group module `pair`, with one
//! shared arena as large as the largest (`pair::Arena`, `pair::StaticArena`, `pair::ARENA_BYTES`,
//! `pair::SEPARATE_ARENA_BYTES`) and per model a function lending it as that model's arena
//! ([`Arena::lend`], for the group's [`Member`]s only):
//!
//! ```
//! stowplan::include_models!(
//!     name = pair,
//!     model("models/residual.tflite", name = first),
//!     model("models/residual.tflite", name = second),
//! );
//!
//! let mut arena = pair::Arena::new();
//! pair::first(&mut arena).view_mut(pair::first::X).fill(2.0);
//! // The second model sees the same bytes, through its own slots.
//! assert_eq!(pair::second(&mut arena).view(pair::second::X)[0], 2.0);
//! assert_eq!(pair::ARENA_BYTES * 2, pair::SEPARATE_ARENA_BYTES);
//! ```
//!
//! ```
//! // What generated code looks like, by hand:
//! pub enum Activations {}
//! pub const ARENA_BYTES: usize = 64;
//! pub const X: stowplan::Slot<Activations, f32> = stowplan::Slot::new(0, 4);
//! pub const Y: stowplan::Slot<Activations, f32> = stowplan::Slot::new(16, 4);
//! const _: () = assert!(Y.end() <= ARENA_BYTES);
//!
//! let mut arena = stowplan::Arena::<Activations, ARENA_BYTES>::new();
//! assert_eq!(arena.as_bytes().len(), 64);
//! arena.as_bytes_mut()[X.byte_range()].fill(0);
//! ```
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
// The only crate of the workspace with `unsafe`: each block carries a `// SAFETY:` proof.
#![allow(unsafe_code)]
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(
    clippy::undocumented_unsafe_blocks,
    clippy::multiple_unsafe_ops_per_block,
    clippy::missing_safety_doc
)]

use core::marker::PhantomData;
use core::ops::Range;

mod arena;
pub mod cache;
#[cfg(feature = "defmt")]
mod defmt_impls;
mod dynamic;
// The DSP extension's instructions for the kernels' blocked int8 loops: the one module of the
// kernels with `unsafe` (`asm!`, with cfg `stowplan_dsp`), so declared here, outside `kernels`,
// which forbids it. It lives in the kernels' folder so that the planner, which compiles the
// kernels' files for folding, finds it too (with no `stowplan_dsp` on the host: no `unsafe`).
// Its users (the ops' `dsp` modules, `kernels::shared::blocked`) exist with `stowplan_dsp` and in
// tests.
#[cfg(all(feature = "kernels", any(stowplan_dsp, test)))]
#[path = "kernels/shared/dsp.rs"]
mod dsp;
// TFLM's `(multiplier, shift)` pair, which both `kernels` and `dsp` use (the kernels re-export
// it as `kernels::Requant`): on its own, so that neither imports the other for it.
#[cfg(feature = "kernels")]
#[cfg_attr(docsrs, doc(cfg(feature = "kernels")))]
pub mod kernels;
mod op;
#[cfg(feature = "kernels")]
#[path = "kernels/shared/requant_pair.rs"]
mod requant_pair;
#[cfg(all(feature = "stack-probe", target_arch = "arm", target_os = "none"))]
#[cfg_attr(
    docsrs,
    doc(cfg(all(feature = "stack-probe", target_arch = "arm", target_os = "none")))
)]
pub mod stack;
#[cfg(test)]
mod tests;

#[cfg(not(any(target_has_atomic = "8", feature = "critical-section")))]
pub use arena::TakeNeedsCriticalSection;
pub use arena::{Arena, Member, StaticArena};
pub use dynamic::{DynamicError, DynamicTensor};
pub use op::{Read, Reads, Write, Writes};

#[cfg(feature = "macros")]
#[cfg_attr(docsrs, doc(cfg(feature = "macros")))]
pub use stowplan_macros::{include_model, include_models};

mod sealed {
    pub trait Sealed {}
}

/// An alignment of an arena's address, in bytes: the `A` of [`Arena<M, N, A>`](Arena) and
/// [`StaticArena<M, N, A>`](StaticArena). Only the [`SupportedAlign`] ones exist.
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[derive(Clone, Copy, Debug)]
pub struct Align<const A: usize>;

/// The alignments an arena's address can have: every power of two from 1 to 4,096 (below 16 the
/// arena is 16-byte aligned all the same). Sealed.
///
/// A generated module planned with `align = 64` names `Arena<Activations, ARENA_BYTES, 64>`;
/// an alignment above 4,096 is refused when the crate compiles, with a message.
pub trait SupportedAlign: sealed::Sealed {
    /// A zero-sized type of exactly this alignment (at least 16).
    #[doc(hidden)]
    type Archetype: Copy + Send + Sync + 'static;
}

macro_rules! alignments {
    ($($a:literal => $t:ident),* $(,)?) => {$(
        #[doc(hidden)]
        #[derive(Clone, Copy, Debug)]
        #[repr(align($a))]
        pub struct $t;
    )*};
}

alignments!(
    16 => Align16Bytes, 32 => Align32Bytes, 64 => Align64Bytes, 128 => Align128Bytes,
    256 => Align256Bytes, 512 => Align512Bytes, 1024 => Align1024Bytes,
    2048 => Align2048Bytes, 4096 => Align4096Bytes,
);

macro_rules! supported {
    ($($a:literal => $t:ident),* $(,)?) => {$(
        impl sealed::Sealed for Align<$a> {}
        impl SupportedAlign for Align<$a> {
            type Archetype = $t;
        }
    )*};
}

supported!(
    1 => Align16Bytes, 2 => Align16Bytes, 4 => Align16Bytes, 8 => Align16Bytes,
    16 => Align16Bytes, 32 => Align32Bytes, 64 => Align64Bytes, 128 => Align128Bytes,
    256 => Align256Bytes, 512 => Align512Bytes, 1024 => Align1024Bytes,
    2048 => Align2048Bytes, 4096 => Align4096Bytes,
);

/// An element type of a tensor: a plain number type for which every bit pattern is a valid
/// value and which has no padding, so arena bytes and constant data can be viewed as it.
///
/// TFLite types map to: `i8`, `u8` (also BOOL, INT4, INT2, UINT4 and FLOAT8, stored one byte
/// per element), `i16`, `u16` (also FLOAT16 and BFLOAT16 as raw bits), `i32`, `u32` (also
/// RESOURCE handles), `i64`, `u64`, `f32`, `f64`. Sealed: the generator relies on exactly
/// these properties.
pub trait Element: sealed::Sealed + Copy + 'static {
    /// The TFLite name of the type this is the natural element of (`int8`, `float32`, ...).
    const NAME: &'static str;
}

macro_rules! elements {
    ($($t:ty => $name:literal),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const NAME: &'static str = $name;
        }
    )*};
}

elements!(
    i8 => "int8", u8 => "uint8", i16 => "int16", u16 => "uint16", i32 => "int32",
    u32 => "uint32", i64 => "int64", u64 => "uint64", f32 => "float32", f64 => "float64",
);

/// A tensor's place in an arena of region `M`: a byte offset and a number of `T` elements.
///
/// `M` is the marker type of one generated model's region, so a slot can only be used with
/// the arena it was planned for.
pub struct Slot<M, T: Element> {
    offset: usize,
    len: usize,
    _marker: PhantomData<fn() -> (M, T)>,
}

impl<M, T: Element> Clone for Slot<M, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<M, T: Element> Copy for Slot<M, T> {}

impl<M, T: Element> core::fmt::Debug for Slot<M, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Slot")
            .field("offset", &self.offset)
            .field("len", &self.len)
            .field("type", &T::NAME)
            .finish()
    }
}

impl<M, T: Element> Slot<M, T> {
    /// A slot of `len` elements at byte `offset`.
    ///
    /// # Panics
    ///
    /// If `offset` is not a multiple of `T`'s alignment or the slot's end overflows `usize`.
    /// Generated code builds slots in `const` items, so this is a compile error there.
    #[must_use]
    pub const fn new(offset: usize, len: usize) -> Self {
        assert!(
            core::mem::align_of::<T>() <= 16,
            "element alignment above the arena's 16"
        );
        assert!(
            offset.is_multiple_of(core::mem::align_of::<T>()),
            "slot offset is not aligned for its element type"
        );
        assert!(
            len.checked_mul(core::mem::size_of::<T>()).is_some(),
            "slot size overflows usize"
        );
        assert!(
            offset
                .checked_add(len * core::mem::size_of::<T>())
                .is_some(),
            "slot end overflows usize"
        );
        Self {
            offset,
            len,
            _marker: PhantomData,
        }
    }

    /// Byte offset in the arena.
    #[must_use]
    pub const fn offset(&self) -> usize {
        self.offset
    }

    /// Number of elements.
    #[must_use]
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether the slot holds no elements.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Size in bytes.
    #[must_use]
    pub const fn bytes(&self) -> usize {
        self.len * core::mem::size_of::<T>()
    }

    /// Byte offset one past the end.
    #[must_use]
    pub const fn end(&self) -> usize {
        self.offset + self.bytes()
    }

    /// The byte range in the arena.
    #[must_use]
    pub const fn byte_range(&self) -> Range<usize> {
        self.offset..self.end()
    }
}

/// Where a tensor's bytes are.
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    /// In the arena, at `offset`, `bytes` long.
    Arena {
        /// Byte offset.
        offset: usize,
        /// Size in bytes.
        bytes: usize,
    },
    /// In the persistent region (variable tensors), at `offset`, `bytes` long.
    Persistent {
        /// Byte offset.
        offset: usize,
        /// Size in bytes.
        bytes: usize,
    },
    /// Constant data in flash.
    Constant(&'static [u8]),
    /// Nowhere in memory planned here (a zero-size tensor or a resource handle).
    None,
}

/// A tensor of the model, for tables and tools.
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TensorInfo {
    /// Its name in the model.
    pub name: &'static str,
    /// Its TFLite type name (`int8`, `float32`, ...).
    pub dtype: &'static str,
    /// Its shape.
    pub shape: &'static [i32],
    /// Where its bytes are.
    pub location: Location,
}

/// An op of the model, in execution order.
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpInfo {
    /// Builtin name (`CONV_2D`) or custom code.
    pub opcode: &'static str,
    /// Subgraph of the op.
    pub subgraph: u32,
    /// Index in the subgraph.
    pub index: u32,
    /// Input tensors (indexes into the model's `TENSORS`); `None` for omitted optional inputs.
    pub inputs: &'static [Option<u32>],
    /// Output tensors (indexes into the model's `TENSORS`).
    pub outputs: &'static [u32],
}

/// What a model's `invoke` did, for a model with an op that can end an invocation early
/// (TFLite Micro's custom op `CIRCULAR_BUFFER`, whose kernel returns `kTfLiteAbort` until its
/// period is reached). The `invoke` of every other model returns nothing.
///
/// ```
/// use stowplan::Invoked;
/// let done = Invoked::Stopped { op: 1 };
/// assert!(!done.is_complete());
/// assert!(Invoked::Complete.is_complete());
/// ```
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use = "the outputs were written only when `invoke` returned `Invoked::Complete`"]
pub enum Invoked {
    /// Every op ran: the outputs hold this invocation's results.
    Complete,
    /// Op `op` (its position in the main subgraph) ended the invocation, as TFLite Micro's
    /// interpreter ends it on `kTfLiteAbort`: the ops after it did not run, so the outputs hold
    /// what the last complete invocation wrote (the planner keeps such a model's outputs apart
    /// from every other tensor). It is not an error; the state the ops before it keep has moved
    /// on.
    Stopped {
        /// The op that stopped the invocation.
        op: usize,
    },
}

impl Invoked {
    /// Whether every op ran (the outputs were written by this invocation).
    #[must_use]
    pub const fn is_complete(self) -> bool {
        matches!(self, Self::Complete)
    }
}

#[doc(hidden)]
pub mod __private_v1 {
    //! Support for generated code. Not public API: it changes with the generator.

    pub use crate::{
        Arena, DynamicTensor, Element, Location, OpInfo, Slot, StaticArena, TensorInfo,
    };

    /// Constant data with the alignment TFLite gives it (16).
    #[derive(Debug)]
    #[repr(C, align(16))]
    pub struct Aligned<B: ?Sized>(pub B);

    /// Views aligned constant bytes as elements of `T`.
    ///
    /// # Panics
    ///
    /// If `N` is not a multiple of `T`'s size (a compile error in the `const` items that call it).
    #[must_use]
    pub const fn typed<T: Element, const N: usize>(
        data: &'static Aligned<[u8; N]>,
    ) -> &'static [T] {
        let size = core::mem::size_of::<T>();
        assert!(
            N.is_multiple_of(size),
            "constant data is not a whole number of elements"
        );
        assert!(
            core::mem::align_of::<T>() <= 16,
            "element alignment above 16"
        );
        let ptr = data.0.as_ptr().cast::<T>();
        // SAFETY:
        // - `ptr` is 16-byte aligned (`Aligned` is `align(16)`), and every `Element` type has an
        //   alignment of at most 16 (asserted above), so it is aligned for `T`;
        // - `N / size` elements of `T` cover exactly the `N` bytes of `data` (asserted above), which
        //   are initialised and live for `'static`;
        // - `T: Element` is sealed to plain number types without padding for which every bit
        //   pattern is valid, so any bytes are valid `T`s;
        // - the data is only ever shared (`&'static`), never mutated.
        unsafe { core::slice::from_raw_parts(ptr, N / size) }
    }

    /// The `N` bytes at `offset` of the model file (included whole with `include_bytes!`),
    /// copied when the constant is evaluated. Generated code keeps each constant buffer this
    /// way: weights never become tokens, and only the buffers reach the binary, not the file.
    ///
    /// # Panics
    ///
    /// If the bytes leave the file (a compile error in the `const` items that call it).
    #[must_use]
    pub const fn copy_at<const N: usize, const M: usize>(
        file: &Aligned<[u8; M]>,
        offset: usize,
    ) -> Aligned<[u8; N]> {
        let Some((_, rest)) = file.0.split_at_checked(offset) else {
            panic!("constant data lies outside the model file");
        };
        let Some((bytes, _)) = rest.split_at_checked(N) else {
            panic!("constant data lies outside the model file");
        };
        let mut out = [0u8; N];
        out.copy_from_slice(bytes);
        Aligned(out)
    }

    /// [`copy_at`]'s `N` bytes, a FULLY_CONNECTED filter of rows of `depth` values (a multiple
    /// of 4), re-laid when the constant is evaluated for the kernel
    /// `kernels::fully_connected_kernel::INTERLEAVED`: word `k` of row `c` moves to the word
    /// `interleaved_word(c, k, depth, N / depth)` names.
    ///
    /// # Panics
    ///
    /// If the bytes leave the file, or `depth` is not a positive multiple of 4 that divides `N`
    /// (a compile error in the `const` items that call it).
    #[cfg(feature = "kernels")]
    #[must_use]
    pub const fn interleave_at<const N: usize, const M: usize>(
        file: &Aligned<[u8; M]>,
        offset: usize,
        depth: usize,
    ) -> Aligned<[u8; N]> {
        use crate::kernels::fully_connected_kernel::interleaved_word;
        let Aligned(bytes) = copy_at::<N, M>(file, offset);
        assert!(
            depth > 0 && depth.is_multiple_of(4) && N.is_multiple_of(depth),
            "an interleaved filter's rows are whole words"
        );
        let (words, units) = (depth / 4, N / depth);
        let mut out = [0u8; N];
        let mut c = 0;
        while c < units {
            let mut k = 0;
            while k < words {
                let (from, to) = (
                    4 * (c * words + k),
                    4 * interleaved_word(c, k, depth, units),
                );
                let mut j = 0;
                while j < 4 {
                    out[to + j] = bytes[from + j];
                    j += 1;
                }
                k += 1;
            }
            c += 1;
        }
        Aligned(out)
    }

    /// A slot for [`Disjoint`]: its bytes and its lifetime, and the live slot it enters above.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Span {
        /// The slot's first byte (its offset in the arena).
        pub start: usize,
        /// One past the slot's last byte.
        pub end: usize,
        /// The first step of the timeline at which the slot is live.
        pub first: u32,
        /// The last step at which it is live.
        pub last: u32,
        /// The index (in the table) of the live slot just under it when it enters; `None` when
        /// it enters lowest. A hint the check verifies, never trusts.
        pub below: Option<u32>,
    }

    impl Span {
        /// A slot of the bytes `bytes`, live at step 0 and entering lowest; the generated
        /// table reads `Span::bytes(256..512).live(1..=2).above(1)`.
        #[must_use]
        pub const fn bytes(bytes: core::ops::Range<usize>) -> Self {
            Self {
                start: bytes.start,
                end: bytes.end,
                first: 0,
                last: 0,
                below: None,
            }
        }

        /// The slot, live from the first to the last step of `steps`.
        #[must_use]
        pub const fn live(self, steps: core::ops::RangeInclusive<u32>) -> Self {
            Self {
                first: *steps.start(),
                last: *steps.end(),
                ..self
            }
        }

        /// The slot, entering just above the slot of index `slot` in the table.
        #[must_use]
        pub const fn above(self, slot: u32) -> Self {
            Self {
                below: Some(slot),
                ..self
            }
        }
    }

    const NONE: u32 = u32::MAX;
    const LIVE: u8 = 1;
    const GONE: u8 = 2;

    /// The proof that no two slots live at the same time share a byte, checked when the crate
    /// compiles, in work linear in the slots (so within the compiler's limits on constant
    /// evaluation however many slots are live at once).
    ///
    /// The slots come sorted by first time, each naming the slot it enters above. A sweep over
    /// time keeps the live slots in a list sorted by offset: before a slot enters, the slots
    /// whose last time is earlier leave (in the order of `ends`, the slots sorted by last time);
    /// then it goes between the slot it names and that slot's successor, and must end at or
    /// below the successor's offset and start at or above the named slot's end. The list stays
    /// sorted and disjoint, and it holds every earlier slot whose lifetime reaches the entering
    /// slot's first time, so every pair of slots live at the same time is proven disjoint. A
    /// wrong `below` fails to compile: it is a hint, never trusted.
    ///
    /// [`Disjoint::check`] takes slots up to a count, so the generated code checks them in
    /// chunks, one `const` item each (each has its own evaluation limit); [`Disjoint::finish`]
    /// asserts that every slot was checked.
    #[derive(Clone, Copy, Debug)]
    pub struct Disjoint<const N: usize> {
        next: [u32; N],
        prev: [u32; N],
        state: [u8; N],
        lowest: u32,
        inserted: usize,
        removed: usize,
    }

    impl<const N: usize> Default for Disjoint<N> {
        fn default() -> Self {
            Self::new()
        }
    }

    impl<const N: usize> Disjoint<N> {
        /// No slot checked yet.
        #[must_use]
        pub const fn new() -> Self {
            Self {
                next: [NONE; N],
                prev: [NONE; N],
                state: [0; N],
                lowest: NONE,
                inserted: 0,
                removed: 0,
            }
        }

        /// Checks the slots up to index `upto` (exclusive) that are not checked yet, each
        /// non-empty and ending within `arena`; see the [type docs](Disjoint).
        ///
        /// # Panics
        ///
        /// On a violation: in the `const` item generated code calls it from, a compile error.
        #[must_use]
        pub const fn check(
            mut self,
            spans: &[Span; N],
            ends: &[u32; N],
            upto: usize,
            arena: usize,
        ) -> Self {
            let upto = if upto < N { upto } else { N };
            while self.inserted < upto {
                let i = self.inserted;
                let Span {
                    start,
                    end,
                    first,
                    below,
                    ..
                } = spans[i];
                assert!(
                    start < end && end <= arena,
                    "a slot is empty or ends beyond the arena"
                );
                assert!(
                    i == 0 || spans[i - 1].first <= first,
                    "slots are not sorted by first time"
                );
                // The slots whose lifetime ended before `first` leave.
                while self.removed < N {
                    let j = ends[self.removed] as usize;
                    let last = spans[j].last;
                    if last >= first {
                        break;
                    }
                    assert!(
                        self.state[j] == LIVE,
                        "a slot leaves before it enters, or twice"
                    );
                    assert!(
                        self.removed == 0 || spans[ends[self.removed - 1] as usize].last <= last,
                        "slots leave out of the order of their last time"
                    );
                    let (p, n) = (self.prev[j], self.next[j]);
                    if p == NONE {
                        self.lowest = n;
                    } else {
                        self.next[p as usize] = n;
                    }
                    if n != NONE {
                        self.prev[n as usize] = p;
                    }
                    self.state[j] = GONE;
                    self.removed += 1;
                }
                // Slot `i` enters between `below` and its successor.
                let above = if let Some(b) = below {
                    let b = b as usize;
                    assert!(
                        self.state[b] == LIVE,
                        "a slot enters above one that is not live"
                    );
                    assert!(
                        spans[b].end <= start,
                        "two slots live at the same time share bytes"
                    );
                    self.next[b]
                } else {
                    self.lowest
                };
                if above != NONE {
                    assert!(
                        end <= spans[above as usize].start,
                        "two slots live at the same time share bytes"
                    );
                    self.prev[above as usize] = i as u32;
                }
                self.next[i] = above;
                if let Some(b) = below {
                    self.prev[i] = b;
                    self.next[b as usize] = i as u32;
                } else {
                    self.prev[i] = NONE;
                    self.lowest = i as u32;
                }
                self.state[i] = LIVE;
                self.inserted += 1;
            }
            self
        }

        /// Asserts that every slot was checked.
        ///
        /// # Panics
        ///
        /// If some slot was not: a compile error.
        pub const fn finish(&self) {
            assert!(self.inserted == N, "not every slot was checked");
        }
    }

    /// Checks that no slot an op writes (`writes`, `(start, end)` byte ranges) overlaps another
    /// one it writes or one it reads (`reads`): the compile-time proof behind each generated
    /// op function, the same test [`Arena::views`] makes.
    ///
    /// # Panics
    ///
    /// On an overlap: in the `const` item generated code calls it from, a compile error.
    pub const fn assert_op_disjoint(reads: &[(usize, usize)], writes: &[(usize, usize)]) {
        let mut i = 0;
        while i < writes.len() {
            let (start, end) = writes[i];
            let mut j = 0;
            while j < writes.len() {
                let (start2, end2) = writes[j];
                assert!(
                    i == j || !(start < end2 && start2 < end && start < end && start2 < end2),
                    "two outputs of one op share bytes"
                );
                j += 1;
            }
            j = 0;
            while j < reads.len() {
                let (start2, end2) = reads[j];
                assert!(
                    !(start < end2 && start2 < end && start < end && start2 < end2),
                    "an output of an op shares bytes with one of its inputs"
                );
                j += 1;
            }
            i += 1;
        }
    }
}

/// The README's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
