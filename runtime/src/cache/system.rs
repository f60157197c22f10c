//! [`System`]: blocks from the global allocator (feature `alloc`).

extern crate alloc;

use alloc::alloc::{Layout, alloc_zeroed, dealloc};
use core::ptr::NonNull;

use super::{ALIGN, Backing, Block};

/// A [`Backing`] over the global allocator (`#[global_allocator]`, the system's `malloc` on a
/// host), with feature `alloc`.
///
/// Blocks are 16-byte aligned and zeroed when first allocated (`alloc_zeroed`: the bytes behind
/// a view must be initialised); a reused block keeps what its last user wrote. The granule is
/// 16 bytes and a cache over it takes MLX's default page, 4096 bytes, and no memory limit.
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct System;

// SAFETY:
// - `allocate` returns a block of exactly the `size` bytes it asked the global allocator for,
//   with alignment 16, fresh from `alloc_zeroed`: not overlapping any other live allocation, and
//   initialised (zeroed); it stays allocated until `release` deallocates it;
// - the pointer comes from the allocator, so it carries the allocation's provenance.
unsafe impl Backing for System {
    fn granule(&self) -> usize {
        ALIGN
    }

    fn page_size(&self) -> usize {
        4096
    }

    fn allocate(&mut self, size: usize) -> Option<Block> {
        if size == 0 {
            return None;
        }
        let layout = Layout::from_size_align(size, ALIGN).ok()?;
        // SAFETY: `layout` has a nonzero size (`size == 0` returned above).
        let ptr = unsafe { alloc_zeroed(layout) };
        NonNull::new(ptr).map(|ptr| Block { ptr, len: size })
    }

    unsafe fn release(&mut self, block: Block) {
        // `allocate` built this layout for the block; it cannot fail now.
        let Ok(layout) = Layout::from_size_align(block.len, ALIGN) else {
            return;
        };
        // SAFETY: the caller promises that `block` came from `allocate` of a `System` (all of
        // them are the one global allocator) and was not released since: so the global
        // allocator allocated `block.ptr` with this layout (size `block.len`, which `allocate`
        // set to the size of its layout, and alignment 16) and it is still allocated.
        unsafe { dealloc(block.ptr.as_ptr(), layout) }
    }
}
