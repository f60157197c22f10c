stowplan::include_model!("models/malformed/opcode_index_out_of_range.tflite");

fn main() {}
