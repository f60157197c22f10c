//! DENSIFY: TensorFlow Lite's `densify.cc` (`internal::sparsity::FormatConverter::SparseToDense`;
//! TFLM has no such kernel): a sparse tensor (TACO-style `SparsityParameters`: per traversed
//! dimension dense, or compressed with segments and indices, optionally blocked) written out as
//! the dense tensor, zeros where the encoding holds no value. stowplan runs it when the crate
//! compiles (folding), where its input is a constant.

use super::shared::at;
use super::shared::check::{KernelError, check, elements, length, require};

/// The most traversed dimensions (a rank-6 tensor with a block for each of its dimensions).
pub const MAX_LEVELS: usize = 12;

/// One traversed dimension of a sparse tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DensifyLevel<'a> {
    /// Dense (every index present, `size` of them) or compressed (`segments`, `indices`).
    pub dense: bool,
    /// The number of indices of a dense dimension.
    pub size: usize,
    /// A compressed dimension's segments: the children of parent `p` are positions
    /// `segments[p]..segments[p + 1]`.
    pub segments: &'a [u32],
    /// A compressed dimension's index of each position.
    pub indices: &'a [u32],
}

/// Parameters of DENSIFY.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Densify<'a> {
    /// The dense tensor's shape.
    pub shape: &'a [usize],
    /// The traversal order: the dense dimensions `0..rank`, then the block dimensions
    /// `rank..rank + blocks`, in storage order.
    pub traversal_order: &'a [usize],
    /// The dense dimension each block dimension splits.
    pub block_map: &'a [usize],
    /// One level per entry of `traversal_order`.
    pub levels: &'a [DensifyLevel<'a>],
}

/// The child range of `parent` at `level`.
fn range(level: &DensifyLevel<'_>, parent: usize) -> Option<(usize, usize)> {
    if level.dense {
        Some((0, level.size))
    } else {
        let start = *level.segments.get(parent)? as usize;
        let end = *level.segments.get(parent.checked_add(1)?)? as usize;
        (start <= end && end <= level.indices.len()).then_some((start, end))
    }
}

/// The dense offset of the traversed coordinates `coord` (by expanded dimension), if inside
/// the shape.
fn offset(p: &Densify<'_>, coord: &[usize; MAX_LEVELS]) -> Option<usize> {
    let rank = p.shape.len();
    let mut off = 0_usize;
    for (d, &extent) in p.shape.iter().enumerate() {
        let mut c = *coord.get(d)?;
        for (j, &bd) in p.block_map.iter().enumerate() {
            if bd == d {
                let e = rank.checked_add(j)?;
                // The block's size: its level's dense size.
                let l = p.traversal_order.iter().position(|&t| t == e)?;
                let size = p.levels.get(l)?.size;
                c = c.checked_mul(size)?.checked_add(*coord.get(e)?)?;
            }
        }
        if c >= extent {
            return None;
        }
        off = off.checked_mul(extent)?.checked_add(c)?;
    }
    Some(off)
}

/// [`densify`]'s preconditions on the encoding's structure and the output's length (the
/// encoding's values are checked by the entry's first traversal).
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_densify(
    p: &Densify<'_>,
    _values: usize,
    output: usize,
) -> Result<(), KernelError> {
    let n = p.levels.len();
    check!(require(
        n >= 1 && n <= MAX_LEVELS,
        "the levels are not 1 to MAX_LEVELS"
    ));
    check!(require(
        p.traversal_order.len() == n,
        "the traversal order does not list every level"
    ));
    check!(require(
        p.shape.len() + p.block_map.len() == n,
        "the shape's and the block map's dimensions are not the levels"
    ));
    let mut l = 0;
    while l < n {
        check!(require(
            p.traversal_order[l] < n,
            "a traversal order entry is past the levels"
        ));
        l += 1;
    }
    length("output", elements(p.shape), output)
}

/// DENSIFY: TensorFlow Lite's `FormatConverter::SparseToDense`: `output` is zeroed
/// (`T::default()`), then the encoding is traversed depth first in `traversal_order`, a dense
/// level's child `k` of parent `p` at linear position `p * size + k` with index `k`, a
/// compressed level's children at positions `segments[p]..segments[p + 1]` with index
/// `indices[position]`; at the last level, value `values[position]` goes to the dense element
/// of the traversed indices (a blocked dimension's index is `outer * block_size + inner`).
///
/// For the time to be linear in the encoding, each compressed level's segments do not
/// decrease (the planner checks).
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_densify`]) hold:
/// 1 to `MAX_LEVELS` levels, as many as the traversal order's entries (each below their
/// count) and as the shape's and the block map's dimensions together, `output.len()` the
/// shape's size; and unless the encoding fits (checked by a first traversal that writes
/// nothing): every segment and index in range, every value position inside `values`, every
/// traversed index inside `shape`.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn densify<T: Copy + Default>(
    p: &Densify<'_>,
    values: &[T],
    output: &mut [T],
) -> Result<(), KernelError> {
    check_densify(p, values.len(), output.len())?;
    require(
        traverse(p, values, output.len(), |_, _| {}),
        "the encoding does not fit the shape or the values",
    )?;
    proven::densify(p, values, output);
    Ok(())
}

/// The entries generated code (here: folding) calls once the checks hold.
pub mod proven {
    use super::Densify;

    /// [`densify`](super::densify), its [`check`](super::check_densify) and its encoding proven.
    #[inline]
    pub fn densify<T: Copy + Default>(p: &Densify<'_>, values: &[T], output: &mut [T]) {
        debug_assert!(super::check_densify(p, values.len(), output.len()).is_ok());
        output.fill(T::default());
        let fits = super::traverse(p, values, output.len(), |off, v| {
            if let Some(o) = output.get_mut(off) {
                *o = v;
            }
        });
        debug_assert!(fits);
    }
}

/// The traversal of [`densify`]: `put(offset, value)` for each value in the encoding's order;
/// `false` (stopping there) where the encoding does not fit a dense tensor of `len` elements.
fn traverse<T: Copy>(
    p: &Densify<'_>,
    values: &[T],
    len: usize,
    mut put: impl FnMut(usize, T),
) -> bool {
    let n = p.levels.len();
    let mut pos = [0_usize; MAX_LEVELS];
    let mut end = [0_usize; MAX_LEVELS];
    let mut chosen = [0_usize; MAX_LEVELS];
    let mut coord = [0_usize; MAX_LEVELS];
    let Some(first) = p.levels.first().and_then(|l| range(l, 0)) else {
        return false;
    };
    (pos[0], end[0]) = first;
    let mut l = 0_usize;
    loop {
        if at(&pos, l) >= at(&end, l) {
            if l == 0 {
                return true;
            }
            l -= 1;
            if let Some(x) = pos.get_mut(l) {
                *x = x.wrapping_add(1);
            }
            continue;
        }
        let (Some(level), Some(&t)) = (p.levels.get(l), p.traversal_order.get(l)) else {
            return false;
        };
        let k = at(&pos, l);
        let parent = if l == 0 { 0 } else { at(&chosen, l - 1) };
        let (child, index) = if level.dense {
            match parent
                .checked_mul(level.size)
                .and_then(|x| x.checked_add(k))
            {
                Some(c) => (c, k),
                None => return false,
            }
        } else {
            match level.indices.get(k) {
                Some(&i) => (k, i as usize),
                None => return false,
            }
        };
        if let (Some(c), Some(x)) = (coord.get_mut(t), chosen.get_mut(l)) {
            *c = index;
            *x = child;
        }
        if l + 1 == n {
            let (Some(&v), Some(off)) = (values.get(child), offset(p, &coord)) else {
                return false;
            };
            if off >= len {
                return false;
            }
            put(off, v);
            if let Some(x) = pos.get_mut(l) {
                *x = x.wrapping_add(1);
            }
        } else {
            let Some((s, e)) = p.levels.get(l + 1).and_then(|next| range(next, child)) else {
                return false;
            };
            l += 1;
            if let (Some(a), Some(b)) = (pos.get_mut(l), end.get_mut(l)) {
                (*a, *b) = (s, e);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dense(size: usize) -> DensifyLevel<'static> {
        DensifyLevel {
            dense: true,
            size,
            segments: &[],
            indices: &[],
        }
    }

    #[test]
    fn csr_matrix() {
        // [[0, 1, 0], [2, 0, 3]]: row 0 has column 1, row 1 columns 0 and 2.
        let levels = [
            dense(2),
            DensifyLevel {
                dense: false,
                size: 0,
                segments: &[0, 1, 3],
                indices: &[1, 0, 2],
            },
        ];
        let p = Densify {
            shape: &[2, 3],
            traversal_order: &[0, 1],
            block_map: &[],
            levels: &levels,
        };
        let mut out = [9_i8; 6];
        densify(&p, &[1, 2, 3], &mut out).unwrap();
        assert_eq!(out, [0, 1, 0, 2, 0, 3]);
        // A value position past the data, an index past the shape: refused, nothing written.
        let mut out = [9_i8; 6];
        assert!(densify(&p, &[1, 2], &mut out).is_err());
        let bad = [
            dense(2),
            DensifyLevel {
                indices: &[1, 0, 3],
                ..levels[1]
            },
        ];
        assert!(densify(&Densify { levels: &bad, ..p }, &[1, 2, 3], &mut out).is_err());
        assert_eq!(out, [9; 6]);
        // An output of another size than the shape's.
        assert!(densify(&p, &[1, 2, 3], &mut out[..5]).is_err());
        assert_eq!(out, [9; 6]);
    }

    #[test]
    fn blocked_columns() {
        // 2x4 in 1x2 blocks: block column 0 of row 0 and block column 1 of row 1.
        let levels = [
            dense(2),
            DensifyLevel {
                dense: false,
                size: 0,
                segments: &[0, 1, 2],
                indices: &[0, 1],
            },
            dense(2),
        ];
        let p = Densify {
            shape: &[2, 4],
            traversal_order: &[0, 1, 2],
            block_map: &[1],
            levels: &levels,
        };
        let mut out = [0.0_f32; 8];
        densify(&p, &[1.0, 2.0, 3.0, 4.0], &mut out).unwrap();
        assert_eq!(out, [1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 3.0, 4.0]);
    }

    #[test]
    fn all_dense_is_a_copy_in_traversal_order() {
        let levels = [dense(2), dense(3)];
        let p = Densify {
            shape: &[3, 2],
            traversal_order: &[1, 0],
            block_map: &[],
            levels: &levels,
        };
        let mut out = [0_i32; 6];
        // Traversed column by column of the dense [3, 2]: dim 1 outer.
        densify(&p, &[1, 2, 3, 4, 5, 6], &mut out).unwrap();
        assert_eq!(out, [1, 4, 2, 5, 3, 6]);
    }
}
