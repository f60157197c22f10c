// chain's output is float32[64] (256 bytes); residual's input is float32[32] (128 bytes).
stowplan::include_models!(
    name = piped,
    pipe = "chain.output_0 -> residual.input_0",
    model("models/synthetic/chain.tflite"),
    model("models/synthetic/residual.tflite"),
);

fn main() {}
