stowplan::include_model!("models/no_such_model.tflite");

fn main() {}
