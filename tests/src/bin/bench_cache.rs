//! Prints docs/guide.md's buffer-cache benchmark as Markdown tables, all from one run:
//! `cargo run --release -p stowplan-tests --bin bench-cache`.
//!
//! 1. Same-size cycles: allocate a buffer and free it, over and over, for a few sizes: through
//!    `stowplan::cache::BufferCache` over `System` (every cycle after the first is a hit), and
//!    straight through the global allocator, once uninitialised (`std::alloc::alloc` and
//!    `dealloc`, by way of `Vec::with_capacity`) and once zeroed (`alloc_zeroed`, by way of
//!    `vec![0; n]`, which is what `System` does on a miss); then the cache over a `Region`, with
//!    hits and with caching off (cache limit 0: every cycle allocates from the region and
//!    releases to it).
//! 2. A mixed-size trace (xorshift, fixed seed): 64 slots, each step frees the buffer of a random
//!    slot or fills it with a buffer of a random size, log-uniform from 16 B to 256 KiB; the
//!    same trace through each path, with the peak bytes: the cache's own statistics (active;
//!    active plus cached, which is what it holds from its backing) against the bytes the direct
//!    path asked for, counted.
//!
//! Times are wall-clock, the best of several runs, on whatever machine runs it. This crate has
//! no `unsafe`, so the direct path calls the global allocator through `Vec` (a capacity check
//! around `alloc`, nothing more); `u128` elements give it the cache's 16-byte alignment.
#![forbid(unsafe_code)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use stowplan::cache::{Backing, BufferCache, Region, System};

/// Rounds: each measures every cell `RUNS` times; the best of all counts. Spreading a cell's
/// runs over rounds keeps a burst of load elsewhere on the machine from spoiling one cell.
const ROUNDS: usize = 5;
/// Runs per cell and round.
const RUNS: usize = 3;
/// Wall time one run aims at.
const TARGET: Duration = Duration::from_millis(40);

/// Nanoseconds per iteration of `f(iterations)`: calibrated to about `TARGET` per run, best of
/// `RUNS`.
fn ns_per_iter(mut f: impl FnMut(u64)) -> f64 {
    let mut iterations = 64u64;
    loop {
        let start = Instant::now();
        f(iterations);
        let took = start.elapsed();
        if took >= TARGET / 4 || iterations >= 1 << 26 {
            let scale = TARGET.as_secs_f64() / took.as_secs_f64().max(1e-9);
            iterations = ((iterations as f64 * scale) as u64).max(16);
            break;
        }
        iterations *= 4;
    }
    let mut best = f64::INFINITY;
    for _ in 0..RUNS {
        let start = Instant::now();
        f(iterations);
        best = best.min(start.elapsed().as_nanos() as f64 / iterations as f64);
    }
    best
}

/// One allocate-and-free cycle per iteration through `cache`.
fn cache_cycles<B: Backing, const N: usize>(cache: &BufferCache<B, N>, size: usize) -> f64 {
    ns_per_iter(|n| {
        for _ in 0..n {
            let buffer = cache.alloc(black_box(size)).expect("the cache has room");
            black_box(buffer.as_bytes().as_ptr());
            cache.free(buffer).expect("a buffer of this cache");
        }
    })
}

/// One `alloc` and `dealloc` per iteration, uninitialised.
fn direct_cycles(size: usize) -> f64 {
    ns_per_iter(|n| {
        for _ in 0..n {
            let v = Vec::<u128>::with_capacity(black_box(size).div_ceil(16));
            black_box(v.as_ptr());
        }
    })
}

/// One `alloc_zeroed` and `dealloc` per iteration.
fn zeroed_cycles(size: usize) -> f64 {
    ns_per_iter(|n| {
        for _ in 0..n {
            let v = vec![0u128; black_box(size).div_ceil(16)];
            black_box(v.as_ptr());
        }
    })
}

fn xorshift(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

const SLOTS: usize = 64;
const STEPS: usize = 200_000;
const SEED: u64 = 0x5eed_cafe_f00d_0001;

/// The trace: for each step a slot, and the size to allocate there if it is empty.
fn trace() -> Vec<(usize, usize)> {
    let mut x = SEED;
    (0..STEPS)
        .map(|_| {
            let slot = (xorshift(&mut x) % SLOTS as u64) as usize;
            // Log-uniform in 16 B..256 KiB: 2^(4 + 14 u).
            let u = (xorshift(&mut x) >> 11) as f64 / (1u64 << 53) as f64;
            let size = 2f64.powf(4.0 + 14.0 * u) as usize;
            (slot, size)
        })
        .collect()
}

/// What one pass of the trace measured.
struct TraceRun {
    ns_per_op: f64,
    peak_active: usize,
    peak_held: usize,
    hit_rate: Option<f64>,
}

/// Times passes of the trace (best of `RUNS`), counting ops: each allocation and each free,
/// including freeing what is left at the end; then one more pass, untimed, `measure`s the peaks.
/// A pass returns (ops, peak active, peak held, hit rate).
fn timed_trace(mut pass: impl FnMut(bool) -> (usize, usize, usize, Option<f64>)) -> TraceRun {
    let mut best = f64::INFINITY;
    for _ in 0..RUNS {
        let start = Instant::now();
        let (ops, ..) = pass(false);
        best = best.min(start.elapsed().as_nanos() as f64 / ops as f64);
    }
    let (_, peak_active, peak_held, hit_rate) = pass(true);
    TraceRun {
        ns_per_op: best,
        peak_active,
        peak_held,
        hit_rate,
    }
}

fn direct_trace(trace: &[(usize, usize)], zeroed: bool) -> TraceRun {
    timed_trace(|_| {
        let mut slots: Vec<Option<Vec<u128>>> = (0..SLOTS).map(|_| None).collect();
        let (mut ops, mut live, mut peak) = (0, 0, 0);
        for &(slot, size) in trace {
            match slots[slot].take() {
                Some(v) => {
                    live -= v.capacity() * 16;
                    drop(v);
                }
                None => {
                    let n = size.div_ceil(16);
                    let v = if zeroed {
                        vec![0u128; n]
                    } else {
                        Vec::with_capacity(n)
                    };
                    black_box(v.as_ptr());
                    live += v.capacity() * 16;
                    peak = usize::max(peak, live);
                    slots[slot] = Some(v);
                }
            }
            ops += 1;
        }
        ops += slots.iter().flatten().count();
        drop(slots);
        (ops, peak, peak, None)
    })
}

/// Nanoseconds with one decimal and thousands separators.
fn ns(x: f64) -> String {
    let tenths = (x * 10.0).round() as usize;
    format!("{}.{}", thousands(tenths / 10), tenths % 10)
}

fn size_name(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} B"),
    }
}

fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// One round of the same-size table for `size`: (cache hit with `System`, `alloc`,
/// `alloc_zeroed`, cache hit with `Region`, `Region` without caching), ns per cycle.
fn same_size_round(size: usize, region_memory: &mut [u8]) -> [f64; 5] {
    let system = BufferCache::<System, 16>::new(System);
    let hit = cache_cycles(&system, size);
    assert_eq!(system.stats().misses, 1, "every cycle after the first hits");
    let direct = direct_cycles(size);
    let zeroed = zeroed_cycles(size);
    let cache = BufferCache::<_, 16>::new(Region::<64>::new(region_memory));
    let region_hit = cache_cycles(&cache, size);
    assert_eq!(cache.stats().misses, 1);
    cache.set_cache_limit(0);
    cache.clear_cache();
    let hits = cache.stats().hits;
    let region_miss = cache_cycles(&cache, size);
    assert_eq!(cache.stats().hits, hits, "no caching, no hit");
    [hit, direct, zeroed, region_hit, region_miss]
}

/// One round of the trace table, a row per path.
fn trace_round(
    trace: &[(usize, usize)],
    region_memory: &mut [u8],
) -> Vec<(&'static str, TraceRun)> {
    vec![
        ("`alloc` + `dealloc`", direct_trace(trace, false)),
        ("`alloc_zeroed` + `dealloc`", direct_trace(trace, true)),
        (
            "cache, `System`",
            timed_trace(|measure| {
                trace_pass(trace, &BufferCache::<System, 64>::new(System), measure)
            }),
        ),
        (
            "cache, `System`, cache limit 1 MiB",
            timed_trace(|measure| {
                let cache = BufferCache::<System, 64>::new(System);
                cache.set_cache_limit(1 << 20);
                trace_pass(trace, &cache, measure)
            }),
        ),
        (
            "cache, `Region` (64 MiB)",
            timed_trace(|measure| {
                let region = Region::<256>::new(region_memory);
                trace_pass(trace, &BufferCache::<_, 64>::new(region), measure)
            }),
        ),
    ]
}

fn main() {
    let mut region_memory = vec![0u8; 64 << 20];
    let sizes = [64, 1000, 4096, 64 << 10, 1 << 20];
    let trace = trace();

    let mut same_size = vec![[f64::INFINITY; 5]; sizes.len()];
    let mut traced: Vec<(&str, TraceRun)> = Vec::new();
    for _ in 0..ROUNDS {
        for (best, &size) in same_size.iter_mut().zip(&sizes) {
            let round = same_size_round(size, &mut region_memory);
            for (b, r) in best.iter_mut().zip(round) {
                *b = b.min(r);
            }
        }
        let round = trace_round(&trace, &mut region_memory);
        if traced.is_empty() {
            traced = round;
        } else {
            for ((_, best), (_, r)) in traced.iter_mut().zip(round) {
                best.ns_per_op = best.ns_per_op.min(r.ns_per_op);
            }
        }
    }

    let runs = ROUNDS * RUNS;
    println!("Same-size cycles, ns per allocate + free (best of {runs} runs in {ROUNDS} rounds):");
    println!();
    println!(
        "| size | cache hit, `System` | `alloc` + `dealloc` | `alloc_zeroed` + `dealloc` \
         | hit vs `alloc` | cache hit, `Region` | `Region`, no caching |"
    );
    println!("|--:|--:|--:|--:|--:|--:|--:|");
    for (&size, [hit, direct, zeroed, region_hit, region_miss]) in sizes.iter().zip(same_size) {
        println!(
            "| {} | {} | {} | {} | {:.2} | {} | {} |",
            size_name(size),
            ns(hit),
            ns(direct),
            ns(zeroed),
            hit / direct,
            ns(region_hit),
            ns(region_miss),
        );
    }

    let allocations = {
        let mut filled = [false; SLOTS];
        trace
            .iter()
            .filter(|&&(slot, _)| {
                filled[slot] = !filled[slot];
                filled[slot]
            })
            .count()
    };
    println!();
    println!(
        "Mixed trace: {} steps over {SLOTS} slots ({} allocations, log-uniform 16 B to 256 KiB, \
         seed {SEED:#x}), ns per allocation or free (best of {runs} runs in {ROUNDS} rounds), peak \
         bytes:",
        thousands(STEPS),
        thousands(allocations),
    );
    println!();
    println!("| path | ns/op | vs `alloc` | hits | peak active | peak held |");
    println!("|---|--:|--:|--:|--:|--:|");
    let direct = traced[0].1.ns_per_op;
    for (name, r) in traced {
        let hits = r
            .hit_rate
            .map_or_else(|| "-".to_owned(), |h| format!("{:.1} %", h * 100.0));
        println!(
            "| {name} | {} | {:.2} | {hits} | {} | {} |",
            ns(r.ns_per_op),
            r.ns_per_op / direct,
            thousands(r.peak_active),
            thousands(r.peak_held),
        );
    }
}

/// One pass of the trace through `cache`; with `measure`, the peak of active plus cached bytes
/// is sampled after every step.
fn trace_pass<B: Backing, const N: usize>(
    trace: &[(usize, usize)],
    cache: &BufferCache<B, N>,
    measure: bool,
) -> (usize, usize, usize, Option<f64>) {
    let mut slots: Vec<Option<_>> = (0..SLOTS).map(|_| None).collect();
    let (mut ops, mut held) = (0, 0);
    for &(slot, size) in trace {
        match slots[slot].take() {
            Some(buffer) => cache.free(buffer).expect("a buffer of this cache"),
            None => {
                let buffer = cache.alloc(size).expect("the cache has room");
                black_box(buffer.as_bytes().as_ptr());
                slots[slot] = Some(buffer);
            }
        }
        ops += 1;
        if measure {
            let stats = cache.stats();
            held = held.max(stats.active_bytes + stats.cached_bytes);
        }
    }
    for buffer in slots.into_iter().flatten() {
        cache.free(buffer).expect("a buffer of this cache");
        ops += 1;
    }
    let stats = cache.stats();
    let hit_rate = stats.hits as f64 / (stats.hits + stats.misses) as f64;
    (ops, stats.peak_bytes, held, Some(hit_rate))
}
