// In a group each model's arena keeps its own type: a slot of one model does not fit the arena
// another model is lent.
stowplan::include_models!(
    name = pair,
    model("models/synthetic/chain.tflite", name = first),
    model("models/synthetic/chain.tflite", name = second),
);

fn main() {
    let mut arena = pair::Arena::new();
    let second = pair::second(&mut arena);
    let _ = second.view(pair::first::T0);
}
