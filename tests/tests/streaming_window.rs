//! The streaming windows of `stowplan_tests::streaming_window` (frames kept in a resource
//! variable, flattened by a RESHAPE that aliases the window, concatenated with a second
//! variable), float32 and int8: their generated `invoke` run over many invocations in a row,
//! every output against the window computed here, and the plan with `invoke` holding no pair
//! over the aliased window (it was refused: "`concat_1` shares bytes with `concat`").

include!("../expected/streaming_window_f32.rs");
include!("../expected/streaming_window_s8.rs");

use stowplan_planner::{Options, plan_model};
use stowplan_tests::{HISTORY, WINDOW_F, WINDOW_T, streaming_window_f32, streaming_window_s8};

/// The model's state and output after each frame: the window keeps the last `WINDOW_T`
/// frames (starting filled with `reset`), the output is the window then the history, and
/// the history becomes the output's first `HISTORY` values.
struct Reference<T> {
    window: Vec<T>,
    history: Vec<T>,
}

impl<T: Copy> Reference<T> {
    fn new(reset: T) -> Self {
        Self {
            window: vec![reset; WINDOW_T * WINDOW_F],
            history: vec![reset; HISTORY],
        }
    }

    fn step(&mut self, frame: &[T]) -> Vec<T> {
        self.window.drain(..WINDOW_F);
        self.window.extend_from_slice(frame);
        let out: Vec<T> = self.window.iter().chain(&self.history).copied().collect();
        self.history = out[..HISTORY].to_vec();
        out
    }
}

#[test]
fn the_float_window_runs_bit_exact_over_many_invocations() {
    let mut arena = streaming_window_f32::Arena::new();
    let mut state = Box::new(streaming_window_f32::PersistentArena::new());
    let mut want = Reference::new(0.0_f32);
    for k in 0..64_u16 {
        let frame: Vec<f32> = (0..WINDOW_F as u16)
            .map(|i| f32::from(k * 7 + i) * 0.25 - 3.5)
            .collect();
        arena
            .view_mut(streaming_window_f32::FRAME)
            .copy_from_slice(&frame);
        streaming_window_f32::invoke(&mut arena, &mut state);
        let got = arena.view(streaming_window_f32::CONCAT_1);
        let want = want.step(&frame);
        assert!(
            got.iter()
                .zip(&want)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "invocation {k}: {got:?} != {want:?}"
        );
    }
}

#[test]
fn the_int8_window_runs_bit_exact_over_many_invocations() {
    let mut arena = streaming_window_s8::Arena::new();
    let mut state = Box::new(streaming_window_s8::PersistentArena::new());
    // The variables' reset value is their zero point, -5.
    let mut want = Reference::new(-5_i8);
    for k in 0..64_i16 {
        let frame: Vec<i8> = (0..WINDOW_F as i16)
            .map(|i| i8::try_from((k * 37 + i * 11) % 256 - 128).unwrap())
            .collect();
        arena
            .view_mut(streaming_window_s8::FRAME)
            .copy_from_slice(&frame);
        streaming_window_s8::invoke(&mut arena, &mut state);
        assert_eq!(
            arena.view(streaming_window_s8::CONCAT_1),
            want.step(&frame).as_slice(),
            "invocation {k}"
        );
    }
}

#[test]
fn no_output_is_planned_over_the_aliased_window() {
    for (name, bytes) in [
        ("f32", streaming_window_f32()),
        ("s8", streaming_window_s8()),
    ] {
        let plan = plan_model(&bytes, &Options::default().with_invoke(true))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let tensor =
            |t: stowplan_planner::tflite::TensorId| plan.model.tensors[t.get()].name.as_str();
        let aliases: Vec<(&str, &str)> = plan
            .aliases
            .iter()
            .map(|&(i, o)| (tensor(i), tensor(o)))
            .collect();
        assert_eq!(aliases, [("concat", "flat")], "{name}");
        // The first CONCATENATION may write the window over the frames it keeps; the second
        // reads `flat`, which is `concat`'s buffer, and is not paired with it.
        let pairs: Vec<(&str, &str)> = plan
            .problem
            .overlaps()
            .iter()
            .map(|o| {
                (
                    tensor(plan.buffer_tensors[o.input]),
                    tensor(plan.buffer_tensors[o.output]),
                )
            })
            .collect();
        assert_eq!(pairs, [("kept", "concat")], "{name}");
    }
}
