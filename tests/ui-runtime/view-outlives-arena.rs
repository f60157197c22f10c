// A view cannot outlive its arena.
stowplan::include_model!("models/synthetic/residual.tflite");

fn input() -> &'static [f32] {
    let arena = residual::Arena::new();
    arena.view(residual::X)
}

fn main() {
    let _ = input();
}
