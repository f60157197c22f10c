stowplan::include_model!("models/malformed/weights_beyond_the_file.tflite");

fn main() {}
