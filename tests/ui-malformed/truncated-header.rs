stowplan::include_model!("models/malformed/truncated_header.tflite");

fn main() {}
