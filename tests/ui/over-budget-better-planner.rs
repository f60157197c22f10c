stowplan::include_model!("models/synthetic/chain.tflite", budget = "0.5 KiB", planner = "linear");

fn main() {}
