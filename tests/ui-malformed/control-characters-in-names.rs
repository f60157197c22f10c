stowplan::include_model!("models/malformed/control_characters_in_names.tflite");

fn main() {}
