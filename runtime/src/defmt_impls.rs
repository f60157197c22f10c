//! `defmt::Format` (feature `defmt`) for the runtime's public types whose `Debug` is written by
//! hand; the others derive it where they are defined. Each prints what its `Debug` prints.

use defmt::{Format, Formatter, write};

use crate::cache::{Backing, Block, Buffer, BufferCache, Region};
use crate::{Align, Arena, Element, Slot, StaticArena, SupportedAlign};

impl<M, T: Element> Format for Slot<M, T> {
    fn format(&self, f: Formatter<'_>) {
        write!(
            f,
            "Slot {{ offset: {}, len: {}, type: {} }}",
            self.offset(),
            self.len(),
            T::NAME
        );
    }
}

impl<M, const N: usize, const A: usize> Format for Arena<M, N, A>
where
    Align<A>: SupportedAlign,
{
    fn format(&self, f: Formatter<'_>) {
        write!(f, "Arena {{ bytes: {}, align: {} }}", N, Self::ALIGN);
    }
}

impl<M, const N: usize, const A: usize> Format for StaticArena<M, N, A>
where
    Align<A>: SupportedAlign,
{
    fn format(&self, f: Formatter<'_>) {
        write!(
            f,
            "StaticArena {{ bytes: {}, align: {}, taken: {} }}",
            N,
            Arena::<M, N, A>::ALIGN,
            self.is_taken()
        );
    }
}

impl Format for Block {
    fn format(&self, f: Formatter<'_>) {
        write!(
            f,
            "Block {{ ptr: {:#x}, len: {} }}",
            self.as_ptr().as_ptr() as usize,
            self.len()
        );
    }
}

impl Format for Buffer<'_> {
    fn format(&self, f: Formatter<'_>) {
        write!(
            f,
            "Buffer {{ len: {}, capacity: {} }}",
            self.len(),
            self.capacity()
        );
    }
}

impl<B: Backing, const N: usize> Format for BufferCache<B, N> {
    fn format(&self, f: Formatter<'_>) {
        write!(
            f,
            "BufferCache {{ stats: {}, cache_limit: {}, memory_limit: {} }}",
            self.stats(),
            self.cache_limit(),
            self.memory_limit()
        );
    }
}

impl<const M: usize> Format for Region<'_, M> {
    fn format(&self, f: Formatter<'_>) {
        write!(
            f,
            "Region {{ capacity: {}, used_bytes: {}, blocks: {}, granule: {} }}",
            self.capacity(),
            self.used_bytes(),
            self.blocks(),
            self.granule()
        );
    }
}
