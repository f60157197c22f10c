stowplan::include_model!("models/malformed/root_out_of_bounds.tflite");

fn main() {}
