stowplan::include_model!("models/malformed/empty.tflite");

fn main() {}
