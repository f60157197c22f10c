stowplan::include_model!("models/malformed/offline_plan_negative_offset.tflite");

fn main() {}
