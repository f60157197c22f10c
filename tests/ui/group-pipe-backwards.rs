// A model reads only the outputs of models that run before it.
stowplan::include_models!(
    name = piped,
    pipe = "second.output_0 -> first.input_0",
    model("models/synthetic/chain.tflite", name = first),
    model("models/synthetic/chain.tflite", name = second),
);

fn main() {}
