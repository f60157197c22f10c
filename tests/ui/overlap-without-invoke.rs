stowplan::include_model!("models/synthetic/chain.tflite", overlap = true);

fn main() {}
