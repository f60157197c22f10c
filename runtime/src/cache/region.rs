//! [`Region`]: blocks carved out of a byte slice, first fit, without a heap.

use core::fmt;
use core::marker::PhantomData;
use core::ptr::NonNull;

use super::{ALIGN, Backing, Block, round_up};

/// A [`Backing`] over a byte slice the caller lends: no heap, no `unsafe` for the caller.
///
/// Blocks are multiples of the granule (64 bytes by default, [`Region::with_granule`] for
/// another) at offsets that are multiples of it from the first 16-byte aligned byte of the slice.
/// The region keeps its blocks in a table of at most `M` entries sorted by offset (on a 32-bit
/// device, 8 bytes each) and allocates first fit: the lowest gap between blocks, or after the
/// last, that is large enough. Free space is exactly the gaps, so a released block merges with
/// free neighbours by itself: there is never a free list to coalesce. Allocating or releasing
/// costs a scan or a binary search of the table plus a shift of its tail, O(M).
///
/// A cache over a region uses the granule as its page ([`BufferCache::new`]) and the region's
/// capacity as its memory limit.
///
/// The slice stays borrowed for `'a`: on a device a `&'static mut [u8]` (from a `static` taken
/// once, like [`StaticArena`](crate::StaticArena)), on a host or in a test a local array. The
/// bytes keep whatever they held: a buffer on fresh region bytes shows them.
///
/// [`BufferCache::new`]: super::BufferCache::new
pub struct Region<'a, const M: usize = 32> {
    /// The first 16-byte aligned byte of the slice (dangling when `capacity` is 0).
    base: NonNull<u8>,
    /// Usable bytes from `base`, a multiple of `granule`.
    capacity: usize,
    granule: usize,
    /// `(offset, size)` of each block handed out, sorted by offset, disjoint.
    blocks: [(usize, usize); M],
    len: usize,
    used: usize,
    _bytes: PhantomData<&'a mut [u8]>,
}

impl<'a, const M: usize> Region<'a, M> {
    /// The default granule: 64 bytes.
    pub const GRANULE: usize = 64;

    /// A region over `bytes` with the default granule, [`Region::GRANULE`].
    ///
    /// Up to 15 bytes at the start (to reach 16-byte alignment) and the bytes after the last
    /// whole granule stay unused; [`Region::capacity`] says what is left.
    #[must_use]
    pub fn new(bytes: &'a mut [u8]) -> Self {
        Self::build(bytes, Self::GRANULE)
    }

    /// A region over `bytes` with blocks in multiples of `granule` bytes, or `None` unless
    /// `granule` is a power of two of at least 16.
    #[must_use]
    pub fn with_granule(bytes: &'a mut [u8], granule: usize) -> Option<Self> {
        (granule >= ALIGN && granule.is_power_of_two()).then(|| Self::build(bytes, granule))
    }

    fn build(bytes: &'a mut [u8], granule: usize) -> Self {
        let len = bytes.len();
        let start = NonNull::from(bytes).cast::<u8>();
        // Bytes to skip to the first 16-byte aligned one.
        let skip = start.as_ptr().addr().wrapping_neg() % ALIGN;
        let usable = len.saturating_sub(skip);
        let capacity = usable - usable % granule;
        let base = if capacity == 0 {
            NonNull::dangling()
        } else {
            // In bounds: `skip < len` as `capacity > 0`. `wrapping_add` keeps the slice's
            // provenance, so every block pointer derived from `base` may access its bytes.
            NonNull::new(start.as_ptr().wrapping_add(skip)).unwrap_or(NonNull::dangling())
        };
        Self {
            base,
            capacity,
            granule,
            blocks: [(0, 0); M],
            len: 0,
            used: 0,
            _bytes: PhantomData,
        }
    }

    /// Bytes the region can hand out in all.
    #[must_use]
    pub const fn capacity(&self) -> usize {
        self.capacity
    }

    /// Bytes in blocks handed out and not yet released.
    #[must_use]
    pub const fn used_bytes(&self) -> usize {
        self.used
    }

    /// Number of blocks handed out and not yet released (at most `M`).
    #[must_use]
    pub const fn blocks(&self) -> usize {
        self.len
    }

    /// Sizes are rounded up to a multiple of this.
    #[must_use]
    pub const fn granule(&self) -> usize {
        self.granule
    }
}

impl<const M: usize> fmt::Debug for Region<'_, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Region")
            .field("capacity", &self.capacity)
            .field("granule", &self.granule)
            .field("used_bytes", &self.used)
            .field("blocks", &self.len)
            .field("max_blocks", &M)
            .finish()
    }
}

// SAFETY:
// - `allocate` returns blocks inside the `capacity` bytes from `base`, which lie in the slice
//   borrowed mutably for `'a` (`build`); the block table holds every block handed out and not
//   released, and a new block goes into a gap of the table, so blocks handed out never overlap;
// - a block is `size` bytes rounded up to the granule (at least `size`) at an offset that is a
//   multiple of the granule (every block size is one) from `base`, which is 16-byte aligned, and
//   the granule is a power of two of at least 16, so the block is 16-byte aligned;
// - the bytes come from a `&mut [u8]`, so they are initialised, and only whole `u8`s are ever
//   written to them;
// - the pointers are derived from the slice's pointer with `wrapping_add` inside its bounds, so
//   they carry its provenance.
unsafe impl<const M: usize> Backing for Region<'_, M> {
    fn granule(&self) -> usize {
        self.granule
    }

    fn capacity(&self) -> usize {
        self.capacity
    }

    fn allocate(&mut self, size: usize) -> Option<Block> {
        let len = self.len;
        if size == 0 || len >= M {
            return None;
        }
        let size = round_up(size, self.granule)?;
        // First fit: the lowest gap of at least `size` bytes.
        let mut start = 0;
        let mut at = len;
        for (i, &(offset, bytes)) in self.blocks.get(..len)?.iter().enumerate() {
            if offset.checked_sub(start)? >= size {
                at = i;
                break;
            }
            start = offset.checked_add(bytes)?;
        }
        if at == len && self.capacity.checked_sub(start)? < size {
            return None;
        }
        let used = self.used.checked_add(size)?;
        let ptr = NonNull::new(self.base.as_ptr().wrapping_add(start))?;
        // In bounds: `at <= len < M`.
        if at < len {
            self.blocks.copy_within(at..len, at + 1);
        }
        self.blocks[at] = (start, size);
        self.len = len + 1;
        self.used = used;
        Some(Block { ptr, len: size })
    }

    unsafe fn release(&mut self, block: Block) {
        // A block that is not one of ours (which the caller promised cannot happen) is ignored.
        let offset = block
            .ptr
            .as_ptr()
            .addr()
            .wrapping_sub(self.base.as_ptr().addr());
        let Some(blocks) = self.blocks.get_mut(..self.len) else {
            return;
        };
        let Ok(at) = blocks.binary_search_by(|b| b.0.cmp(&offset)) else {
            return;
        };
        if blocks.get(at).map(|b| b.1) != Some(block.len) {
            return;
        }
        if at + 1 < blocks.len() {
            blocks.copy_within(at + 1.., at);
        }
        self.len -= 1;
        self.used = self.used.saturating_sub(block.len);
    }
}
