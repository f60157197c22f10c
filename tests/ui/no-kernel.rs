stowplan::include_model!("models/cond_if/cond_if.tflite", invoke = true);

fn main() {}
