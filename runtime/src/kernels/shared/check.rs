//! A kernel's `# Preconditions` as a `const fn` (`check_<kernel>`): what its public entry checks
//! before it runs, and what generated code asserts when the crate compiles, with the lengths of
//! the views it hands the kernel, before it calls the kernel's proven entry
//! ([`crate::kernels::proven`]), which checks nothing at run time.

/// Why a kernel entry refused its arguments: it wrote nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum KernelError {
    /// A slice is not as long as the parameters say (`expected` is `None` when the parameters'
    /// sizes overflow `usize`).
    Length {
        /// The argument: `"input"`, `"filter"`, `"bias"`, `"output"`, `"requant"`, ...
        operand: &'static str,
        /// Its length the parameters give, in elements.
        expected: Option<usize>,
        /// Its length.
        found: usize,
    },
    /// The parameters contradict themselves or TFLM's `Prepare` (the reason).
    Parameters(&'static str),
    /// A one-buffer entry: the input and the output do not lie in the buffer as the kernel
    /// needs (a tensor past the buffer's end, or the input too close above the output).
    Placement,
}

impl KernelError {
    /// What went wrong, in words (without the numbers).
    #[must_use]
    pub const fn message(&self) -> &'static str {
        match self {
            Self::Length { .. } => "a slice is not as long as the parameters say",
            Self::Parameters(why) => why,
            Self::Placement => {
                "the input and the output do not lie in the buffer as the one-buffer kernel needs"
            }
        }
    }
}

impl core::fmt::Display for KernelError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Length {
                operand,
                expected: Some(e),
                found,
            } => write!(
                f,
                "`{operand}` has {found} elements; the parameters say {e}"
            ),
            Self::Length {
                operand,
                expected: None,
                found,
            } => write!(
                f,
                "`{operand}` has {found} elements; the parameters' size overflows"
            ),
            Self::Parameters(why) => write!(f, "inconsistent parameters: {why}"),
            Self::Placement => f.write_str(self.message()),
        }
    }
}

impl core::error::Error for KernelError {}

/// `Ok` when `found == expected`.
///
/// # Errors
///
/// [`KernelError::Length`] otherwise (and for `expected` `None`: an overflowing size).
pub(crate) const fn length(
    operand: &'static str,
    expected: Option<usize>,
    found: usize,
) -> Result<(), KernelError> {
    match expected {
        Some(e) if e == found => Ok(()),
        _ => Err(KernelError::Length {
            operand,
            expected,
            found,
        }),
    }
}

/// `Ok` when an optional slice is absent or `expected` long.
///
/// # Errors
///
/// As [`length`].
pub(crate) const fn optional_length(
    operand: &'static str,
    expected: Option<usize>,
    found: Option<usize>,
) -> Result<(), KernelError> {
    match found {
        None => Ok(()),
        Some(found) => length(operand, expected, found),
    }
}

/// `Ok` when `holds`.
///
/// # Errors
///
/// [`KernelError::Parameters`] with `why` otherwise.
pub(crate) const fn require(holds: bool, why: &'static str) -> Result<(), KernelError> {
    if holds {
        Ok(())
    } else {
        Err(KernelError::Parameters(why))
    }
}

/// The product of `dims`, `None` on overflow (a `const fn` twin of `slices::product`).
pub(crate) const fn elements(dims: &[usize]) -> Option<usize> {
    let mut n: usize = 1;
    let mut i = 0;
    while i < dims.len() {
        n = match n.checked_mul(dims[i]) {
            Some(n) => n,
            None => return None,
        };
        i += 1;
    }
    Some(n)
}

/// `?` for `const fn`s returning `Result<(), KernelError>`.
macro_rules! check {
    ($e:expr) => {
        if let Err(e) = $e {
            return Err(e);
        }
    };
}
pub(crate) use check;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_and_products() {
        assert_eq!(length("input", Some(3), 3), Ok(()));
        assert_eq!(
            length("input", Some(3), 4),
            Err(KernelError::Length {
                operand: "input",
                expected: Some(3),
                found: 4
            })
        );
        assert!(length("input", None, 0).is_err());
        assert_eq!(optional_length("bias", Some(2), None), Ok(()));
        assert!(optional_length("bias", Some(2), Some(3)).is_err());
        assert_eq!(elements(&[2, 3, 4]), Some(24));
        assert_eq!(elements(&[]), Some(1));
        assert_eq!(elements(&[usize::MAX, 2]), None);
        assert_eq!(require(false, "why"), Err(KernelError::Parameters("why")));
        extern crate std;
        use std::string::ToString;
        assert_eq!(
            length("filter", Some(8), 7).unwrap_err().to_string(),
            "`filter` has 7 elements; the parameters say 8"
        );
    }
}
