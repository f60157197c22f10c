stowplan::include_model!("models/malformed/subgraph_index_out_of_range.tflite");

fn main() {}
