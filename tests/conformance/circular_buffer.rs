//! `CIRCULAR_BUFFER` (TFLM's custom op): its output (the window of the last `num_slots` inputs)
//! and its countdown are state, so every model runs its input sets in a row, in one interpreter
//! and one persistent region, and the suite compares after every invocation both the outputs and
//! whether the invocation stopped early (TFLM's `kTfLiteAbort`).
//!
//! Every model is `x -> CIRCULAR_BUFFER ... -> w_k`, then `CONCATENATION(w_1, ..., x)` along
//! axis 1 (one quantisation throughout: a copy), the model's output. The concatenation runs
//! only on invocations the buffers let through, so on stopped ones the output holds what the
//! last complete one wrote. It reads `x` and every window, so in TFLM's memory plan (as in
//! stowplan's) no other tensor shares a window's bytes or the output's, and TFLM's windows keep
//! their bytes from one invocation to the next as stowplan's do.
//!
//! `cycles_max`: absent options, 0, negative (TFLM's Prepare picks 1 or 2 from the output's
//! shape and its process-wide count of such Prepares), 1, 2, 3, 7; the shapes TFLM's Prepare
//! singles out (5, 13, 25 slots; 2x96 at the fifth count). TFLM's child processes run many
//! models, so the count a model starts from is that of the models before it: a model in which
//! the count matters (a 2x96 window with `cycles_max <= 0`) starts with a window of 5, 13 or 25
//! slots with `cycles_max <= 0`, which sets TFLM's count back to 0 wherever it stood, as it
//! stands in a new process.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::flexbuffer::{WriteValue, write_map};
use stowplan_planner::tflite::{Activation, BuiltinOp as ops, DType, OpOptions};

use crate::suite::{self, Draft, InputSpec, Quant, Rng, Spec, Target, Variant};

/// How a buffer's `cycles_max` is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cycles {
    /// No custom options (TFLM's Init: 0).
    Absent,
    /// This value in the options.
    Value(i64),
    /// A negative value, drawn.
    Negative,
}

impl Cycles {
    fn name(self) -> String {
        match self {
            Self::Absent => "absent".to_owned(),
            Self::Value(v) => format!("cycles_max {v}"),
            Self::Negative => "negative".to_owned(),
        }
    }
}

/// One buffer of a model: its slots and how its `cycles_max` is given.
#[derive(Clone, Copy, Debug)]
struct Window {
    slots: usize,
    cycles: Cycles,
}

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    let spec = |options: String, shape: &'static str| Spec {
        op: "circular_buffer",
        builtin: "CIRCULAR_BUFFER",
        types: "int8".to_owned(),
        options,
        shape,
    };
    let all = [
        Cycles::Absent,
        Cycles::Value(0),
        Cycles::Negative,
        Cycles::Value(1),
        Cycles::Value(2),
        Cycles::Value(3),
        Cycles::Value(7),
    ];
    // One buffer, ordinary shapes.
    for cycles in all {
        out.push(suite::fill_with_sets(
            seed,
            spec(cycles.name(), "one"),
            target,
            |rng, _| {
                let (b, h, d) = small_shape(rng);
                let slots = ordinary_slots(rng);
                draw(rng, b, h, d, &[Window { slots, cycles }])
            },
        ));
    }
    // One buffer of 5, 13 or 25 slots (TFLM's Prepare: period 1 when cycles_max <= 0).
    for cycles in [
        Cycles::Absent,
        Cycles::Value(0),
        Cycles::Negative,
        Cycles::Value(3),
    ] {
        out.push(suite::fill_with_sets(
            seed,
            spec(cycles.name(), "5-13-25 slots"),
            target,
            |rng, index| {
                let (b, h, d) = small_shape(rng);
                let slots = [5, 13, 25][index % 3];
                draw(rng, b, h, d, &[Window { slots, cycles }])
            },
        ));
    }
    // Several buffers on one input (each with its own options, drawn): the first that stops
    // stops the rest; TFLM's count runs over the ones with cycles_max <= 0.
    out.push(suite::fill_with_sets(
        seed,
        spec("mixed".to_owned(), "several"),
        target,
        |rng, _| {
            let (b, h, d) = small_shape(rng);
            let n = rng.size(2, 4);
            let windows: Vec<Window> = (0..n)
                .map(|_| Window {
                    slots: if rng.chance(0.3) {
                        rng.pick(&[5, 13, 25])
                    } else {
                        ordinary_slots(rng)
                    },
                    cycles: rng.pick(&all),
                })
                .collect();
            // A window of 2x96 would make the count matter: not drawn here (h, d are small).
            draw(rng, b, h, d, &windows)
        },
    ));
    // 2x96 windows with cycles_max <= 0 after a resetting one: TFLM's fifth count takes 1, the
    // others 2 (and a 2x96 window with positive cycles_max or one of 5, 13, 25 slots in
    // between changes the count as TFLM's Prepare does).
    out.push(suite::fill_with_sets(
        seed,
        spec("absent, 0, negative".to_owned(), "2x96 counted"),
        target,
        |rng, _| {
            let zero = [Cycles::Absent, Cycles::Value(0), Cycles::Negative];
            let mut windows = vec![Window {
                slots: rng.pick(&[5, 13, 25]),
                cycles: rng.pick(&zero),
            }];
            let n = rng.size(4, 6);
            for _ in 0..n {
                let cycles = if rng.chance(0.15) {
                    Cycles::Value(rng.pick(&[1, 2]))
                } else {
                    rng.pick(&zero)
                };
                windows.push(Window {
                    slots: rng.size(1, 3),
                    cycles,
                });
            }
            // Periods of 2 in a row: the last windows shift once in up to 32 invocations.
            draw_runs(rng, 1, 2, 96, &windows, 200)
        },
    ));
    out
}

/// Batch (mostly 1), height and depth of the input.
fn small_shape(rng: &mut Rng) -> (usize, usize, usize) {
    let b = 1;
    let h = if rng.chance(0.6) { 1 } else { rng.size(2, 3) };
    let d = if rng.chance(0.3) {
        rng.size(1, 4)
    } else {
        rng.size(5, 48)
    };
    (b, h, d)
}

/// Slots other than 5, 13 and 25.
fn ordinary_slots(rng: &mut Rng) -> usize {
    loop {
        let s = if rng.chance(0.2) { 1 } else { rng.size(2, 16) };
        if !matches!(s, 5 | 13 | 25) {
            return s;
        }
    }
}

/// The model for `windows` on an input `[b, 1, h, d]`, with sets enough for every window to
/// fill and to run through its period several times (when the windows before it let it).
fn draw(
    rng: &mut Rng,
    b: usize,
    h: usize,
    d: usize,
    windows: &[Window],
) -> Option<(Draft, Vec<Vec<u8>>)> {
    let longest = windows.iter().map(|w| w.slots).max().unwrap_or(1);
    draw_runs(rng, b, h, d, windows, (longest * 3 + 24).min(120))
}

/// [`draw`] with `runs` sets of its own.
fn draw_runs(
    rng: &mut Rng,
    b: usize,
    h: usize,
    d: usize,
    windows: &[Window],
    runs: usize,
) -> Option<(Draft, Vec<Vec<u8>>)> {
    let q = Quant::tensor(suite::scale(rng), suite::zero_point(rng, DType::Int8));
    let mut m = ModelBuilder::new();
    let sg = m.subgraph("main");
    let x = suite::activation(&mut m, sg, "input", DType::Int8, &[b, 1, h, d], Some(&q));
    let mut concat = Vec::new();
    let mut notes = Vec::new();
    for (i, w) in windows.iter().enumerate() {
        let out = suite::activation(
            &mut m,
            sg,
            &format!("window{i}"),
            DType::Int8,
            &[b, w.slots, h, d],
            Some(&q),
        );
        let value = match w.cycles {
            Cycles::Absent => None,
            Cycles::Value(v) => Some(v),
            Cycles::Negative => Some(if rng.chance(0.2) {
                i64::from(i32::MIN)
            } else {
                rng.range(-9, -1)
            }),
        };
        match value {
            None => {
                m.custom(sg, "CIRCULAR_BUFFER", &[x], &[out]);
            }
            Some(v) => {
                let options = write_map(
                    &[("cycles_max", WriteValue::Int(v))],
                    rng.pick(&[1, 2, 4, 8]),
                );
                m.custom_with_options(sg, "CIRCULAR_BUFFER", &[x], &[out], &options);
            }
        }
        concat.push(out);
        notes.push(format!(
            "{} slots {}",
            w.slots,
            value.map_or_else(|| "no options".to_owned(), |v| format!("cycles_max {v}"))
        ));
    }
    concat.push(x);
    let slots: usize = windows.iter().map(|w| w.slots).sum();
    let y = suite::activation(
        &mut m,
        sg,
        "output",
        DType::Int8,
        &[b, slots + 1, h, d],
        Some(&q),
    );
    m.op_with_options(
        sg,
        ops::CONCATENATION,
        &concat,
        &[y],
        OpOptions::Concatenation {
            axis: 1,
            activation: Activation::None,
        },
    );
    m.io(sg, &[x], &[y]);
    let n = b * h * d;
    let sets: Vec<Vec<u8>> = (0..runs)
        .map(|_| {
            let v: Vec<i64> = (0..n).map(|_| rng.range(-128, 127)).collect();
            suite::int_bytes(DType::Int8, &v)
        })
        .collect();
    let draft = Draft::new(
        &m,
        vec![InputSpec::int(DType::Int8, n, q.z())],
        b * (slots + 1) * h * d,
        format!(
            "input [{b}, 1, {h}, {d}], windows: {}, q ({}, {})",
            notes.join("; "),
            q.s(),
            q.z()
        ),
    );
    Some((draft, sets))
}
