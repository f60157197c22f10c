stowplan::include_model!("models/malformed/calls_too_deep.tflite");

fn main() {}
