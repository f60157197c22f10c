// A variable tensor's slot belongs to the persistent region, not to the arena.
stowplan::include_model!("models/synthetic/variables.tflite");

fn main() {
    let arena = variables::Arena::new();
    let _ = arena.view(variables::STATE1);
}
