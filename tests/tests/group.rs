//! `stowplan::include_models!`: two models that run one at a time share one arena, each
//! through its own typed arena, and give the outputs they give alone.

use stowplan_tests::repo_root;

stowplan::include_models!(
    name = pair,
    budget = 2 * 1024,
    model("models/cnn_int8/cnn_int8.tflite", invoke = true, name = cnn),
    model("models/mlp_int8/mlp_int8.tflite", invoke = true, name = mlp),
);

stowplan::include_model!(
    "models/cnn_int8/cnn_int8.tflite",
    invoke = true,
    name = cnn_alone
);

fn io(model: &str, key: &str) -> Vec<i8> {
    let io: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join(format!("tests/models/{model}/io.json")))
            .unwrap(),
    )
    .unwrap();
    io[key][0]["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap() as i8)
        .collect()
}

#[test]
fn the_shared_arena_is_the_largest_and_both_models_run_in_it() {
    assert_eq!(
        pair::ARENA_BYTES,
        pair::cnn::ARENA_BYTES.max(pair::mlp::ARENA_BYTES)
    );
    assert_eq!(
        pair::SEPARATE_ARENA_BYTES,
        pair::cnn::ARENA_BYTES + pair::mlp::ARENA_BYTES
    );
    const { assert!(pair::ARENA_BYTES < pair::SEPARATE_ARENA_BYTES) };
    assert_eq!(pair::RAM_BYTES, pair::ARENA_BYTES);
    assert_eq!(pair::BUDGET_BYTES, 2048);
    assert_eq!(pair::MODELS, ["cnn", "mlp"]);
    // A member's module is the one its model gets alone.
    assert_eq!(pair::cnn::ARENA_BYTES, cnn_alone::ARENA_BYTES);
    assert_eq!(pair::cnn::MODEL_SHA256, cnn_alone::MODEL_SHA256);

    let mut arena = pair::Arena::new();
    for _ in 0..2 {
        {
            let cnn = pair::cnn(&mut arena);
            cnn.view_mut(pair::cnn::inputs::INPUT_0)
                .copy_from_slice(&io("cnn_int8", "inputs"));
            pair::cnn::invoke(cnn);
            assert_eq!(
                cnn.view(pair::cnn::outputs::OUTPUT_0),
                io("cnn_int8", "outputs")
            );
        }
        let mlp = pair::mlp(&mut arena);
        mlp.view_mut(pair::mlp::inputs::INPUT_0)
            .copy_from_slice(&io("mlp_int8", "inputs"));
        pair::mlp::invoke(mlp);
        assert_eq!(
            mlp.view(pair::mlp::outputs::OUTPUT_0),
            io("mlp_int8", "outputs")
        );
    }
}

#[test]
fn a_static_shared_arena_is_taken_once() {
    static ARENA: pair::StaticArena = pair::StaticArena::new();
    let arena = ARENA.take().unwrap();
    assert!(ARENA.take().is_none());
    assert_eq!(pair::cnn(arena).as_bytes().len(), pair::cnn::ARENA_BYTES);
}

// The same chain of RELUs twice, the second reading the first's output where it lies.
stowplan::include_models!(
    name = piped,
    pipe = "first.output_0 -> second.input_0",
    model("models/synthetic/chain.tflite", invoke = true, name = first),
    model(
        "models/synthetic/chain.tflite",
        invoke = true,
        name = second
    ),
);

#[test]
fn a_pipeline_leaves_the_output_where_the_next_model_reads_it() {
    // chain alone: 512 B, its input and output 256 B each. Apart 1,024 B; the larger plus the
    // hand-over 768 B; on one timeline the hand-over is the second's input anyway: 512 B.
    assert_eq!(piped::SEPARATE_ARENA_BYTES, 1024);
    assert_eq!(piped::HANDOVER_BYTES, 256);
    assert_eq!(piped::ARENA_BYTES, 512);
    assert_eq!(
        piped::first::outputs::OUTPUT_0.offset(),
        piped::second::inputs::INPUT_0.offset()
    );
    let mut arena = piped::Arena::new();
    let input: Vec<f32> = (0..64).map(|i| i as f32 - 20.5).collect();
    let first = piped::first(&mut arena);
    first
        .view_mut(piped::first::inputs::INPUT_0)
        .copy_from_slice(&input);
    piped::first::invoke(first);
    let once: Vec<f32> = first.view(piped::first::outputs::OUTPUT_0).to_vec();
    assert_eq!(once, input.iter().map(|x| x.max(0.0)).collect::<Vec<_>>());
    // Nothing copied: the second model finds its input in place.
    let second = piped::second(&mut arena);
    assert_eq!(second.view(piped::second::inputs::INPUT_0), &once[..]);
    piped::second::invoke(second);
    assert_eq!(second.view(piped::second::outputs::OUTPUT_0), &once[..]);
}

// A stateful model in a group keeps its own persistent region: state is never shared.
stowplan::include_models!(
    name = stateful,
    model("models/synthetic/variables.tflite", name = vars),
    model("models/synthetic/chain.tflite", name = chain),
);

#[test]
fn each_model_keeps_its_own_state() {
    const { assert!(stateful::vars::PERSISTENT_BYTES > 0) };
    assert_eq!(
        stateful::PERSISTENT_BYTES,
        stateful::vars::PERSISTENT_BYTES + stateful::chain::PERSISTENT_BYTES
    );
    assert_eq!(
        stateful::RAM_BYTES,
        stateful::ARENA_BYTES + stateful::PERSISTENT_BYTES
    );
    // Its own type, outside the shared arena.
    let state = stateful::vars::PersistentArena::new();
    assert_eq!(state.as_bytes().len(), stateful::vars::PERSISTENT_BYTES);
}
