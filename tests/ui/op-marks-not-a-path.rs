stowplan::include_model!("models/cnn_int8/cnn_int8.tflite", invoke = true, op_marks = "crate::marks");

fn main() {}
