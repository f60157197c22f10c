stowplan::include_model!("models/malformed/while_body_calls_itself.tflite");

fn main() {}
