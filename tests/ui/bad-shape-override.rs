stowplan::include_model!("models/synthetic/dynamic_dim.tflite", shape = "x=2x11");

fn main() {}
