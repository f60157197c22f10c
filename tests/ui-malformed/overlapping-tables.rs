stowplan::include_model!("models/malformed/overlapping_tables.tflite");

fn main() {}
