stowplan::include_model!("models/malformed/read_before_write.tflite");

fn main() {}
