stowplan::include_model!("models/malformed/invalid_utf8_name.tflite");

fn main() {}
