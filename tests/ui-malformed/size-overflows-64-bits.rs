stowplan::include_model!("models/malformed/size_overflows_64_bits.tflite");

fn main() {}
