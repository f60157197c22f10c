stowplan::include_model!("/models/net.tflite");

fn main() {}
