// Two mutable views of one slot would alias: the second borrow is refused.
stowplan::include_model!("models/synthetic/residual.tflite");

fn main() {
    let mut arena = residual::Arena::new();
    let a = arena.view_mut(residual::X);
    let b = arena.view_mut(residual::X);
    a[0] = b[0];
}
