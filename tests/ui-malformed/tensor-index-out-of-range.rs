stowplan::include_model!("models/malformed/tensor_index_out_of_range.tflite");

fn main() {}
