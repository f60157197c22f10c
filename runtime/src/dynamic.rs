//! Tensors sized at run time: described by the generated code, their buffers taken from a
//! [`BufferCache`] once the dimensions are known.

use core::fmt;

use crate::cache::{Backing, Buffer, BufferCache, CacheError};

/// A tensor whose size is known only at run time: a `-1` in its `shape` or `shape_signature`,
/// left out of the static plan by `include_model!(..., dynamic = "cache")` (or
/// `stowplan_build::Config::dynamic_cache`). The generated module lists them in `dynamic`.
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DynamicTensor {
    /// The tensor's name in the model.
    pub name: &'static str,
    /// Its TFLite type name (`float32`, `int8`, ...).
    pub dtype: &'static str,
    /// Bytes per element.
    pub element_bytes: usize,
    /// Its shape: `None` for each dimension known only at run time.
    pub shape: &'static [Option<usize>],
}

/// Why a dynamic tensor's buffer could not be had.
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DynamicError {
    /// As many run-time dimensions must be given as the shape has `None`s.
    Dimensions {
        /// The tensor.
        tensor: &'static str,
        /// Run-time dimensions in its shape.
        expected: usize,
        /// Dimensions given.
        given: usize,
    },
    /// The size does not fit in `usize`.
    Overflow {
        /// The tensor.
        tensor: &'static str,
    },
    /// The cache refused the request.
    Cache(CacheError),
}

impl fmt::Display for DynamicError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Dimensions {
                tensor,
                expected,
                given,
            } => write!(
                f,
                "tensor `{tensor}` has {expected} run-time dimensions, {given} were given"
            ),
            Self::Overflow { tensor } => write!(f, "tensor `{tensor}`: its size overflows usize"),
            Self::Cache(e) => e.fmt(f),
        }
    }
}

impl core::error::Error for DynamicError {}

impl From<CacheError> for DynamicError {
    fn from(e: CacheError) -> Self {
        Self::Cache(e)
    }
}

impl DynamicTensor {
    /// The number of run-time dimensions.
    #[must_use]
    pub fn dynamic_dims(&self) -> usize {
        self.shape.iter().filter(|d| d.is_none()).count()
    }

    /// The bytes the tensor needs with its run-time dimensions `dims` (in order).
    ///
    /// # Errors
    ///
    /// [`DynamicError::Dimensions`] for the wrong number of dimensions,
    /// [`DynamicError::Overflow`] if the size does not fit in `usize`.
    pub fn bytes(&self, dims: &[usize]) -> Result<usize, DynamicError> {
        let expected = self.dynamic_dims();
        if dims.len() != expected {
            return Err(DynamicError::Dimensions {
                tensor: self.name,
                expected,
                given: dims.len(),
            });
        }
        let mut given = dims.iter();
        let mut bytes = Some(self.element_bytes);
        for d in self.shape {
            let d = match d {
                Some(d) => Some(*d),
                None => given.next().copied(),
            };
            bytes = bytes.zip(d).and_then(|(b, d)| b.checked_mul(d));
        }
        bytes.ok_or(DynamicError::Overflow { tensor: self.name })
    }

    /// A buffer for the tensor with run-time dimensions `dims`, from `cache`.
    ///
    /// # Errors
    ///
    /// As [`Self::bytes`], or [`DynamicError::Cache`] when the cache cannot serve it.
    pub fn alloc<'c, B: Backing, const N: usize>(
        &self,
        cache: &'c BufferCache<B, N>,
        dims: &[usize],
    ) -> Result<Buffer<'c>, DynamicError> {
        Ok(cache.alloc(self.bytes(dims)?)?)
    }
}
