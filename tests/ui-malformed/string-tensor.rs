stowplan::include_model!("models/malformed/string_tensor.tflite");

fn main() {}
