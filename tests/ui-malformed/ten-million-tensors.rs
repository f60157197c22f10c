stowplan::include_model!("models/malformed/ten_million_tensors.tflite");

fn main() {}
