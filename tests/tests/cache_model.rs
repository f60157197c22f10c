//! Property tests of `stowplan::cache::BufferCache`: random sequences of allocations, frees,
//! limit changes and cache clears, run through the cache and through a reference model of MLX's
//! rules written independently here (a `Vec` pool searched linearly, an LRU by stamps), with the
//! statistics, every hit or miss, every error and the very block each hit reuses compared after
//! each step.

use proptest::prelude::*;
use stowplan::cache::{Backing, BufferCache, CacheError, Region, Stats, System};

const CASES: u32 = if cfg!(miri) { 4 } else { 256 };

#[derive(Clone, Debug)]
enum Op {
    Alloc(usize),
    /// Frees the live buffer at this index (modulo their number) with `free`.
    Free(usize),
    /// Drops it instead.
    Drop(usize),
    /// Frees it into another cache, which must refuse and send it home.
    FreeElsewhere(usize),
    SetCacheLimit(usize),
    SetMemoryLimit(usize),
    Clear,
    ResetPeak,
}

fn op() -> impl Strategy<Value = Op> {
    let size = prop_oneof![
        4 => 0usize..=600,
        2 => 3000usize..=9000,
        1 => (1usize..=10).prop_map(|k| k * 4096),
        1 => 9000usize..=40_000,
    ];
    prop_oneof![
        8 => size.prop_map(Op::Alloc),
        4 => any::<usize>().prop_map(Op::Free),
        2 => any::<usize>().prop_map(Op::Drop),
        1 => any::<usize>().prop_map(Op::FreeElsewhere),
        1 => prop_oneof![
            Just(0usize),
            Just(1000),
            Just(5000),
            Just(20_000),
            Just(100_000),
            Just(usize::MAX)
        ]
        .prop_map(Op::SetCacheLimit),
        1 => prop_oneof![Just(20_000usize), Just(60_000), Just(200_000), Just(1_000_000)]
            .prop_map(Op::SetMemoryLimit),
        1 => Just(Op::Clear),
        1 => Just(Op::ResetPeak),
    ]
}

/// A pooled block of the model: its size, when it was freed, and where the real one is.
#[derive(Clone, Copy, Debug)]
struct Pooled {
    size: usize,
    stamp: u64,
    addr: usize,
}

/// MLX's cache, the plain way.
#[derive(Debug)]
struct Model {
    page: usize,
    granule: usize,
    max_pooled: usize,
    cache_limit: usize,
    memory_limit: usize,
    pool: Vec<Pooled>,
    next_stamp: u64,
    active: usize,
    peak: usize,
    cached: usize,
    hits: u64,
    misses: u64,
    evictions: u64,
    /// How often each rule fired, to check that the random sequences reach them all.
    seen: Seen,
}

#[derive(Clone, Copy, Debug, Default)]
struct Seen {
    /// Releases of everything at once (the 90 % rule) that emptied a non-empty pool.
    ninety_percent: u32,
    /// Releases that took the oldest blocks only.
    oldest_first: u32,
    memory_limit_failures: u32,
    /// Frees into a full pool.
    full_pool: u32,
    /// Hits on a block larger than the request's block.
    larger_hits: u32,
}

/// What the model expects of an allocation.
#[derive(Debug, PartialEq, Eq)]
enum Expect {
    Empty,
    /// A hit on the pooled block at `addr`, of `size` bytes.
    Hit {
        addr: usize,
        size: usize,
    },
    /// A new block of `size` bytes.
    Miss {
        size: usize,
    },
    Fail(CacheError),
}

impl Model {
    fn new(page: usize, granule: usize, max_pooled: usize, limit: usize) -> Self {
        Self {
            page,
            granule,
            max_pooled,
            cache_limit: limit,
            memory_limit: limit,
            pool: Vec::new(),
            next_stamp: 0,
            active: 0,
            peak: 0,
            cached: 0,
            hits: 0,
            misses: 0,
            evictions: 0,
            seen: Seen::default(),
        }
    }

    fn round(x: usize, m: usize) -> usize {
        x.div_ceil(m) * m
    }

    fn block_size(&self, size: usize) -> usize {
        let paged = if size > self.page {
            Self::round(size, self.page)
        } else {
            size
        };
        Self::round(paged, self.granule)
    }

    fn evict_oldest(&mut self) -> Option<Pooled> {
        let (i, _) = self.pool.iter().enumerate().min_by_key(|(_, p)| p.stamp)?;
        let gone = self.pool.remove(i);
        self.cached -= gone.size;
        self.evictions += 1;
        Some(gone)
    }

    /// MLX's `release_cached_buffers`.
    fn release(&mut self, min_bytes: usize) {
        if min_bytes as f64 >= 0.9 * self.cached as f64 {
            self.seen.ninety_percent += u32::from(!self.pool.is_empty());
            self.evictions += self.pool.len() as u64;
            self.pool.clear();
            self.cached = 0;
        } else {
            self.seen.oldest_first += 1;
            let mut freed = 0;
            while freed < min_bytes {
                match self.evict_oldest() {
                    Some(gone) => freed += gone.size,
                    None => break,
                }
            }
        }
    }

    fn alloc(&mut self, size: usize) -> Expect {
        if size == 0 {
            return Expect::Empty;
        }
        let block = self.block_size(size);
        let bound = (2 * block).min(block + 2 * self.page);
        let reuse = self
            .pool
            .iter()
            .enumerate()
            .filter(|(_, p)| block <= p.size && p.size < bound)
            .min_by_key(|(_, p)| (p.size, p.stamp))
            .map(|(i, _)| i);
        let expect = if let Some(i) = reuse {
            let taken = self.pool.remove(i);
            self.cached -= taken.size;
            self.hits += 1;
            self.seen.larger_hits += u32::from(taken.size > block);
            Expect::Hit {
                addr: taken.addr,
                size: taken.size,
            }
        } else {
            self.misses += 1;
            let total = self.active + self.cached + block;
            if total > self.memory_limit {
                self.release(total - self.memory_limit);
                if self.active + self.cached + block > self.memory_limit {
                    self.seen.memory_limit_failures += 1;
                    return Expect::Fail(CacheError::MemoryLimit {
                        requested: block,
                        active: self.active,
                        limit: self.memory_limit,
                    });
                }
            }
            Expect::Miss { size: block }
        };
        let size = match expect {
            Expect::Hit { size, .. } | Expect::Miss { size } => size,
            _ => unreachable!(),
        };
        self.active += size;
        self.peak = self.peak.max(self.active);
        if self.cached > self.cache_limit {
            self.release(self.cached - self.cache_limit);
        }
        expect
    }

    fn free(&mut self, size: usize, addr: usize) {
        if size == 0 {
            return;
        }
        self.active -= size;
        if self.max_pooled == 0 || self.cached >= self.cache_limit {
            return;
        }
        if self.pool.len() == self.max_pooled {
            self.seen.full_pool += 1;
            self.evict_oldest();
        }
        self.pool.push(Pooled {
            size,
            stamp: self.next_stamp,
            addr,
        });
        self.next_stamp += 1;
        self.cached += size;
    }

    fn clear(&mut self) -> usize {
        let n = self.pool.len();
        self.pool.clear();
        self.cached = 0;
        n
    }

    fn check(&self, stats: Stats) {
        let mine = (
            self.active,
            self.peak,
            self.cached,
            self.pool.len(),
            self.hits,
            self.misses,
            self.evictions,
        );
        let theirs = (
            stats.active_bytes,
            stats.peak_bytes,
            stats.cached_bytes,
            stats.cached_buffers,
            stats.hits,
            stats.misses,
            stats.evictions,
        );
        assert_eq!(
            theirs, mine,
            "(active, peak, cached, cached buffers, hits, misses, evictions) of the cache, then \
             the model"
        );
    }
}

/// Runs `ops` through `cache` and `model`, comparing after every step; returns what the model
/// saw.
fn run<B: Backing, const N: usize>(
    cache: &BufferCache<B, N>,
    mut model: Model,
    ops: &[Op],
) -> Seen {
    let elsewhere = BufferCache::<System, 2>::new(System);
    let mut live = Vec::new();
    for op in ops {
        match *op {
            Op::Alloc(size) => {
                let expect = model.alloc(size);
                match (cache.alloc(size), expect) {
                    (Ok(buffer), Expect::Empty) => {
                        assert_eq!((buffer.len(), buffer.capacity()), (0, 0));
                        live.push(buffer);
                    }
                    (Ok(buffer), Expect::Hit { addr, size: block }) => {
                        assert_eq!(buffer.as_bytes().as_ptr().addr(), addr, "the block reused");
                        assert_eq!((buffer.len(), buffer.capacity()), (size, block));
                        live.push(buffer);
                    }
                    (Ok(mut buffer), Expect::Miss { size: block }) => {
                        assert_eq!((buffer.len(), buffer.capacity()), (size, block));
                        assert_eq!(buffer.as_bytes().as_ptr().addr() % 16, 0);
                        buffer.as_bytes_mut().fill(0xa5);
                        live.push(buffer);
                    }
                    (Err(err), Expect::Fail(expected)) => assert_eq!(err, expected),
                    (got, expected) => panic!("cache gave {got:?}, the model {expected:?}"),
                }
            }
            Op::Free(i) | Op::Drop(i) | Op::FreeElsewhere(i) if !live.is_empty() => {
                let buffer = live.swap_remove(i % live.len());
                model.free(buffer.capacity(), buffer.as_bytes().as_ptr().addr());
                match op {
                    Op::Free(_) => cache.free(buffer).unwrap(),
                    Op::Drop(_) => drop(buffer),
                    _ => {
                        assert_eq!(elsewhere.free(buffer), Err(CacheError::ForeignBuffer));
                        assert_eq!(elsewhere.stats(), Stats::default());
                    }
                }
            }
            Op::Free(_) | Op::Drop(_) | Op::FreeElsewhere(_) => {}
            Op::SetCacheLimit(bytes) => {
                assert_eq!(cache.set_cache_limit(bytes), model.cache_limit);
                model.cache_limit = bytes;
            }
            Op::SetMemoryLimit(bytes) => {
                assert_eq!(cache.set_memory_limit(bytes), model.memory_limit);
                model.memory_limit = bytes;
            }
            Op::Clear => assert_eq!(cache.clear_cache(), model.clear()),
            Op::ResetPeak => {
                cache.reset_peak();
                model.peak = model.active;
            }
        }
        model.check(cache.stats());
    }
    for buffer in live {
        model.free(buffer.capacity(), buffer.as_bytes().as_ptr().addr());
        drop(buffer);
        model.check(cache.stats());
    }
    assert_eq!(cache.stats().active_bytes, 0);
    model.seen
}

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES, ..ProptestConfig::default() })]

    /// The global allocator, page 4096, a pool of at most 8 blocks.
    #[test]
    fn system_cache_follows_the_model(ops in proptest::collection::vec(op(), 0..80)) {
        let cache = BufferCache::<System, 8>::new(System);
        run(&cache, Model::new(4096, 16, 8, usize::MAX), &ops);
    }

    /// A region with its default granule, 64, as the page; a pool of at most 16 blocks. The
    /// region is far larger than anything the ops keep alive, so first fit never runs out.
    #[test]
    fn region_cache_follows_the_model(ops in proptest::collection::vec(op(), 0..80)) {
        let mut memory = vec![0u8; 16 << 20];
        let region = Region::<256>::new(&mut memory);
        let capacity = region.capacity();
        let cache = BufferCache::<_, 16>::new(region);
        run(&cache, Model::new(64, 64, 16, capacity), &ops);
    }

    /// No pool at all: every free goes back, every allocation misses.
    #[test]
    fn a_cache_of_no_blocks_never_hits(ops in proptest::collection::vec(op(), 0..40)) {
        let cache = BufferCache::<System, 0>::new(System);
        run(&cache, Model::new(4096, 16, 0, usize::MAX), &ops);
        prop_assert_eq!(cache.stats().hits, 0);
    }
}

/// The sequences above are worth something only if they reach every rule: run the same
/// strategy, deterministically, and count.
#[test]
fn random_sequences_reach_every_rule() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    let mut runner = TestRunner::deterministic();
    let ops = proptest::collection::vec(op(), 0..80);
    let mut total = Seen::default();
    for _ in 0..CASES {
        let ops = ops.new_tree(&mut runner).unwrap().current();
        let cache = BufferCache::<System, 8>::new(System);
        let seen = run(&cache, Model::new(4096, 16, 8, usize::MAX), &ops);
        total.ninety_percent += seen.ninety_percent;
        total.oldest_first += seen.oldest_first;
        total.memory_limit_failures += seen.memory_limit_failures;
        total.full_pool += seen.full_pool;
        total.larger_hits += seen.larger_hits;
    }
    eprintln!("{total:?}");
    let Seen {
        ninety_percent,
        oldest_first,
        memory_limit_failures,
        full_pool,
        larger_hits,
    } = total;
    for (rule, count) in [
        ("90 %", ninety_percent),
        ("oldest first", oldest_first),
        ("memory limit", memory_limit_failures),
        ("full pool", full_pool),
        ("larger block", larger_hits),
    ] {
        assert!(count > 0, "no sequence reached the {rule} rule");
    }
}
