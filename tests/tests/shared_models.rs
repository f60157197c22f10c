//! The thirteen real TFLite Micro models in `../shared/models`, read in place (skipped with a
//! notice when absent). Expected figures are TFLite Micro's own, from that folder's README:
//! the aligned lower bound, the TFLM-rule greedy head, and the variable tensors' bytes.

use std::collections::HashSet;

use stowplan_planner::arena::KernelScratch;
use stowplan_planner::graph::Placement;
use stowplan_planner::plan::Planner;
use stowplan_planner::{OfflinePolicy, Options, plan_model};
use stowplan_tests::shared_dir;

/// (file, lower bound, TFLM-rule greedy, variable bytes, TFLM's head as the real TFLM measures it
/// with its reference kernels' scratch, `tests/tflm/check_heads.py`; none where TFLM cannot run it).
const MODELS: &[(&str, u64, u64, u64, Option<u64>)] = &[
    ("tflm_sine_float.tflite", 128, 128, 0, Some(128)),
    ("tflm_hello_world_int8.tflite", 32, 32, 0, Some(32)),
    (
        "tflm_micro_speech_int8.tflite",
        5_968,
        5_968,
        0,
        Some(5_968),
    ),
    (
        "tflm_audio_preprocessor_int8.tflite",
        2_096,
        3_040,
        0,
        Some(3_040),
    ),
    (
        "tflm_mnist_lstm_float.tflite",
        5_376,
        5_376,
        160,
        Some(5_696),
    ),
    ("tflm_mnist_lstm_int8.tflite", 1_344, 1_344, 60, Some(1_536)),
    (
        "tflm_keyword_scrambled_int16.tflite",
        288,
        288,
        10_240,
        Some(672),
    ),
    (
        "tflm_keyword_scrambled_int8.tflite",
        288,
        288,
        5_120,
        Some(672),
    ),
    (
        "tflm_person_detect_int8.tflite",
        55_296,
        55_296,
        0,
        Some(55_296),
    ),
    (
        "tflm_person_detect_vela_ethosu.tflite",
        158_160,
        158_160,
        0,
        None,
    ),
    (
        "tflm_dtln_noise_suppression_int8.tflite",
        544,
        544,
        768,
        Some(1_424),
    ),
    (
        "tflm_xtensa_micro_speech_lstm.tflite",
        16_528,
        16_528,
        240,
        Some(17_168),
    ),
    (
        "tflm_xtensa_mobilenet_v2_int8_224.tflite",
        2_451_840,
        2_451_840,
        0,
        Some(2_451_840),
    ),
];

#[test]
fn figures_match_tflite_micro() {
    let Some(shared) = shared_dir("shared model figures") else {
        return;
    };
    for &(file, lower_bound, greedy, variables, head) in MODELS {
        let bytes = std::fs::read(shared.join("models").join(file)).unwrap();
        // docs/planning.md's greedy column ignores Vela's offline plan; TFLM-rule greedy is the same for all others.
        let options = Options {
            planner: Planner::Greedy,
            offline: OfflinePolicy::Replan,
            ..Options::default()
        };
        let p = plan_model(&bytes, &options).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(p.lower_bound_bytes(), lower_bound, "{file}: lower bound");
        assert_eq!(p.arena_bytes(), greedy, "{file}: greedy");
        assert_eq!(
            p.state.variables.iter().map(|v| v.bytes).sum::<u64>(),
            variables,
            "{file}: variable tensors"
        );
        if let Some(head) = head {
            // TFLM's head is its greedy plan of the tensors and its kernels' scratch together.
            let tflm = plan_model(
                &bytes,
                &Options {
                    kernel_scratch: KernelScratch::Tflm,
                    ..options.clone()
                },
            )
            .unwrap();
            assert_eq!(tflm.arena_bytes(), head, "{file}: TFLM head");
            assert!(head >= greedy, "{file}: scratch can only add");
            if tflm.scratch.is_empty() {
                assert_eq!(head, greedy, "{file}: no scratch");
            }
        }
        let linear = plan_model(
            &bytes,
            &Options {
                planner: Planner::Linear,
                ..options.clone()
            },
        )
        .unwrap();
        assert_eq!(linear.arena_bytes(), linear.naive_bytes(), "{file}: linear");
        assert!(
            linear.arena_bytes() >= p.arena_bytes(),
            "{file}: linear below greedy"
        );
    }
}

#[test]
fn every_planned_tensor_has_one_verified_offset() {
    let Some(shared) = shared_dir("shared model plans") else {
        return;
    };
    for &(file, ..) in MODELS {
        let bytes = std::fs::read(shared.join("models").join(file)).unwrap();
        let p = plan_model(&bytes, &Options::default()).unwrap_or_else(|e| panic!("{file}: {e}"));
        let planned: Vec<_> = p
            .tensors
            .iter()
            .enumerate()
            .filter(|(_, t)| t.placement == Placement::Arena)
            .map(|(i, _)| i)
            .collect();
        assert_eq!(planned.len(), p.buffer_tensors.len(), "{file}");
        let unique: HashSet<_> = p.buffer_tensors.iter().collect();
        assert_eq!(
            unique.len(),
            planned.len(),
            "{file}: a tensor planned twice"
        );
        for id in &p.buffer_tensors {
            let offset = p.offset(*id).unwrap();
            assert_eq!(offset % 16, 0, "{file}");
            assert!(
                offset + p.tensors[id.get()].bytes.unwrap() <= p.arena_bytes(),
                "{file}"
            );
        }
        // Plans are deterministic.
        let again = plan_model(&bytes, &Options::default()).unwrap();
        assert_eq!(again.plan, p.plan, "{file}");
    }
}

#[test]
fn vela_offline_plan_is_honoured_and_its_aliases_declared() {
    let Some(shared) = shared_dir("the Vela model") else {
        return;
    };
    let bytes = std::fs::read(shared.join("models/tflm_person_detect_vela_ethosu.tflite")).unwrap();
    let p = plan_model(&bytes, &Options::default()).unwrap();
    // words [0, 1, 6, 0, -1, -1, 0, 0, 0]: output, both scratch areas and input all at 0.
    assert_eq!(
        p.model.offline_plan.as_ref().unwrap(),
        &[Some(0), None, None, Some(0), Some(0), Some(0)]
    );
    assert_eq!(p.arena_bytes(), 74_464);
    assert_eq!(p.lower_bound_bytes(), 158_160);
    assert_eq!(p.declared_aliases.len(), 6);
    let json = stowplan_planner::emit::model_json(&p, "vela");
    assert_eq!(json["offline_plan"], "honoured");
    assert_eq!(json["declared_aliases"].as_array().unwrap().len(), 6);
}

#[test]
fn custom_ops_are_named_by_their_custom_code() {
    let Some(shared) = shared_dir("custom op names") else {
        return;
    };
    let bytes = std::fs::read(shared.join("models/tflm_audio_preprocessor_int8.tflite")).unwrap();
    let p = plan_model(&bytes, &Options::default()).unwrap();
    let names: HashSet<String> = p.model.ops.iter().map(|o| o.opcode.to_string()).collect();
    for expected in [
        "SignalEnergy",
        "SignalRfft",
        "SignalWindow",
        "SignalPCAN",
        "SignalFilterBank",
    ] {
        assert!(
            names.contains(expected),
            "{expected} missing from {names:?}"
        );
    }
}

/// With each convolution's, pool's, elementwise op's and PAD's output allowed over the input it
/// consumes
/// (`Options::overlaps`, planned as for `invoke`), person_detect and micro_speech plan below
/// their tensor-level bounds, verified by the plan's own check: the figures of docs/planning.md.
/// The README's claim: with whole tensors (the default without `invoke`, and the offline plan
/// replanned), every one of the thirteen models plans at its lower bound, proven optimal.
#[test]
fn whole_tensor_plans_are_at_the_bound_and_proven_optimal() {
    let Some(shared) = shared_dir("whole-tensor plans of the shared models") else {
        return;
    };
    assert_eq!(MODELS.len(), 13);
    for &(file, lower_bound, ..) in MODELS {
        let bytes = std::fs::read(shared.join("models").join(file)).unwrap();
        let options = Options {
            offline: OfflinePolicy::Replan,
            ..Options::default()
        };
        assert!(!options.overlaps, "{file}: whole tensors");
        let p = plan_model(&bytes, &options).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(p.lower_bound_bytes(), lower_bound, "{file}: lower bound");
        assert_eq!(p.arena_bytes(), lower_bound, "{file}: arena");
        assert!(p.plan.proven_optimal(), "{file}: proven optimal");
    }
}

#[test]
fn kernel_overlaps_go_below_the_tensor_level_bound() {
    let Some(shared) = shared_dir("kernel overlaps on the shared models") else {
        return;
    };
    // (file, pairs declared, pairs overlapped, tensor-level bound, overlap-aware bound, arena).
    let models = [
        (
            "tflm_person_detect_int8.tflite",
            29,
            8,
            // Its first 1 x 1 layer's widened pixel pair (32 B of scratch) is live at the peak.
            55_328,
            36_928,
            36_928,
        ),
        ("tflm_micro_speech_int8.tflite", 1, 1, 5_968, 4_192, 4_192),
        // QUANTIZE from int16 to int8 at the peak: the output at the input's start.
        ("tflm_keyword_scrambled_int8.tflite", 1, 1, 288, 192, 192),
        // The int8 LOGISTIC at the end.
        (
            "tflm_dtln_noise_suppression_int8.tflite",
            1,
            1,
            544,
            400,
            400,
        ),
        // PADs at the peak: each output over its input, the padding before the input's last
        // element apart.
        (
            "tflm_xtensa_mobilenet_v2_int8_224.tflite",
            70,
            23,
            2_451_840,
            1_247_808,
            1_247_808,
        ),
        ("tflm_hello_world_int8.tflite", 0, 0, 32, 32, 32),
    ];
    for (file, declared, overlapped, tensor_level, bound, arena) in models {
        let bytes = std::fs::read(shared.join("models").join(file)).unwrap();
        // With pairs the default search budget is `OVERLAP_SEARCH_STEPS` (along chains of
        // pairs the bound is not tight).
        let options = Options::default().with_invoke(true);
        assert!(options.overlaps);
        let plan = plan_model(&bytes, &options).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(plan.problem.overlaps().len(), declared, "{file}: pairs");
        assert_eq!(plan.overlapped().len(), overlapped, "{file}: pairs used");
        assert_eq!(plan.tensor_bound_bytes(), tensor_level, "{file}");
        assert_eq!(
            plan.lower_bound_bytes(),
            bound,
            "{file}: overlap-aware bound"
        );
        assert_eq!(plan.arena_bytes(), arena, "{file}: arena");
    }
    // The int8 convolutions one output pixel further apart than their least displacement
    // (`chunk_pixels` 2, the default) cost person_detect 16 bytes; at the least displacement it
    // plans in 36,912, at its bound.
    let bytes = std::fs::read(shared.join("models/tflm_person_detect_int8.tflite")).unwrap();
    let least = Options {
        chunk_pixels: 1,
        ..Options::default().with_invoke(true)
    };
    let plan = plan_model(&bytes, &least).unwrap();
    assert_eq!(
        (plan.lower_bound_bytes(), plan.arena_bytes()),
        (36_912, 36_912)
    );
}
