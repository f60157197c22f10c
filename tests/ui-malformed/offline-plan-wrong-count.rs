stowplan::include_model!("models/malformed/offline_plan_wrong_count.tflite");

fn main() {}
