//! Two marks for the instruction counter (`icount.sh`): empty functions that are never inlined,
//! called just before and just after the code measured, so that their addresses bracket it.

/// Called just before the measured code.
#[inline(never)]
pub fn icount_start() {
    core::hint::black_box(1_u32);
}

/// Called just after the measured code.
#[inline(never)]
pub fn icount_end() {
    core::hint::black_box(2_u32);
}
