// Two models with arenas of the same size and slots of the same type: still, a slot of one does
// not fit the other's arena, because each generated module has its own marker type.
stowplan::include_model!("models/synthetic/chain.tflite", name = first);
stowplan::include_model!("models/synthetic/chain.tflite", name = second);

fn main() {
    let arena = first::Arena::new();
    let _ = arena.view(second::T0);
}
