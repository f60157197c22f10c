// The shared arena is lent to the group's own models only.
stowplan::include_models!(
    name = pair,
    model("models/synthetic/chain.tflite", name = first),
);
stowplan::include_model!("models/synthetic/chain.tflite", name = stranger);

fn main() {
    let mut arena = pair::Arena::new();
    let _: &mut stranger::Arena = arena.lend();
}
