//! Embedding a plan as an `OfflineMemoryAllocation` entry: the rewritten model reads back as the
//! same graph, buffers and metadata plus ours, and TFLM-style planning of it honours our offsets.

use stowplan_planner::arena::{KernelScratch, ScratchBuffer};
use stowplan_planner::embed::{EmbedPlanError, embed, offline_words};
use stowplan_planner::plan::Planner;
use stowplan_planner::tflite::DType;
use stowplan_planner::tflite::builder::{ModelBuilder, ops};
use stowplan_planner::tflite::{Model, Op, read_model};
use stowplan_planner::{OfflinePolicy, Options, plan_model};
use stowplan_tests::{SYNTHETIC, repo_root};

fn data<'a>(bytes: &'a [u8], model: &Model, buffer: usize) -> Option<&'a [u8]> {
    model.buffers[buffer].data.clone().map(|r| &bytes[r])
}

/// Embeds, re-reads and compares; returns the rewritten bytes.
fn round_trip(name: &str, bytes: &[u8]) -> Vec<u8> {
    let (out, plan) = embed(bytes, &Options::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(
        out.len() % 16,
        bytes.len() % 16,
        "{name}: the original bytes moved by a multiple of 16"
    );
    let before = read_model(bytes).unwrap();
    let after = read_model(&out)
        .unwrap_or_else(|e| panic!("{name}: the rewritten model does not read: {e}"));
    assert_eq!(after.subgraphs, before.subgraphs, "{name}");
    assert_eq!(after.tensors, before.tensors, "{name}");
    // The same ops; custom options compared by content (they moved with the original bytes).
    let ops = |m: &Model, b: &[u8]| -> Vec<(Op, Option<Vec<u8>>)> {
        m.ops
            .iter()
            .map(|o| {
                let options = o.custom_options.clone().map(|r| b[r].to_vec());
                (
                    Op {
                        custom_options: None,
                        ..o.clone()
                    },
                    options,
                )
            })
            .collect()
    };
    assert_eq!(ops(&after, &out), ops(&before, bytes), "{name}");
    assert_eq!(after.version, before.version, "{name}");
    assert_eq!(after.description, before.description, "{name}");
    // Same buffers (same data), plus ours; a model without buffers gains the sentinel first.
    let added = after.buffers.len() - before.buffers.len();
    assert!(
        added == 1 || (added == 2 && before.buffers.is_empty()),
        "{name}"
    );
    for i in 0..before.buffers.len() {
        assert_eq!(
            data(&out, &after, i),
            data(bytes, &before, i),
            "{name}: buffer {i}"
        );
        if let (Some(r), Some(old)) = (&after.buffers[i].data, &before.buffers[i].data) {
            assert_eq!(
                r.start % 16,
                old.start % 16,
                "{name}: buffer {i} lost its alignment"
            );
        }
    }
    // Metadata: the old entries (an old offline plan replaced) plus ours, exactly one plan.
    let plans = after
        .metadata
        .iter()
        .filter(|m| m.name == "OfflineMemoryAllocation")
        .count();
    assert_eq!(plans, 1, "{name}");
    let kept: Vec<_> = before
        .metadata
        .iter()
        .filter(|m| m.name != "OfflineMemoryAllocation")
        .collect();
    assert_eq!(after.metadata.len(), kept.len() + 1, "{name}");
    for (a, b) in after.metadata.iter().zip(&kept) {
        assert_eq!(
            (&a.name, data(&out, &after, a.buffer.get())),
            (&b.name, data(bytes, &before, b.buffer.get())),
            "{name}"
        );
    }
    // The entry holds our plan, and planning the new model honours it to the byte.
    let words = offline_words(&plan);
    assert_eq!(words.len(), 3 + before.tensors.len());
    let honoured = plan_model(
        &out,
        &Options {
            offline: OfflinePolicy::Honour,
            ..Options::default()
        },
    )
    .unwrap();
    assert!(honoured.declared_aliases.is_empty(), "{name}");
    let tensors = plan.buffer_tensors.len();
    assert_eq!(
        honoured.plan.offsets(),
        &plan.plan.offsets()[..tensors],
        "{name}"
    );
    // The tensors alone may leave the scratch room at the top unused.
    assert!(honoured.arena_bytes() <= plan.arena_bytes(), "{name}");
    if plan.scratch.is_empty() {
        assert_eq!(honoured.arena_bytes(), plan.arena_bytes(), "{name}");
    }
    // What TFLM does with the entry: the tensors at their offsets, then its kernels' scratch
    // first-fit around them. It fits in the arena embed planned.
    let tflm = plan_model(
        &out,
        &Options {
            offline: OfflinePolicy::Honour,
            planner: Planner::Greedy,
            kernel_scratch: KernelScratch::Tflm,
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(tflm.scratch, plan.scratch, "{name}");
    assert!(
        tflm.arena_bytes() <= plan.arena_bytes(),
        "{name}: TFLM's placement of kernel scratch needs {} B, the plan {} B",
        tflm.arena_bytes(),
        plan.arena_bytes()
    );
    for (t, info) in honoured.model.tensors.iter().zip(&honoured.tensors) {
        let expected = usize::try_from(words[3 + t.id.get()])
            .ok()
            .map(|o| o as u64);
        assert_eq!(
            info.fixed_offset,
            expected.filter(|_| info.fixed_offset.is_some()),
            "{name}: tensor {}",
            t.id
        );
    }
    out
}

#[test]
fn synthetic_and_fixture_models_round_trip() {
    for s in SYNTHETIC.iter().filter(|s| s.name != "dynamic_dim") {
        round_trip(s.name, &(s.build)());
    }
    for case in [
        "mlp_float",
        "mlp_int8",
        "cnn_int8",
        "cond_if",
        "while_loop",
        "call_once",
    ] {
        let bytes =
            std::fs::read(repo_root().join(format!("tests/models/{case}/{case}.tflite"))).unwrap();
        round_trip(case, &bytes);
    }
}

#[test]
fn an_existing_entry_is_replaced_and_embedding_twice_is_stable() {
    let once = round_trip("offline_plan", &stowplan_tests::offline_plan());
    let twice = round_trip("offline_plan twice", &once);
    let (a, _) = embed(&once, &Options::default()).unwrap();
    assert_eq!(a, twice);
}

#[test]
fn variables_and_unplanned_tensors_get_minus_one() {
    let (_, plan) = embed(&stowplan_tests::variables(), &Options::default()).unwrap();
    let words = offline_words(&plan);
    assert_eq!(&words[..3], &[0, 1, 5]);
    assert_eq!(
        words[3 + 1],
        -1,
        "variable state1 stays in TFLM's persistent tail"
    );
    assert_eq!(words[3 + 3], -1, "variable state2 too");
    assert!(words[3] >= 0 && words[3 + 2] >= 0 && words[3 + 4] >= 0);
    let (_, plan) = embed(&stowplan_tests::call_once(), &Options::default()).unwrap();
    assert_eq!(
        offline_words(&plan)[3 + 1],
        -1,
        "VAR_HANDLE outputs are not planned"
    );
}

#[test]
fn unsafe_embeddings_are_refused() {
    let err = embed(
        &stowplan_tests::chain(),
        &Options {
            alignment: 64,
            ..Options::default()
        },
    )
    .unwrap_err();
    assert!(matches!(err, EmbedPlanError::Refused(_)));
    assert_eq!(
        err.to_string(),
        "cannot embed a plan: TFLite Micro aligns every planned size and offset to 16; plan with alignment 16"
    );
    let err = embed(&stowplan_tests::dynamic_dim(), &Options::default()).unwrap_err();
    assert!(matches!(err, EmbedPlanError::Plan(_)));
}

#[test]
fn offsets_an_int32_word_cannot_hold_are_refused() {
    // Three 1 GiB tensors live at once: the third goes at 2^31, which TFLite Micro's int32 word
    // cannot hold (it was written as -1, "plan online", and reported as placed).
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "x", DType::Int8, &[1 << 30]);
    let y = b.tensor(sg, "y", DType::Int8, &[1 << 30]);
    let z = b.tensor(sg, "z", DType::Int8, &[1 << 30]);
    b.op(sg, ops::ADD, &[x, y], &[z]);
    b.io(sg, &[x, y], &[z]);
    let err = embed(&b.finish(), &Options::default()).unwrap_err();
    assert!(matches!(err, EmbedPlanError::Refused(_)), "{err}");
    assert!(
        err.to_string().ends_with(
            "is at offset 2,147,483,648, beyond 2,147,483,647, the largest offset TFLite Micro's int32 offline plan holds"
        ),
        "{err}"
    );
}

#[test]
fn shared_models_round_trip() {
    let Some(files) = stowplan_tests::shared_models("embedding the shared models") else {
        return;
    };
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        round_trip(&path.file_name().unwrap().to_string_lossy(), &bytes);
    }
}

/// SVDF (int8: two requests) and SignalRfft (one) feeding each other; the rest plain.
fn scratch_model() -> Vec<u8> {
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let audio = b.tensor(sg, "audio", DType::Int16, &[1, 480]);
    let spectrum = b.tensor(sg, "spectrum", DType::Int16, &[1, 514]);
    b.custom(sg, "SignalRfft", &[audio], &[spectrum]);
    let x = b.tensor(sg, "x", DType::Int8, &[2, 8]);
    b.op(sg, ops::RESHAPE, &[spectrum], &[x]);
    let feature = b.constant(sg, "feature", DType::Int8, &[6, 8], &[1; 48]);
    let time = b.constant(sg, "time", DType::Int16, &[6, 4], &[0; 48]);
    let state = b.variable(sg, "state", DType::Int16, &[2, 24]);
    let y = b.tensor(sg, "y", DType::Int8, &[2, 3]);
    b.op(sg, ops::SVDF, &[x, feature, time, -1, state], &[y]);
    b.io(sg, &[audio], &[y]);
    b.finish()
}

#[test]
fn tflm_kernel_scratch_is_planned_beside_the_tensors() {
    let bytes = scratch_model();
    let none = plan_model(&bytes, &Options::default()).unwrap();
    assert!(none.scratch.is_empty());
    let with = plan_model(
        &bytes,
        &Options {
            kernel_scratch: KernelScratch::Tflm,
            ..Options::default()
        },
    )
    .unwrap();
    // SignalRfft: fft_length 512 (output 514 = 257 complex values) x 2 bytes; SVDF int8: batch 2
    // x 6 filters x 4, then batch 2 x 3 units x 4.
    assert_eq!(
        with.scratch,
        [
            ScratchBuffer { op: 0, bytes: 1024 },
            ScratchBuffer { op: 2, bytes: 48 },
            ScratchBuffer { op: 2, bytes: 24 },
        ]
    );
    let n = with.buffer_tensors.len();
    assert_eq!(with.problem.buffers().len(), n + 3);
    // Each lives for its op only: op 0 runs at problem time 2 (TFLM scope 1).
    let rfft = with.problem.buffers()[n];
    assert_eq!((rfft.lifetime.first, rfft.lifetime.last), (2, 2));
    // At op 0: audio 960 + spectrum 1,040 (1,028 aligned) + scratch 1,024.
    assert_eq!(with.lower_bound_bytes(), 960 + 1040 + 1024);
    assert!(with.arena_bytes() >= none.arena_bytes() + 1024);
    // The embedded plan leaves the room, and the entry only holds tensors.
    let (_, plan) = embed(&bytes, &Options::default()).unwrap();
    assert_eq!(plan.scratch, with.scratch);
    assert_eq!(offline_words(&plan).len(), 3 + plan.model.tensors.len());
    round_trip("scratch_model", &bytes);
}
