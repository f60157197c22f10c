stowplan::include_model!("models/synthetic/dynamic_dim.tflite", dynamic = "heap");

fn main() {}
