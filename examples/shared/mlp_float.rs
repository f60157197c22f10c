//! Inference of `tests/models/mlp_float` (float32 MLP 1→16→16→1, three FULLY_CONNECTED ops) in
//! its planned arena, through the generated per-op views. The including crate has the generated
//! module `mlp_float` and the kernels module `kernels` at its root.
//!
//! Each op's fused activation is in the model's `FullyConnectedOptions`, which the generator
//! does not read yet, so it is written here: RELU for the two hidden layers (the tensor names say
//! `MatMul;Relu;add`), none for the output layer.

use crate::kernels::{Activation, fully_connected};
use crate::mlp_float as model;

/// The fused activation of ops 0, 1 and 2.
pub const ACTIVATIONS: [Activation; 3] = [Activation::Relu, Activation::Relu, Activation::None];

/// Runs the model on `input` in `arena` and returns the output's view. Nothing is planned or
/// allocated: each op's views are slices of the arena at the offsets fixed at build time.
///
/// # Panics
///
/// If `input` is not one element.
pub fn infer<'a>(arena: &'a mut model::Arena, input: &[f32]) -> &'a [f32] {
    arena
        .view_mut(model::SERVING_DEFAULT_X_0)
        .copy_from_slice(input);
    let ((x, w, b), (y,)) = model::ops::op_0(arena);
    fully_connected(x, w, b, y, ACTIVATIONS[0]);
    let ((x, w, b), (y,)) = model::ops::op_1(arena);
    fully_connected(x, w, b, y, ACTIVATIONS[1]);
    let ((x, w, b), (y,)) = model::ops::op_2(arena);
    fully_connected(x, w, b, y, ACTIVATIONS[2]);
    arena.view(model::PARTITIONEDCALL_0)
}

/// The largest difference allowed between our output and TFLite's: the kernels repeat TFLite's
/// reference arithmetic operation for operation, so the results agree to the bit on an IEEE-754
/// float unit; the tolerance only leaves room for a platform whose float unit rounds differently.
pub const TOLERANCE: f32 = 1e-5;

/// Whether every element of `got` is within [`TOLERANCE`] of `want`.
#[must_use]
pub fn matches(got: &[f32], want: &[f32]) -> bool {
    got.len() == want.len()
        && got
            .iter()
            .zip(want)
            .all(|(g, w)| (g - w).abs() <= TOLERANCE)
}
