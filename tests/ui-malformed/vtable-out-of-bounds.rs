stowplan::include_model!("models/malformed/vtable_out_of_bounds.tflite");

fn main() {}
