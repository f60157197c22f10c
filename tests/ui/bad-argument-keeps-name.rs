// After a bad argument the placeholder module keeps the `name` asked for: the argument's error
// is the only one (no E0428 for two placeholders of the same file, no unresolved `first::`).
stowplan::include_model!("models/synthetic/chain.tflite", name = first, budget = "4MB");
stowplan::include_model!("models/synthetic/chain.tflite", name = second, align = 3);

fn main() {
    let _ = first::ARENA_BYTES + second::ARENA_BYTES;
}
