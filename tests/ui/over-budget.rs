stowplan::include_model!("models/synthetic/residual.tflite", budget = 256);

fn main() {}
