// A shared view cannot be kept while the arena is written.
stowplan::include_model!("models/synthetic/residual.tflite");

fn main() {
    let mut arena = residual::Arena::new();
    let x = arena.view(residual::X);
    arena.view_mut(residual::A).fill(1.0);
    let _ = x[0];
}
