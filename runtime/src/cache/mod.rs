//! A buffer cache for tensors whose size is known only at run time, with MLX's rules.
//!
//! The plan covers every tensor whose shape the model fixes. A tensor with a `-1` dimension
//! gets its bytes at run time from a [`BufferCache`]: [`BufferCache::alloc`] returns a
//! [`Buffer`] (bytes, or a typed view of any [`Element`] type), and freeing the buffer
//! ([`BufferCache::free`], or dropping it) puts its block into the cache's pool, so the next
//! request of about the same size reuses it instead of going to the backing allocator. The
//! rules are MLX's (`mlx/backend/common/buffer_cache.h` and the Metal and CUDA allocators):
//!
//! - **Sizes.** A request above one page is rounded up to whole pages (and every request to the
//!   backing's granule); the buffer's [`capacity`](Buffer::capacity) is that rounded size, and
//!   the statistics count it.
//! - **Reuse.** A request of `size` (rounded) takes the smallest pooled block whose size is in
//!   `size..min(2 * size, size + 2 * page)`, the least recently freed among equal sizes: never
//!   a block twice the size or more, nor one more than two pages larger. A hit counts in
//!   [`Stats::hits`], anything else in [`Stats::misses`].
//! - **Memory limit.** On a miss, if active plus cached bytes plus the new block would exceed
//!   the memory limit, cached blocks are released first (below); if that is not enough the
//!   request fails with [`CacheError::MemoryLimit`]. Then the backing allocates; if it cannot,
//!   the whole pool is released and it tries once more, else [`CacheError::OutOfMemory`].
//! - **Cache limit.** A freed block goes into the pool if the pool holds fewer bytes than the
//!   cache limit, else straight back to the backing. After every allocation, a pool above the
//!   cache limit releases the excess. Lowering the limit takes effect at the next allocation,
//!   as in MLX; [`BufferCache::clear_cache`] empties the pool at once.
//! - **Releasing `k` bytes of the pool** (for either limit): if `k` is at least 90 % of the
//!   pool, everything goes at once (MLX's `release_cached_buffers`); otherwise the least
//!   recently freed blocks go, oldest first, until at least `k` bytes have. Each released block
//!   counts in [`Stats::evictions`].
//! - **Capacity.** The pool holds at most `N` blocks (no heap): freeing into a full pool first
//!   evicts the oldest block. MLX's pool is unbounded; this is the one rule it does not have.
//!
//! Backings: [`Region`], a first-fit allocator over a byte slice you lend (no heap: the one for
//! devices; its granule is the cache's page), and with feature `alloc` `System`, the global
//! allocator (page 4096, as MLX on Apple silicon). Anything else implements [`Backing`].
//!
//! # Example
//!
//! ```
//! use stowplan::cache::{BufferCache, Region};
//!
//! let mut memory = [0u8; 4096];
//! let cache: BufferCache<Region<'_>> = BufferCache::new(Region::new(&mut memory));
//!
//! // A tensor of 20 f32 whose length came at run time: 80 bytes, a 128-byte block (the
//! // region's granule is 64).
//! let mut x = cache.alloc(20 * 4)?;
//! x.view_mut::<f32>()?.fill(0.5);
//! assert_eq!(x.capacity(), 128);
//! cache.free(x)?;
//!
//! // 72 bytes round up to the same 128: the cached block comes back.
//! let y = cache.alloc(72)?;
//! assert_eq!(y.view::<f32>()?.len(), 18);
//! let stats = cache.stats();
//! assert_eq!((stats.hits, stats.misses), (1, 1));
//! assert_eq!((stats.active_bytes, stats.peak_bytes, stats.cached_bytes), (128, 128, 0));
//! drop(y); // dropping frees too
//! assert_eq!(cache.stats().cached_bytes, 128);
//! # Ok::<(), stowplan::cache::CacheError>(())
//! ```
//!
//! # Soundness
//!
//! A [`Buffer`] borrows its cache, so the cache (and the memory of its backing) outlives every
//! buffer, and a buffer returns to the cache that made it: [`BufferCache::free`] consumes it
//! (no double free), and with another cache's buffer it returns [`CacheError::ForeignBuffer`]
//! after giving the buffer back to its own cache. Each block belongs to one buffer or to the
//! pool at a time, so the buffer's views are the only references to its bytes. The bytes are
//! always initialised and every [`Element`] accepts any bit pattern, so a reused block viewed
//! as another type is valid, if meaningless. The cache is neither `Send` nor `Sync`: keep one
//! per thread or execution context.

use core::cell::{Cell, RefCell};
use core::fmt;
use core::ptr::NonNull;

use crate::Element;

mod pool;
mod region;
#[cfg(feature = "alloc")]
mod system;
#[cfg(test)]
mod tests;

pub use region::Region;
#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
pub use system::System;

use pool::Pool;

/// Alignment of every block.
const ALIGN: usize = 16;

/// `x` rounded up to a multiple of `m` (`x` itself for `m` of 0 or 1), or `None` on overflow.
fn round_up(x: usize, m: usize) -> Option<usize> {
    if m <= 1 {
        Some(x)
    } else if m.is_power_of_two() {
        // Pages and granules are powers of two: a mask instead of a division.
        Some(x.checked_add(m - 1)? & !(m - 1))
    } else {
        x.div_ceil(m).checked_mul(m)
    }
}

/// A block of memory from a [`Backing`]: where it starts and how many bytes it has.
///
/// Building one is safe: what makes a block usable is the `unsafe impl Backing` that hands it
/// out, and [`Backing::release`] is `unsafe` to call.
#[derive(Debug, PartialEq, Eq)]
pub struct Block {
    ptr: NonNull<u8>,
    len: usize,
}

impl Block {
    /// A block of `len` bytes at `ptr`.
    #[must_use]
    pub const fn new(ptr: NonNull<u8>, len: usize) -> Self {
        Self { ptr, len }
    }

    /// Where the block starts.
    #[must_use]
    pub const fn as_ptr(&self) -> NonNull<u8> {
        self.ptr
    }

    /// Its size in bytes.
    #[must_use]
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether it has no bytes.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Where a [`BufferCache`] gets its blocks: [`Region`], `System` (feature `alloc`), or your
/// own.
///
/// # Safety
///
/// Implementations promise, for every block `allocate` returns, until it is passed to
/// [`release`](Backing::release) or the backing is dropped:
///
/// - its pointer is 16-byte aligned, its length is at least the `size` asked for, and it is
///   valid for reads and writes of its length through that pointer (which carries the memory's
///   provenance);
/// - its bytes are initialised (the cache gives out `&[u8]` views of them);
/// - nothing else reads or writes them: no other block handed out and not released overlaps
///   it, and the backing does not touch them.
pub unsafe trait Backing {
    /// Every size the cache asks for is a multiple of this (a power of two of at least 16 for
    /// the backings here).
    fn granule(&self) -> usize;

    /// The page of a cache built with [`BufferCache::new`]: the granule unless overridden
    /// (`System`: 4096).
    fn page_size(&self) -> usize {
        self.granule()
    }

    /// The memory limit of a cache built over this backing: unlimited unless overridden
    /// ([`Region`]: its capacity).
    fn capacity(&self) -> usize {
        usize::MAX
    }

    /// A block of at least `size` bytes (a nonzero multiple of the granule), or `None` when
    /// there is no room.
    fn allocate(&mut self, size: usize) -> Option<Block>;

    /// Takes a block back.
    ///
    /// # Safety
    ///
    /// `block` was returned by `allocate` of this backing (or of one that shares its memory,
    /// as every `System` does) and not released since; nothing uses its bytes any more.
    unsafe fn release(&mut self, block: Block);
}

/// What a cache did so far ([`BufferCache::stats`]). Bytes are blocks' sizes (requests rounded
/// up to the granule, and above one page to whole pages), as MLX counts them.
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Bytes of the buffers handed out and not yet freed (MLX's active memory).
    pub active_bytes: usize,
    /// The most `active_bytes` has been since the cache was made or [`BufferCache::reset_peak`].
    pub peak_bytes: usize,
    /// Bytes of the blocks in the pool (MLX's cache memory).
    pub cached_bytes: usize,
    /// Number of blocks in the pool.
    pub cached_buffers: usize,
    /// Requests served from the pool.
    pub hits: u64,
    /// Requests the pool could not serve (those that then failed included); requests of zero
    /// bytes count as neither.
    pub misses: u64,
    /// Blocks released from the pool to the backing because of the cache limit, the memory
    /// limit, a backing out of room or a full pool (not [`BufferCache::clear_cache`]).
    pub evictions: u64,
}

/// The statistics as cells, one per count: updated in place, one field at a time.
#[derive(Debug, Default)]
struct Counters {
    active: Cell<usize>,
    peak: Cell<usize>,
    cached: Cell<usize>,
    cached_buffers: Cell<usize>,
    hits: Cell<u64>,
    misses: Cell<u64>,
    evictions: Cell<u64>,
}

impl Counters {
    fn stats(&self) -> Stats {
        Stats {
            active_bytes: self.active.get(),
            peak_bytes: self.peak.get(),
            cached_bytes: self.cached.get(),
            cached_buffers: self.cached_buffers.get(),
            hits: self.hits.get(),
            misses: self.misses.get(),
            evictions: self.evictions.get(),
        }
    }

    /// A block of `size` bytes left the pool for a buffer.
    fn hit(&self, size: usize) {
        self.hits.set(self.hits.get().saturating_add(1));
        self.unpool(size);
    }

    fn miss(&self) {
        self.misses.set(self.misses.get().saturating_add(1));
    }

    /// A buffer of `size` bytes was handed out.
    fn activate(&self, size: usize) {
        let active = self.active.get().saturating_add(size);
        self.active.set(active);
        if active > self.peak.get() {
            self.peak.set(active);
        }
    }

    /// A buffer of `size` bytes came back.
    fn deactivate(&self, size: usize) {
        self.active.set(self.active.get().saturating_sub(size));
    }

    /// A block of `size` bytes went into the pool.
    fn pool(&self, size: usize) {
        self.cached.set(self.cached.get().saturating_add(size));
        self.cached_buffers
            .set(self.cached_buffers.get().saturating_add(1));
    }

    /// A block of `size` bytes left the pool.
    fn unpool(&self, size: usize) {
        self.cached.set(self.cached.get().saturating_sub(size));
        self.cached_buffers
            .set(self.cached_buffers.get().saturating_sub(1));
    }

    fn evicted(&self, count: usize) {
        self.evictions
            .set(self.evictions.get().saturating_add(count as u64));
    }
}

/// Why a cache could not do what was asked.
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CacheError {
    /// The request, rounded up to the page, does not fit in `usize`.
    SizeOverflow {
        /// Bytes asked for.
        requested: usize,
    },
    /// Active bytes plus the new block would exceed the memory limit, even with the pool empty.
    MemoryLimit {
        /// Size of the block the request needed (rounded up).
        requested: usize,
        /// Bytes of the buffers in use.
        active: usize,
        /// The memory limit.
        limit: usize,
    },
    /// The backing had no room for the block, even with the pool released.
    OutOfMemory {
        /// Size of the block the request needed (rounded up).
        requested: usize,
    },
    /// [`BufferCache::free`] got a buffer of another cache (which went back to that cache).
    ForeignBuffer,
    /// The cache was called from inside its own backing (only possible with a [`Backing`]
    /// that can reach the cache that owns it).
    Busy,
    /// A typed view of a buffer whose length is not a whole number of elements.
    NotWholeElements {
        /// Length of the buffer in bytes.
        bytes: usize,
        /// The element type's TFLite name.
        element: &'static str,
    },
    /// A typed view of a buffer not aligned for the element type (only with a [`Backing`] that
    /// breaks its promise of 16-byte alignment).
    Misaligned {
        /// The element type's TFLite name.
        element: &'static str,
    },
}

impl fmt::Display for CacheError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::SizeOverflow { requested } => {
                write!(
                    f,
                    "a buffer of {requested} bytes rounded up to the page overflows usize"
                )
            }
            Self::MemoryLimit {
                requested,
                active,
                limit,
            } => write!(
                f,
                "a block of {requested} bytes with {active} bytes in use exceeds the memory \
                 limit of {limit} bytes even with the cache empty; free buffers or raise the limit"
            ),
            Self::OutOfMemory { requested } => write!(
                f,
                "the backing has no room for a block of {requested} bytes, even with the cache \
                 empty"
            ),
            Self::ForeignBuffer => f.write_str("the buffer belongs to another cache"),
            Self::Busy => f.write_str("the cache was called from inside its own backing"),
            Self::NotWholeElements { bytes, element } => {
                write!(
                    f,
                    "{bytes} bytes are not a whole number of {element} elements"
                )
            }
            Self::Misaligned { element } => {
                write!(f, "the buffer is not aligned for {element} elements")
            }
        }
    }
}

impl core::error::Error for CacheError {}

/// What the cache keeps behind its `RefCell`.
struct State<B, const N: usize> {
    backing: B,
    pool: Pool<N>,
}

/// A cache of blocks from the backing `B`, with a pool of at most `N` freed blocks and MLX's
/// reuse and eviction rules (the [module docs](self) list them).
///
/// Every method takes `&self` (a `RefCell` inside), so many [`Buffer`]s, each borrowing the
/// cache, can be alive at once. The cache is neither `Send` nor `Sync`. Dropping it releases
/// the pool to the backing (buffers cannot outlive it).
pub struct BufferCache<B: Backing, const N: usize = 16> {
    state: RefCell<State<B, N>>,
    stats: Counters,
    page: usize,
    cache_limit: Cell<usize>,
    memory_limit: Cell<usize>,
}

impl<B: Backing, const N: usize> BufferCache<B, N> {
    /// A cache over `backing`, with the backing's page ([`Backing::page_size`]: the region's
    /// granule, 4096 for `System`); memory limit and cache limit are the backing's
    /// [`capacity`](Backing::capacity) (the region's size; unlimited for `System`), as MLX
    /// starts its cache limit at its memory limit.
    #[must_use]
    pub fn new(backing: B) -> Self {
        let page = backing.page_size();
        Self::with_page_size(backing, page)
    }

    /// A cache over `backing` with a page of `page` bytes (0 counts as 1).
    #[must_use]
    pub fn with_page_size(backing: B, page: usize) -> Self {
        let limit = backing.capacity();
        Self {
            state: RefCell::new(State {
                backing,
                pool: Pool::new(),
            }),
            stats: Counters::default(),
            page: page.max(1),
            cache_limit: Cell::new(limit),
            memory_limit: Cell::new(limit),
        }
    }

    /// A buffer of `size` bytes: a pooled block if one fits the reuse window, else a new one.
    ///
    /// The bytes are initialised but hold whatever they held (zeroes from `System`, the last
    /// user's data in a reused block). A request of zero bytes returns an empty buffer and
    /// touches nothing.
    ///
    /// # Errors
    ///
    /// [`CacheError::SizeOverflow`] when the rounded size overflows, [`CacheError::MemoryLimit`]
    /// when the memory limit leaves no room even with the pool released,
    /// [`CacheError::OutOfMemory`] when the backing has none, [`CacheError::Busy`] when called
    /// from inside the backing.
    pub fn alloc(&self, size: usize) -> Result<Buffer<'_>, CacheError> {
        if size == 0 {
            return Ok(Buffer {
                cache: self,
                ptr: Buffer::DANGLING,
                len: 0,
                capacity: 0,
            });
        }
        let mut state = self.state.try_borrow_mut().map_err(|_| CacheError::Busy)?;
        let (ptr, capacity) = self.take_block(&mut state, size)?;
        Ok(Buffer {
            cache: self,
            ptr,
            len: size,
            capacity,
        })
    }

    /// Returns `buffer` to this cache: into the pool if it holds fewer bytes than the cache
    /// limit (evicting the oldest block if it already holds `N`), else to the backing.
    /// Dropping a buffer does the same.
    ///
    /// # Errors
    ///
    /// [`CacheError::ForeignBuffer`] when `buffer` came from another cache (it goes back to that
    /// one); [`CacheError::Busy`] when called from inside the backing (the block is then
    /// leaked, never reused).
    pub fn free(&self, mut buffer: Buffer<'_>) -> Result<(), CacheError> {
        if !core::ptr::addr_eq(buffer.cache, self) {
            drop(buffer);
            return Err(CacheError::ForeignBuffer);
        }
        // The buffer's `Drop` does nothing once its capacity is 0.
        let capacity = core::mem::take(&mut buffer.capacity);
        if capacity == 0 {
            return Ok(());
        }
        self.take_back(buffer.ptr, capacity)
    }

    /// Releases every pooled block to the backing and returns how many there were (0 when
    /// called from inside the backing, which this cannot do).
    pub fn clear_cache(&self) -> usize {
        let Ok(mut state) = self.state.try_borrow_mut() else {
            return 0;
        };
        release_all(&mut state, &self.stats)
    }

    /// Sets the most bytes the pool keeps and returns the previous limit. A pool above the new
    /// limit shrinks at the next allocation (as in MLX); 0 turns caching off.
    pub fn set_cache_limit(&self, bytes: usize) -> usize {
        self.cache_limit.replace(bytes)
    }

    /// Sets the most bytes of active and cached blocks together and returns the previous
    /// limit. It applies to the next allocation the pool cannot serve.
    pub fn set_memory_limit(&self, bytes: usize) -> usize {
        self.memory_limit.replace(bytes)
    }

    /// The cache limit ([`BufferCache::set_cache_limit`]).
    #[must_use]
    pub fn cache_limit(&self) -> usize {
        self.cache_limit.get()
    }

    /// The memory limit ([`BufferCache::set_memory_limit`]).
    #[must_use]
    pub fn memory_limit(&self) -> usize {
        self.memory_limit.get()
    }

    /// The page: requests above it are rounded up to whole pages, and it bounds the reuse
    /// window (`size + 2 * page`).
    #[must_use]
    pub const fn page_size(&self) -> usize {
        self.page
    }

    /// Byte counts and hit, miss and eviction counts so far.
    #[must_use]
    pub fn stats(&self) -> Stats {
        self.stats.stats()
    }

    /// Restarts the peak at the active bytes (MLX restarts it at 0; here `peak_bytes` never
    /// drops below `active_bytes`).
    pub fn reset_peak(&self) {
        self.stats.peak.set(self.stats.active.get());
    }

    /// `size` rounded up to whole pages if above one page, and to the backing's granule.
    fn block_size(&self, backing: &B, size: usize) -> Option<usize> {
        let size = if size > self.page {
            round_up(size, self.page)?
        } else {
            size
        };
        round_up(size, backing.granule())
    }

    /// The block for a request of `size` bytes (not 0): from the pool or the backing.
    fn take_block(
        &self,
        state: &mut State<B, N>,
        size: usize,
    ) -> Result<(NonNull<u8>, usize), CacheError> {
        let stats = &self.stats;
        let block_size = self
            .block_size(&state.backing, size)
            .ok_or(CacheError::SizeOverflow { requested: size })?;
        let bound = block_size
            .saturating_mul(2)
            .min(block_size.saturating_add(self.page.saturating_mul(2)));
        let (ptr, capacity) = match state.pool.take(block_size, bound) {
            Some((ptr, capacity)) => {
                stats.hit(capacity);
                (ptr, capacity)
            }
            None => {
                stats.miss();
                self.allocate_new(state, size, block_size)?
            }
        };
        stats.activate(capacity);
        // Keep the pool within the cache limit (MLX does this after every allocation).
        let (cached, limit) = (stats.cached.get(), self.cache_limit.get());
        if cached > limit {
            release_cached(state, stats, cached - limit);
        }
        Ok((ptr, capacity))
    }

    /// A new block of `block_size` bytes for a request of `size`, after making room under the
    /// memory limit.
    fn allocate_new(
        &self,
        state: &mut State<B, N>,
        size: usize,
        block_size: usize,
    ) -> Result<(NonNull<u8>, usize), CacheError> {
        let stats = &self.stats;
        let limit = self.memory_limit.get();
        let excess = || {
            let total =
                stats.active.get() as u128 + stats.cached.get() as u128 + block_size as u128;
            usize::try_from(total.saturating_sub(limit as u128)).unwrap_or(usize::MAX)
        };
        let over = excess();
        if over > 0 {
            release_cached(state, stats, over);
            if excess() > 0 {
                return Err(CacheError::MemoryLimit {
                    requested: block_size,
                    active: stats.active.get(),
                    limit,
                });
            }
        }
        let block = match state.backing.allocate(block_size) {
            Some(block) => block,
            None if state.pool.len() > 0 => {
                // The pool may hold the room (a region full of cached blocks): release it all.
                stats.evicted(release_all(state, stats));
                state
                    .backing
                    .allocate(block_size)
                    .ok_or(CacheError::OutOfMemory {
                        requested: block_size,
                    })?
            }
            None => {
                return Err(CacheError::OutOfMemory {
                    requested: block_size,
                });
            }
        };
        if block.len < size {
            // A backing that broke its promise of at least `size` bytes: not usable.
            // SAFETY: `block` was just returned by `state.backing.allocate` and is released
            // once, here; nothing has used it.
            unsafe { state.backing.release(block) };
            return Err(CacheError::OutOfMemory {
                requested: block_size,
            });
        }
        Ok((block.ptr, block.len))
    }

    /// Takes back the block of a buffer of this cache (`free` and `Drop`).
    fn take_back(&self, ptr: NonNull<u8>, capacity: usize) -> Result<(), CacheError> {
        let mut state = self.state.try_borrow_mut().map_err(|_| CacheError::Busy)?;
        let state = &mut *state;
        let stats = &self.stats;
        stats.deactivate(capacity);
        if N == 0 || stats.cached.get() >= self.cache_limit.get() {
            // SAFETY: the block of a buffer of this cache (`free` checks, `Drop` is the buffer's
            // own), which `alloc` got from `state.backing`; the buffer's capacity was zeroed or
            // it is being dropped, so nothing uses the block and it is released once.
            unsafe { release_block(&mut state.backing, ptr, capacity) };
        } else {
            if state.pool.is_full() {
                evict_oldest(state, stats);
            }
            match state.pool.insert(ptr, capacity) {
                Ok(()) => stats.pool(capacity),
                // SAFETY: as above; the pool gave the block back without keeping it.
                Err(ptr) => unsafe { release_block(&mut state.backing, ptr, capacity) },
            }
        }
        Ok(())
    }
}

/// MLX's `release_cached_buffers(min_bytes)`: everything if `min_bytes` is at least 90 % of the
/// pool, else the least recently freed blocks until at least `min_bytes` have gone. Each block
/// counts as an eviction.
fn release_cached<B: Backing, const N: usize>(
    state: &mut State<B, N>,
    stats: &Counters,
    min_bytes: usize,
) {
    // `min_bytes >= 0.9 * cached`, exactly.
    if min_bytes as u128 * 10 >= stats.cached.get() as u128 * 9 {
        stats.evicted(release_all(state, stats));
        return;
    }
    let mut freed = 0usize;
    while freed < min_bytes {
        match evict_oldest(state, stats) {
            Some(size) => freed = freed.saturating_add(size),
            None => break,
        }
    }
}

/// Releases the least recently freed block, counting an eviction; returns its size.
fn evict_oldest<B: Backing, const N: usize>(
    state: &mut State<B, N>,
    stats: &Counters,
) -> Option<usize> {
    let (ptr, size) = state.pool.take_oldest()?;
    // SAFETY: the pool holds only blocks of `state.backing` that no buffer uses (`take_back`
    // puts a freed buffer's block there), and `take_oldest` removed this one, so it is
    // released once.
    unsafe { release_block(&mut state.backing, ptr, size) };
    stats.unpool(size);
    stats.evicted(1);
    Some(size)
}

/// Releases the whole pool; returns the number of blocks.
fn release_all<B: Backing, const N: usize>(state: &mut State<B, N>, stats: &Counters) -> usize {
    let State { backing, pool } = state;
    let mut count = 0usize;
    pool.take_all(|ptr, size| {
        // SAFETY: as in `evict_oldest`; `take_all` hands out each entry once and forgets them.
        unsafe { release_block(backing, ptr, size) };
        count += 1;
    });
    stats.cached.set(0);
    stats.cached_buffers.set(0);
    count
}

/// Gives a block of the cache (one just taken out of the pool, or a freed buffer's) back to
/// `backing`.
///
/// # Safety
///
/// `ptr` and `size` are a block `backing.allocate` returned (the cache only ever holds those:
/// `alloc` builds each buffer from one, and the pool's entries come from buffers of this cache),
/// not released since and used by nothing any more; the caller forgets it.
unsafe fn release_block<B: Backing>(backing: &mut B, ptr: NonNull<u8>, size: usize) {
    // SAFETY: the caller's promise is `Backing::release`'s precondition.
    unsafe { backing.release(Block { ptr, len: size }) };
}

impl<B: Backing, const N: usize> Drop for BufferCache<B, N> {
    fn drop(&mut self) {
        // No buffer is alive (each borrows the cache): only the pool holds blocks.
        let state = self.state.get_mut();
        let State { backing, pool } = state;
        pool.take_all(|ptr, size| {
            // SAFETY: as in `evict_oldest`; `take_all` hands out each entry once.
            unsafe { release_block(backing, ptr, size) };
        });
    }
}

impl<B: Backing, const N: usize> fmt::Debug for BufferCache<B, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BufferCache")
            .field("max_cached_buffers", &N)
            .field("page_size", &self.page)
            .field("cache_limit", &self.cache_limit.get())
            .field("memory_limit", &self.memory_limit.get())
            .field("stats", &self.stats.stats())
            .finish_non_exhaustive()
    }
}

/// The cache a buffer returns to, whatever its backing and capacity.
trait Recycle {
    fn recycle(&self, ptr: NonNull<u8>, capacity: usize) -> Result<(), CacheError>;
}

impl<B: Backing, const N: usize> Recycle for BufferCache<B, N> {
    fn recycle(&self, ptr: NonNull<u8>, capacity: usize) -> Result<(), CacheError> {
        self.take_back(ptr, capacity)
    }
}

/// Bytes from a [`BufferCache`], borrowed from it until freed or dropped (both return them to
/// the cache).
///
/// Its views are [`as_bytes`](Buffer::as_bytes) and [`view`](Buffer::view) (`&[T]` for an
/// [`Element`] type `T`), and their `_mut` forms; they cover the bytes asked for,
/// [`len`](Buffer::len), of a block of [`capacity`](Buffer::capacity) bytes. The block is
/// 16-byte aligned, so every element type fits.
pub struct Buffer<'c> {
    cache: &'c dyn Recycle,
    /// 16-byte aligned; dangling when `capacity` is 0.
    ptr: NonNull<u8>,
    len: usize,
    /// Size of the block (0: no block, nothing to return).
    capacity: usize,
}

impl Buffer<'_> {
    /// Where an empty buffer points: a dangling pointer aligned for every element type.
    const DANGLING: NonNull<u8> = {
        #[repr(align(16))]
        struct Aligned;
        NonNull::<Aligned>::dangling().cast::<u8>()
    };

    /// Bytes asked for.
    #[must_use]
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether zero bytes were asked for.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Size of the block behind the buffer: the request rounded up, or a larger cached block.
    #[must_use]
    pub const fn capacity(&self) -> usize {
        self.capacity
    }

    /// The `len` bytes asked for.
    #[must_use]
    pub const fn as_bytes(&self) -> &[u8] {
        // SAFETY:
        // - `ptr` points to a block of `capacity >= len` bytes (`alloc` checked the backing's
        //   block length against `len`, or took a pooled block of at least the rounded size),
        //   valid for reads, initialised, and 16-byte aligned (the `Backing` contract), or is an
        //   aligned dangling pointer with `len == 0`;
        // - the block stays allocated while the buffer lives: the buffer borrows the cache,
        //   which owns the backing and releases only pooled blocks, and this one is not pooled
        //   until the buffer is freed or dropped;
        // - no one else writes the bytes: the block left the pool for this buffer alone, and
        //   writing needs `&mut self`, which this `&self` borrow excludes;
        // - a block of `len` bytes exists, so `len <= isize::MAX`.
        unsafe { core::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// The `len` bytes asked for, writable.
    #[must_use]
    pub const fn as_bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `as_bytes`, and the `&mut self` borrow makes this the only reference
        // to the bytes for its lifetime; writing `u8`s leaves them initialised.
        unsafe { core::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }

    /// The bytes as elements of `T`.
    ///
    /// # Errors
    ///
    /// [`CacheError::NotWholeElements`] unless `len` is a multiple of `T`'s size,
    /// [`CacheError::Misaligned`] if the block is not aligned for `T` (never with the backings
    /// here).
    pub fn view<T: Element>(&self) -> Result<&[T], CacheError> {
        let count = self.elements::<T>()?;
        // SAFETY: as in `as_bytes` for `len` bytes; `count * size_of::<T>() == len` and the
        // pointer is aligned for `T` (`elements` checked both); every bit pattern is a valid `T`
        // (`Element` is sealed to padding-free plain numbers).
        Ok(unsafe { core::slice::from_raw_parts(self.ptr.as_ptr().cast::<T>(), count) })
    }

    /// The bytes as elements of `T`, writable.
    ///
    /// # Errors
    ///
    /// As [`Buffer::view`].
    pub fn view_mut<T: Element>(&mut self) -> Result<&mut [T], CacheError> {
        let count = self.elements::<T>()?;
        // SAFETY: as in `view`, and the `&mut self` borrow makes this the only reference to the
        // bytes for its lifetime; any `T` written leaves initialised bytes without padding.
        Ok(unsafe { core::slice::from_raw_parts_mut(self.ptr.as_ptr().cast::<T>(), count) })
    }

    /// How many `T` the buffer holds, if a whole number of aligned ones.
    fn elements<T: Element>(&self) -> Result<usize, CacheError> {
        let size = core::mem::size_of::<T>();
        if size == 0 || !self.len.is_multiple_of(size) {
            return Err(CacheError::NotWholeElements {
                bytes: self.len,
                element: T::NAME,
            });
        }
        if !self
            .ptr
            .as_ptr()
            .addr()
            .is_multiple_of(core::mem::align_of::<T>())
        {
            return Err(CacheError::Misaligned { element: T::NAME });
        }
        Ok(self.len / size)
    }
}

impl Drop for Buffer<'_> {
    #[inline]
    fn drop(&mut self) {
        if self.capacity > 0 {
            // Only `Busy` can fail here, and then the block is leaked: never unsound.
            let _ = self.cache.recycle(self.ptr, self.capacity);
        }
    }
}

impl fmt::Debug for Buffer<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Buffer")
            .field("len", &self.len)
            .field("capacity", &self.capacity)
            .finish_non_exhaustive()
    }
}
