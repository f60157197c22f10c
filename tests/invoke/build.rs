//! Plans each model with `invoke` into `OUT_DIR/<name>.rs` and writes `OUT_DIR/models.rs`, the
//! table `main.rs` dispatches on. The project's own models are always built; TFLite Micro's
//! models in `../shared/models` only where that folder exists (`cfg(shared_models)`).

use std::fmt::Write as _;
use std::path::PathBuf;

/// (module name, model path relative to this crate, from ../shared)
const MODELS: &[(&str, &str, bool)] = &[
    ("mlp_int8", "../models/mlp_int8/mlp_int8.tflite", false),
    ("mlp_float", "../models/mlp_float/mlp_float.tflite", false),
    ("cnn_int8", "../models/cnn_int8/cnn_int8.tflite", false),
    ("call_once", "../models/call_once/call_once.tflite", false),
    ("cond_if", "../models/cond_if/cond_if.tflite", false),
    (
        "while_loop",
        "../models/while_loop/while_loop.tflite",
        false,
    ),
    // Beyond TFLM (which refuses them): float16 and sparse weights, folded when built; judged
    // by LiteRT's reference kernels (tests/tflm/check_folding.py).
    (
        "fold_f16_conv",
        "../models/synthetic/fold_f16_conv.tflite",
        false,
    ),
    (
        "fold_densify",
        "../models/synthetic/fold_densify.tflite",
        false,
    ),
    ("streaming", "../models/streaming/streaming.tflite", false),
    // The benchmark's models (bench/models: MLPerf Tiny's four, MobileNetV2 0.35, a dilated TCN).
    ("bench_vww", "../../bench/models/vww/vww.tflite", false),
    ("bench_kws", "../../bench/models/kws/kws.tflite", false),
    ("bench_ic", "../../bench/models/ic/ic.tflite", false),
    ("bench_ad", "../../bench/models/ad/ad.tflite", false),
    ("bench_mbv2", "../../bench/models/mbv2/mbv2.tflite", false),
    ("bench_tcn", "../../bench/models/tcn/tcn.tflite", false),
    // Frames in a resource variable, flattened by a RESHAPE that aliases them and concatenated
    // with a second variable (a CONCATENATION over the alias was planned, then refused).
    (
        "streaming_window_f32",
        "../models/synthetic/streaming_window_f32.tflite",
        false,
    ),
    (
        "streaming_window_s8",
        "../models/synthetic/streaming_window_s8.tflite",
        false,
    ),
    (
        "hello_world_int8",
        "../../../shared/models/tflm_hello_world_int8.tflite",
        true,
    ),
    (
        "micro_speech_int8",
        "../../../shared/models/tflm_micro_speech_int8.tflite",
        true,
    ),
    (
        "person_detect_int8",
        "../../../shared/models/tflm_person_detect_int8.tflite",
        true,
    ),
    (
        "mobilenet_v2_int8",
        "../../../shared/models/tflm_xtensa_mobilenet_v2_int8_224.tflite",
        true,
    ),
    (
        "mnist_lstm_float",
        "../../../shared/models/tflm_mnist_lstm_float.tflite",
        true,
    ),
    (
        "mnist_lstm_int8",
        "../../../shared/models/tflm_mnist_lstm_int8.tflite",
        true,
    ),
    (
        "micro_speech_lstm",
        "../../../shared/models/tflm_xtensa_micro_speech_lstm.tflite",
        true,
    ),
    (
        "dtln_int8",
        "../../../shared/models/tflm_dtln_noise_suppression_int8.tflite",
        true,
    ),
    (
        "sine_float",
        "../../../shared/models/tflm_sine_float.tflite",
        true,
    ),
    (
        "keyword_scrambled_int8",
        "../../../shared/models/tflm_keyword_scrambled_int8.tflite",
        true,
    ),
    (
        "keyword_scrambled_int16",
        "../../../shared/models/tflm_keyword_scrambled_int16.tflite",
        true,
    ),
    (
        "audio_preprocessor_int8",
        "../../../shared/models/tflm_audio_preprocessor_int8.tflite",
        true,
    ),
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo::rustc-check-cfg=cfg(shared_models)");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?);
    let shared = std::path::Path::new("../../../shared/models");
    println!("cargo::rerun-if-changed=../../../shared/models");
    let mut mods = String::new();
    let mut table = String::from(
        "/// Every model built: (name, run).\npub const MODELS: &[(&str, Run)] = &[\n",
    );
    for &(name, path, from_shared) in MODELS {
        if from_shared && !shared.is_dir() {
            continue;
        }
        let generated = stowplan_build::Config::new()
            .model(path)
            .name(name)
            .invoke(true)
            .generate()?;
        // A model with state runs with its persistent region, carried across invocations.
        let (state, call) = if generated.persistent_bytes > 0 {
            (
                format!("    let mut state = Box::new({name}::PersistentArena::new());\n"),
                format!("{name}::invoke(&mut arena, &mut state)"),
            )
        } else {
            (String::new(), format!("{name}::invoke(&mut arena)"))
        };
        writeln!(
            mods,
            "include!(concat!(env!(\"OUT_DIR\"), \"/{name}.rs\"));"
        )?;
        writeln!(
            mods,
            "fn run_{name}(inputs: &[&[u8]]) -> Result<Vec<u8>, String> {{\n    let mut arena = Box::new({name}::Arena::new());\n{state}    let mut out = Vec::new();\n    for input in inputs {{\n        feed(arena.as_bytes_mut(), {name}::TENSORS, {name}::INPUTS, input)?;\n        {call};\n        out.extend(collect(arena.as_bytes(), {name}::TENSORS, {name}::OUTPUTS));\n    }}\n    Ok(out)\n}}"
        )?;
        writeln!(table, "    ({name:?}, run_{name}),")?;
    }
    if shared.is_dir() {
        println!("cargo::rustc-cfg=shared_models");
    }
    table.push_str("];\n");
    std::fs::write(out.join("models.rs"), format!("{mods}\n{table}"))?;
    Ok(())
}
