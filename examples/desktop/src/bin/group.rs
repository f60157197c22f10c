//! Two models that run one at a time, sharing one arena (`stowplan::include_models!`): the
//! project's int8 CNN and int8 MLP (`tests/models/cnn_int8`, `tests/models/mlp_int8`), each run
//! by its generated `invoke` (the runtime's reference kernels) in the shared arena, one after
//! the other and again, each output checked against `io.json` (TFLite's outputs, which TFLite
//! Micro gives too: CI runs both models against TFLite Micro in `tests/tflm/check_invoke.py`). It prints each
//! model's arena, their sum (separate arenas) and the shared arena (their maximum).
//!
//! Then a pipeline: the project's synthetic chain of RELUs twice, the second reading the first's
//! output where it lies (`pipe = "first.output_0 -> second.input_0"`), planned on one timeline:
//! it prints that arena next to the separate arenas and the larger one plus the hand-over, and
//! checks both models' outputs.
//!
//! ```text
//! cargo run -p stowplan-example-desktop --bin group
//! ```
#![forbid(unsafe_code)]

use std::process::ExitCode;

stowplan::include_models!(
    name = pair,
    budget = 1024,
    model(
        "../../tests/models/cnn_int8/cnn_int8.tflite",
        invoke = true,
        name = cnn
    ),
    model(
        "../../tests/models/mlp_int8/mlp_int8.tflite",
        invoke = true,
        name = mlp
    ),
);

stowplan::include_models!(
    name = piped,
    pipe = "first.output_0 -> second.input_0",
    model(
        "../../tests/models/synthetic/chain.tflite",
        invoke = true,
        name = first
    ),
    model(
        "../../tests/models/synthetic/chain.tflite",
        invoke = true,
        name = second
    ),
);

const CNN_IO: &str = include_str!("../../../../tests/models/cnn_int8/io.json");
const MLP_IO: &str = include_str!("../../../../tests/models/mlp_int8/io.json");

/// The `data` array of the first entry under `"key":` (the file's layout is fixed by the
/// fixture script), as int8.
fn data(text: &str, key: &str) -> Vec<i8> {
    let Some(at) = text.find(&format!("\"{key}\":")) else {
        return Vec::new();
    };
    let rest = &text[at..];
    let Some(start) = rest.find("\"data\": [") else {
        return Vec::new();
    };
    let rest = &rest[start + 9..];
    let Some(end) = rest.find(']') else {
        return Vec::new();
    };
    rest[..end]
        .split(',')
        .filter_map(|n| n.trim().parse::<i8>().ok())
        .collect()
}

fn main() -> ExitCode {
    println!("model  arena");
    println!("cnn    {:>5} B", pair::cnn::ARENA_BYTES);
    println!("mlp    {:>5} B", pair::mlp::ARENA_BYTES);
    println!(
        "sum    {:>5} B  (separate arenas)",
        pair::SEPARATE_ARENA_BYTES
    );
    println!(
        "shared {:>5} B  (the larger, saving {} B)",
        pair::ARENA_BYTES,
        pair::SEPARATE_ARENA_BYTES - pair::ARENA_BYTES
    );
    let mut arena = pair::Arena::new();
    let mut ok = true;
    for round in 0..2 {
        let cnn = pair::cnn(&mut arena);
        cnn.view_mut(pair::cnn::inputs::INPUT_0)
            .copy_from_slice(&data(CNN_IO, "inputs"));
        pair::cnn::invoke(cnn);
        let got = cnn.view(pair::cnn::outputs::OUTPUT_0);
        let same = got == data(CNN_IO, "outputs");
        println!(
            "round {round}: cnn {got:?} {}",
            if same {
                "= TFLite"
            } else {
                "differs from TFLite"
            }
        );
        ok &= same;

        let mlp = pair::mlp(&mut arena);
        mlp.view_mut(pair::mlp::inputs::INPUT_0)
            .copy_from_slice(&data(MLP_IO, "inputs"));
        pair::mlp::invoke(mlp);
        let got = mlp.view(pair::mlp::outputs::OUTPUT_0);
        let same = got == data(MLP_IO, "outputs");
        println!(
            "round {round}: mlp {got:?} {}",
            if same {
                "= TFLite"
            } else {
                "differs from TFLite"
            }
        );
        ok &= same;
    }
    println!();
    println!("pipeline first -> second (the chain of RELUs twice)");
    println!(
        "separate arenas        {:>5} B",
        piped::SEPARATE_ARENA_BYTES
    );
    println!(
        "larger + hand-over     {:>5} B",
        piped::first::ARENA_BYTES.max(piped::second::ARENA_BYTES) + piped::HANDOVER_BYTES
    );
    println!("one timeline (planned) {:>5} B", piped::ARENA_BYTES);
    let input: Vec<f32> = (0..64).map(|i| i as f32 - 20.5).collect();
    let relu: Vec<f32> = input.iter().map(|x| x.max(0.0)).collect();
    let mut arena = piped::Arena::new();
    let first = piped::first(&mut arena);
    first
        .view_mut(piped::first::inputs::INPUT_0)
        .copy_from_slice(&input);
    piped::first::invoke(first);
    ok &= first.view(piped::first::outputs::OUTPUT_0) == &relu[..];
    // The second model's input is the first's output, in place: nothing is copied.
    let second = piped::second(&mut arena);
    piped::second::invoke(second);
    let same = second.view(piped::second::outputs::OUTPUT_0) == &relu[..];
    println!(
        "second's output        {}",
        if same {
            "relu(input), read in place"
        } else {
            "wrong"
        }
    );
    ok &= same;
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
