stowplan::include_model!("models/malformed/buffer_index_out_of_range.tflite");

fn main() {}
