stowplan::include_models!(
    name = pair,
    model("models/synthetic/chain.tflite", budget = 1024),
    model("models/synthetic/residual.tflite", crate = ::stowplan),
);

fn main() {}
