stowplan::include_model!("models/malformed/offline_plan_misaligned.tflite");

fn main() {}
