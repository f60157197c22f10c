stowplan::include_model!("models/malformed/truncated.tflite");

fn main() {}
