//! `stowplan::include_model!` in a real crate: the module it expands to, with options.

stowplan::include_model!("models/synthetic/chain.tflite", budget = "4 KiB");
stowplan::include_model!(
    "models/synthetic/chain.tflite",
    name = chain_linear,
    planner = "linear",
    align = 64,
    budget = 8 * 1024
);
stowplan::include_model!(
    "models/synthetic/dynamic_dim.tflite",
    shape = "x=3x10",
    shape = "1=3x10",
    shape = "y=3x10",
);
stowplan::include_model!("models/synthetic/reserved_names.tflite");
stowplan::include_model!("models/synthetic/wide_live.tflite");
stowplan::include_model!(
    "models/synthetic/offline_plan.tflite",
    name = offline_replanned,
    offline = "replan"
);

#[test]
fn the_macro_expands_to_the_planned_module() {
    assert_eq!(chain::ARENA_BYTES, 512);
    assert_eq!(chain::T3.offset(), 0);
    assert_eq!(chain::MODEL_PATH, "models/synthetic/chain.tflite");
    assert_eq!(chain_linear::ARENA_BYTES, 1024);
    assert_eq!(chain_linear::ALIGN, 64);
    assert_eq!(chain_linear::PLANNER, "linear");
    const { assert!(!chain_linear::PROVEN_OPTIMAL) };
    assert_eq!(dynamic_dim::Y.len(), 30);
    assert_eq!(offline_replanned::ARENA_BYTES, 512);
    let mut arena = chain::Arena::new();
    arena.as_bytes_mut()[chain::T1.byte_range()].fill(7);
    assert_eq!(arena.as_bytes()[..4], [7; 4]);
    // Positional names: the same slots as the tensors' own names.
    type Slot = stowplan::Slot<chain::Activations, f32>;
    let same = |a: Slot, b: Slot| (a.offset(), a.len()) == (b.offset(), b.len());
    assert!(same(chain::inputs::INPUT_0, chain::T0));
    assert!(same(chain::outputs::OUTPUT_0, chain::T3));
    // align = 64: offsets and the arena's address are multiples of 64, in a local and a static.
    assert_eq!(core::mem::align_of::<chain_linear::Arena>(), 64);
    assert_eq!(core::mem::align_of::<chain::Arena>(), 16);
    let local = chain_linear::Arena::new();
    assert_eq!(local.as_bytes().as_ptr() as usize % 64, 0);
    static LINEAR: chain_linear::StaticArena = chain_linear::StaticArena::new();
    let taken = LINEAR.take().unwrap();
    for slot in [
        chain_linear::T0,
        chain_linear::T1,
        chain_linear::T2,
        chain_linear::T3,
    ] {
        assert_eq!(taken.view(slot).as_ptr() as usize % 64, 0);
    }
}

#[test]
fn tensors_named_like_module_items_get_their_id() {
    // The module's own items keep their meaning; the tensors get `_{id}` appended.
    assert_eq!(reserved_names::PLAN_BY, "greedy");
    assert_eq!(
        (reserved_names::PLANNER, reserved_names::PROVEN_OPTIMAL),
        ("auto", true)
    );
    assert_eq!(reserved_names::BUFFER_1_0.len(), 4);
    assert_eq!(reserved_names::PLAN_BY_1.len(), 4);
    assert_eq!(reserved_names::PROVEN_OPTIMAL_2.len(), 4);
    assert_eq!(reserved_names::MODEL_FILE_3.len(), 4);
    assert_eq!(reserved_names::MODEL_FILE_BYTES_4.len(), 4);
}

#[test]
fn twelve_hundred_slots_live_together_compile() {
    // The disjointness proof of 1,201 slots live at once compiled (one step per pair did not).
    assert_eq!(wide_live::TENSORS.len(), 1_201);
    assert_eq!(wide_live::ARENA_BYTES, 1_201 * 16);
    assert_eq!(wide_live::Y1199.byte_range().len(), 1);
}
