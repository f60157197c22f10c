stowplan::include_model!("models/synthetic/chain.tflite", invoke = "yes");

fn main() {}
