stowplan::include_model!("models/malformed/size_overflows_32_bits.tflite");

fn main() {}
