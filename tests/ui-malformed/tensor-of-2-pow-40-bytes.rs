stowplan::include_model!("models/malformed/tensor_of_2_pow_40_bytes.tflite");

fn main() {}
