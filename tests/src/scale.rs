//! Model families for the scaling checks (`tests/tests/scale.rs`) and the benchmark
//! (`cargo run --release -p stowplan-tests --bin bench-scale`): chains, wide fan-outs, tensors
//! no op touches, random DAGs of bounded width, and the random DAG of a thousand ADDs that once
//! made the search run for minutes. Each is built with the model builder from a fixed seed.

use stowplan_planner::tflite::DType;
use stowplan_planner::tflite::builder::{ModelBuilder, ops};

/// A model family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// `n - 1` RELUs in a row: every tensor lives for two ops.
    Chain,
    /// One input read by `n - 1` RELUs, each output a model output (live to the end).
    FanOut,
    /// `n` tensors and no op: all share TFLite Micro's `-1` lifetime.
    Untouched,
    /// ADDs each reading two of the 64 tensors written last.
    RandomDag,
}

impl Family {
    /// Every family, in the order the benchmark prints them.
    pub const ALL: [Family; 4] = [
        Family::Chain,
        Family::FanOut,
        Family::Untouched,
        Family::RandomDag,
    ];

    /// The family's name in tables.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Chain => "chain",
            Self::FanOut => "fan-out",
            Self::Untouched => "no op touches them",
            Self::RandomDag => "random DAG, width 64",
        }
    }
}

/// A xorshift generator, for fixed seeds.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % (n.max(1) as u64)) as usize
    }
}

fn i32_of(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// A model of `family` with `tensors` int8 tensors of 1 to 1,024 bytes (from `seed`).
#[must_use]
pub fn build(family: Family, tensors: usize, seed: u64) -> Vec<u8> {
    let n = tensors.max(2);
    let mut rng = Rng(seed | 1);
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let ts: Vec<i32> = (0..n)
        .map(|k| {
            let width = 1 + i32_of(rng.below(1024));
            b.tensor(sg, &format!("t{k}"), DType::Int8, &[1, width])
        })
        .collect();
    let t = |k: usize| ts.get(k).copied().unwrap_or(0);
    match family {
        Family::Chain => {
            for k in 1..n {
                b.op(sg, ops::RELU, &[t(k - 1)], &[t(k)]);
            }
            b.io(sg, &[t(0)], &[t(n - 1)]);
        }
        Family::FanOut => {
            for k in 1..n {
                b.op(sg, ops::RELU, &[t(0)], &[t(k)]);
            }
            let outputs: Vec<i32> = (1..n).map(t).collect();
            b.io(sg, &[t(0)], &outputs);
        }
        Family::Untouched => b.io(sg, &[], &[]),
        Family::RandomDag => {
            for k in 2..n {
                let lo = k.saturating_sub(64);
                let a = lo + rng.below(k - lo);
                let c = lo + rng.below(k - lo);
                b.op(sg, ops::ADD, &[t(a), t(c)], &[t(k)]);
            }
            b.io(sg, &[t(0), t(1)], &[t(n - 1)]);
        }
    }
    b.finish()
}

/// A thousand int8 ADDs, each reading a random earlier tensor and one of the 50 written last,
/// widths 1 to 1,000 (about 56 KB): the search once spent minutes on it.
#[must_use]
pub fn thousand_adds(seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed | 1);
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let mut ts = Vec::new();
    for k in 0..1_002 {
        let width = 1 + i32_of(rng.below(1_000));
        ts.push(b.tensor(sg, &format!("t{k}"), DType::Int8, &[1, width]));
    }
    let t = |k: usize| ts.get(k).copied().unwrap_or(0);
    for k in 2..1_002 {
        let any = rng.below(k);
        let recent = k.saturating_sub(50) + rng.below(k.min(50));
        b.op(sg, ops::ADD, &[t(any), t(recent)], &[t(k)]);
    }
    b.io(sg, &[t(0), t(1)], &[t(1_001)]);
    b.finish()
}
