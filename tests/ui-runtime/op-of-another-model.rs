// An op function of one model does not take another model's arena.
stowplan::include_model!("models/synthetic/chain.tflite", name = first);
stowplan::include_model!("models/synthetic/chain.tflite", name = second);

fn main() {
    let mut arena = second::Arena::new();
    let _ = first::ops::op_0(&mut arena);
}
