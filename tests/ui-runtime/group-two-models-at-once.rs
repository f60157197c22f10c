// Two models of a group share the arena's bytes: their arenas are borrowed from the shared one,
// so the first must be done before the second is taken.
stowplan::include_models!(
    name = pair,
    model("models/synthetic/chain.tflite", name = first),
    model("models/synthetic/residual.tflite", name = second),
);

fn main() {
    let mut arena = pair::Arena::new();
    let first = pair::first(&mut arena);
    let second = pair::second(&mut arena);
    first.view_mut(pair::first::T0).fill(1.0);
    second.view_mut(pair::second::X).fill(2.0);
}
