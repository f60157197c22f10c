stowplan::include_model!("models/malformed/weights_after_the_flatbuffer.tflite");

fn main() {}
