stowplan::include_models!(
    model("models/synthetic/chain.tflite"),
    model("models/synthetic/chain.tflite"),
);

fn main() {}
