// A model with a CIRCULAR_BUFFER: `invoke` returns `stowplan::Invoked`, which says whether the
// outputs were written this time; ignoring it is a warning (here denied).
#![deny(unused_must_use)]

stowplan::include_model!("models/synthetic/circular_buffer.tflite", invoke = true);

fn main() {
    let mut arena = circular_buffer::Arena::new();
    let mut state = circular_buffer::PersistentArena::new();
    circular_buffer::invoke(&mut arena, &mut state);
}
