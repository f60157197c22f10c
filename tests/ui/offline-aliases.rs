stowplan::include_model!("models/malformed/aliasing_offline.tflite");

fn main() {}
