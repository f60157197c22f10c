const BUDGET: u64 = 4096;
stowplan::include_model!("models/synthetic/chain.tflite", budget = BUDGET);

fn main() {}
