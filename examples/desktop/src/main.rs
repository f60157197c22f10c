//! The desktop example: plans a model bundled with the repository and prints the plan.
//!
//! ```text
//! cargo run -p stowplan-example-desktop            # the bundled model
//! cargo run -p stowplan-example-desktop -- M.tflite # any model
//! ```
//!
//! It compares the planners on the model (arena against the lower bound and the naive sum),
//! then prints stowplan's table for the greedy plan, which is the plan TensorFlow Lite Micro makes.
#![forbid(unsafe_code)]

use std::process::ExitCode;

use stowplan_planner::emit::{model_text, thousands};
use stowplan_planner::plan::Planner;
use stowplan_planner::{Options, plan_model};

/// A small branchy model with an IF: made by the project's Rust model builder.
const BUNDLED: &[u8] = include_bytes!("../../../tests/models/synthetic/if_else.tflite");
const BUNDLED_NAME: &str = "tests/models/synthetic/if_else.tflite";

fn main() -> ExitCode {
    let arg = std::env::args().nth(1);
    let (name, bytes) = match &arg {
        Some(path) => match std::fs::read(path) {
            Ok(bytes) => (path.as_str(), bytes),
            Err(e) => {
                eprintln!("error: cannot read {path}: {e}");
                return ExitCode::FAILURE;
            }
        },
        None => (BUNDLED_NAME, BUNDLED.to_vec()),
    };
    println!(
        "{:<8} {:>12} {:>12} {:>12} {:>8}",
        "planner", "arena B", "lower bound", "naive B", "gap %"
    );
    for planner in Planner::ALL {
        match plan_model(
            &bytes,
            &Options {
                planner,
                ..Options::default()
            },
        ) {
            Ok(p) => println!(
                "{:<8} {:>12} {:>12} {:>12} {:>8.2}",
                planner.name(),
                thousands(p.arena_bytes()),
                thousands(p.lower_bound_bytes()),
                thousands(p.naive_bytes()),
                p.gap_percent()
            ),
            Err(e) => {
                eprintln!("error: {name}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    println!();
    match plan_model(&bytes, &Options::default()) {
        Ok(p) => {
            print!("{}", model_text(&p, name));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {name}: {e}");
            ExitCode::FAILURE
        }
    }
}
