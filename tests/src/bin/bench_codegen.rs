//! Build cost of code generation: how long `include_model!` takes to expand (read, plan,
//! verify, generate) and how much source it produces, per model.
//!
//! `cargo run --release -p stowplan-tests --bin bench-codegen [MODEL...]` (default: the
//! project's models, plus person_detect and mobilenet_v2 from ../shared/models when present).
#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::time::Instant;

use stowplan_planner::codegen::request::expand;

fn main() {
    let root = stowplan_tests::repo_root();
    let mut models: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    if models.is_empty() {
        for m in [
            "tests/models/mlp_int8/mlp_int8.tflite",
            "tests/models/cnn_int8/cnn_int8.tflite",
        ] {
            models.push(root.join(m));
        }
        let shared = root.join("../shared/models");
        for m in [
            "tflm_person_detect_int8.tflite",
            "tflm_xtensa_mobilenet_v2_int8_224.tflite",
        ] {
            if shared.join(m).is_file() {
                models.push(shared.join(m));
            } else {
                eprintln!("notice: {m} skipped: ../shared/models is absent");
            }
        }
    }
    println!("| model | file bytes | expansion (median of 9) | generated source | token trees |");
    println!("|---|--:|--:|--:|--:|");
    for path in models {
        let (Some(dir), Some(file)) = (path.parent(), path.file_name()) else {
            continue;
        };
        let literal = file.to_string_lossy().into_owned();
        let mut times = Vec::new();
        let mut out = proc_macro2::TokenStream::new();
        for _ in 0..9 {
            let start = Instant::now();
            out = expand(quote::quote!(#literal), Some(dir));
            times.push(start.elapsed().as_secs_f64() * 1000.0);
        }
        times.sort_by(f64::total_cmp);
        let source = out.to_string();
        let tokens = out.into_iter().count();
        let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        println!(
            "| `{}` | {} | {:.1} ms | {} B | {tokens} |",
            literal,
            stowplan_planner::emit::thousands(bytes),
            times[times.len() / 2],
            stowplan_planner::emit::thousands(source.len() as u64)
        );
    }
}
