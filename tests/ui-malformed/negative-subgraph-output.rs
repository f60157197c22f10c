stowplan::include_model!("models/malformed/negative_subgraph_output.tflite");

fn main() {}
