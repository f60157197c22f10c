stowplan::include_model!("models/malformed/zero_point_out_of_range.tflite");

fn main() {}
