stowplan::include_model!("models/malformed/negative_dimension.tflite");

fn main() {}
