stowplan::include_model!("models/malformed/unknown_type.tflite");

fn main() {}
