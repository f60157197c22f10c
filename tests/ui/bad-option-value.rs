stowplan::include_model!("models/synthetic/chain.tflite", align = 12, planner = "magic");

fn main() {}
