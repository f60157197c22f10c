// The views of op 0 borrow the arena: they cannot be kept while op 1's views are taken (op 1
// writes bytes that op 0's output view still points to).
stowplan::include_model!("models/mlp_float/mlp_float.tflite");

fn main() {
    let mut arena = mlp_float::Arena::new();
    let ((_, _, _), (hidden,)) = mlp_float::ops::op_0(&mut arena);
    let ((_, _, _), (_next,)) = mlp_float::ops::op_1(&mut arena);
    hidden[0] = 1.0;
}
