//! Unit tests of the buffer cache, one rule at a time, with both backings; they run under miri
//! too (`cargo +nightly miri test -p stowplan --features alloc`) and exercise every `unsafe`
//! block of the module.
//!
//! The rules are written once, generic over the backing, and `both!` runs each with
//! [`System`] (feature `alloc`) and with a [`Region`] of granule 16 and page 4096, so the same
//! sizes mean the same thing for both.

extern crate std;

use std::format;
use std::string::ToString;
use std::vec;
use std::vec::Vec;

use super::*;

/// Bytes of the region behind each `Region` test cache.
const REGION_BYTES: usize = 256 * 1024;

/// Runs `$rule` (a generic function of a cache) once per backing, as `$rule::system` and
/// `$rule::region`.
macro_rules! both {
    ($($rule:ident),* $(,)?) => {$(
        mod $rule {
            #[cfg(feature = "alloc")]
            #[test]
            fn system() {
                let cache = super::BufferCache::<super::System, 16>::new(super::System);
                super::$rule(&cache);
            }

            #[test]
            fn region() {
                let mut memory = super::vec![0u8; super::REGION_BYTES];
                let region = super::Region::<64>::with_granule(&mut memory, 16).unwrap();
                let cache = super::BufferCache::<_, 16>::with_page_size(region, 4096);
                super::$rule(&cache);
            }
        }
    )*};
}

both!(
    exact_size_is_reused,
    just_below_twice_the_size_is_reused,
    twice_the_size_is_not_reused,
    large_sizes_reuse_within_two_pages,
    smallest_fit_first_then_oldest_of_a_size,
    sizes_round_up_to_granule_and_pages,
    eviction_takes_the_least_recently_freed_first,
    releasing_ninety_percent_clears_the_pool,
    cache_limit_caps_the_pool,
    memory_limit_evicts_then_fails,
    peak_follows_active_bytes,
    hits_and_misses_are_counted,
    zero_bytes_touch_nothing,
    sizes_that_overflow_fail,
    typed_views,
    a_reused_block_keeps_its_bytes,
    dropping_a_buffer_frees_it,
    clear_cache_empties_the_pool,
);

/// Whether `f` was served from the pool.
fn was_hit<B: Backing, const N: usize, T>(
    cache: &BufferCache<B, N>,
    f: impl FnOnce() -> T,
) -> (T, bool) {
    let before = cache.stats();
    let out = f();
    let after = cache.stats();
    assert_eq!(after.hits + after.misses, before.hits + before.misses + 1);
    (out, after.hits == before.hits + 1)
}

/// Puts one block of each size into the pool, in order (the first is the oldest).
fn pool_of<B: Backing, const N: usize>(cache: &BufferCache<B, N>, sizes: &[usize]) {
    let buffers: Vec<_> = sizes.iter().map(|&s| cache.alloc(s).unwrap()).collect();
    for buffer in buffers {
        cache.free(buffer).unwrap();
    }
}

/// The pooled sizes, least recently freed first.
fn pooled<B: Backing, const N: usize>(cache: &BufferCache<B, N>) -> Vec<usize> {
    let state = cache.state.borrow();
    state.pool.check();
    state.pool.sizes_by_age().collect()
}

fn exact_size_is_reused<B: Backing>(cache: &BufferCache<B, 16>) {
    let a = cache.alloc(64).unwrap();
    let at = a.as_bytes().as_ptr();
    cache.free(a).unwrap();
    let (b, hit) = was_hit(cache, || cache.alloc(64).unwrap());
    assert!(hit);
    assert_eq!(b.as_bytes().as_ptr(), at);
    assert_eq!(b.capacity(), 64);
}

fn just_below_twice_the_size_is_reused<B: Backing>(cache: &BufferCache<B, 16>) {
    // Blocks are multiples of 16: 112 is the largest below 2 * 64.
    pool_of(cache, &[112]);
    let (b, hit) = was_hit(cache, || cache.alloc(64).unwrap());
    assert!(hit);
    assert_eq!((b.len(), b.capacity()), (64, 112));
    assert_eq!(cache.stats().active_bytes, 112);
}

fn twice_the_size_is_not_reused<B: Backing>(cache: &BufferCache<B, 16>) {
    pool_of(cache, &[128]);
    let (b, hit) = was_hit(cache, || cache.alloc(64).unwrap());
    assert!(!hit);
    assert_eq!(b.capacity(), 64);
    assert_eq!(pooled(cache), [128]);
    // A request smaller than every pooled block of course misses too, and one larger.
    let (_c, hit) = was_hit(cache, || cache.alloc(144).unwrap());
    assert!(!hit);
}

fn large_sizes_reuse_within_two_pages<B: Backing>(cache: &BufferCache<B, 16>) {
    let page = cache.page_size();
    assert_eq!(page, 4096);
    // 16 KiB: the window is 16 KiB..min(32 KiB, 16 KiB + 8 KiB).
    pool_of(cache, &[4 * page + 2 * page, 4 * page + 2 * page - page]);
    let (b, hit) = was_hit(cache, || cache.alloc(4 * page).unwrap());
    assert!(hit);
    assert_eq!(b.capacity(), 5 * page);
    let (c, hit) = was_hit(cache, || cache.alloc(4 * page).unwrap());
    assert!(!hit, "a block two pages larger is not reused");
    assert_eq!(c.capacity(), 4 * page);
    // Up to two pages: a request of 4 pages minus a byte rounds up to 4 pages.
    drop((b, c));
    let (d, hit) = was_hit(cache, || cache.alloc(4 * page - 1).unwrap());
    assert!(hit);
    assert_eq!((d.len(), d.capacity()), (4 * page - 1, 4 * page));
}

fn smallest_fit_first_then_oldest_of_a_size<B: Backing>(cache: &BufferCache<B, 16>) {
    let a = cache.alloc(96).unwrap();
    let b = cache.alloc(80).unwrap();
    let c = cache.alloc(80).unwrap();
    let (b_at, c_at) = (b.as_bytes().as_ptr(), c.as_bytes().as_ptr());
    cache.free(a).unwrap();
    cache.free(b).unwrap();
    cache.free(c).unwrap();
    let first = cache.alloc(64).unwrap();
    let second = cache.alloc(64).unwrap();
    let third = cache.alloc(64).unwrap();
    assert_eq!(
        first.as_bytes().as_ptr(),
        b_at,
        "the smallest fit, oldest of its size"
    );
    assert_eq!(second.as_bytes().as_ptr(), c_at);
    assert_eq!(third.capacity(), 96);
    assert_eq!(cache.stats().hits, 3);
}

fn sizes_round_up_to_granule_and_pages<B: Backing>(cache: &BufferCache<B, 16>) {
    let page = cache.page_size();
    let cases = [
        (1, 16),
        (16, 16),
        (17, 32),
        (page - 1, page),
        (page, page),
        (page + 1, 2 * page),
        (3 * page - 5, 3 * page),
    ];
    for (size, capacity) in cases {
        let b = cache.alloc(size).unwrap();
        assert_eq!(
            (b.len(), b.capacity()),
            (size, capacity),
            "request of {size}"
        );
        assert_eq!(b.as_bytes().len(), size);
        assert_eq!(b.as_bytes().as_ptr().addr() % 16, 0);
        cache.clear_cache();
    }
}

fn eviction_takes_the_least_recently_freed_first<B: Backing>(cache: &BufferCache<B, 16>) {
    // Freed in this order: 64 is the oldest, 256 the newest.
    pool_of(cache, &[64, 128, 256, 32]);
    assert_eq!(pooled(cache), [64, 128, 256, 32]);
    // A limit 64 bytes below the pool: the next allocation releases the oldest block, 64.
    cache.set_cache_limit(480 - 64);
    let (_a, hit) = was_hit(cache, || cache.alloc(1024).unwrap());
    assert!(!hit);
    assert_eq!(pooled(cache), [128, 256, 32]);
    assert_eq!(cache.stats().evictions, 1);
    // Release at least 129 bytes: 128 is not enough, so 256 goes too; 32 stays.
    cache.set_cache_limit(416 - 129);
    let _b = cache.alloc(1024).unwrap();
    assert_eq!(pooled(cache), [32]);
    assert_eq!(cache.stats().evictions, 3);
    // A hit takes its block out of the age order too.
    cache.set_cache_limit(usize::MAX);
    pool_of(cache, &[48, 64]);
    let (_c, hit) = was_hit(cache, || cache.alloc(48).unwrap());
    assert!(hit);
    assert_eq!(pooled(cache), [32, 64]);
}

fn releasing_ninety_percent_clears_the_pool<B: Backing>(cache: &BufferCache<B, 16>) {
    let sizes = [64; 10];
    // 575 of 640 bytes is below 90 %: the oldest nine blocks (576 bytes) go, the newest stays.
    pool_of(cache, &sizes);
    cache.set_cache_limit(640 - 575);
    let first = cache.alloc(4096).unwrap();
    assert_eq!(pooled(cache), [64]);
    assert_eq!(cache.stats().evictions, 9);
    cache.free(first).unwrap(); // the pool holds 64 < 65: it goes in, 4160 bytes now
    cache.clear_cache();
    // 576 of 640 is exactly 90 %: all of it goes at once.
    cache.set_cache_limit(usize::MAX);
    pool_of(cache, &sizes);
    cache.set_cache_limit(640 - 576);
    let _second = cache.alloc(4096).unwrap();
    assert_eq!(pooled(cache), []);
    let stats = cache.stats();
    assert_eq!(
        (stats.cached_bytes, stats.cached_buffers, stats.evictions),
        (0, 0, 19)
    );
}

fn cache_limit_caps_the_pool<B: Backing>(cache: &BufferCache<B, 16>) {
    cache.set_cache_limit(100);
    // A freed block goes into the pool while the pool holds fewer bytes than the limit...
    pool_of(cache, &[64, 64, 64]);
    assert_eq!(pooled(cache), [64, 64]);
    assert_eq!(cache.stats().cached_bytes, 128);
    // ... and the next allocation brings the pool back under the limit (28 bytes: one block).
    let _a = cache.alloc(4096).unwrap();
    assert_eq!(pooled(cache), [64]);
    assert_eq!(cache.stats().evictions, 1);
    // A limit of 0 turns caching off.
    assert_eq!(cache.set_cache_limit(0), 100);
    let b = cache.alloc(64).unwrap(); // a hit: the last cached block
    cache.free(b).unwrap();
    assert_eq!(pooled(cache), []);
    assert_eq!(cache.cache_limit(), 0);
}

fn memory_limit_evicts_then_fails<B: Backing>(cache: &BufferCache<B, 16>) {
    cache.set_memory_limit(1024);
    assert_eq!(cache.memory_limit(), 1024);
    pool_of(cache, &[256, 256, 256]);
    // 768 cached + 512 new is 256 over: the oldest block goes, then the block fits exactly.
    let (a, hit) = was_hit(cache, || cache.alloc(512).unwrap());
    assert!(!hit);
    assert_eq!(pooled(cache), [256, 256]);
    let stats = cache.stats();
    assert_eq!(
        (stats.active_bytes, stats.cached_bytes, stats.evictions),
        (512, 512, 1)
    );
    // 512 active + 512 cached + 1024 new: the pool goes (all of it: 1024 >= 90 % of 512), and
    // the block still does not fit beside the active 512.
    let err = cache.alloc(1024).unwrap_err();
    assert_eq!(
        err,
        CacheError::MemoryLimit {
            requested: 1024,
            active: 512,
            limit: 1024
        }
    );
    let stats = cache.stats();
    assert_eq!(
        (stats.active_bytes, stats.cached_bytes, stats.evictions),
        (512, 0, 3)
    );
    assert_eq!(stats.misses, 5);
    // What fits still succeeds; freeing makes room.
    let b = cache.alloc(512).unwrap();
    let message = cache.alloc(16).unwrap_err().to_string();
    assert!(
        message.contains("exceeds the memory limit of 1024 bytes"),
        "{message}"
    );
    drop((a, b));
    assert!(cache.alloc(1024).is_ok());
}

fn peak_follows_active_bytes<B: Backing>(cache: &BufferCache<B, 16>) {
    let a = cache.alloc(100).unwrap(); // 112
    let b = cache.alloc(300).unwrap(); // 304
    let stats = cache.stats();
    assert_eq!((stats.active_bytes, stats.peak_bytes), (416, 416));
    cache.free(b).unwrap();
    let stats = cache.stats();
    assert_eq!(
        (stats.active_bytes, stats.peak_bytes, stats.cached_bytes),
        (112, 416, 304)
    );
    cache.reset_peak();
    assert_eq!(cache.stats().peak_bytes, 112);
    let c = cache.alloc(200).unwrap(); // reuses the 304-byte block
    assert_eq!(cache.stats().peak_bytes, 416);
    drop((a, c));
    let stats = cache.stats();
    assert_eq!(
        (stats.active_bytes, stats.peak_bytes, stats.cached_bytes),
        (0, 416, 416)
    );
    cache.reset_peak();
    assert_eq!(cache.stats().peak_bytes, 0);
}

fn hits_and_misses_are_counted<B: Backing>(cache: &BufferCache<B, 16>) {
    let rounds = if cfg!(miri) { 3 } else { 50 };
    for _ in 0..rounds {
        let a = cache.alloc(1000).unwrap();
        let b = cache.alloc(1000).unwrap();
        cache.free(a).unwrap();
        cache.free(b).unwrap();
    }
    let stats = cache.stats();
    assert_eq!((stats.misses, stats.hits), (2, 2 * rounds - 2));
    assert_eq!((stats.cached_buffers, stats.cached_bytes), (2, 2 * 1008));
    assert_eq!(stats.evictions, 0);
}

fn zero_bytes_touch_nothing<B: Backing>(cache: &BufferCache<B, 16>) {
    let mut empty = cache.alloc(0).unwrap();
    assert!(empty.is_empty());
    assert_eq!(empty.capacity(), 0);
    assert!(empty.as_bytes_mut().is_empty());
    assert!(empty.view::<f64>().unwrap().is_empty());
    assert_eq!(cache.stats(), Stats::default());
    cache.free(empty).unwrap();
    drop(cache.alloc(0).unwrap());
    assert_eq!(cache.stats(), Stats::default());
}

fn sizes_that_overflow_fail<B: Backing>(cache: &BufferCache<B, 16>) {
    assert_eq!(
        cache.alloc(usize::MAX).unwrap_err(),
        CacheError::SizeOverflow {
            requested: usize::MAX
        }
    );
    // Rounds up fine but no backing has that much: first the memory limit, without it the
    // backing.
    let huge = usize::MAX / 2;
    assert!(matches!(
        cache.alloc(huge),
        Err(CacheError::MemoryLimit { .. } | CacheError::OutOfMemory { .. })
    ));
    cache.set_memory_limit(usize::MAX);
    assert_eq!(
        cache.alloc(huge).unwrap_err(),
        CacheError::OutOfMemory {
            requested: huge.next_multiple_of(4096)
        }
    );
    assert_eq!(cache.stats().active_bytes, 0);
    assert!(cache.alloc(64).is_ok());
}

fn typed_views<B: Backing>(cache: &BufferCache<B, 16>) {
    let mut b = cache.alloc(24).unwrap();
    b.view_mut::<f32>()
        .unwrap()
        .copy_from_slice(&[1.0, -2.0, 0.5, 4.0, 0.0, 8.0]);
    assert_eq!(&b.as_bytes()[4..8], &(-2.0f32).to_ne_bytes());
    assert_eq!(b.view::<u32>().unwrap()[0], 1.0f32.to_bits());
    assert_eq!(b.view::<f64>().unwrap().len(), 3);
    b.view_mut::<i64>().unwrap()[2] = -1;
    assert_eq!(b.view::<i8>().unwrap()[16..24], [-1; 8]);
    assert_eq!(b.view::<u16>().unwrap().len(), 12);
    assert_eq!(
        b.view::<f64>().unwrap().as_ptr().addr() % align_of::<f64>(),
        0
    );
    let mut odd = cache.alloc(6).unwrap();
    assert_eq!(
        odd.view::<f32>().unwrap_err(),
        CacheError::NotWholeElements {
            bytes: 6,
            element: "float32"
        }
    );
    assert!(odd.view_mut::<u64>().is_err());
    assert_eq!(odd.view_mut::<i16>().unwrap().len(), 3);
    assert_eq!(
        odd.view::<u64>().unwrap_err().to_string(),
        "6 bytes are not a whole number of uint64 elements"
    );
}

fn a_reused_block_keeps_its_bytes<B: Backing>(cache: &BufferCache<B, 16>) {
    let mut a = cache.alloc(32).unwrap();
    a.as_bytes_mut().fill(7);
    cache.free(a).unwrap();
    let b = cache.alloc(20).unwrap();
    assert_eq!(b.as_bytes(), &[7; 20]);
}

fn dropping_a_buffer_frees_it<B: Backing>(cache: &BufferCache<B, 16>) {
    {
        let _a = cache.alloc(48).unwrap();
        assert_eq!(cache.stats().active_bytes, 48);
    }
    let stats = cache.stats();
    assert_eq!((stats.active_bytes, stats.cached_bytes), (0, 48));
    let (_b, hit) = was_hit(cache, || cache.alloc(48).unwrap());
    assert!(hit);
}

fn clear_cache_empties_the_pool<B: Backing>(cache: &BufferCache<B, 16>) {
    pool_of(cache, &[16, 32, 4096]);
    assert_eq!(cache.clear_cache(), 3);
    assert_eq!(cache.clear_cache(), 0);
    let stats = cache.stats();
    assert_eq!(
        (stats.cached_bytes, stats.cached_buffers, stats.evictions),
        (0, 0, 0)
    );
    let (_a, hit) = was_hit(cache, || cache.alloc(16).unwrap());
    assert!(!hit);
}

#[test]
fn the_pool_holds_at_most_n_blocks() {
    let mut memory = [0u8; 1024];
    {
        let cache = BufferCache::<_, 2>::new(Region::<8>::new(&mut memory));
        pool_of(&cache, &[64, 128, 192]);
        assert_eq!(pooled(&cache), [128, 192]);
        let stats = cache.stats();
        assert_eq!(
            (stats.cached_buffers, stats.cached_bytes, stats.evictions),
            (2, 320, 1)
        );
    }
    // With no room at all, every freed block goes back.
    let cache = BufferCache::<_, 0>::new(Region::<8>::new(&mut memory));
    pool_of(&cache, &[64]);
    assert_eq!(cache.stats().cached_buffers, 0);
    assert_eq!(cache.stats().active_bytes, 0);
}

#[test]
fn the_region_granule_is_the_default_page() {
    let mut memory = [0u8; 4096];
    let region = Region::new(&mut memory);
    // 4096 bytes, or 4032 when the array does not start on a 16-byte boundary.
    let capacity = region.capacity();
    assert!(capacity == 4096 || capacity == 4032, "{capacity}");
    let cache: BufferCache<Region<'_>> = BufferCache::new(region);
    assert_eq!(cache.page_size(), 64);
    assert_eq!(
        (cache.memory_limit(), cache.cache_limit()),
        (capacity, capacity)
    );
    // 640 bytes: the window is 640..min(1280, 640 + 128).
    pool_of(&cache, &[768, 704]);
    let (b, hit) = was_hit(&cache, || cache.alloc(600).unwrap());
    assert!(hit);
    assert_eq!((b.len(), b.capacity()), (600, 704));
    let (c, hit) = was_hit(&cache, || cache.alloc(640).unwrap());
    assert!(!hit);
    assert_eq!(c.capacity(), 640);
    assert!(format!("{cache:?}").contains("page_size: 64"));
}

#[test]
fn freeing_into_another_cache_is_an_error() {
    let (mut one, mut two) = ([0u8; 512], [0u8; 512]);
    let a: BufferCache<Region<'_>> = BufferCache::new(Region::new(&mut one));
    let b: BufferCache<Region<'_>> = BufferCache::new(Region::new(&mut two));
    let buffer = a.alloc(64).unwrap();
    assert_eq!(b.free(buffer).unwrap_err(), CacheError::ForeignBuffer);
    // It went back to its own cache.
    assert_eq!(a.stats().cached_bytes, 64);
    assert_eq!(b.stats(), Stats::default());
    assert_eq!(b.free(a.alloc(0).unwrap()), Err(CacheError::ForeignBuffer));
}

#[test]
fn a_busy_cache_refuses_instead_of_panicking() {
    let mut memory = [0u8; 1024];
    let cache: BufferCache<Region<'_>> = BufferCache::new(Region::new(&mut memory));
    let a = cache.alloc(64).unwrap();
    let b = cache.alloc(64).unwrap();
    let stats = cache.stats();
    {
        // What a backing that calls its own cache would see.
        let _busy = cache.state.borrow_mut();
        assert_eq!(cache.alloc(16).unwrap_err(), CacheError::Busy);
        assert_eq!(cache.free(a), Err(CacheError::Busy));
        drop(b);
        assert_eq!(cache.clear_cache(), 0);
    }
    // Both blocks are leaked in the region: still counted active, never handed out again.
    assert_eq!(cache.stats(), stats);
    assert_eq!(cache.state.borrow().backing.used_bytes(), 128);
}

#[test]
fn a_full_region_releases_the_pool_and_tries_again() {
    let mut memory = [0u8; 256 + 16];
    let region = Region::<8>::new(&mut memory);
    assert_eq!(region.capacity(), 256);
    let cache = BufferCache::<_, 4>::new(region);
    cache.set_memory_limit(usize::MAX);
    let blocks: Vec<_> = (0..4).map(|_| cache.alloc(64).unwrap()).collect();
    let mut blocks = blocks.into_iter();
    let (a, b, c, d) = (
        blocks.next().unwrap(),
        blocks.next().unwrap(),
        blocks.next().unwrap(),
        blocks.next().unwrap(),
    );
    // b and c, next to each other, sit in the pool; the region is full.
    drop((b, c));
    let (e, hit) = was_hit(&cache, || cache.alloc(128).unwrap());
    assert!(!hit);
    assert_eq!(e.capacity(), 128);
    let stats = cache.stats();
    assert_eq!(
        (stats.cached_buffers, stats.evictions, stats.active_bytes),
        (0, 2, 256)
    );
    // Now nothing is cached and nothing is free.
    assert_eq!(
        cache.alloc(64).unwrap_err(),
        CacheError::OutOfMemory { requested: 64 }
    );
    drop((a, d, e));
}

#[test]
fn region_blocks_are_first_fit_and_merge_with_free_neighbours() {
    #[repr(align(16))]
    struct Aligned([u8; 1040]);
    let mut memory = Aligned([0; 1040]);
    let memory = &mut memory.0;
    // Start one byte in: the region skips to the next 16-byte boundary.
    let mut region = Region::<4>::with_granule(&mut memory[1..1025], 16).unwrap();
    assert_eq!(region.capacity(), 1024 - 16);
    assert_eq!(region.granule(), 16);
    let a = region.allocate(100).unwrap();
    let b = region.allocate(16).unwrap();
    let c = region.allocate(200).unwrap();
    assert_eq!((a.len(), b.len(), c.len()), (112, 16, 208));
    let base = a.as_ptr().as_ptr().addr();
    assert_eq!(base % 16, 0);
    assert_eq!(b.as_ptr().as_ptr().addr() - base, 112);
    assert_eq!(c.as_ptr().as_ptr().addr() - base, 128);
    assert_eq!((region.used_bytes(), region.blocks()), (336, 3));
    let b_at = b.as_ptr();
    // SAFETY: `b` came from `region.allocate` and is released once; nothing used its bytes.
    unsafe { region.release(b) };
    // The lowest gap that fits: b's 16 bytes for 16, after c for 32.
    let d = region.allocate(16).unwrap();
    assert_eq!(d.as_ptr(), b_at);
    let e = region.allocate(32).unwrap();
    assert_eq!(e.as_ptr().as_ptr().addr() - base, 336);
    // A full table refuses.
    assert!(region.allocate(16).is_none());
    // Released neighbours merge: a, d and c leave one gap of 336 bytes at the start.
    for block in [d, a, c] {
        // SAFETY: each came from `region.allocate` and is released once.
        unsafe { region.release(block) };
    }
    let f = region.allocate(336).unwrap();
    assert_eq!(f.as_ptr().as_ptr().addr(), base);
    // Too big for what is left, zero, or not ours: refused or ignored.
    assert!(region.allocate(1024).is_none());
    assert!(region.allocate(0).is_none());
    let stranger = Block::new(NonNull::dangling(), 16);
    // SAFETY: not a block of this region, which breaks the contract; the region ignores it
    // without touching the pointer.
    unsafe { region.release(stranger) };
    assert_eq!(region.blocks(), 2);
    for block in [e, f] {
        // SAFETY: each came from `region.allocate` and is released once.
        unsafe { region.release(block) };
    }
    assert_eq!((region.used_bytes(), region.blocks()), (0, 0));
    assert!(Region::<4>::with_granule(memory, 24).is_none());
    assert!(Region::<4>::with_granule(memory, 8).is_none());
    assert_eq!(Region::<4>::new(&mut memory[..10]).capacity(), 0);
    assert_eq!(Region::<4>::new(&mut memory[..0]).capacity(), 0);
    assert!(format!("{:?}", Region::<4>::new(memory)).contains("granule: 64"));
}

#[test]
fn pool_stamps_renumber_when_they_run_out() {
    let mut pool = Pool::<4>::new();
    pool.set_next_stamp(u64::MAX - 2);
    let at = |i: usize| {
        NonNull::<u8>::dangling().with_addr(core::num::NonZeroUsize::new(16 * (i + 1)).unwrap())
    };
    for (i, size) in [64, 32, 64, 16].into_iter().enumerate() {
        pool.insert(at(i), size).unwrap();
        pool.check();
    }
    assert_eq!(pool.insert(at(9), 8), Err(at(9)));
    assert_eq!(pool.sizes_by_age().collect::<Vec<_>>(), [64, 32, 64, 16]);
    // The oldest 64 first, whatever the stamps went through.
    assert_eq!(pool.take(64, 65), Some((at(0), 64)));
    assert_eq!(pool.take_oldest(), Some((at(1), 32)));
    pool.check();
    assert_eq!(pool.len(), 2);
}

#[test]
fn pool_stays_sorted_under_random_use() {
    let mut pool = Pool::<8>::new();
    let mut x = 0x9e37_79b9_7f4a_7c15_u64;
    let steps = if cfg!(miri) { 200 } else { 5000 };
    for step in 0..steps {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let size = 16 * (1 + (x >> 32) as usize % 8);
        match x % 3 {
            0 => {
                let _ = pool.insert(NonNull::dangling(), size);
            }
            1 => {
                let _ = pool.take(size, size * 2);
            }
            _ => {
                let _ = pool.take_oldest();
            }
        }
        if step == steps / 2 {
            pool.set_next_stamp(u64::MAX - 1);
        }
        pool.check();
    }
}

#[test]
fn debug_and_display() {
    let mut memory = [0u8; 256];
    let cache: BufferCache<Region<'_>> = BufferCache::new(Region::new(&mut memory));
    let buffer = cache.alloc(10).unwrap();
    assert_eq!(
        format!("{buffer:?}"),
        "Buffer { len: 10, capacity: 64, .. }"
    );
    assert!(format!("{cache:?}").starts_with("BufferCache { max_cached_buffers: 16"));
    for err in [
        CacheError::SizeOverflow { requested: 1 },
        CacheError::OutOfMemory { requested: 1 },
        CacheError::ForeignBuffer,
        CacheError::Busy,
        CacheError::Misaligned { element: "int8" },
    ] {
        let text = err.to_string();
        assert!(text.chars().next().unwrap().is_lowercase() && !text.ends_with('.'));
    }
}

#[cfg(feature = "alloc")]
#[test]
fn system_blocks_are_zeroed_aligned_and_released() {
    let mut system = System;
    assert_eq!((system.granule(), system.page_size()), (16, 4096));
    assert_eq!(Backing::capacity(&system), usize::MAX);
    let block = system.allocate(48).unwrap();
    assert_eq!(block.len(), 48);
    assert!(!block.is_empty());
    assert_eq!(block.as_ptr().as_ptr().addr() % 16, 0);
    // SAFETY: `block` came from `System::allocate`: 48 initialised (zeroed) bytes, unused.
    let bytes = unsafe { core::slice::from_raw_parts(block.as_ptr().as_ptr(), block.len()) };
    assert_eq!(bytes, &[0; 48]);
    // SAFETY: `block` came from `System::allocate` and is released once; `bytes` is dead.
    unsafe { system.release(block) };
    assert!(system.allocate(0).is_none());
    assert!(system.allocate(usize::MAX - 8).is_none());
}

#[test]
fn any_page_size_works() {
    let mut memory = [0u8; 16384];
    let region = Region::<8>::with_granule(&mut memory, 16).unwrap();
    let cache = BufferCache::<_, 4>::with_page_size(region, 1000);
    assert_eq!(cache.page_size(), 1000);
    // 1001 bytes: two pages of 1000, a multiple of the granule already.
    assert_eq!(cache.alloc(1001).unwrap().capacity(), 2000);
    // 2999 rounds to 3000, then to 3008 for the granule; the window is 3008..min(6016, 5008),
    // and 5000 rounds to 5008.
    pool_of(&cache, &[5000, 4000]);
    let (a, b) = (cache.alloc(2999).unwrap(), cache.alloc(2999).unwrap());
    assert_eq!((a.capacity(), b.capacity()), (4000, 3008));
    drop((a, b));
    drop(cache);
    let cache = BufferCache::<_, 4>::with_page_size(Region::<8>::new(&mut memory), 0);
    assert_eq!(cache.page_size(), 1);
    // A page of 1: sizes only round to the granule, and the window is size..size + 2.
    pool_of(&cache, &[192, 128]);
    let (b, hit) = was_hit(&cache, || cache.alloc(65).unwrap());
    assert!(hit);
    assert_eq!(b.capacity(), 128);
    let (c, hit) = was_hit(&cache, || cache.alloc(65).unwrap());
    assert!(!hit);
    assert_eq!(c.capacity(), 128);
}
