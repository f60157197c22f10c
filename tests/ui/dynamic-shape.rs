stowplan::include_model!("models/synthetic/dynamic_dim.tflite");

fn main() {}
