stowplan::include_model!("models/synthetic/all_types.tflite", invoke = true);

fn main() {}
