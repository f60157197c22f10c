stowplan::include_model!("models/malformed/no_subgraphs.tflite");

fn main() {}
