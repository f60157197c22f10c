stowplan::include_model!("models/malformed/zero_point_i32_min.tflite");

fn main() {}
