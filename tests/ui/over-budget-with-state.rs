// The budget covers the arena and the state: 48 + 32 bytes do not fit 64.
stowplan::include_model!("models/call_once/call_once.tflite", budget = 64);

fn main() {}
