stowplan::include_model!("models/synthetic/chain.tflite", bugdet = 4096);

fn main() {}
