//! Replays the committed fuzz regression inputs (`fuzz/regressions/<target>/`) through the same
//! functions the cargo-fuzz targets call: minimized inputs that reached new code while fuzzing.

use stowplan_tests::{fuzz, repo_root};

fn replay(target: &str, body: fn(&[u8])) -> usize {
    let dir = repo_root().join("fuzz/regressions").join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    for path in &files {
        let data = std::fs::read(path).unwrap();
        body(&data);
    }
    files.len()
}

#[test]
fn model_plan() {
    assert!(replay("model_plan", fuzz::model_plan) > 0);
}

#[test]
fn problem_planners() {
    assert!(replay("problem_planners", fuzz::problem_planners) > 0);
}

#[test]
fn builder_roundtrip() {
    assert!(replay("builder_roundtrip", fuzz::builder_roundtrip) > 0);
}

#[test]
fn codegen() {
    assert!(replay("codegen", fuzz::codegen) > 0);
}

#[test]
fn model_gen() {
    assert!(replay("model_gen", fuzz::model_gen) > 0);
}

#[test]
fn problem_planners_with_pairs_on_seeded_inputs() {
    // Seeded random inputs long enough to declare pairs (module `plan::overlap`): whatever the
    // bytes, every plan verifies and respects the overlap-aware bound; and some of them do pair.
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut paired = 0;
    for _ in 0..if cfg!(miri) { 4 } else { 400 } {
        let len = 40 + (x % 200) as usize;
        let data: Vec<u8> = (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect();
        fuzz::problem_planners(&data);
        paired += usize::from(fuzz::declares_pairs(&data));
    }
    assert!(paired > 0, "no input declared a pair");
}

#[test]
fn plan_verify() {
    assert!(replay("plan_verify", fuzz::plan_verify) > 0);
}

#[test]
fn model_read() {
    assert!(replay("model_read", fuzz::model_read) > 0);
}

#[test]
fn plan_verify_reaches_every_verdict_on_seeded_inputs() {
    // Seeded random inputs: whatever the bytes, the verifier agrees with the brute-force check;
    // and the inputs reach every verdict (so the oracle is not vacuous).
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut seen = std::collections::BTreeMap::new();
    for _ in 0..if cfg!(miri) { 8 } else { 20_000 } {
        let len = 8 + (x % 160) as usize;
        let data: Vec<u8> = (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect();
        if let Some(verdict) = fuzz::plan_verify_verdict(&data) {
            *seen.entry(verdict).or_insert(0) += 1;
        }
    }
    println!("{seen:?}");
    for verdict in [
        "valid",
        "valid, fixed overlaps",
        "wrong length",
        "fixed offset moved",
        "misaligned",
        "overlap",
        "too close",
    ] {
        assert!(
            seen.contains_key(verdict),
            "no input was {verdict}: {seen:?}"
        );
    }
}

#[test]
fn in_place() {
    assert!(replay("in_place", fuzz::in_place) > 0);
}

#[test]
fn in_place_covers_every_kind_of_the_registry_on_seeded_inputs() {
    // Seeded inputs whose first two bytes walk the registry (the body picks a kind, then one of
    // its entries, by them): every kind runs `PER_KIND` times, every entry at least once, and
    // every kind meets a layout one element below its least displacement where its tensors
    // still share an element, which its entry refused (so the check there is not vacuous).
    const PER_KIND: usize = if cfg!(miri) { 1 } else { 40 };
    let kinds = fuzz::in_place_kinds();
    assert!(kinds.len() >= 19, "{} kinds", kinds.len());
    let mut x = 0x1234_5678_9abc_def1u64;
    let mut seen = std::collections::BTreeMap::<&str, Vec<fuzz::Below>>::new();
    let mut entries = std::collections::BTreeSet::new();
    for i in 0..kinds.len() * PER_KIND {
        let mut data = vec![
            u8::try_from(i % kinds.len()).unwrap(),
            u8::try_from(i / kinds.len() % 256).unwrap(),
        ];
        data.extend((0..62).map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        }));
        let outcome = fuzz::in_place_outcome(&data);
        let (kind, _) = &kinds[i % kinds.len()];
        assert_eq!(&outcome.kind, kind);
        seen.entry(kind.as_str()).or_default().push(outcome.below);
        entries.insert(outcome.entry);
    }
    for (kind, outcomes) in &seen {
        let count = |b| outcomes.iter().filter(|&&o| o == b).count();
        println!(
            "{kind}: {} refused, {} disjoint, {} without a pairing",
            count(fuzz::Below::Refused),
            count(fuzz::Below::Disjoint),
            count(fuzz::Below::NoPairing)
        );
    }
    for (kind, kind_entries) in kinds {
        let outcomes = &seen[kind.as_str()];
        assert_eq!(outcomes.len(), PER_KIND, "{kind}");
        if !cfg!(miri) {
            assert!(
                outcomes.contains(&fuzz::Below::Refused),
                "{kind}: no input met a layout one element below its least displacement: {outcomes:?}"
            );
            for e in kind_entries {
                assert!(
                    entries.contains(e.name),
                    "{kind}: entry {} never ran",
                    e.name
                );
            }
        }
    }
}
