// The caret covers the whole budget expression, not its first token.
stowplan::include_model!("models/synthetic/residual.tflite", budget = 2 * 128);

fn main() {}
