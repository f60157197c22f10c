//! CONV_2D blocked for the Cortex-M DSP extension (cfg `stowplan_dsp`; compiled on the host for
//! the tests, with the instructions' portable twins): the pointwise matrix product, every
//! other int8 shape with one group, and the int16 kernels.

pub(crate) mod pointwise;
pub(crate) mod s16;
pub(crate) mod window;
