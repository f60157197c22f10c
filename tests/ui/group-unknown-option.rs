stowplan::include_models!(
    name = pair,
    invoke = true,
    model("models/synthetic/chain.tflite"),
);

fn main() {}
