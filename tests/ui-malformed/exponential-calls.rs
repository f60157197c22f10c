stowplan::include_model!("models/malformed/exponential_calls.tflite");

fn main() {}
