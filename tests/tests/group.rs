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
