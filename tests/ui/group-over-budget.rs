stowplan::include_models!(
    name = pair,
    budget = 256,
    model("models/synthetic/chain.tflite"),
    model("models/synthetic/residual.tflite"),
);

fn main() {}
