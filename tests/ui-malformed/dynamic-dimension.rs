stowplan::include_model!("models/malformed/dynamic_dimension.tflite");

fn main() {}
