//! The pool of cached blocks: at most `N`, ordered by size for the reuse lookup and by age for
//! eviction, in two fixed arrays (no heap).

use core::ptr::NonNull;

/// A cached block: where it is, how big, and when it was freed (`stamp`, larger is newer).
#[derive(Clone, Copy, Debug)]
struct Entry {
    ptr: NonNull<u8>,
    size: usize,
    stamp: u64,
}

impl Entry {
    const EMPTY: Self = Self {
        ptr: NonNull::dangling(),
        size: 0,
        stamp: 0,
    };
}

/// Up to `N` cached blocks.
///
/// `by_size[..len]` is sorted by `(size, stamp)`: a binary search finds the smallest block of
/// at least a size, and among blocks of one size the oldest comes first (as in MLX's
/// `std::multimap`, where equal keys keep their insertion order). `by_age[..len]` holds the same
/// blocks' `(stamp, size)` sorted by stamp: its front is the least recently freed block, the
/// tail of MLX's LRU list. Stamps only grow, so a freed block goes at the end of `by_age`.
/// Inserting or removing moves the arrays' tails (one `memmove` each, none at the end): O(N)
/// moves of small entries, O(log N) comparisons.
#[derive(Debug)]
pub(super) struct Pool<const N: usize> {
    by_size: [Entry; N],
    by_age: [(u64, usize); N],
    len: usize,
    next_stamp: u64,
}

impl<const N: usize> Pool<N> {
    pub(super) const fn new() -> Self {
        Self {
            by_size: [Entry::EMPTY; N],
            by_age: [(0, 0); N],
            len: 0,
            next_stamp: 0,
        }
    }

    /// Number of cached blocks.
    pub(super) const fn len(&self) -> usize {
        self.len
    }

    /// Whether another block fits.
    pub(super) const fn is_full(&self) -> bool {
        self.len >= N
    }

    /// Takes the smallest block whose size is in `size..bound`, the oldest of that size.
    pub(super) fn take(&mut self, size: usize, bound: usize) -> Option<(NonNull<u8>, usize)> {
        let sizes = self.by_size.get(..self.len)?;
        let at = sizes.partition_point(|e| e.size < size);
        let entry = *sizes.get(at)?;
        if entry.size >= bound {
            return None;
        }
        self.remove(at);
        Some((entry.ptr, entry.size))
    }

    /// Takes the least recently freed block.
    pub(super) fn take_oldest(&mut self) -> Option<(NonNull<u8>, usize)> {
        let (stamp, size) = *self.by_age.get(..self.len)?.first()?;
        let at = self
            .by_size
            .get(..self.len)?
            .binary_search_by(|e| (e.size, e.stamp).cmp(&(size, stamp)))
            .ok()?;
        let entry = self.by_size.get(at).copied()?;
        self.remove(at);
        Some((entry.ptr, entry.size))
    }

    /// Takes every block, in no particular order.
    pub(super) fn take_all(&mut self, mut f: impl FnMut(NonNull<u8>, usize)) {
        if let Some(entries) = self.by_size.get(..self.len) {
            for entry in entries {
                f(entry.ptr, entry.size);
            }
        }
        self.len = 0;
    }

    /// Adds a block as the most recently freed one; gives it back if the pool is full.
    pub(super) fn insert(&mut self, ptr: NonNull<u8>, size: usize) -> Result<(), NonNull<u8>> {
        let len = self.len;
        if len >= N {
            return Err(ptr);
        }
        let stamp = self.next_stamp;
        // The new stamp is the largest, so the block goes after every block of its size.
        // In bounds: `len < N`, so `at <= len` and `len + 1 <= N`.
        let at = self.by_size[..len].partition_point(|e| e.size <= size);
        if at < len {
            self.by_size.copy_within(at..len, at + 1);
        }
        self.by_size[at] = Entry { ptr, size, stamp };
        self.by_age[len] = (stamp, size);
        self.len = len + 1;
        match self.next_stamp.checked_add(1) {
            Some(next) => self.next_stamp = next,
            None => self.renumber(),
        }
        Ok(())
    }

    /// Removes `by_size[at]` and its `by_age` entry.
    fn remove(&mut self, at: usize) {
        let len = self.len;
        if at >= len {
            return;
        }
        // In bounds: `at < len <= N`.
        let stamp = self.by_size[at].stamp;
        if at + 1 < len {
            self.by_size.copy_within(at + 1..len, at);
        }
        let ages = &mut self.by_age[..len];
        // The block most recently freed is the most likely to be taken again: look there first.
        let age = if ages.last().is_some_and(|a| a.0 == stamp) {
            Ok(len - 1)
        } else {
            ages.binary_search_by(|a| a.0.cmp(&stamp))
        };
        if let Ok(age) = age
            && age + 1 < len
        {
            ages.copy_within(age + 1.., age);
        }
        self.len = len - 1;
    }

    /// Gives the blocks the stamps `0..len` in age order, when stamps run out (after 2^64 frees:
    /// never in practice, but then the order still holds).
    fn renumber(&mut self) {
        let len = self.len;
        let (Some(sizes), Some(ages)) = (self.by_size.get_mut(..len), self.by_age.get_mut(..len))
        else {
            return;
        };
        // Ranks by the old stamps first, then the ages; the map is monotonic, so `by_size`
        // stays sorted.
        for entry in sizes.iter_mut() {
            if let Ok(rank) = ages.binary_search_by(|a| a.0.cmp(&entry.stamp)) {
                entry.stamp = rank as u64;
            }
        }
        for (rank, age) in ages.iter_mut().enumerate() {
            age.0 = rank as u64;
        }
        self.next_stamp = len as u64;
    }

    /// Sets the next stamp, to test [`Pool::renumber`].
    #[cfg(test)]
    pub(super) fn set_next_stamp(&mut self, stamp: u64) {
        self.next_stamp = stamp;
    }

    /// The cached sizes, oldest first (tests).
    #[cfg(test)]
    pub(super) fn sizes_by_age(&self) -> impl Iterator<Item = usize> + '_ {
        self.by_age[..self.len].iter().map(|a| a.1)
    }

    /// Checks the invariants (tests).
    #[cfg(test)]
    pub(super) fn check(&self) {
        let sizes = &self.by_size[..self.len];
        let ages = &self.by_age[..self.len];
        assert!(
            sizes
                .windows(2)
                .all(|w| (w[0].size, w[0].stamp) < (w[1].size, w[1].stamp))
        );
        assert!(ages.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(ages.iter().all(|a| a.0 < self.next_stamp));
        for e in sizes {
            assert!(ages.contains(&(e.stamp, e.size)));
        }
    }
}
