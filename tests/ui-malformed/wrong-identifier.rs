stowplan::include_model!("models/malformed/wrong_identifier.tflite");

fn main() {}
