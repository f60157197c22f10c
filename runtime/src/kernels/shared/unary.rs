//! The entries of the kernels that read one input slice and write one output slice (the
//! elementwise ops, the row ops such as SOFTMAX, the reductions): from one definition of each
//! kernel, its checked entry (`Result`, nothing written on error), its proven twin in the
//! module's `pub mod proven` (what generated code calls once it has asserted the check when the
//! crate compiled) and, for the elementwise kernels, its check (the two slices equally long).

use super::check::{KernelError, check, length};

/// The check of an elementwise kernel: the output as long as the input.
///
/// # Errors
///
/// [`KernelError::Length`] (the output's) otherwise.
pub(crate) const fn same_length(input: usize, output: usize) -> Result<(), KernelError> {
    length("output", Some(input), output)
}

/// The check of a kernel over `rows` rows of `depth` elements (SOFTMAX, LOG_SOFTMAX,
/// L2_NORMALIZATION): the input and the output `rows * depth` long.
///
/// # Errors
///
/// [`KernelError::Length`] of the first that is not (`expected` `None` when the product
/// overflows).
pub(crate) const fn rows(
    rows: usize,
    depth: usize,
    input: usize,
    output: usize,
) -> Result<(), KernelError> {
    let n = rows.checked_mul(depth);
    check!(length("input", n, input));
    length("output", n, output)
}

/// Each kernel `$name` of a module, given as its body on the slices (`$input`, `$output`, and
/// the parameters `$p` if it has any), and the name of its check (`$check`, a `const fn` taking
/// the parameters if any and the two slices' lengths, written beside it): the public entry
/// (its docs, then `# Errors`; it checks, then runs the proven entry) and, in the module's
/// `pub mod proven`, the proven entry (the check asserted in debug builds, then the body). The
/// proven entries are not inlined into generated code: an op stays one call of a kernel
/// function, as the instruction counter's per-op table takes it.
macro_rules! one_input_kernels {
    ($(
        $(#[$doc:meta])*
        pub fn $name:ident / $check:ident $args:tt $body:block
    )*) => {
        $(
            $crate::kernels::shared::unary::one_input_kernels!(
                @sig entry [$(#[$doc])*] $name $check $args {}
            );
        )*

        /// The entries generated code calls after asserting the kernel's check when the crate
        /// compiled: the public entries without their run-time check (in debug builds it is
        /// asserted).
        pub mod proven {
            #[allow(unused_imports)]
            use super::*;
            $(
                $crate::kernels::shared::unary::one_input_kernels!(
                    @sig proven [] $name $check $args $body
                );
            )*
        }
    };
    // The check of an elementwise kernel (`elementwise_kernels`).
    (@sig check $docs:tt $name:ident $check:ident (
        $p:ident: &$params:ty, $input:ident: &[$ti:ty], $output:ident: &mut [$to:ty] $(,)?
    ) $body:tt) => {
        $crate::kernels::shared::unary::one_input_kernels!(@check $name $check [_: &$params,]);
    };
    (@sig check $docs:tt $name:ident $check:ident (
        $input:ident: &[$ti:ty], $output:ident: &mut [$to:ty] $(,)?
    ) $body:tt) => {
        $crate::kernels::shared::unary::one_input_kernels!(@check $name $check []);
    };
    // The signature with parameters or without: `[declaration] [argument]` of the parameters.
    (@sig $what:ident $docs:tt $name:ident $check:ident (
        $p:ident: &$params:ty, $input:ident: &[$ti:ty], $output:ident: &mut [$to:ty] $(,)?
    ) $body:tt) => {
        $crate::kernels::shared::unary::one_input_kernels!(
            @$what $docs $name $check [$p: &$params,] [$p,] $input $ti, $output $to, $body
        );
    };
    (@sig $what:ident $docs:tt $name:ident $check:ident (
        $input:ident: &[$ti:ty], $output:ident: &mut [$to:ty] $(,)?
    ) $body:tt) => {
        $crate::kernels::shared::unary::one_input_kernels!(
            @$what $docs $name $check [] [] $input $ti, $output $to, $body
        );
    };
    (@entry [$(#[$doc:meta])*] $name:ident $check:ident [$($decl:tt)*] [$($arg:tt)*]
        $input:ident $ti:ty, $output:ident $to:ty, $body:tt) => {
        $(#[$doc])*
        ///
        /// # Errors
        ///
        #[doc = concat!(
            "[`KernelError`](crate::kernels::KernelError), with nothing written, unless [`",
            stringify!($check),
            "`] holds for the slices' lengths."
        )]
        #[must_use = "the kernel writes nothing when it returns an error"]
        pub fn $name(
            $($decl)* $input: &[$ti], $output: &mut [$to]
        ) -> ::core::result::Result<(), $crate::kernels::KernelError> {
            $check($($arg)* $input.len(), $output.len())?;
            proven::$name($($arg)* $input, $output);
            Ok(())
        }
    };
    (@proven [] $name:ident $check:ident [$($decl:tt)*] [$($arg:tt)*]
        $input:ident $ti:ty, $output:ident $to:ty, $body:block) => {
        #[doc = concat!(
            "[`", stringify!($name), "`](super::", stringify!($name),
            "), its [check](super::", stringify!($check), ") proven."
        )]
        pub fn $name($($decl)* $input: &[$ti], $output: &mut [$to]) {
            debug_assert!(super::$check($($arg)* $input.len(), $output.len()).is_ok());
            $body
        }
    };
    (@check $name:ident $check:ident [$($decl:tt)*]) => {
        #[doc = concat!(
            "[`", stringify!($name), "`]'s preconditions, on the lengths of its slices: the ",
            "output as long as the input (what the entry checks before it runs, and what ",
            "generated code asserts when the crate compiles)."
        )]
        ///
        /// # Errors
        ///
        /// [`KernelError::Length`](crate::kernels::KernelError::Length) of the output otherwise.
        pub const fn $check(
            $($decl)* input: usize, output: usize
        ) -> ::core::result::Result<(), $crate::kernels::KernelError> {
            $crate::kernels::shared::unary::same_length(input, output)
        }
    };
}
pub(crate) use one_input_kernels;

/// [`one_input_kernels`] for elementwise kernels (output element `k` from input element `k`),
/// with each one's check too: `$check(params if any, input, output)`, the two lengths equal.
macro_rules! elementwise_kernels {
    ($(
        $(#[$doc:meta])*
        pub fn $name:ident / $check:ident $args:tt $body:block
    )*) => {
        $(
            $crate::kernels::shared::unary::one_input_kernels!(
                @sig check [] $name $check $args {}
            );
        )*
        $crate::kernels::shared::unary::one_input_kernels! {$(
            $(#[$doc])*
            pub fn $name / $check $args $body
        )*}
    };
}
pub(crate) use elementwise_kernels;
