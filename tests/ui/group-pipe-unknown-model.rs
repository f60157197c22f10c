stowplan::include_models!(
    name = piped,
    pipe = "vad.output_0 -> chain.input_0",
    model("models/synthetic/chain.tflite"),
);

fn main() {}
