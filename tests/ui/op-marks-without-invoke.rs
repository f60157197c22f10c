stowplan::include_model!("models/synthetic/chain.tflite", op_marks = crate::marks);

fn main() {}
