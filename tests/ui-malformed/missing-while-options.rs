stowplan::include_model!("models/malformed/missing_while_options.tflite");

fn main() {}
