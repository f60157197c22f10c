//! The Cortex-M DSP extension's SIMD instructions the kernels use, one function each (two for
//! the maxima: a subtraction that sets the GE bits and the `SEL` that reads them), and a
//! portable twin of each with the same name and signature.
//!
//! With cfg `stowplan_dsp` (set by the runtime's build script for `thumbv7em-*` targets: the
//! Armv7E-M profile always has the DSP extension; stable rustc does not expose
//! `target_feature = "dsp"` for it) each function is one instruction through
//! `core::arch::asm!`; everywhere else (Armv6-M, the host, miri) it is the instruction's
//! semantics in plain integer arithmetic, so the kernels' blocked loops run, and are tested,
//! on the host with the very results the device computes.
//!
//! Register-only but three: every wrapper takes and returns values, never a pointer, and its
//! `asm!` block has no memory operands (`options(nomem, nostack)`); the loops
//! [`smlad_2x2_groups`] and [`smlad_1x2_words`] and the depthwise windows [`depthwise_3x3`] read
//! the slices they are given (their bounds checked before each block) and write no memory
//! (`options(readonly, nostack)`; [`smlad_2x2_groups`]'s loop keeps its end on the stack,
//! pushed and popped by the block, so it is `readonly` without `nostack`). A block is
//! declared
//! `preserves_flags` exactly when none of its instructions writes the APSR's flags, which on
//! Arm covers N, Z, C, V, the sticky saturation bit Q and the GE bits: not the
//! multiply-accumulates that set Q on overflow of their 32-bit sum (`SMLAD`, `SMLABB`,
//! `SMLABT`, `SMLATT`), nor the subtractions that set the GE bits (`SSUB8`, `SSUB16`); the
//! table [`FLAG_EFFECTS`] (from the Armv7-M Architecture Reference Manual) and its test hold
//! every block to it. They are not
//! declared `pure`, so the compiler keeps them in the order the kernels write them: declared
//! pure, it was free to widen every word of a 3 x 3 window first and spill them, which cost
//! the depthwise kernels a fifth of their instructions; the kernels' loops are written in the
//! order that needs the fewest registers. This module is the one
//! place of the kernels with `unsafe` (each block with its proof): it is declared by the
//! crate's root, outside `kernels`, which forbids `unsafe` code. No wrapper reads the Q flag
//! (the kernels never read it); the GE bits that `SSUB8` and `SSUB16` set are read only by the
//! `SEL` in the same `asm!` block.
//!
//! The halfword lanes of a `u32` are `lo` (bits 0..16) and `hi` (bits 16..32), both signed.

#[cfg(stowplan_dsp)]
use core::arch::asm;

/// The signed halfword `lane` (0: bits 0..16, 1: bits 16..32) of `x`.
#[cfg(any(not(stowplan_dsp), test))]
#[inline(always)]
const fn lane(x: u32, lane: u32) -> i32 {
    (x >> (16 * lane)) as u16 as i16 as i32
}

/// Two halfwords packed as `lo | hi << 16` (each truncated to 16 bits).
#[cfg(any(not(stowplan_dsp), test))]
#[inline(always)]
const fn pack(lo: i32, hi: i32) -> u32 {
    (lo as u32 & 0xffff) | (hi as u32) << 16
}

/// The signed byte `index` (0..4, from the least significant) of `x`.
#[cfg(any(not(stowplan_dsp), test))]
#[inline(always)]
const fn byte(x: u32, index: u32) -> i32 {
    (x >> (8 * index)) as u8 as i8 as i32
}

/// `SXTB16 x`: bytes 0 and 2 of `x`, sign-extended to the halfwords `lo` and `hi`.
#[cfg(not(stowplan_dsp))]
#[inline(always)]
pub(crate) fn sxtb16(x: u32) -> u32 {
    pack(byte(x, 0), byte(x, 2))
}

/// `SXTB16 x, ROR #8`: bytes 1 and 3 of `x`, sign-extended to the halfwords `lo` and `hi`.
#[cfg(not(stowplan_dsp))]
#[inline(always)]
pub(crate) fn sxtb16_ror8(x: u32) -> u32 {
    pack(byte(x, 1), byte(x, 3))
}

/// `SXTAB16 a, x`: `a`'s halfwords plus bytes 0 and 2 of `x` sign-extended, each sum modulo
/// 2^16.
#[cfg(not(stowplan_dsp))]
#[inline(always)]
pub(crate) fn sxtab16(a: u32, x: u32) -> u32 {
    pack(lane(a, 0) + byte(x, 0), lane(a, 1) + byte(x, 2))
}

/// `SXTAB16 a, x, ROR #8`: `a`'s halfwords plus bytes 1 and 3 of `x` sign-extended, each sum
/// modulo 2^16.
#[cfg(not(stowplan_dsp))]
#[inline(always)]
pub(crate) fn sxtab16_ror8(a: u32, x: u32) -> u32 {
    pack(lane(a, 0) + byte(x, 1), lane(a, 1) + byte(x, 3))
}

/// `SXTAH a, x`: `a` plus the low halfword of `x` sign-extended, modulo 2^32.
#[cfg(not(stowplan_dsp))]
#[inline(always)]
pub(crate) fn sxtah(a: i32, x: u32) -> i32 {
    a.wrapping_add(lane(x, 0))
}

/// `SMLAD a, b, acc`: `acc + a.lo * b.lo + a.hi * b.hi`, the halfwords signed, the sum modulo
/// 2^32 (the instruction's result; it sets the Q flag on overflow, which nothing reads).
#[cfg(not(stowplan_dsp))]
#[inline(always)]
pub(crate) fn smlad(a: u32, b: u32, acc: i32) -> i32 {
    acc.wrapping_add(lane(a, 0) * lane(b, 0))
        .wrapping_add(lane(a, 1) * lane(b, 1))
}

/// `SMLABB a, b, acc`: `acc + a.lo * b.lo`, modulo 2^32.
#[cfg(not(stowplan_dsp))]
#[inline(always)]
pub(crate) fn smlabb(a: u32, b: u32, acc: i32) -> i32 {
    acc.wrapping_add(lane(a, 0) * lane(b, 0))
}

/// `SMLATT a, b, acc`: `acc + a.hi * b.hi`, modulo 2^32.
#[cfg(not(stowplan_dsp))]
#[inline(always)]
pub(crate) fn smlatt(a: u32, b: u32, acc: i32) -> i32 {
    acc.wrapping_add(lane(a, 1) * lane(b, 1))
}

/// `SMLABT a, b, acc`: `acc + a.lo * b.hi`, modulo 2^32.
#[cfg(not(stowplan_dsp))]
#[inline(always)]
pub(crate) fn smlabt(a: u32, b: u32, acc: i32) -> i32 {
    acc.wrapping_add(lane(a, 0) * lane(b, 1))
}

/// `SXTB16 x` (see the portable twin).
#[cfg(stowplan_dsp)]
#[inline(always)]
pub(crate) fn sxtb16(x: u32) -> u32 {
    let r: u32;
    // SAFETY: SXTB16 exists on every Armv7E-M core (the cfg is set for those targets only); it
    // reads and writes the registers named here and nothing else: no memory, no stack, no
    // flags.
    unsafe {
        asm!("sxtb16 {r}, {x}", r = lateout(reg) r, x = in(reg) x, options(nomem, nostack, preserves_flags))
    };
    r
}

/// `SXTB16 x, ROR #8` (see the portable twin).
#[cfg(stowplan_dsp)]
#[inline(always)]
pub(crate) fn sxtb16_ror8(x: u32) -> u32 {
    let r: u32;
    // SAFETY: as in `sxtb16`: one register-only instruction of Armv7E-M.
    unsafe {
        asm!("sxtb16 {r}, {x}, ror #8", r = lateout(reg) r, x = in(reg) x, options(nomem, nostack, preserves_flags))
    };
    r
}

/// `SXTAB16 a, x` (see the portable twin).
#[cfg(stowplan_dsp)]
#[inline(always)]
pub(crate) fn sxtab16(a: u32, x: u32) -> u32 {
    let r: u32;
    // SAFETY: as in `sxtb16`: one register-only instruction of Armv7E-M.
    unsafe {
        asm!("sxtab16 {r}, {a}, {x}", r = lateout(reg) r, a = in(reg) a, x = in(reg) x, options(nomem, nostack, preserves_flags))
    };
    r
}

/// `SXTAB16 a, x, ROR #8` (see the portable twin).
#[cfg(stowplan_dsp)]
#[inline(always)]
pub(crate) fn sxtab16_ror8(a: u32, x: u32) -> u32 {
    let r: u32;
    // SAFETY: as in `sxtb16`: one register-only instruction of Armv7E-M.
    unsafe {
        asm!("sxtab16 {r}, {a}, {x}, ror #8", r = lateout(reg) r, a = in(reg) a, x = in(reg) x, options(nomem, nostack, preserves_flags))
    };
    r
}

/// `SXTAH a, x` (see the portable twin).
#[cfg(stowplan_dsp)]
#[inline(always)]
pub(crate) fn sxtah(a: i32, x: u32) -> i32 {
    let r: i32;
    // SAFETY: as in `sxtb16`: one register-only instruction of Armv7E-M (an addition modulo
    // 2^32: no flag is set).
    unsafe {
        asm!("sxtah {r}, {a}, {x}", r = lateout(reg) r, a = in(reg) a, x = in(reg) x, options(nomem, nostack, preserves_flags))
    };
    r
}

/// `SMLAD a, b, acc` (see the portable twin).
#[cfg(stowplan_dsp)]
#[inline(always)]
pub(crate) fn smlad(a: u32, b: u32, acc: i32) -> i32 {
    let r: i32;
    // SAFETY: as in `sxtb16`: one register-only instruction of Armv7E-M. It sets the Q flag
    // (the APSR's sticky saturation bit) when the 32-bit sum overflows, which the kernels let
    // happen (TFLM's accumulator wraps): the block does not preserve the flags, so it is not
    // declared `preserves_flags` and the compiler keeps no flag value live across it.
    unsafe {
        asm!("smlad {r}, {a}, {b}, {acc}", r = lateout(reg) r, a = in(reg) a, b = in(reg) b, acc = in(reg) acc, options(nomem, nostack))
    };
    r
}

/// `SMLABB a, b, acc` (see the portable twin).
#[cfg(stowplan_dsp)]
#[inline(always)]
pub(crate) fn smlabb(a: u32, b: u32, acc: i32) -> i32 {
    let r: i32;
    // SAFETY: as in `smlad`: it sets Q the same way, so it is not `preserves_flags`.
    unsafe {
        asm!("smlabb {r}, {a}, {b}, {acc}", r = lateout(reg) r, a = in(reg) a, b = in(reg) b, acc = in(reg) acc, options(nomem, nostack))
    };
    r
}

/// `SMLATT a, b, acc` (see the portable twin).
#[cfg(stowplan_dsp)]
#[inline(always)]
pub(crate) fn smlatt(a: u32, b: u32, acc: i32) -> i32 {
    let r: i32;
    // SAFETY: as in `smlad`: it sets Q the same way, so it is not `preserves_flags`.
    unsafe {
        asm!("smlatt {r}, {a}, {b}, {acc}", r = lateout(reg) r, a = in(reg) a, b = in(reg) b, acc = in(reg) acc, options(nomem, nostack))
    };
    r
}

/// `SMLABT a, b, acc` (see the portable twin).
#[cfg(stowplan_dsp)]
#[inline(always)]
pub(crate) fn smlabt(a: u32, b: u32, acc: i32) -> i32 {
    let r: i32;
    // SAFETY: as in `smlad`: it sets Q the same way, so it is not `preserves_flags`.
    unsafe {
        asm!("smlabt {r}, {a}, {b}, {acc}", r = lateout(reg) r, a = in(reg) a, b = in(reg) b, acc = in(reg) acc, options(nomem, nostack))
    };
    r
}

/// `SMLALD a, b, acc`: `acc + a.lo * b.lo + a.hi * b.hi` in 64 bits, the halfwords signed, the
/// sum modulo 2^64.
#[cfg(not(stowplan_dsp))]
#[inline(always)]
pub(crate) fn smlald(a: u32, b: u32, acc: i64) -> i64 {
    acc.wrapping_add(i64::from(lane(a, 0) * lane(b, 0)))
        .wrapping_add(i64::from(lane(a, 1) * lane(b, 1)))
}

/// `SMULBB a, b`: `a.lo * b.lo`.
#[cfg(not(stowplan_dsp))]
#[inline(always)]
pub(crate) fn smulbb(a: u32, b: u32) -> i32 {
    lane(a, 0) * lane(b, 0)
}

/// `SMULTT a, b`: `a.hi * b.hi`.
#[cfg(not(stowplan_dsp))]
#[inline(always)]
pub(crate) fn smultt(a: u32, b: u32) -> i32 {
    lane(a, 1) * lane(b, 1)
}

/// `PKHBT a, b, LSL #16`: `a.lo` in the low halfword, `b.lo` in the high one.
#[cfg(not(stowplan_dsp))]
#[inline(always)]
pub(crate) fn pkhbt(a: u32, b: u32) -> u32 {
    (a & 0xffff) | (b << 16)
}

/// `PKHTB a, b, ASR #16`: `b.hi` in the low halfword, `a.hi` in the high one.
#[cfg(not(stowplan_dsp))]
#[inline(always)]
pub(crate) fn pkhtb(a: u32, b: u32) -> u32 {
    (a & 0xffff_0000) | (b >> 16)
}

/// `SSUB8 t, a, b` then `SEL r, a, b`: each signed byte the larger of `a`'s and `b`'s.
#[cfg(not(stowplan_dsp))]
#[inline(always)]
pub(crate) fn max8(a: u32, b: u32) -> u32 {
    let m = |i: u32| (byte(a, i).max(byte(b, i)) as u8 as u32) << (8 * i);
    m(0) | m(1) | m(2) | m(3)
}

/// `SSUB16 t, a, b` then `SEL r, a, b`: each signed halfword the larger of `a`'s and `b`'s.
#[cfg(not(stowplan_dsp))]
#[inline(always)]
pub(crate) fn max16(a: u32, b: u32) -> u32 {
    pack(lane(a, 0).max(lane(b, 0)), lane(a, 1).max(lane(b, 1)))
}

/// `SMLALD a, b, acc` (see the portable twin).
#[cfg(stowplan_dsp)]
#[inline(always)]
pub(crate) fn smlald(a: u32, b: u32, acc: i64) -> i64 {
    let (mut lo, mut hi) = (acc as u32, (acc >> 32) as u32);
    // SAFETY: as in `sxtb16`: one register-only instruction of Armv7E-M, which reads and
    // writes the two accumulator registers and reads `a` and `b`; it sets no flag.
    unsafe {
        asm!("smlald {lo}, {hi}, {a}, {b}", lo = inout(reg) lo, hi = inout(reg) hi, a = in(reg) a, b = in(reg) b, options(nomem, nostack, preserves_flags))
    };
    (i64::from(hi) << 32) | i64::from(lo)
}

/// `SMULBB a, b` (see the portable twin).
#[cfg(stowplan_dsp)]
#[inline(always)]
pub(crate) fn smulbb(a: u32, b: u32) -> i32 {
    let r: i32;
    // SAFETY: as in `sxtb16`: one register-only instruction of Armv7E-M (the product of two
    // halfwords cannot overflow: no flag is set).
    unsafe {
        asm!("smulbb {r}, {a}, {b}", r = lateout(reg) r, a = in(reg) a, b = in(reg) b, options(nomem, nostack, preserves_flags))
    };
    r
}

/// `SMULTT a, b` (see the portable twin).
#[cfg(stowplan_dsp)]
#[inline(always)]
pub(crate) fn smultt(a: u32, b: u32) -> i32 {
    let r: i32;
    // SAFETY: as in `smulbb`.
    unsafe {
        asm!("smultt {r}, {a}, {b}", r = lateout(reg) r, a = in(reg) a, b = in(reg) b, options(nomem, nostack, preserves_flags))
    };
    r
}

/// `PKHBT a, b, LSL #16` (see the portable twin).
#[cfg(stowplan_dsp)]
#[inline(always)]
pub(crate) fn pkhbt(a: u32, b: u32) -> u32 {
    let r: u32;
    // SAFETY: as in `sxtb16`: one register-only instruction of Armv7E-M.
    unsafe {
        asm!("pkhbt {r}, {a}, {b}, lsl #16", r = lateout(reg) r, a = in(reg) a, b = in(reg) b, options(nomem, nostack, preserves_flags))
    };
    r
}

/// `PKHTB a, b, ASR #16` (see the portable twin).
#[cfg(stowplan_dsp)]
#[inline(always)]
pub(crate) fn pkhtb(a: u32, b: u32) -> u32 {
    let r: u32;
    // SAFETY: as in `sxtb16`: one register-only instruction of Armv7E-M.
    unsafe {
        asm!("pkhtb {r}, {a}, {b}, asr #16", r = lateout(reg) r, a = in(reg) a, b = in(reg) b, options(nomem, nostack, preserves_flags))
    };
    r
}

/// `SSUB8 t, a, b; SEL r, a, b` (see the portable twin).
#[cfg(stowplan_dsp)]
#[inline(always)]
pub(crate) fn max8(a: u32, b: u32) -> u32 {
    let r: u32;
    // SAFETY: two register-only instructions of Armv7E-M: SSUB8 sets the GE bits (byte `i`'s
    // set where `a`'s byte is at least `b`'s, signed) and SEL, in the same block, picks `a`'s
    // bytes where they are set, `b`'s elsewhere. `r` is written before `a` and `b` are read
    // for the last time, so it is an early-clobber output. The flags change: the block is not
    // `preserves_flags`.
    unsafe {
        asm!("ssub8 {r}, {a}, {b}", "sel {r}, {a}, {b}", r = out(reg) r, a = in(reg) a, b = in(reg) b, options(nomem, nostack))
    };
    r
}

/// `SSUB16 t, a, b; SEL r, a, b` (see the portable twin).
#[cfg(stowplan_dsp)]
#[inline(always)]
pub(crate) fn max16(a: u32, b: u32) -> u32 {
    let r: u32;
    // SAFETY: as in `max8`, with SSUB16 setting the GE bits of each halfword's two bytes.
    unsafe {
        asm!("ssub16 {r}, {a}, {b}", "sel {r}, {a}, {b}", r = out(reg) r, a = in(reg) a, b = in(reg) b, options(nomem, nostack))
    };
    r
}

/// `acc` plus the 2 x 2 sums `[a.fa, a.fb, b.fa, b.fb]` of a pixel pair's widened window
/// groups `x` against two filters `fa` and `fb`, over their common length. A group holds four
/// window values of each pixel as the `SXTAB16` lanes of their word (values 0 and 2, then 1
/// and 3: pixel `a`'s two words, then `b`'s); a filter group is four int8 values, widened the
/// same way (`SXTB16`), so that each `SMLAD` multiplies matching values: per group eight
/// `SMLAD`s (16 multiply-accumulates), each sum modulo 2^32.
#[cfg(not(stowplan_dsp))]
#[inline(always)]
pub(crate) fn smlad_2x2_groups(
    x: &[[u32; 4]],
    fa: &[[i8; 4]],
    fb: &[[i8; 4]],
    acc: [i32; 4],
) -> [i32; 4] {
    let [mut aa, mut ab, mut ba, mut bb] = acc;
    for ((&[a0, a1, b0, b1], wa), wb) in x.iter().zip(fa).zip(fb) {
        let (wa, wb) = (word(wa), word(wb));
        let (wa0, wa1, wb0, wb1) = (sxtb16(wa), sxtb16_ror8(wa), sxtb16(wb), sxtb16_ror8(wb));
        aa = smlad(a1, wa1, smlad(a0, wa0, aa));
        ab = smlad(a1, wb1, smlad(a0, wb0, ab));
        ba = smlad(b1, wa1, smlad(b0, wa0, ba));
        bb = smlad(b1, wb1, smlad(b0, wb0, bb));
    }
    [aa, ab, ba, bb]
}

/// [`smlad_2x2_groups`] (see the portable twin) as one loop of four groups an iteration (75
/// instructions), entered at the group that leaves a multiple of four (the count modulo 4
/// compared: its 0, 3, 2 or 1 groups skipped). A group's loads run back
/// to back in two runs: the two pixels' even lanes and both filter words (one `LDR` chain: 5
/// estimated cycles), both filters' even halves against them, then the two pixels' odd lanes
/// (3 cycles) against the filters' odd halves: 20 estimated cycles a group and 6 an iteration
/// for its end (1.5 a group; 3 with two groups an iteration), against 27 a group for a loop that kept a count in a register (it loaded the
/// first pixel's words twice, with `LDRD`s that do not pipeline). The loop's end (the pointer
/// into `x` after its last group) is on the stack instead, pushed by the block and compared at
/// the end of each iteration, so that the thirteen values a group needs fit the twelve
/// registers an operand may name.
#[cfg(stowplan_dsp)]
#[inline(always)]
pub(crate) fn smlad_2x2_groups(
    x: &[[u32; 4]],
    fa: &[[i8; 4]],
    fb: &[[i8; 4]],
    acc: [i32; 4],
) -> [i32; 4] {
    let n = x.len().min(fa.len()).min(fb.len());
    let [mut aa, mut ab, mut ba, mut bb] = acc;
    if n == 0 {
        return acc;
    }
    // SAFETY: each group step reads one group of `x` (the pointer moves 16 bytes with its first
    // load, and the others read the 12 bytes before the new value) and one word of `fa` and of
    // `fb` (the pointers moved 4 bytes). The loop runs four steps an iteration until the
    // pointer into `x` reaches the end pushed first, `n` groups in
    // (`x.as_ptr().wrapping_add(n)`); it is entered at step `(4 - n % 4) % 4` (bits 4 and 5
    // of the end's distance, `16 * n` bytes: 16 enters at the fourth step, 32 at the third, 48
    // at the second, 0 at the first), so the steps number exactly `n >= 1` and the pointer
    // meets the end exactly: `n` groups of each slice, which all three hold. `x`'s elements are `u32`, so its loads are word-aligned; the
    // filters' `LDR`s may be unaligned, which Armv7-M's `LDR` allows (the kernels' other loads
    // read int8 words the same way). Its only store is the `PUSH` of the end below the stack
    // pointer, which no Rust object occupies (the block is not `nostack`), undone by the `POP`
    // that restores the stack pointer before the block ends. It writes only the registers named
    // here (the pointers and the end's register are declared clobbered) and the flags: `CMP`
    // the N, Z, C and V flags that the `BEQ`s and the `BNE` read, `SMLAD` the Q flag, which
    // nothing reads.
    unsafe {
        asm!("push {{{t}}}", "sub {p}, {t}, {x}", "and {p}, {p}, #48", "cmp {p}, #16", "beq 5f", "cmp {p}, #32", "beq 4f", "cmp {p}, #48", "beq 3f", "2:", "ldr {p}, [{x}], #16", "ldr {q}, [{x}, #-8]", "ldr {wa}, [{fa}], #4", "ldr {wb}, [{fb}], #4", "sxtb16 {t}, {wa}", "smlad {aa}, {p}, {t}, {aa}", "smlad {ba}, {q}, {t}, {ba}", "sxtb16 {t}, {wb}", "smlad {ab}, {p}, {t}, {ab}", "smlad {bb}, {q}, {t}, {bb}", "ldr {p}, [{x}, #-12]", "ldr {q}, [{x}, #-4]", "sxtb16 {t}, {wa}, ror #8", "smlad {aa}, {p}, {t}, {aa}", "smlad {ba}, {q}, {t}, {ba}", "sxtb16 {t}, {wb}, ror #8", "smlad {ab}, {p}, {t}, {ab}", "smlad {bb}, {q}, {t}, {bb}", "3:", "ldr {p}, [{x}], #16", "ldr {q}, [{x}, #-8]", "ldr {wa}, [{fa}], #4", "ldr {wb}, [{fb}], #4", "sxtb16 {t}, {wa}", "smlad {aa}, {p}, {t}, {aa}", "smlad {ba}, {q}, {t}, {ba}", "sxtb16 {t}, {wb}", "smlad {ab}, {p}, {t}, {ab}", "smlad {bb}, {q}, {t}, {bb}", "ldr {p}, [{x}, #-12]", "ldr {q}, [{x}, #-4]", "sxtb16 {t}, {wa}, ror #8", "smlad {aa}, {p}, {t}, {aa}", "smlad {ba}, {q}, {t}, {ba}", "sxtb16 {t}, {wb}, ror #8", "smlad {ab}, {p}, {t}, {ab}", "smlad {bb}, {q}, {t}, {bb}", "4:", "ldr {p}, [{x}], #16", "ldr {q}, [{x}, #-8]", "ldr {wa}, [{fa}], #4", "ldr {wb}, [{fb}], #4", "sxtb16 {t}, {wa}", "smlad {aa}, {p}, {t}, {aa}", "smlad {ba}, {q}, {t}, {ba}", "sxtb16 {t}, {wb}", "smlad {ab}, {p}, {t}, {ab}", "smlad {bb}, {q}, {t}, {bb}", "ldr {p}, [{x}, #-12]", "ldr {q}, [{x}, #-4]", "sxtb16 {t}, {wa}, ror #8", "smlad {aa}, {p}, {t}, {aa}", "smlad {ba}, {q}, {t}, {ba}", "sxtb16 {t}, {wb}, ror #8", "smlad {ab}, {p}, {t}, {ab}", "smlad {bb}, {q}, {t}, {bb}", "5:", "ldr {p}, [{x}], #16", "ldr {q}, [{x}, #-8]", "ldr {wa}, [{fa}], #4", "ldr {wb}, [{fb}], #4", "sxtb16 {t}, {wa}", "smlad {aa}, {p}, {t}, {aa}", "smlad {ba}, {q}, {t}, {ba}", "sxtb16 {t}, {wb}", "smlad {ab}, {p}, {t}, {ab}", "smlad {bb}, {q}, {t}, {bb}", "ldr {p}, [{x}, #-12]", "ldr {q}, [{x}, #-4]", "sxtb16 {t}, {wa}, ror #8", "smlad {aa}, {p}, {t}, {aa}", "smlad {ba}, {q}, {t}, {ba}", "sxtb16 {t}, {wb}, ror #8", "smlad {ab}, {p}, {t}, {ab}", "smlad {bb}, {q}, {t}, {bb}", "ldr {p}, [sp]", "cmp {x}, {p}", "bne 2b", "pop {{{t}}}", aa = inout(reg) aa, ab = inout(reg) ab, ba = inout(reg) ba, bb = inout(reg) bb, x = inout(reg) x.as_ptr() => _, fa = inout(reg) fa.as_ptr() => _, fb = inout(reg) fb.as_ptr() => _, t = inout(reg) x.as_ptr().wrapping_add(n) => _, p = out(reg) _, q = out(reg) _, wa = out(reg) _, wb = out(reg) _, options(readonly))
    };
    [aa, ab, ba, bb]
}

/// The output of accumulator `x` (the bias included) of a channel of multiplier `m >= 0` and
/// shift `shift` (`-23..=-2`), output zero point `o` given as `o2 = 2 o + 1`: TFLM's
/// `MultiplyByQuantizedMultiplier` in the form
/// [`right2`](crate::kernels::shared::blocked::right2) computes it, `h = floor((x m + 2^30 -
/// [x < 0] 2^31) / 2^32)` and `((h >> t) + 1) >> 1` with `t = -shift - 2`, plus `o`, saturated
/// to int8, with the rounding and the zero point folded into one constant `k = o2 2^t`:
/// `(h + 2^t + o 2^(t+1)) >> (t + 1) == ((h >> t) + 1) >> 1 + o` (nested floors of integer
/// quotients merge; `o 2^(t+1)` is a multiple of the divisor). `k` is added to the high word
/// of the 64-bit nudge, so one `SMLAL` leaves `h + k` there: `|h| <= 2^30` and `|k| <= 257 *
/// 2^21 < 2^30` for `t <= 21`, so nothing overflows. Per output on the device: `AND`, `ORR`,
/// `ADD`, `SMLAL`, `ASR`, `SSAT` (against eleven instructions with the bias, the rounding and
/// the zero point each added apart).
#[cfg(any(not(stowplan_dsp), test))]
#[inline(always)]
pub(crate) fn requant_folded(x: i32, m: i32, shift: i32, o2: i32) -> i8 {
    // `s = t + 1 = -shift - 1` (`MVN`).
    let s = (!shift) as u32 & 31;
    let k = o2.wrapping_shl(s) >> 1;
    let lo = (x as u32 & 0x8000_0000) | 0x4000_0000;
    let hi = k.wrapping_add(x >> 31);
    let v = ((i64::from(hi) << 32) | i64::from(lo)).wrapping_add(i64::from(x) * i64::from(m));
    (((v >> 32) as i32) >> s).clamp(-128, 127) as i8
}

/// The outputs of four channels from their sums `acc`, biases `b` and constants `r` in the
/// folded epilogue: `requant_folded(acc[c] + b[c], r[c].multiplier, r[c].shift, o2)` (exact
/// for the constants that takes; the caller's to check, as
/// [`Epilogue::folds`](crate::kernels::shared::blocked::Epilogue::folds) does).
#[cfg(not(stowplan_dsp))]
#[inline(always)]
pub(crate) fn requant4_folded(
    acc: [i32; 4],
    r: &[crate::requant_pair::Requant; 4],
    b: &[i32; 4],
    o2: i32,
) -> [i8; 4] {
    let [a0, a1, a2, a3] = acc;
    let out = |a: i32, c: usize| {
        let r = r[c];
        requant_folded(a.wrapping_add(b[c]), r.multiplier, r.shift, o2)
    };
    [out(a0, 0), out(a1, 1), out(a2, 2), out(a3, 3)]
}

/// [`requant4_folded`] (see the portable twin) as one block: per channel its bias, multiplier
/// and shift loaded back to back, the bias added, `k = o2 << t` (`MVN`, `LSL`, `ASR`), the
/// output in six instructions ([`requant_folded`]), then the four outputs packed into one word
/// (`BFI`): 55 instructions.
#[cfg(stowplan_dsp)]
#[inline(always)]
pub(crate) fn requant4_folded(
    acc: [i32; 4],
    r: &[crate::requant_pair::Requant; 4],
    b: &[i32; 4],
    o2: i32,
) -> [i8; 4] {
    let [mut a0, a1, a2, a3] = acc;
    // SAFETY: the block reads the four words of `b` and the eight of `r` (`Requant` is
    // `repr(C)`, two `i32`s), through pointers that move 4 bytes a load from the arrays'
    // starts: exactly the arrays. It writes no memory (`readonly`), uses no stack, and writes
    // only the registers named here (the pointers and the sums are declared clobbered) and the
    // Q flag (`SSAT`), which nothing reads.
    unsafe {
        asm!("ldr {t}, [{bp}], #4", "ldr {m}, [{rp}], #4", "ldr {s}, [{rp}], #4", "add {a0}, {a0}, {t}", "mvn {s}, {s}", "lsl {t}, {o2}, {s}", "asr {t}, {t}, #1", "and {lo}, {a0}, #0x80000000", "orr {lo}, {lo}, #0x40000000", "add {hi}, {t}, {a0}, asr #31", "smlal {lo}, {hi}, {a0}, {m}", "asr {hi}, {hi}, {s}", "ssat {a0}, #8, {hi}", "ldr {t}, [{bp}], #4", "ldr {m}, [{rp}], #4", "ldr {s}, [{rp}], #4", "add {a1}, {a1}, {t}", "mvn {s}, {s}", "lsl {t}, {o2}, {s}", "asr {t}, {t}, #1", "and {lo}, {a1}, #0x80000000", "orr {lo}, {lo}, #0x40000000", "add {hi}, {t}, {a1}, asr #31", "smlal {lo}, {hi}, {a1}, {m}", "asr {hi}, {hi}, {s}", "ssat {a1}, #8, {hi}", "ldr {t}, [{bp}], #4", "ldr {m}, [{rp}], #4", "ldr {s}, [{rp}], #4", "add {a2}, {a2}, {t}", "mvn {s}, {s}", "lsl {t}, {o2}, {s}", "asr {t}, {t}, #1", "and {lo}, {a2}, #0x80000000", "orr {lo}, {lo}, #0x40000000", "add {hi}, {t}, {a2}, asr #31", "smlal {lo}, {hi}, {a2}, {m}", "asr {hi}, {hi}, {s}", "ssat {a2}, #8, {hi}", "ldr {t}, [{bp}]", "ldr {m}, [{rp}], #4", "ldr {s}, [{rp}]", "add {a3}, {a3}, {t}", "mvn {s}, {s}", "lsl {t}, {o2}, {s}", "asr {t}, {t}, #1", "and {lo}, {a3}, #0x80000000", "orr {lo}, {lo}, #0x40000000", "add {hi}, {t}, {a3}, asr #31", "smlal {lo}, {hi}, {a3}, {m}", "asr {hi}, {hi}, {s}", "ssat {a3}, #8, {hi}", "bfi {a0}, {a1}, #8, #8", "bfi {a0}, {a2}, #16, #8", "bfi {a0}, {a3}, #24, #8", a0 = inout(reg) a0, a1 = inout(reg) a1 => _, a2 = inout(reg) a2 => _, a3 = inout(reg) a3 => _, bp = inout(reg) b.as_ptr() => _, rp = inout(reg) r.as_ptr() => _, o2 = in(reg) o2, t = out(reg) _, m = out(reg) _, s = out(reg) _, lo = out(reg) _, hi = out(reg) _, options(readonly, nostack))
    };
    (a0 as u32).to_le_bytes().map(|v| v as i8)
}

/// A call's channel pairs for [`smlad_2x2_requant`], checked once: pair `k`'s filters begin at
/// `filter[2 k window]` and `filter[(2 k + 1) window]`, each read for `4 groups` values (a
/// pixel pair's windows widened in `groups` groups), its biases `bias[k]`, its constants
/// `requant[k]`; `o2` is `2 o + 1` for the output zero point `o`. [`Pairs::new`] counts the
/// pairs all of these hold (`filter` for every read); the fields are private, so that count
/// holds for every [`Pairs`].
#[derive(Clone, Copy)]
pub(crate) struct Pairs<'a> {
    filter: &'a [i8],
    window: usize,
    bias: &'a [[i32; 2]],
    requant: &'a [[crate::requant_pair::Requant; 2]],
    o2: i32,
    groups: usize,
    pairs: usize,
}

impl<'a> Pairs<'a> {
    /// The pairs of these slices for windows of `groups` groups (none without a group or a
    /// window value).
    #[inline(always)]
    pub(crate) fn new(
        groups: usize,
        filter: &'a [i8],
        window: usize,
        bias: &'a [[i32; 2]],
        requant: &'a [[crate::requant_pair::Requant; 2]],
        o2: i32,
    ) -> Self {
        // The pairs whose second filter's read ends in the slice: `(2 k + 1) window + 4 groups
        // <= filter.len()` for `k < pairs`.
        let fit = match filter.len().checked_sub(groups.saturating_mul(4)) {
            Some(room) if groups > 0 && window > 0 && room >= window => {
                (room - window) / window.saturating_mul(2) + 1
            }
            _ => 0,
        };
        Pairs {
            filter,
            window,
            bias,
            requant,
            o2,
            groups,
            pairs: fit.min(bias.len()).min(requant.len()),
        }
    }

    /// How many channel pairs [`smlad_2x2_requant`] runs (for windows of the groups given).
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.pairs
    }
}

/// The outputs of a pixel pair whose windows are widened in `x` (the groups of
/// [`smlad_2x2_groups`], as many as `p` was made for) against `p`'s channel pairs in turn: the
/// sums start at the pair's biases, then [`requant_folded`] of each with the pair's constants
/// into `ya[k]` (the first pixel) and `yb[k]`. Runs `p.len()` pairs and returns how many, or
/// none (0) if `x` is not of `p`'s groups or an output holds fewer pairs. Exact for the
/// channels of multipliers `>= 0` and shifts `-23..=-2` ([`Epilogue::folds`](
/// crate::kernels::shared::blocked::Epilogue::folds)): the caller's to check.
#[cfg(not(stowplan_dsp))]
#[inline(always)]
pub(crate) fn smlad_2x2_requant(
    p: &Pairs<'_>,
    x: &[[u32; 4]],
    ya: &mut [[i8; 2]],
    yb: &mut [[i8; 2]],
) -> usize {
    if x.len() != p.groups || ya.len() < p.pairs || yb.len() < p.pairs {
        return 0;
    }
    let (read, w) = (4 * p.groups, p.window);
    for k in 0..p.pairs {
        let (Some(fa), Some(fb), Some(&[b0, b1]), Some(&[r0, r1]), Some(ya), Some(yb)) = (
            p.filter.get(2 * k * w..2 * k * w + read),
            p.filter.get((2 * k + 1) * w..(2 * k + 1) * w + read),
            p.bias.get(k),
            p.requant.get(k),
            ya.get_mut(k),
            yb.get_mut(k),
        ) else {
            return k;
        };
        let (fa, fb) = (fa.as_chunks::<4>().0, fb.as_chunks::<4>().0);
        let [aa, ab, ba, bb] = smlad_2x2_groups(x, fa, fb, [b0, b1, b0, b1]);
        let out =
            |acc, r: crate::requant_pair::Requant| requant_folded(acc, r.multiplier, r.shift, p.o2);
        *ya = [out(aa, r0), out(ab, r1)];
        *yb = [out(ba, r0), out(bb, r1)];
    }
    p.pairs
}

/// [`smlad_2x2_requant`] (see the portable twin) as one block: per channel pair the biases
/// loaded as the sums' start, [`smlad_2x2_groups`]'s loop over the pixel pair's groups, then
/// per channel its multiplier and shift loaded, `k = o2 << t` (`MVN`, `LSL`, `ASR`) and its two
/// outputs in six instructions each ([`requant_folded`]), stored with `STRB`. The twelve
/// registers an operand may name hold the loop; the pointers that walk the pairs (the biases,
/// the constants, the outputs), the second output's end, the groups' start and end, the
/// filter's step, `o2` and the loop's entry live in a frame of twelve words the block makes
/// below the stack pointer. The entry (the group that leaves a multiple of four, from the
/// count modulo 4) is found once per call, its address kept in the frame, and each channel
/// pair branches to it (`BX`): the count's test for every pair took about 8 estimated
/// cycles, the branch 3. The pairs end when the second output's pointer reaches its end.
#[cfg(stowplan_dsp)]
#[inline(always)]
pub(crate) fn smlad_2x2_requant(
    run: &Pairs<'_>,
    x: &[[u32; 4]],
    ya: &mut [[i8; 2]],
    yb: &mut [[i8; 2]],
) -> usize {
    let (n, groups, window) = (run.pairs, run.groups, run.window);
    if n == 0 || x.len() != groups || ya.len() < n || yb.len() < n {
        return 0;
    }
    // After a pair's loop its first filter pointer has moved `4 * groups` bytes: the next
    // pair's first filter is `2 * window - 4 * groups` bytes on (wrapping: it may be negative).
    let step = (2 * window).wrapping_sub(4 * groups);
    // SAFETY: the frame (`SUB SP`, twelve words) is below the stack pointer, which no Rust
    // object occupies (the block is not `nostack`), and the `ADD SP` at the end restores the
    // pointer; the branch to the loop's entry (`BX`, the address's Thumb bit set) goes to one
    // of the four group labels inside the block (`ADR` of `2f` to `5f`, by the group count
    // modulo 4: the group that leaves a multiple of four), each a whole group, so the loop runs
    // exactly `groups` groups;
    // the block's memory accesses are the frame's words, and for each of the `n >= 1` pairs
    // (until the second output's pointer, 2 bytes on a pair, reaches `yb + 2 n`, kept in the
    // frame): two words of `bias` and four of `requant`
    // (`Requant` is `repr(C)`, two `i32`s), read through pointers that move 8 and 16 bytes a
    // pair from the slices' starts; the groups of `x` and the filter words exactly as
    // `smlad_2x2_groups`'s loop reads them, its first filter at `filter + 2 k window` (the
    // pointer moved `4 * groups` by the loop and `step` after it) and its second `window` on;
    // and two bytes of `ya` and of `yb` written through pointers that move 2 bytes a pair.
    // `Pairs::new` bounds `n` by the lengths of `bias` and `requant` and by the filter's reads
    // (`(2 n - 1) window + 4 groups <= filter.len()`), and `x`, `ya` and `yb` are checked
    // above, so every access is inside its slice; `ya` and `yb`
    // are exclusive borrows, the other slices are not written. The registers it writes are
    // named here (every operand is clobbered), and the flags: `CMP` N, Z, C and V, which the
    // `BNE`s read; `SMLAD` and `SSAT` the Q flag, which nothing reads.
    unsafe {
        asm!("sub sp, sp, #48", "str {aa}, [sp]", "str {ab}, [sp, #4]", "str {ba}, [sp, #8]", "str {bb}, [sp, #12]", "str {x}, [sp, #16]", "str {fb}, [sp, #20]", "str {t}, [sp, #24]", "str {p}, [sp, #28]", "add {q}, {p}, {q}, lsl #1", "str {q}, [sp, #32]", "str {wa}, [sp, #36]", "sub {t}, {aa}, {ab}", "and {t}, {t}, #48", ".p2align 2", "adr {p}, 2f", "cmp {t}, #48", "bne 7f", ".p2align 2", "adr {p}, 3f", "7:", "cmp {t}, #32", "bne 7f", ".p2align 2", "adr {p}, 4f", "7:", "cmp {t}, #16", "bne 7f", ".p2align 2", "adr {p}, 5f", "7:", "orr {p}, {p}, #1", "str {p}, [sp, #40]", "1:", "ldr {t}, [sp, #16]", "ldr {aa}, [{t}], #4", "ldr {ab}, [{t}], #4", "str {t}, [sp, #16]", "ldr {p}, [sp, #12]", "ldr {x}, [sp, #4]", "ldr {q}, [sp, #40]", "mov {ba}, {aa}", "mov {bb}, {ab}", "add {fb}, {fa}, {p}", "bx {q}", "2:", "ldr {p}, [{x}], #16", "ldr {q}, [{x}, #-8]", "ldr {wa}, [{fa}], #4", "ldr {wb}, [{fb}], #4", "sxtb16 {t}, {wa}", "smlad {aa}, {p}, {t}, {aa}", "smlad {ba}, {q}, {t}, {ba}", "sxtb16 {t}, {wb}", "smlad {ab}, {p}, {t}, {ab}", "smlad {bb}, {q}, {t}, {bb}", "ldr {p}, [{x}, #-12]", "ldr {q}, [{x}, #-4]", "sxtb16 {t}, {wa}, ror #8", "smlad {aa}, {p}, {t}, {aa}", "smlad {ba}, {q}, {t}, {ba}", "sxtb16 {t}, {wb}, ror #8", "smlad {ab}, {p}, {t}, {ab}", "smlad {bb}, {q}, {t}, {bb}", "3:", "ldr {p}, [{x}], #16", "ldr {q}, [{x}, #-8]", "ldr {wa}, [{fa}], #4", "ldr {wb}, [{fb}], #4", "sxtb16 {t}, {wa}", "smlad {aa}, {p}, {t}, {aa}", "smlad {ba}, {q}, {t}, {ba}", "sxtb16 {t}, {wb}", "smlad {ab}, {p}, {t}, {ab}", "smlad {bb}, {q}, {t}, {bb}", "ldr {p}, [{x}, #-12]", "ldr {q}, [{x}, #-4]", "sxtb16 {t}, {wa}, ror #8", "smlad {aa}, {p}, {t}, {aa}", "smlad {ba}, {q}, {t}, {ba}", "sxtb16 {t}, {wb}, ror #8", "smlad {ab}, {p}, {t}, {ab}", "smlad {bb}, {q}, {t}, {bb}", "4:", "ldr {p}, [{x}], #16", "ldr {q}, [{x}, #-8]", "ldr {wa}, [{fa}], #4", "ldr {wb}, [{fb}], #4", "sxtb16 {t}, {wa}", "smlad {aa}, {p}, {t}, {aa}", "smlad {ba}, {q}, {t}, {ba}", "sxtb16 {t}, {wb}", "smlad {ab}, {p}, {t}, {ab}", "smlad {bb}, {q}, {t}, {bb}", "ldr {p}, [{x}, #-12]", "ldr {q}, [{x}, #-4]", "sxtb16 {t}, {wa}, ror #8", "smlad {aa}, {p}, {t}, {aa}", "smlad {ba}, {q}, {t}, {ba}", "sxtb16 {t}, {wb}, ror #8", "smlad {ab}, {p}, {t}, {ab}", "smlad {bb}, {q}, {t}, {bb}", "5:", "ldr {p}, [{x}], #16", "ldr {q}, [{x}, #-8]", "ldr {wa}, [{fa}], #4", "ldr {wb}, [{fb}], #4", "sxtb16 {t}, {wa}", "smlad {aa}, {p}, {t}, {aa}", "smlad {ba}, {q}, {t}, {ba}", "sxtb16 {t}, {wb}", "smlad {ab}, {p}, {t}, {ab}", "smlad {bb}, {q}, {t}, {bb}", "ldr {p}, [{x}, #-12]", "ldr {q}, [{x}, #-4]", "sxtb16 {t}, {wa}, ror #8", "smlad {aa}, {p}, {t}, {aa}", "smlad {ba}, {q}, {t}, {ba}", "sxtb16 {t}, {wb}, ror #8", "smlad {ab}, {p}, {t}, {ab}", "smlad {bb}, {q}, {t}, {bb}", "ldr {p}, [sp]", "cmp {x}, {p}", "bne 2b", "ldr {p}, [sp, #8]", "ldr {x}, [sp, #20]", "ldr {wa}, [{x}], #4", "ldr {wb}, [{x}], #4", "ldr {q}, [sp, #36]", "add {fa}, {fa}, {p}", "mvn {wb}, {wb}", "lsl {t}, {q}, {wb}", "asr {t}, {t}, #1", "and {p}, {aa}, #0x80000000", "orr {p}, {p}, #0x40000000", "add {fb}, {t}, {aa}, asr #31", "smlal {p}, {fb}, {aa}, {wa}", "asr {fb}, {fb}, {wb}", "ssat {aa}, #8, {fb}", "and {p}, {ba}, #0x80000000", "orr {p}, {p}, #0x40000000", "add {fb}, {t}, {ba}, asr #31", "smlal {p}, {fb}, {ba}, {wa}", "asr {fb}, {fb}, {wb}", "ssat {ba}, #8, {fb}", "ldr {wa}, [{x}], #4", "ldr {wb}, [{x}], #4", "str {x}, [sp, #20]", "mvn {wb}, {wb}", "lsl {t}, {q}, {wb}", "asr {t}, {t}, #1", "and {p}, {ab}, #0x80000000", "orr {p}, {p}, #0x40000000", "add {fb}, {t}, {ab}, asr #31", "smlal {p}, {fb}, {ab}, {wa}", "asr {fb}, {fb}, {wb}", "ssat {ab}, #8, {fb}", "and {p}, {bb}, #0x80000000", "orr {p}, {p}, #0x40000000", "add {fb}, {t}, {bb}, asr #31", "smlal {p}, {fb}, {bb}, {wa}", "asr {fb}, {fb}, {wb}", "ssat {bb}, #8, {fb}", "ldr {x}, [sp, #24]", "strb {aa}, [{x}], #1", "strb {ab}, [{x}], #1", "str {x}, [sp, #24]", "ldr {x}, [sp, #28]", "strb {ba}, [{x}], #1", "strb {bb}, [{x}], #1", "str {x}, [sp, #28]", "ldr {p}, [sp, #32]", "cmp {x}, {p}", "bne 1b", "add sp, sp, #48", aa = inout(reg) x.as_ptr().wrapping_add(groups) => _, ab = inout(reg) x.as_ptr() => _, ba = inout(reg) step => _, bb = inout(reg) window => _, x = inout(reg) run.bias.as_ptr() => _, fb = inout(reg) run.requant.as_ptr() => _, t = inout(reg) ya.as_mut_ptr() => _, p = inout(reg) yb.as_mut_ptr() => _, q = inout(reg) n => _, wa = inout(reg) run.o2 => _, fa = inout(reg) run.filter.as_ptr() => _, wb = out(reg) _)
    };
    n
}

/// Two pixels' words `a` and `b` (four int8 values each) widened into the groups of `buf`,
/// `x + offset` as halfwords (`off`: the offset in both): group `k` is `[SXTAB16(a[k]),
/// SXTAB16(a[k] ror 8), SXTAB16(b[k]), SXTAB16(b[k] ror 8)]` (the window kernel's layout, the
/// first pixel in lanes 0 and 1), for as many groups as all three hold.
#[cfg(not(stowplan_dsp))]
#[inline(always)]
pub(crate) fn widen_words_2(buf: &mut [[u32; 4]], a: &[[i8; 4]], b: &[[i8; 4]], off: u32) {
    for (group, (wa, wb)) in buf.iter_mut().zip(a.iter().zip(b)) {
        let (wa, wb) = (word(wa), word(wb));
        *group = [
            sxtab16(off, wa),
            sxtab16_ror8(off, wa),
            sxtab16(off, wb),
            sxtab16_ror8(off, wb),
        ];
    }
}

/// [`widen_words_2`] (see the portable twin) as one `asm!` loop of 12 instructions a group,
/// the two loads and the four stores each back to back: the compiler's loop spread them (each
/// load then two estimated cycles, an address computed between the stores), about 21
/// estimated cycles a group against 16.
#[cfg(stowplan_dsp)]
#[inline(always)]
pub(crate) fn widen_words_2(buf: &mut [[u32; 4]], a: &[[i8; 4]], b: &[[i8; 4]], off: u32) {
    let n = buf.len().min(a.len()).min(b.len());
    if n == 0 {
        return;
    }
    // SAFETY: the loop runs `n >= 1` times (counted down to 0 by `SUBS`/`BNE`), each time
    // reading one word of `a` and one of `b` (`LDR`, the pointers moved 4 bytes) and writing
    // the four words of one group of `buf` (`STR`, its pointer moved 16 bytes): `n` words and
    // groups, which all three slices hold (`n` is the least of their lengths); `buf` is an
    // exclusive borrow, `a` and `b` are not written. The loads may be unaligned, which
    // Armv7-M's `LDR` allows; the stores are to `[u32; 4]`s, aligned. It uses no stack and
    // writes only the registers named here (the pointers and the count are declared
    // clobbered) and the flags: `SUBS` the N, Z, C and V flags that `BNE` reads.
    unsafe {
        asm!("2:", "ldr {x}, [{pa}], #4", "ldr {y}, [{pb}], #4", "sxtab16 {u}, {off}, {x}", "sxtab16 {x}, {off}, {x}, ror #8", "sxtab16 {v}, {off}, {y}", "sxtab16 {y}, {off}, {y}, ror #8", "str {u}, [{q}], #16", "str {x}, [{q}, #-12]", "str {v}, [{q}, #-8]", "str {y}, [{q}, #-4]", "subs {n}, {n}, #1", "bne 2b", pa = inout(reg) a.as_ptr() => _, pb = inout(reg) b.as_ptr() => _, q = inout(reg) buf.as_mut_ptr() => _, n = inout(reg) n => _, off = in(reg) off, x = out(reg) _, y = out(reg) _, u = out(reg) _, v = out(reg) _, options(nostack))
    };
}

/// `acc` plus the sums `[x.fa, x.fb]` of one input run against two filter runs, words of four
/// int8 values each, over their common length: `sum(f * (x + offset))` (`off`: the offset in
/// both halfwords), each modulo 2^32. Per word the input widened once (`SXTAB16`) for both
/// filters, each filter word widened (`SXTB16`), four `SMLAD`s.
#[cfg(not(stowplan_dsp))]
#[inline(always)]
pub(crate) fn smlad_1x2_words(
    x: &[[i8; 4]],
    fa: &[[i8; 4]],
    fb: &[[i8; 4]],
    off: u32,
    acc: [i32; 2],
) -> [i32; 2] {
    let [mut a0, mut a1] = acc;
    for ((x, wa), wb) in x.iter().zip(fa).zip(fb) {
        let (x, wa, wb) = (word(x), word(wa), word(wb));
        let (x02, x13) = (sxtab16(off, x), sxtab16_ror8(off, x));
        a0 = smlad(x13, sxtb16_ror8(wa), smlad(x02, sxtb16(wa), a0));
        a1 = smlad(x13, sxtb16_ror8(wb), smlad(x02, sxtb16(wb), a1));
    }
    [a0, a1]
}

/// [`smlad_1x2_words`] (see the portable twin) as one loop of 28 instructions per two words (an
/// odd last word after it), the three words of a step loaded back to back: the compiler's loop
/// spread the loads (each then two estimated cycles) and took a branch per word.
#[cfg(stowplan_dsp)]
#[inline(always)]
pub(crate) fn smlad_1x2_words(
    x: &[[i8; 4]],
    fa: &[[i8; 4]],
    fb: &[[i8; 4]],
    off: u32,
    acc: [i32; 2],
) -> [i32; 2] {
    let n = x.len().min(fa.len()).min(fb.len());
    let [mut a0, mut a1] = acc;
    let (pairs, done) = (n / 2, n & !1);
    if pairs > 0 {
        // SAFETY: the loop runs `pairs` times (`pairs >= 1`, counted down to 0 by `SUBS`/`BNE`),
        // each time reading two words of `x`, `fa` and `fb` (`LDR` with the pointer moved 4 bytes
        // each time): `2 * pairs <= n` words of each, which all three slices hold. The loads may
        // be unaligned, which Armv7-M's `LDR` allows (the kernels' other int8 word loads read
        // the same way). It writes no memory (`readonly`), uses no stack, and writes only the
        // registers named here (the pointers and count are declared clobbered) and the flags:
        // `SUBS` the N, Z, C and V flags that `BNE` reads, `SMLAD` the Q flag, which nothing
        // reads.
        unsafe {
            asm!("2:", "ldr {t0}, [{x}], #4", "ldr {t2}, [{fa}], #4", "ldr {t3}, [{fb}], #4", "sxtab16 {t1}, {off}, {t0}, ror #8", "sxtab16 {t0}, {off}, {t0}", "sxtb16 {t4}, {t2}", "smlad {a0}, {t0}, {t4}, {a0}", "sxtb16 {t2}, {t2}, ror #8", "smlad {a0}, {t1}, {t2}, {a0}", "sxtb16 {t4}, {t3}", "smlad {a1}, {t0}, {t4}, {a1}", "sxtb16 {t3}, {t3}, ror #8", "smlad {a1}, {t1}, {t3}, {a1}", "ldr {t0}, [{x}], #4", "ldr {t2}, [{fa}], #4", "ldr {t3}, [{fb}], #4", "sxtab16 {t1}, {off}, {t0}, ror #8", "sxtab16 {t0}, {off}, {t0}", "sxtb16 {t4}, {t2}", "smlad {a0}, {t0}, {t4}, {a0}", "sxtb16 {t2}, {t2}, ror #8", "smlad {a0}, {t1}, {t2}, {a0}", "sxtb16 {t4}, {t3}", "smlad {a1}, {t0}, {t4}, {a1}", "sxtb16 {t3}, {t3}, ror #8", "smlad {a1}, {t1}, {t3}, {a1}", "subs {n}, {n}, #1", "bne 2b", a0 = inout(reg) a0, a1 = inout(reg) a1, x = inout(reg) x.as_ptr() => _, fa = inout(reg) fa.as_ptr() => _, fb = inout(reg) fb.as_ptr() => _, n = inout(reg) pairs => _, off = in(reg) off, t0 = out(reg) _, t1 = out(reg) _, t2 = out(reg) _, t3 = out(reg) _, t4 = out(reg) _, options(readonly, nostack))
        };
    }
    if n % 2 == 1 {
        // SAFETY: one word of each slice, the last (`done = n - 1 < n`: the pointers `done`
        // words in are in bounds), read as one step of the loop above; the same registers, no
        // memory written, no stack, and the Q flag (`SMLAD`), which nothing reads.
        unsafe {
            asm!("ldr {t0}, [{x}], #4", "ldr {t2}, [{fa}], #4", "ldr {t3}, [{fb}], #4", "sxtab16 {t1}, {off}, {t0}, ror #8", "sxtab16 {t0}, {off}, {t0}", "sxtb16 {t4}, {t2}", "smlad {a0}, {t0}, {t4}, {a0}", "sxtb16 {t2}, {t2}, ror #8", "smlad {a0}, {t1}, {t2}, {a0}", "sxtb16 {t4}, {t3}", "smlad {a1}, {t0}, {t4}, {a1}", "sxtb16 {t3}, {t3}, ror #8", "smlad {a1}, {t1}, {t3}, {a1}", a0 = inout(reg) a0, a1 = inout(reg) a1, x = inout(reg) x.as_ptr().wrapping_add(done) => _, fa = inout(reg) fa.as_ptr().wrapping_add(done) => _, fb = inout(reg) fb.as_ptr().wrapping_add(done) => _, off = in(reg) off, t0 = out(reg) _, t1 = out(reg) _, t2 = out(reg) _, t3 = out(reg) _, t4 = out(reg) _, options(readonly, nostack))
        };
    }
    [a0, a1]
}

/// Whether [`smlad_1x3_words`] runs: `words` input words, three filter rows `depth` values
/// apart in a slice of `len` values, each row holding the `4 * words` values read.
#[inline(always)]
pub(crate) fn rows3_fit(words: usize, len: usize, depth: usize) -> bool {
    match (words.checked_mul(4), depth.checked_mul(2)) {
        (Some(n), Some(two)) => n <= depth && two.checked_add(n).is_some_and(|end| end <= len),
        _ => false,
    }
}

/// `acc` plus the sums `[x.f0, x.f1, x.f2]` of one input run of words against three filter
/// rows `depth` values apart in `f` (row `r` starts at `f[r * depth]`): `sum(f * (x + offset))`
/// over the `x.len()` words (`off`: the offset in both halfwords), each modulo 2^32. Per word the
/// input widened once (`SXTAB16`) for the three rows, each row's word widened (`SXTB16`), six
/// `SMLAD`s. `acc` unchanged unless every row holds the words read (`4 * x.len() <= depth`, `f`
/// at least `2 * depth + 4 * x.len()` long).
#[cfg(not(stowplan_dsp))]
#[inline(always)]
pub(crate) fn smlad_1x3_words(
    x: &[[i8; 4]],
    f: &[i8],
    depth: usize,
    off: u32,
    acc: [i32; 3],
) -> [i32; 3] {
    if !rows3_fit(x.len(), f.len(), depth) {
        return acc;
    }
    let [mut a0, mut a1, mut a2] = acc;
    for (k, x) in x.iter().enumerate() {
        let at = |r: usize| {
            word(
                f.get(r * depth + 4 * k..r * depth + 4 * k + 4)
                    .unwrap_or(&[]),
            )
        };
        let x = word(x);
        let (x02, x13) = (sxtab16(off, x), sxtab16_ror8(off, x));
        let (w0, w1, w2) = (at(0), at(1), at(2));
        a0 = smlad(x13, sxtb16_ror8(w0), smlad(x02, sxtb16(w0), a0));
        a1 = smlad(x13, sxtb16_ror8(w1), smlad(x02, sxtb16(w1), a1));
        a2 = smlad(x13, sxtb16_ror8(w2), smlad(x02, sxtb16(w2), a2));
    }
    [a0, a1, a2]
}

/// [`smlad_1x3_words`] (see the portable twin) as one loop of 38 instructions per two words (an
/// odd last word after it): one filter pointer, the second and third rows at register offsets
/// `depth` and `2 * depth` from it (`[f, s]`, `[f, s, lsl #1]`), so that the three rows, the
/// input and the count fit the registers; the input's load and the second row's back to back.
#[cfg(stowplan_dsp)]
#[inline(always)]
pub(crate) fn smlad_1x3_words(
    x: &[[i8; 4]],
    f: &[i8],
    depth: usize,
    off: u32,
    acc: [i32; 3],
) -> [i32; 3] {
    if !rows3_fit(x.len(), f.len(), depth) {
        return acc;
    }
    let n = x.len();
    let [mut a0, mut a1, mut a2] = acc;
    let (pairs, done) = (n / 2, n & !1);
    if pairs > 0 {
        // SAFETY: the loop runs `pairs` times (`pairs >= 1`, counted down to 0 by `SUBS`/`BNE`),
        // each time reading two words of `x` and, at the filter pointer `f + 4 k` (moved 4 bytes
        // a word), the words at `f + 4 k`, `f + depth + 4 k` and `f + 2 depth + 4 k`, for
        // `k < 2 * pairs <= n`: `x` holds `n` words, and `rows3_fit` checked `4 n <= depth` and
        // `2 depth + 4 n <= f.len()`, so every byte read is in `f` (the shifted register offset
        // `2 depth` does not wrap: `2 depth` fits a usize, checked there too). The loads may be
        // unaligned, which Armv7-M's `LDR` allows. It writes no memory (`readonly`), uses no
        // stack, and writes only the registers named here (the pointers and count are declared
        // clobbered) and the flags: `SUBS` the N, Z, C and V flags that `BNE` reads, `SMLAD` the
        // Q flag, which nothing reads.
        unsafe {
            asm!("2:", "ldr {t0}, [{x}], #4", "ldr {t2}, [{f}, {s}]", "sxtab16 {t1}, {off}, {t0}, ror #8", "sxtab16 {t0}, {off}, {t0}", "sxtb16 {t3}, {t2}", "smlad {a1}, {t0}, {t3}, {a1}", "sxtb16 {t2}, {t2}, ror #8", "smlad {a1}, {t1}, {t2}, {a1}", "ldr {t2}, [{f}, {s}, lsl #1]", "sxtb16 {t3}, {t2}", "smlad {a2}, {t0}, {t3}, {a2}", "sxtb16 {t2}, {t2}, ror #8", "smlad {a2}, {t1}, {t2}, {a2}", "ldr {t2}, [{f}], #4", "sxtb16 {t3}, {t2}", "smlad {a0}, {t0}, {t3}, {a0}", "sxtb16 {t2}, {t2}, ror #8", "smlad {a0}, {t1}, {t2}, {a0}", "ldr {t0}, [{x}], #4", "ldr {t2}, [{f}, {s}]", "sxtab16 {t1}, {off}, {t0}, ror #8", "sxtab16 {t0}, {off}, {t0}", "sxtb16 {t3}, {t2}", "smlad {a1}, {t0}, {t3}, {a1}", "sxtb16 {t2}, {t2}, ror #8", "smlad {a1}, {t1}, {t2}, {a1}", "ldr {t2}, [{f}, {s}, lsl #1]", "sxtb16 {t3}, {t2}", "smlad {a2}, {t0}, {t3}, {a2}", "sxtb16 {t2}, {t2}, ror #8", "smlad {a2}, {t1}, {t2}, {a2}", "ldr {t2}, [{f}], #4", "sxtb16 {t3}, {t2}", "smlad {a0}, {t0}, {t3}, {a0}", "sxtb16 {t2}, {t2}, ror #8", "smlad {a0}, {t1}, {t2}, {a0}", "subs {n}, {n}, #1", "bne 2b", a0 = inout(reg) a0, a1 = inout(reg) a1, a2 = inout(reg) a2, x = inout(reg) x.as_ptr() => _, f = inout(reg) f.as_ptr() => _, s = in(reg) depth, n = inout(reg) pairs => _, off = in(reg) off, t0 = out(reg) _, t1 = out(reg) _, t2 = out(reg) _, t3 = out(reg) _, options(readonly, nostack))
        };
    }
    if n % 2 == 1 {
        // SAFETY: one word, the last (`done = n - 1 < n`: the input pointer `done` words in and
        // the filter pointer `4 done` bytes in are in bounds, by `rows3_fit` as above), read as
        // one step of the loop above; the same registers, no memory written, no stack, and the
        // Q flag (`SMLAD`), which nothing reads.
        unsafe {
            asm!("ldr {t0}, [{x}]", "ldr {t2}, [{f}, {s}]", "sxtab16 {t1}, {off}, {t0}, ror #8", "sxtab16 {t0}, {off}, {t0}", "sxtb16 {t3}, {t2}", "smlad {a1}, {t0}, {t3}, {a1}", "sxtb16 {t2}, {t2}, ror #8", "smlad {a1}, {t1}, {t2}, {a1}", "ldr {t2}, [{f}, {s}, lsl #1]", "sxtb16 {t3}, {t2}", "smlad {a2}, {t0}, {t3}, {a2}", "sxtb16 {t2}, {t2}, ror #8", "smlad {a2}, {t1}, {t2}, {a2}", "ldr {t2}, [{f}]", "sxtb16 {t3}, {t2}", "smlad {a0}, {t0}, {t3}, {a0}", "sxtb16 {t2}, {t2}, ror #8", "smlad {a0}, {t1}, {t2}, {a0}", a0 = inout(reg) a0, a1 = inout(reg) a1, a2 = inout(reg) a2, x = in(reg) x.as_ptr().wrapping_add(done), f = in(reg) f.as_ptr().wrapping_add(4 * done), s = in(reg) depth, off = in(reg) off, t0 = out(reg) _, t1 = out(reg) _, t2 = out(reg) _, t3 = out(reg) _, options(readonly, nostack))
        };
    }
    [a0, a1, a2]
}

/// The sums of four FULLY_CONNECTED output channels over one input row of `x.len()` words,
/// `acc[r] + sum(f_r[4 k + j] x[k][j])` over its words `k` and their values `j`, modulo 2^32,
/// from a block of four filter rows interleaved by words (word `k` of row `r` is `f[4 k +
/// r]`, as `kernels::fully_connected_kernel::interleaved_word` lays it); `acc` unchanged if `f`
/// holds fewer than `4 x.len()` words. Per input word: its two halves widened once, the four
/// filter words loaded two at a time right after a load (so that each pair costs three cycles,
/// not four), eight `SMLAD`s; one `asm!` loop of four words an iteration, one of a word for the
/// rest.
#[cfg(stowplan_dsp)]
#[inline(always)]
pub(crate) fn smlad_4x1_interleaved(x: &[[i8; 4]], f: &[[i8; 4]], acc: [i32; 4]) -> [i32; 4] {
    let n = x.len();
    if n.checked_mul(4).is_none_or(|need| need > f.len()) {
        return acc;
    }
    let [mut a0, mut a1, mut a2, mut a3] = acc;
    let (mut xp, mut fp) = (x.as_ptr(), f.as_ptr());
    let (quads, rest) = (n / 4, n % 4);
    if quads > 0 {
        // SAFETY: the loop runs `quads >= 1` times (counted down to 0 by `SUBS`/`BNE`), each
        // time reading four words of `x` from `xp` and sixteen of `f` from `fp` (the pointers
        // moved past them by the loads' write-back): `4 quads <= n` words of `x` and `16 quads
        // <= 4 n <= f.len()` words of `f` (checked above). The loads may be unaligned, which
        // Armv7-M's `LDR` allows. It writes no memory (`readonly`), uses no stack, and
        // writes only the registers named here (the pointers come back updated, the count and
        // temporaries are declared clobbered) and the flags: `SUBS` the N, Z, C and V flags that
        // `BNE` reads, `SMLAD` the Q flag, which nothing reads.
        unsafe {
            let n = quads;
            asm!("2:", "ldr {xb}, [{x}], #4", "ldr {w0}, [{f}], #4", "ldr {w1}, [{f}], #4", "sxtb16 {xa}, {xb}", "sxtb16 {xb}, {xb}, ror #8", "sxtb16 {t}, {w0}", "smlad {a0}, {xa}, {t}, {a0}", "sxtb16 {w0}, {w0}, ror #8", "smlad {a0}, {xb}, {w0}, {a0}", "sxtb16 {t}, {w1}", "smlad {a1}, {xa}, {t}, {a1}", "sxtb16 {w1}, {w1}, ror #8", "smlad {a1}, {xb}, {w1}, {a1}", "ldr {w0}, [{f}], #4", "ldr {w1}, [{f}], #4", "sxtb16 {t}, {w0}", "smlad {a2}, {xa}, {t}, {a2}", "sxtb16 {w0}, {w0}, ror #8", "smlad {a2}, {xb}, {w0}, {a2}", "sxtb16 {t}, {w1}", "smlad {a3}, {xa}, {t}, {a3}", "sxtb16 {w1}, {w1}, ror #8", "smlad {a3}, {xb}, {w1}, {a3}", "ldr {xb}, [{x}], #4", "ldr {w0}, [{f}], #4", "ldr {w1}, [{f}], #4", "sxtb16 {xa}, {xb}", "sxtb16 {xb}, {xb}, ror #8", "sxtb16 {t}, {w0}", "smlad {a0}, {xa}, {t}, {a0}", "sxtb16 {w0}, {w0}, ror #8", "smlad {a0}, {xb}, {w0}, {a0}", "sxtb16 {t}, {w1}", "smlad {a1}, {xa}, {t}, {a1}", "sxtb16 {w1}, {w1}, ror #8", "smlad {a1}, {xb}, {w1}, {a1}", "ldr {w0}, [{f}], #4", "ldr {w1}, [{f}], #4", "sxtb16 {t}, {w0}", "smlad {a2}, {xa}, {t}, {a2}", "sxtb16 {w0}, {w0}, ror #8", "smlad {a2}, {xb}, {w0}, {a2}", "sxtb16 {t}, {w1}", "smlad {a3}, {xa}, {t}, {a3}", "sxtb16 {w1}, {w1}, ror #8", "smlad {a3}, {xb}, {w1}, {a3}", "ldr {xb}, [{x}], #4", "ldr {w0}, [{f}], #4", "ldr {w1}, [{f}], #4", "sxtb16 {xa}, {xb}", "sxtb16 {xb}, {xb}, ror #8", "sxtb16 {t}, {w0}", "smlad {a0}, {xa}, {t}, {a0}", "sxtb16 {w0}, {w0}, ror #8", "smlad {a0}, {xb}, {w0}, {a0}", "sxtb16 {t}, {w1}", "smlad {a1}, {xa}, {t}, {a1}", "sxtb16 {w1}, {w1}, ror #8", "smlad {a1}, {xb}, {w1}, {a1}", "ldr {w0}, [{f}], #4", "ldr {w1}, [{f}], #4", "sxtb16 {t}, {w0}", "smlad {a2}, {xa}, {t}, {a2}", "sxtb16 {w0}, {w0}, ror #8", "smlad {a2}, {xb}, {w0}, {a2}", "sxtb16 {t}, {w1}", "smlad {a3}, {xa}, {t}, {a3}", "sxtb16 {w1}, {w1}, ror #8", "smlad {a3}, {xb}, {w1}, {a3}", "ldr {xb}, [{x}], #4", "ldr {w0}, [{f}], #4", "ldr {w1}, [{f}], #4", "sxtb16 {xa}, {xb}", "sxtb16 {xb}, {xb}, ror #8", "sxtb16 {t}, {w0}", "smlad {a0}, {xa}, {t}, {a0}", "sxtb16 {w0}, {w0}, ror #8", "smlad {a0}, {xb}, {w0}, {a0}", "sxtb16 {t}, {w1}", "smlad {a1}, {xa}, {t}, {a1}", "sxtb16 {w1}, {w1}, ror #8", "smlad {a1}, {xb}, {w1}, {a1}", "ldr {w0}, [{f}], #4", "ldr {w1}, [{f}], #4", "sxtb16 {t}, {w0}", "smlad {a2}, {xa}, {t}, {a2}", "sxtb16 {w0}, {w0}, ror #8", "smlad {a2}, {xb}, {w0}, {a2}", "sxtb16 {t}, {w1}", "smlad {a3}, {xa}, {t}, {a3}", "sxtb16 {w1}, {w1}, ror #8", "smlad {a3}, {xb}, {w1}, {a3}", "subs {n}, {n}, #1", "bne 2b", a0 = inout(reg) a0, a1 = inout(reg) a1, a2 = inout(reg) a2, a3 = inout(reg) a3, x = inout(reg) xp, f = inout(reg) fp, n = inout(reg) n => _, xa = out(reg) _, xb = out(reg) _, w0 = out(reg) _, w1 = out(reg) _, t = out(reg) _, options(readonly, nostack))
        };
    }
    if rest > 0 {
        // SAFETY: as above for the `rest < 4` words after the first `4 quads` (the pointers
        // where the first loop left them): `4 quads + rest == n` words of `x`, `4 n` of `f`.
        unsafe {
            let n = rest;
            asm!("2:", "ldr {xb}, [{x}], #4", "ldr {w0}, [{f}], #4", "ldr {w1}, [{f}], #4", "sxtb16 {xa}, {xb}", "sxtb16 {xb}, {xb}, ror #8", "sxtb16 {t}, {w0}", "smlad {a0}, {xa}, {t}, {a0}", "sxtb16 {w0}, {w0}, ror #8", "smlad {a0}, {xb}, {w0}, {a0}", "sxtb16 {t}, {w1}", "smlad {a1}, {xa}, {t}, {a1}", "sxtb16 {w1}, {w1}, ror #8", "smlad {a1}, {xb}, {w1}, {a1}", "ldr {w0}, [{f}], #4", "ldr {w1}, [{f}], #4", "sxtb16 {t}, {w0}", "smlad {a2}, {xa}, {t}, {a2}", "sxtb16 {w0}, {w0}, ror #8", "smlad {a2}, {xb}, {w0}, {a2}", "sxtb16 {t}, {w1}", "smlad {a3}, {xa}, {t}, {a3}", "sxtb16 {w1}, {w1}, ror #8", "smlad {a3}, {xb}, {w1}, {a3}", "subs {n}, {n}, #1", "bne 2b", a0 = inout(reg) a0, a1 = inout(reg) a1, a2 = inout(reg) a2, a3 = inout(reg) a3, x = inout(reg) xp => _, f = inout(reg) fp => _, n = inout(reg) n => _, xa = out(reg) _, xb = out(reg) _, w0 = out(reg) _, w1 = out(reg) _, t = out(reg) _, options(readonly, nostack))
        };
    }
    [a0, a1, a2, a3]
}

/// The output blocks of one FULLY_CONNECTED input row (`out.len()` blocks of four channels, each
/// with the filter block of [`smlad_4x1_interleaved`] after the one before) in the folded
/// epilogue: block `b`'s sums start at `bias[4 b..4 b + 4]`, run [`smlad_4x1_interleaved`]'s
/// loops, then [`requant_folded`] with each channel's multiplier and shift (`requant[0]`'s for
/// every channel when it holds one) and `o2`, written as one word. Returns whether it ran:
/// not if the row is empty or a slice is shorter than the blocks need. The caller holds
/// [`requant_folded`]'s conditions (multipliers `>= 0`, right shifts of 2 to 23).
#[cfg(stowplan_dsp)]
#[inline(always)]
pub(crate) fn interleaved_folded(
    x: &[[i8; 4]],
    f: &[[i8; 4]],
    (requant, bias, o2): (&[crate::requant_pair::Requant], &[i32], i32),
    out: &mut [[i8; 4]],
) -> bool {
    let (n, blocks) = (x.len(), out.len());
    let filter = n.checked_mul(16).and_then(|w| w.checked_mul(blocks));
    let channels = blocks.checked_mul(4);
    let fits = n > 0
        && blocks > 0
        && filter.is_some_and(|need| need / 4 <= f.len())
        && channels.is_some_and(|c| c <= bias.len() && (requant.len() == 1 || c <= requant.len()));
    if !fits {
        return false;
    }
    // Bytes from a channel's multiplier and shift to the next channel's (none for the tensor's).
    let step: usize = if requant.len() > 1 { 8 } else { 0 };
    let (quads, rest) = (n / 4, n % 4);
    // SAFETY: the block runs `blocks >= 1` blocks (the output pointer moves 4 bytes a block from
    // `out` to `out + blocks` words, compared after each). Block `b` reads the `n` words of `x`
    // (`quads` loops of four, then `rest` of one: `4 quads + rest == n`), the `4 n` filter words
    // after the previous block's (the filter pointer kept in the frame where the loops left it:
    // `4 n blocks <= f.len()` words, checked), the biases `4 b..4 b + 4` (`4 blocks <=
    // bias.len()`), the multipliers and shifts of channels `4 b..4 b + 4` (`Requant` is
    // `repr(C)`, two `i32`s: 32 bytes a block) or of the one constant again and again (`step`
    // 0), inside `requant` (one constant, or at least `4 blocks`), and writes the word
    // `out[b]`: no other memory of a Rust object is written. The loads and the store may be
    // unaligned, which Armv7-M's `LDR` and `STR` allow. The frame is the block's own: the stack
    // pointer moves down 40 bytes (it stays 8-byte aligned) before it is written and back before
    // the block ends. Every input is stored in the frame before any output register is written
    // (the outputs are `lateout` and may share the inputs' registers); it writes only the
    // registers named here and the flags: `CMP` and `SUBS` the N, Z, C and V flags that the
    // `BEQ`s and `BNE`s read, `SMLAD` and `SSAT` the Q flag, which nothing reads.
    unsafe {
        asm!("sub sp, sp, #40", "str {x0}, [sp]", "str {q0}, [sp, #4]", "str {r0}, [sp, #8]", "str {f0}, [sp, #12]", "str {bp}, [sp, #16]", "str {rp}, [sp, #20]", "str {rs}, [sp, #24]", "str {op}, [sp, #28]", "str {oe}, [sp, #32]", "str {o2}, [sp, #36]", "2:", "ldr {t}, [sp, #16]", "ldr {a0}, [{t}]", "ldr {a1}, [{t}, #4]", "ldr {a2}, [{t}, #8]", "ldr {a3}, [{t}, #12]", "add {t}, {t}, #16", "str {t}, [sp, #16]", "ldr {x}, [sp]", "ldr {f}, [sp, #12]", "ldr {n}, [sp, #4]", "cmp {n}, #0", "beq 3f", "5:", "ldr {xb}, [{x}], #4", "ldr {w0}, [{f}], #4", "ldr {w1}, [{f}], #4", "sxtb16 {xa}, {xb}", "sxtb16 {xb}, {xb}, ror #8", "sxtb16 {t}, {w0}", "smlad {a0}, {xa}, {t}, {a0}", "sxtb16 {w0}, {w0}, ror #8", "smlad {a0}, {xb}, {w0}, {a0}", "sxtb16 {t}, {w1}", "smlad {a1}, {xa}, {t}, {a1}", "sxtb16 {w1}, {w1}, ror #8", "smlad {a1}, {xb}, {w1}, {a1}", "ldr {w0}, [{f}], #4", "ldr {w1}, [{f}], #4", "sxtb16 {t}, {w0}", "smlad {a2}, {xa}, {t}, {a2}", "sxtb16 {w0}, {w0}, ror #8", "smlad {a2}, {xb}, {w0}, {a2}", "sxtb16 {t}, {w1}", "smlad {a3}, {xa}, {t}, {a3}", "sxtb16 {w1}, {w1}, ror #8", "smlad {a3}, {xb}, {w1}, {a3}", "ldr {xb}, [{x}], #4", "ldr {w0}, [{f}], #4", "ldr {w1}, [{f}], #4", "sxtb16 {xa}, {xb}", "sxtb16 {xb}, {xb}, ror #8", "sxtb16 {t}, {w0}", "smlad {a0}, {xa}, {t}, {a0}", "sxtb16 {w0}, {w0}, ror #8", "smlad {a0}, {xb}, {w0}, {a0}", "sxtb16 {t}, {w1}", "smlad {a1}, {xa}, {t}, {a1}", "sxtb16 {w1}, {w1}, ror #8", "smlad {a1}, {xb}, {w1}, {a1}", "ldr {w0}, [{f}], #4", "ldr {w1}, [{f}], #4", "sxtb16 {t}, {w0}", "smlad {a2}, {xa}, {t}, {a2}", "sxtb16 {w0}, {w0}, ror #8", "smlad {a2}, {xb}, {w0}, {a2}", "sxtb16 {t}, {w1}", "smlad {a3}, {xa}, {t}, {a3}", "sxtb16 {w1}, {w1}, ror #8", "smlad {a3}, {xb}, {w1}, {a3}", "ldr {xb}, [{x}], #4", "ldr {w0}, [{f}], #4", "ldr {w1}, [{f}], #4", "sxtb16 {xa}, {xb}", "sxtb16 {xb}, {xb}, ror #8", "sxtb16 {t}, {w0}", "smlad {a0}, {xa}, {t}, {a0}", "sxtb16 {w0}, {w0}, ror #8", "smlad {a0}, {xb}, {w0}, {a0}", "sxtb16 {t}, {w1}", "smlad {a1}, {xa}, {t}, {a1}", "sxtb16 {w1}, {w1}, ror #8", "smlad {a1}, {xb}, {w1}, {a1}", "ldr {w0}, [{f}], #4", "ldr {w1}, [{f}], #4", "sxtb16 {t}, {w0}", "smlad {a2}, {xa}, {t}, {a2}", "sxtb16 {w0}, {w0}, ror #8", "smlad {a2}, {xb}, {w0}, {a2}", "sxtb16 {t}, {w1}", "smlad {a3}, {xa}, {t}, {a3}", "sxtb16 {w1}, {w1}, ror #8", "smlad {a3}, {xb}, {w1}, {a3}", "ldr {xb}, [{x}], #4", "ldr {w0}, [{f}], #4", "ldr {w1}, [{f}], #4", "sxtb16 {xa}, {xb}", "sxtb16 {xb}, {xb}, ror #8", "sxtb16 {t}, {w0}", "smlad {a0}, {xa}, {t}, {a0}", "sxtb16 {w0}, {w0}, ror #8", "smlad {a0}, {xb}, {w0}, {a0}", "sxtb16 {t}, {w1}", "smlad {a1}, {xa}, {t}, {a1}", "sxtb16 {w1}, {w1}, ror #8", "smlad {a1}, {xb}, {w1}, {a1}", "ldr {w0}, [{f}], #4", "ldr {w1}, [{f}], #4", "sxtb16 {t}, {w0}", "smlad {a2}, {xa}, {t}, {a2}", "sxtb16 {w0}, {w0}, ror #8", "smlad {a2}, {xb}, {w0}, {a2}", "sxtb16 {t}, {w1}", "smlad {a3}, {xa}, {t}, {a3}", "sxtb16 {w1}, {w1}, ror #8", "smlad {a3}, {xb}, {w1}, {a3}", "subs {n}, {n}, #1", "bne 5b", "3:", "ldr {n}, [sp, #8]", "cmp {n}, #0", "beq 4f", "6:", "ldr {xb}, [{x}], #4", "ldr {w0}, [{f}], #4", "ldr {w1}, [{f}], #4", "sxtb16 {xa}, {xb}", "sxtb16 {xb}, {xb}, ror #8", "sxtb16 {t}, {w0}", "smlad {a0}, {xa}, {t}, {a0}", "sxtb16 {w0}, {w0}, ror #8", "smlad {a0}, {xb}, {w0}, {a0}", "sxtb16 {t}, {w1}", "smlad {a1}, {xa}, {t}, {a1}", "sxtb16 {w1}, {w1}, ror #8", "smlad {a1}, {xb}, {w1}, {a1}", "ldr {w0}, [{f}], #4", "ldr {w1}, [{f}], #4", "sxtb16 {t}, {w0}", "smlad {a2}, {xa}, {t}, {a2}", "sxtb16 {w0}, {w0}, ror #8", "smlad {a2}, {xb}, {w0}, {a2}", "sxtb16 {t}, {w1}", "smlad {a3}, {xa}, {t}, {a3}", "sxtb16 {w1}, {w1}, ror #8", "smlad {a3}, {xb}, {w1}, {a3}", "subs {n}, {n}, #1", "bne 6b", "4:", "str {f}, [sp, #12]", "ldr {x}, [sp, #20]", "ldr {f}, [sp, #24]", "ldr {n}, [sp, #36]", "ldr {w0}, [{x}]", "ldr {w1}, [{x}, #4]", "add {x}, {x}, {f}", "mvn {w1}, {w1}", "lsl {xa}, {n}, {w1}", "asr {xa}, {xa}, #1", "and {xb}, {a0}, #0x80000000", "orr {xb}, {xb}, #0x40000000", "add {t}, {xa}, {a0}, asr #31", "smlal {xb}, {t}, {a0}, {w0}", "asr {t}, {t}, {w1}", "ssat {a0}, #8, {t}", "ldr {w0}, [{x}]", "ldr {w1}, [{x}, #4]", "add {x}, {x}, {f}", "mvn {w1}, {w1}", "lsl {xa}, {n}, {w1}", "asr {xa}, {xa}, #1", "and {xb}, {a1}, #0x80000000", "orr {xb}, {xb}, #0x40000000", "add {t}, {xa}, {a1}, asr #31", "smlal {xb}, {t}, {a1}, {w0}", "asr {t}, {t}, {w1}", "ssat {a1}, #8, {t}", "ldr {w0}, [{x}]", "ldr {w1}, [{x}, #4]", "add {x}, {x}, {f}", "mvn {w1}, {w1}", "lsl {xa}, {n}, {w1}", "asr {xa}, {xa}, #1", "and {xb}, {a2}, #0x80000000", "orr {xb}, {xb}, #0x40000000", "add {t}, {xa}, {a2}, asr #31", "smlal {xb}, {t}, {a2}, {w0}", "asr {t}, {t}, {w1}", "ssat {a2}, #8, {t}", "ldr {w0}, [{x}]", "ldr {w1}, [{x}, #4]", "add {x}, {x}, {f}", "mvn {w1}, {w1}", "lsl {xa}, {n}, {w1}", "asr {xa}, {xa}, #1", "and {xb}, {a3}, #0x80000000", "orr {xb}, {xb}, #0x40000000", "add {t}, {xa}, {a3}, asr #31", "smlal {xb}, {t}, {a3}, {w0}", "asr {t}, {t}, {w1}", "ssat {a3}, #8, {t}", "str {x}, [sp, #20]", "bfi {a0}, {a1}, #8, #8", "bfi {a0}, {a2}, #16, #8", "bfi {a0}, {a3}, #24, #8", "ldr {t}, [sp, #28]", "str {a0}, [{t}], #4", "str {t}, [sp, #28]", "ldr {xa}, [sp, #32]", "cmp {t}, {xa}", "bne 2b", "add sp, sp, #40", x0 = in(reg) x.as_ptr(), q0 = in(reg) quads, r0 = in(reg) rest, f0 = in(reg) f.as_ptr(), bp = in(reg) bias.as_ptr(), rp = in(reg) requant.as_ptr(), rs = in(reg) step, op = in(reg) out.as_mut_ptr(), oe = in(reg) out.as_mut_ptr().wrapping_add(blocks), o2 = in(reg) o2, x = lateout(reg) _, f = lateout(reg) _, n = lateout(reg) _, a0 = lateout(reg) _, a1 = lateout(reg) _, a2 = lateout(reg) _, a3 = lateout(reg) _, xa = lateout(reg) _, xb = lateout(reg) _, w0 = lateout(reg) _, w1 = lateout(reg) _, t = lateout(reg) _)
    };
    true
}

/// The sums of `n` windows of a 3 x 3 depthwise convolution (depth multiplier 1), each with
/// `ROWS` rows of `COLS` valid taps (2 or 3 each: the whole window, its edges' and its corners')
/// and `step` input words after the last: one call of `f(p * blocks + k, sums)` per window `p`
/// and block `k` of four channels, in order; or `false` (no call) for another shape or if a
/// slice is shorter than the windows. `x` starts at the first window's first valid input word
/// (block 0 of its top left tap): tap (`r`, `t`) of block `k` of window `p` is its word `p * step
/// + r * row + t * blocks + k`; `w` starts at that tap's first filter word: tap (`r`, `t`) of block `k` is its
/// word `(3 * r + t) * blocks + k`. `sums[c]` is `sum(w[c] * (x[c] + offset))` over the taps
/// (`off`: the offset in both halfwords), modulo 2^32.
#[cfg(not(stowplan_dsp))]
#[inline(always)]
pub(crate) fn depthwise_3x3<const ROWS: usize, const COLS: usize>(
    x: &[[i8; 4]],
    w: &[[i8; 4]],
    blocks: usize,
    row: usize,
    [n, step]: [usize; 2],
    off: u32,
    mut f: impl FnMut(usize, [i32; 4]),
) -> bool {
    if !window_3x3_fits(x.len(), w.len(), blocks, row, [ROWS, COLS], [n, step]) {
        return false;
    }
    for (pixel, k) in (0..n).flat_map(|p| (0..blocks).map(move |k| (p, k))) {
        let mut sums = [0_i32; 4];
        for (r, t) in (0..ROWS).flat_map(|r| (0..COLS).map(move |t| (r, t))) {
            let xi = pixel * step + r * row + t * blocks + k;
            let (Some(xw), Some(ww)) = (x.get(xi), w.get((3 * r + t) * blocks + k)) else {
                return false;
            };
            let (xw, ww) = (word(xw), word(ww));
            let (x02, x13) = (sxtab16(off, xw), sxtab16_ror8(off, xw));
            let (w02, w13) = (sxtb16(ww), sxtb16_ror8(ww));
            sums = [
                smlabb(x02, w02, sums[0]),
                smlabb(x13, w13, sums[1]),
                smlatt(x02, w02, sums[2]),
                smlatt(x13, w13, sums[3]),
            ];
        }
        f(pixel * blocks + k, sums);
    }
    true
}

/// The outputs of the channel triples of one FULLY_CONNECTED input row in the folded epilogue
/// (all of them: `out.len() / 3`, each with a filter row of `depth` values): channel `c`'s sum
/// `bias[c] + sum(f[c depth + k] (x[k] + offset))` (no bias: 0) over the row's `4 x.len() == depth` values
/// (`off`: the offset in both halfwords), then [`requant_folded`] with `requant[c]`'s
/// multiplier and shift (`requant[0]`'s for every channel when it holds one), written to
/// `out[c]`. Returns the triples written: none if a slice is shorter than they need, the row
/// is not whole words, or `requant` holds neither one constant nor one per channel.
#[cfg(not(stowplan_dsp))]
#[inline(always)]
pub(crate) fn rows3_folded(
    x: &[[i8; 4]],
    f: &[i8],
    depth: usize,
    off: u32,
    (requant, bias, o2): (&[crate::requant_pair::Requant], Option<&[i32]>, i32),
    out: &mut [i8],
) -> usize {
    let Some(triples) = rows3_folded_fit(
        x.len(),
        f.len(),
        depth,
        [
            requant.len(),
            bias.map_or(usize::MAX, <[i32]>::len),
            out.len(),
        ],
    ) else {
        return 0;
    };
    let per_channel = requant.len() > 1;
    for t in 0..triples {
        let c = 3 * t;
        let b = match bias.map(|b| b.get(c..c + 3)) {
            Some(Some(&[b0, b1, b2])) => [b0, b1, b2],
            Some(_) => return 0,
            None => [0; 3],
        };
        let Some(rows) = f.get(c * depth..) else {
            return 0;
        };
        let sums = smlad_1x3_words(x, rows, depth, off, b);
        for (j, &acc) in sums.iter().enumerate() {
            let r = requant[if per_channel { c + j } else { 0 }];
            if let Some(y) = out.get_mut(c + j) {
                *y = requant_folded(acc, r.multiplier, r.shift, o2);
            }
        }
    }
    triples
}

/// The triples [`rows3_folded`] writes (`None`: none) for `words` input words, a filter of `f`
/// values, rows of `depth`, and `requant`, `bias` and `out` of the lengths `lens`.
#[inline(always)]
fn rows3_folded_fit(
    words: usize,
    f: usize,
    depth: usize,
    [requant, bias, out]: [usize; 3],
) -> Option<usize> {
    let triples = out / 3;
    let channels = 3 * triples;
    let filter = channels.checked_mul(depth)?;
    let whole = words.checked_mul(4)? == depth && words > 0;
    let constants = requant == 1 || requant >= channels;
    let bytes = depth.checked_mul(3).is_some_and(|b| b <= i32::MAX as usize);
    (triples > 0 && whole && constants && bytes && bias >= channels && filter <= f)
        .then_some(triples)
}

/// [`rows3_folded`] (see the portable twin) as one `asm!` block: per triple its sums start at
/// the biases, run [`smlad_1x3_words`]'s loop (and its odd last word), then the folded
/// epilogue of the three, stored as bytes, the triples in a loop inside the block. The walking
/// pointers, counts, strides and constants live in a frame of twelve words on the stack,
/// reloaded for each triple (the sums' loop takes all twelve registers).
#[cfg(stowplan_dsp)]
#[inline(always)]
pub(crate) fn rows3_folded(
    x: &[[i8; 4]],
    f: &[i8],
    depth: usize,
    off: u32,
    (requant, bias, o2): (&[crate::requant_pair::Requant], Option<&[i32]>, i32),
    out: &mut [i8],
) -> usize {
    let Some(triples) = rows3_folded_fit(
        x.len(),
        f.len(),
        depth,
        [
            requant.len(),
            bias.map_or(usize::MAX, <[i32]>::len),
            out.len(),
        ],
    ) else {
        return 0;
    };
    let n = x.len();
    // Bytes from a channel's multiplier and shift to the next channel's (none for the tensor's),
    // and from a triple's biases to the next triple's (none without a bias: three zeros).
    let step: usize = if requant.len() > 1 { 8 } else { 0 };
    static ZEROS: [i32; 3] = [0; 3];
    let (bias_ptr, bstep): (*const i32, usize) = match bias {
        Some(b) => (b.as_ptr(), 12),
        None => (ZEROS.as_ptr(), 0),
    };
    // SAFETY: the block runs `triples >= 1` triples (the output pointer moves 3 bytes a triple
    // from `out` to `out + 3 triples`, compared after each). Triple `t` reads the `n` words of
    // `x` (`4 n == depth`, checked), the filter's bytes `3 t depth .. 3 (t + 1) depth` (three
    // rows of `depth`, each read for its `4 n` values, as `smlad_1x3_words` reads them, the
    // triple's start moved `3 depth` bytes a triple; `3 triples depth <= f.len()`, checked),
    // the biases `3 t .. 3 t + 3` (`3 triples <= bias.len()`; without a bias the three
    // `ZEROS` again and again, `bstep` 0), the multipliers and shifts of
    // channels `3 t .. 3 t + 3` (`Requant` is `repr(C)`, two `i32`s: 24 bytes a triple), or of
    // the one constant again and again (`step` 0), inside `requant` (one constant, or at least
    // `3 triples`), and writes the bytes `out[3 t .. 3 t + 3]` (`3 triples <= out.len()`): no
    // other memory of a Rust object is written. The loads may be unaligned, which Armv7-M's
    // `LDR` allows. The frame is the block's own: the stack pointer moves down 48 bytes (it
    // stays 8-byte aligned) before it is written and back before the block ends. Every input
    // is stored in the frame before any output register is written (the outputs are `lateout`
    // and may share the inputs' registers); it writes only the registers named here and the
    // flags: `LSRS`, `TST`, `CMP` and `SUBS` the N, Z, C and V flags that the `BEQ`s and `BNE`s
    // read, `SMLAD` and `SSAT` the Q flag, which nothing reads.
    unsafe {
        asm!("sub sp, sp, #48", "str {x0}, [sp]", "str {nw}, [sp, #4]", "str {f0}, [sp, #8]", "str {bp}, [sp, #12]", "str {rp}, [sp, #16]", "str {rs}, [sp, #20]", "str {op}, [sp, #24]", "str {oe}, [sp, #28]", "str {o2}, [sp, #32]", "str {s0}, [sp, #36]", "str {off0}, [sp, #40]", "str {bs}, [sp, #44]", "2:", "ldr {x}, [sp]", "ldr {f}, [sp, #8]", "ldr {s}, [sp, #36]", "ldr {off}, [sp, #40]", "ldr {n}, [sp, #4]", "ldr {t0}, [sp, #12]", "ldr {t1}, [sp, #44]", "ldr {a0}, [{t0}]", "ldr {a1}, [{t0}, #4]", "ldr {a2}, [{t0}, #8]", "add {t0}, {t0}, {t1}", "str {t0}, [sp, #12]", "lsrs {n}, {n}, #1", "beq 4f", "3:", "ldr {t0}, [{x}], #4", "ldr {t2}, [{f}, {s}]", "sxtab16 {t1}, {off}, {t0}, ror #8", "sxtab16 {t0}, {off}, {t0}", "sxtb16 {t3}, {t2}", "smlad {a1}, {t0}, {t3}, {a1}", "sxtb16 {t2}, {t2}, ror #8", "smlad {a1}, {t1}, {t2}, {a1}", "ldr {t2}, [{f}, {s}, lsl #1]", "sxtb16 {t3}, {t2}", "smlad {a2}, {t0}, {t3}, {a2}", "sxtb16 {t2}, {t2}, ror #8", "smlad {a2}, {t1}, {t2}, {a2}", "ldr {t2}, [{f}], #4", "sxtb16 {t3}, {t2}", "smlad {a0}, {t0}, {t3}, {a0}", "sxtb16 {t2}, {t2}, ror #8", "smlad {a0}, {t1}, {t2}, {a0}", "ldr {t0}, [{x}], #4", "ldr {t2}, [{f}, {s}]", "sxtab16 {t1}, {off}, {t0}, ror #8", "sxtab16 {t0}, {off}, {t0}", "sxtb16 {t3}, {t2}", "smlad {a1}, {t0}, {t3}, {a1}", "sxtb16 {t2}, {t2}, ror #8", "smlad {a1}, {t1}, {t2}, {a1}", "ldr {t2}, [{f}, {s}, lsl #1]", "sxtb16 {t3}, {t2}", "smlad {a2}, {t0}, {t3}, {a2}", "sxtb16 {t2}, {t2}, ror #8", "smlad {a2}, {t1}, {t2}, {a2}", "ldr {t2}, [{f}], #4", "sxtb16 {t3}, {t2}", "smlad {a0}, {t0}, {t3}, {a0}", "sxtb16 {t2}, {t2}, ror #8", "smlad {a0}, {t1}, {t2}, {a0}", "subs {n}, {n}, #1", "bne 3b", "4:", "ldr {t0}, [sp, #4]", "tst {t0}, #1", "beq 5f", "ldr {t0}, [{x}]", "ldr {t2}, [{f}, {s}]", "sxtab16 {t1}, {off}, {t0}, ror #8", "sxtab16 {t0}, {off}, {t0}", "sxtb16 {t3}, {t2}", "smlad {a1}, {t0}, {t3}, {a1}", "sxtb16 {t2}, {t2}, ror #8", "smlad {a1}, {t1}, {t2}, {a1}", "ldr {t2}, [{f}, {s}, lsl #1]", "sxtb16 {t3}, {t2}", "smlad {a2}, {t0}, {t3}, {a2}", "sxtb16 {t2}, {t2}, ror #8", "smlad {a2}, {t1}, {t2}, {a2}", "ldr {t2}, [{f}]", "sxtb16 {t3}, {t2}", "smlad {a0}, {t0}, {t3}, {a0}", "sxtb16 {t2}, {t2}, ror #8", "smlad {a0}, {t1}, {t2}, {a0}", "5:", "ldr {x}, [sp, #16]", "ldr {f}, [sp, #20]", "ldr {n}, [sp, #32]", "ldr {off}, [{x}]", "ldr {t1}, [{x}, #4]", "add {x}, {x}, {f}", "mvn {t1}, {t1}", "lsl {t0}, {n}, {t1}", "asr {t0}, {t0}, #1", "and {t2}, {a0}, #0x80000000", "orr {t2}, {t2}, #0x40000000", "add {t3}, {t0}, {a0}, asr #31", "smlal {t2}, {t3}, {a0}, {off}", "asr {t3}, {t3}, {t1}", "ssat {a0}, #8, {t3}", "ldr {off}, [{x}]", "ldr {t1}, [{x}, #4]", "add {x}, {x}, {f}", "mvn {t1}, {t1}", "lsl {t0}, {n}, {t1}", "asr {t0}, {t0}, #1", "and {t2}, {a1}, #0x80000000", "orr {t2}, {t2}, #0x40000000", "add {t3}, {t0}, {a1}, asr #31", "smlal {t2}, {t3}, {a1}, {off}", "asr {t3}, {t3}, {t1}", "ssat {a1}, #8, {t3}", "ldr {off}, [{x}]", "ldr {t1}, [{x}, #4]", "add {x}, {x}, {f}", "mvn {t1}, {t1}", "lsl {t0}, {n}, {t1}", "asr {t0}, {t0}, #1", "and {t2}, {a2}, #0x80000000", "orr {t2}, {t2}, #0x40000000", "add {t3}, {t0}, {a2}, asr #31", "smlal {t2}, {t3}, {a2}, {off}", "asr {t3}, {t3}, {t1}", "ssat {a2}, #8, {t3}", "str {x}, [sp, #16]", "ldr {t0}, [sp, #24]", "strb {a0}, [{t0}]", "strb {a1}, [{t0}, #1]", "strb {a2}, [{t0}, #2]", "add {t0}, {t0}, #3", "str {t0}, [sp, #24]", "ldr {f}, [sp, #8]", "ldr {s}, [sp, #36]", "ldr {t1}, [sp, #28]", "add {f}, {f}, {s}", "add {f}, {f}, {s}, lsl #1", "str {f}, [sp, #8]", "cmp {t0}, {t1}", "bne 2b", "add sp, sp, #48", x0 = in(reg) x.as_ptr(), nw = in(reg) n, f0 = in(reg) f.as_ptr(), bp = in(reg) bias_ptr, rp = in(reg) requant.as_ptr(), rs = in(reg) step, op = in(reg) out.as_mut_ptr(), oe = in(reg) out.as_mut_ptr().wrapping_add(3 * triples), o2 = in(reg) o2, s0 = in(reg) depth, off0 = in(reg) off, bs = in(reg) bstep, x = lateout(reg) _, f = lateout(reg) _, s = lateout(reg) _, n = lateout(reg) _, off = lateout(reg) _, a0 = lateout(reg) _, a1 = lateout(reg) _, a2 = lateout(reg) _, t0 = lateout(reg) _, t1 = lateout(reg) _, t2 = lateout(reg) _, t3 = lateout(reg) _)
    };
    triples
}

/// The outputs of `n` windows of three rows of `COLS` taps (3: whole 3 x 3 windows, 2: a
/// left or right edge's) of a depthwise convolution (depth multiplier 1) in the folded
/// epilogue: window `p`'s block `k` of four channels is [`depthwise_3x3`]'s sums (`ROWS` 3,
/// `COLS`, the same words of `x` and `w`), then [`requant4_folded`] with block `k`'s constants
/// `requant[k]` and biases `bias[k]`, written to `out[p * blocks + k]`; or `false` (nothing
/// written) for another `COLS` or if a slice is shorter than the windows and blocks need.
#[cfg(not(stowplan_dsp))]
#[inline(always)]
pub(crate) fn depthwise_3x3_folded<const COLS: usize>(
    x: &[[i8; 4]],
    w: &[[i8; 4]],
    [blocks, row]: [usize; 2],
    [n, step]: [usize; 2],
    off: u32,
    (requant, bias, o2): (&[[crate::requant_pair::Requant; 4]], &[[i32; 4]], i32),
    out: &mut [[i8; 4]],
) -> bool {
    if !folded_3x3_fits(
        x.len(),
        w.len(),
        [blocks, row, COLS],
        [n, step],
        [requant.len(), bias.len(), out.len()],
    ) {
        return false;
    }
    depthwise_3x3::<3, COLS>(x, w, blocks, row, [n, step], off, |i, acc| {
        let k = i % blocks;
        if let (Some(y), Some(r), Some(b)) = (out.get_mut(i), requant.get(k), bias.get(k)) {
            *y = requant4_folded(acc, r, b, o2);
        }
    })
}

/// Whether [`depthwise_3x3_folded`] takes its slices: [`window_3x3_fits`] for windows of
/// three rows of `cols` (3 or 2) taps, and `blocks` constants, biases, and `n * blocks` output
/// words (`lens`).
#[inline(always)]
fn folded_3x3_fits(
    x: usize,
    w: usize,
    [blocks, row, cols]: [usize; 3],
    [n, step]: [usize; 2],
    [requant, bias, out]: [usize; 3],
) -> bool {
    (cols == 3 || cols == 2)
        && window_3x3_fits(x, w, blocks, row, [3, cols], [n, step])
        && requant >= blocks
        && bias >= blocks
        && n.checked_mul(blocks).is_some_and(|need| need <= out)
}

/// [`depthwise_3x3_folded`] (see the portable twin) as one `asm!` block per window (one for
/// each `COLS`: the whole windows' nine taps, an edge's six), its blocks
/// in a loop inside it: per block the window's taps ([`depthwise_3x3`]'s block), the
/// folded epilogue ([`requant4_folded`]'s), the four outputs stored as one word. The walking
/// pointers, the strides and the offset live in a frame of ten words on the stack, reloaded
/// for each block (the taps take all twelve registers), so no sum is spilled and no bound is
/// checked between blocks.
#[cfg(stowplan_dsp)]
#[inline(always)]
pub(crate) fn depthwise_3x3_folded<const COLS: usize>(
    x: &[[i8; 4]],
    w: &[[i8; 4]],
    [blocks, row]: [usize; 2],
    [n, step]: [usize; 2],
    off: u32,
    (requant, bias, o2): (&[[crate::requant_pair::Requant; 4]], &[[i32; 4]], i32),
    out: &mut [[i8; 4]],
) -> bool {
    if !folded_3x3_fits(
        x.len(),
        w.len(),
        [blocks, row, COLS],
        [n, step],
        [requant.len(), bias.len(), out.len()],
    ) {
        return false;
    }
    // Bytes from a tap to the next in a row (a pixel), and from a row to the next.
    let (pixel, stride) = (4 * blocks, 4 * row);
    for p in 0..n {
        let xp = x.as_ptr().wrapping_add(p * step);
        let op = out.as_mut_ptr().wrapping_add(p * blocks);
        // SAFETY: for each block `k < blocks` (the loop runs `blocks >= 1` times: the output
        // pointer moves 4 bytes a block from `op` to `op + blocks` words, compared after each),
        // the taps read the words of `x` and `w` that `depthwise_3x3`'s block of three rows of
        // `COLS` taps (the first `asm!` below for 3, the second, without the rows' third taps,
        // for 2) reads for window `p` and block `k` (`x` from `xp + k` words, `w` from its
        // start + `k` words, the
        // pointers kept in the frame and moved a word a block), inside the slices by
        // `window_3x3_fits` (checked above, as `folded_3x3_fits`); the epilogue reads block
        // `k`'s four biases (16 bytes from `bias + 16 k`) and its four constants (32 bytes from
        // `requant + 32 k`: `Requant` is `repr(C)`, two `i32`s), `k < blocks <= bias.len()` and
        // `requant.len()`, and writes the one word `out[p * blocks + k]`, `p * blocks + k < n *
        // blocks <= out.len()`: no other memory of a Rust object is written. The loads of `x`
        // may be unaligned, which Armv7-M's `LDR` allows. The frame is the block's own: the
        // stack pointer moves down 40 bytes (it stays 8-byte aligned) before it is written and
        // back before the block ends. Every input is stored in the frame before any output
        // register is written (the outputs are `lateout` and may share the inputs' registers);
        // it writes only the registers named here and the flags: `CMP` the N, Z, C and V flags
        // that `BNE` reads, `SMLABB`, `SMLATT` and `SSAT` the Q flag, which nothing reads.
        unsafe {
            if COLS == 3 {
                asm!("sub sp, sp, #40", "str {x0}, [sp]", "str {w0}, [sp, #4]", "str {bp}, [sp, #8]", "str {rp}, [sp, #12]", "str {op}, [sp, #16]", "str {oe}, [sp, #20]", "str {o2}, [sp, #24]", "str {p0}, [sp, #28]", "str {r0}, [sp, #32]", "str {off0}, [sp, #36]", "2:", "ldr {x}, [sp]", "ldr {w}, [sp, #4]", "ldr {p}, [sp, #28]", "ldr {r}, [sp, #32]", "ldr {off}, [sp, #36]", "add {t1}, {x}, #4", "add {t2}, {w}, #4", "str {t1}, [sp]", "str {t2}, [sp, #4]", "ldr {t1}, [{w}]", "ldr {t2}, [{x}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smulbb {a0}, {t2}, {t3}", "smultt {a2}, {t2}, {t3}", "ldr {t3}, [{x}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smulbb {a1}, {t3}, {t1}", "smultt {a3}, {t3}, {t1}", "ldr {t1}, [{w}, {p}]", "ldr {t2}, [{x}, {p}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}, {p}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "ldr {t1}, [{w}, {p}, lsl #1]", "ldr {t2}, [{x}, {p}, lsl #1]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}, {p}, lsl #1]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "add {x}, {x}, {r}", "add {w}, {w}, {p}", "add {w}, {w}, {p}, lsl #1", "ldr {t1}, [{w}]", "ldr {t2}, [{x}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "ldr {t1}, [{w}, {p}]", "ldr {t2}, [{x}, {p}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}, {p}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "ldr {t1}, [{w}, {p}, lsl #1]", "ldr {t2}, [{x}, {p}, lsl #1]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}, {p}, lsl #1]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "add {x}, {x}, {r}", "add {w}, {w}, {p}", "add {w}, {w}, {p}, lsl #1", "ldr {t1}, [{w}]", "ldr {t2}, [{x}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "ldr {t1}, [{w}, {p}]", "ldr {t2}, [{x}, {p}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}, {p}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "ldr {t1}, [{w}, {p}, lsl #1]", "ldr {t2}, [{x}, {p}, lsl #1]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}, {p}, lsl #1]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "ldr {x}, [sp, #8]", "ldr {w}, [sp, #12]", "ldr {p}, [sp, #24]", "ldr {r}, [{x}], #4", "ldr {off}, [{w}], #4", "ldr {t1}, [{w}], #4", "add {a0}, {a0}, {r}", "mvn {t1}, {t1}", "lsl {r}, {p}, {t1}", "asr {r}, {r}, #1", "and {t2}, {a0}, #0x80000000", "orr {t2}, {t2}, #0x40000000", "add {t3}, {r}, {a0}, asr #31", "smlal {t2}, {t3}, {a0}, {off}", "asr {t3}, {t3}, {t1}", "ssat {a0}, #8, {t3}", "ldr {r}, [{x}], #4", "ldr {off}, [{w}], #4", "ldr {t1}, [{w}], #4", "add {a1}, {a1}, {r}", "mvn {t1}, {t1}", "lsl {r}, {p}, {t1}", "asr {r}, {r}, #1", "and {t2}, {a1}, #0x80000000", "orr {t2}, {t2}, #0x40000000", "add {t3}, {r}, {a1}, asr #31", "smlal {t2}, {t3}, {a1}, {off}", "asr {t3}, {t3}, {t1}", "ssat {a1}, #8, {t3}", "ldr {r}, [{x}], #4", "ldr {off}, [{w}], #4", "ldr {t1}, [{w}], #4", "add {a2}, {a2}, {r}", "mvn {t1}, {t1}", "lsl {r}, {p}, {t1}", "asr {r}, {r}, #1", "and {t2}, {a2}, #0x80000000", "orr {t2}, {t2}, #0x40000000", "add {t3}, {r}, {a2}, asr #31", "smlal {t2}, {t3}, {a2}, {off}", "asr {t3}, {t3}, {t1}", "ssat {a2}, #8, {t3}", "ldr {r}, [{x}], #4", "ldr {off}, [{w}], #4", "ldr {t1}, [{w}], #4", "add {a3}, {a3}, {r}", "mvn {t1}, {t1}", "lsl {r}, {p}, {t1}", "asr {r}, {r}, #1", "and {t2}, {a3}, #0x80000000", "orr {t2}, {t2}, #0x40000000", "add {t3}, {r}, {a3}, asr #31", "smlal {t2}, {t3}, {a3}, {off}", "asr {t3}, {t3}, {t1}", "ssat {a3}, #8, {t3}", "bfi {a0}, {a1}, #8, #8", "bfi {a0}, {a2}, #16, #8", "bfi {a0}, {a3}, #24, #8", "str {x}, [sp, #8]", "str {w}, [sp, #12]", "ldr {r}, [sp, #16]", "ldr {off}, [sp, #20]", "str {a0}, [{r}], #4", "str {r}, [sp, #16]", "cmp {r}, {off}", "bne 2b", "add sp, sp, #40", x0 = in(reg) xp, w0 = in(reg) w.as_ptr(), bp = in(reg) bias.as_ptr(), rp = in(reg) requant.as_ptr(), op = in(reg) op, oe = in(reg) op.wrapping_add(blocks), o2 = in(reg) o2, p0 = in(reg) pixel, r0 = in(reg) stride, off0 = in(reg) off, x = lateout(reg) _, w = lateout(reg) _, p = lateout(reg) _, r = lateout(reg) _, off = lateout(reg) _, a0 = lateout(reg) _, a1 = lateout(reg) _, a2 = lateout(reg) _, a3 = lateout(reg) _, t1 = lateout(reg) _, t2 = lateout(reg) _, t3 = lateout(reg) _)
            } else {
                asm!("sub sp, sp, #40", "str {x0}, [sp]", "str {w0}, [sp, #4]", "str {bp}, [sp, #8]", "str {rp}, [sp, #12]", "str {op}, [sp, #16]", "str {oe}, [sp, #20]", "str {o2}, [sp, #24]", "str {p0}, [sp, #28]", "str {r0}, [sp, #32]", "str {off0}, [sp, #36]", "2:", "ldr {x}, [sp]", "ldr {w}, [sp, #4]", "ldr {p}, [sp, #28]", "ldr {r}, [sp, #32]", "ldr {off}, [sp, #36]", "add {t1}, {x}, #4", "add {t2}, {w}, #4", "str {t1}, [sp]", "str {t2}, [sp, #4]", "ldr {t1}, [{w}]", "ldr {t2}, [{x}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smulbb {a0}, {t2}, {t3}", "smultt {a2}, {t2}, {t3}", "ldr {t3}, [{x}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smulbb {a1}, {t3}, {t1}", "smultt {a3}, {t3}, {t1}", "ldr {t1}, [{w}, {p}]", "ldr {t2}, [{x}, {p}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}, {p}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "add {x}, {x}, {r}", "add {w}, {w}, {p}", "add {w}, {w}, {p}, lsl #1", "ldr {t1}, [{w}]", "ldr {t2}, [{x}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "ldr {t1}, [{w}, {p}]", "ldr {t2}, [{x}, {p}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}, {p}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "add {x}, {x}, {r}", "add {w}, {w}, {p}", "add {w}, {w}, {p}, lsl #1", "ldr {t1}, [{w}]", "ldr {t2}, [{x}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "ldr {t1}, [{w}, {p}]", "ldr {t2}, [{x}, {p}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}, {p}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "ldr {x}, [sp, #8]", "ldr {w}, [sp, #12]", "ldr {p}, [sp, #24]", "ldr {r}, [{x}], #4", "ldr {off}, [{w}], #4", "ldr {t1}, [{w}], #4", "add {a0}, {a0}, {r}", "mvn {t1}, {t1}", "lsl {r}, {p}, {t1}", "asr {r}, {r}, #1", "and {t2}, {a0}, #0x80000000", "orr {t2}, {t2}, #0x40000000", "add {t3}, {r}, {a0}, asr #31", "smlal {t2}, {t3}, {a0}, {off}", "asr {t3}, {t3}, {t1}", "ssat {a0}, #8, {t3}", "ldr {r}, [{x}], #4", "ldr {off}, [{w}], #4", "ldr {t1}, [{w}], #4", "add {a1}, {a1}, {r}", "mvn {t1}, {t1}", "lsl {r}, {p}, {t1}", "asr {r}, {r}, #1", "and {t2}, {a1}, #0x80000000", "orr {t2}, {t2}, #0x40000000", "add {t3}, {r}, {a1}, asr #31", "smlal {t2}, {t3}, {a1}, {off}", "asr {t3}, {t3}, {t1}", "ssat {a1}, #8, {t3}", "ldr {r}, [{x}], #4", "ldr {off}, [{w}], #4", "ldr {t1}, [{w}], #4", "add {a2}, {a2}, {r}", "mvn {t1}, {t1}", "lsl {r}, {p}, {t1}", "asr {r}, {r}, #1", "and {t2}, {a2}, #0x80000000", "orr {t2}, {t2}, #0x40000000", "add {t3}, {r}, {a2}, asr #31", "smlal {t2}, {t3}, {a2}, {off}", "asr {t3}, {t3}, {t1}", "ssat {a2}, #8, {t3}", "ldr {r}, [{x}], #4", "ldr {off}, [{w}], #4", "ldr {t1}, [{w}], #4", "add {a3}, {a3}, {r}", "mvn {t1}, {t1}", "lsl {r}, {p}, {t1}", "asr {r}, {r}, #1", "and {t2}, {a3}, #0x80000000", "orr {t2}, {t2}, #0x40000000", "add {t3}, {r}, {a3}, asr #31", "smlal {t2}, {t3}, {a3}, {off}", "asr {t3}, {t3}, {t1}", "ssat {a3}, #8, {t3}", "bfi {a0}, {a1}, #8, #8", "bfi {a0}, {a2}, #16, #8", "bfi {a0}, {a3}, #24, #8", "str {x}, [sp, #8]", "str {w}, [sp, #12]", "ldr {r}, [sp, #16]", "ldr {off}, [sp, #20]", "str {a0}, [{r}], #4", "str {r}, [sp, #16]", "cmp {r}, {off}", "bne 2b", "add sp, sp, #40", x0 = in(reg) xp, w0 = in(reg) w.as_ptr(), bp = in(reg) bias.as_ptr(), rp = in(reg) requant.as_ptr(), op = in(reg) op, oe = in(reg) op.wrapping_add(blocks), o2 = in(reg) o2, p0 = in(reg) pixel, r0 = in(reg) stride, off0 = in(reg) off, x = lateout(reg) _, w = lateout(reg) _, p = lateout(reg) _, r = lateout(reg) _, off = lateout(reg) _, a0 = lateout(reg) _, a1 = lateout(reg) _, a2 = lateout(reg) _, a3 = lateout(reg) _, t1 = lateout(reg) _, t2 = lateout(reg) _, t3 = lateout(reg) _)
            }
        };
    }
    true
}

/// Whether [`depthwise_3x3`] takes the windows: `rows` and `cols` 2 or 3, `blocks` and `n` at
/// least 1, `x` past word `(n - 1) * step + (rows - 1) * row + cols * blocks - 1`, `w` past word
/// `(3 * (rows - 1) + cols) * blocks - 1` (no size overflows), and the byte strides fit an `i32`.
#[inline(always)]
fn window_3x3_fits(
    x: usize,
    w: usize,
    blocks: usize,
    row: usize,
    [rows, cols]: [usize; 2],
    [n, step]: [usize; 2],
) -> bool {
    let shape = matches!(rows, 2 | 3) && matches!(cols, 2 | 3) && blocks > 0 && n > 0;
    let need_x = row
        .checked_mul(rows.wrapping_sub(1))
        .and_then(|r| r.checked_add(blocks.checked_mul(cols)?))
        .and_then(|r| r.checked_add(step.checked_mul(n.wrapping_sub(1))?));
    let need_w = blocks.checked_mul(3 * rows.wrapping_sub(1) + cols);
    let bytes = row.checked_mul(4).is_some_and(|r| r <= i32::MAX as usize)
        && blocks
            .checked_mul(16)
            .is_some_and(|b| b <= i32::MAX as usize);
    shape && bytes && matches!((need_x, need_w), (Some(nx), Some(nw)) if nx <= x && nw <= w)
}

/// [`depthwise_3x3`] (see the portable twin), each block's taps one `asm!` block (105
/// instructions for the whole window, 72, 69 and 47 for its edges and corners): the compiler's
/// code for them, with the strides in registers, spilled the taps' pointers. Twelve registers:
/// the two pointers, the pixel and row strides, the offset, four sums and three words; each
/// tap's input word is loaded twice (once per pair of channels) rather than kept.
#[cfg(stowplan_dsp)]
#[inline(always)]
pub(crate) fn depthwise_3x3<const ROWS: usize, const COLS: usize>(
    x: &[[i8; 4]],
    w: &[[i8; 4]],
    blocks: usize,
    row: usize,
    [n, step]: [usize; 2],
    off: u32,
    mut f: impl FnMut(usize, [i32; 4]),
) -> bool {
    if !window_3x3_fits(x.len(), w.len(), blocks, row, [ROWS, COLS], [n, step]) {
        return false;
    }
    // Bytes from a tap to the next in a row (a pixel), and from a row to the next.
    let (pixel, stride) = (4 * blocks, 4 * row);
    let mut i = 0;
    for p in 0..n {
        let xp = x.as_ptr().wrapping_add(p * step);
        for k in 0..blocks {
            let (xk, wk) = (xp.wrapping_add(k), w.as_ptr().wrapping_add(k));
            let (a0, a1, a2, a3): (i32, i32, i32, i32);
            // SAFETY: each block reads words (4 bytes) at `xk + r * stride + t * pixel` for `r`
            // in 0..ROWS and `t` in 0..COLS, `x`'s words `p * step + r * row + t * blocks + k`,
            // and at `wk + (3 * r + t) * pixel`, `w`'s words `(3 * r + t) * blocks + k`: the
            // pointers move a row at a time (`x` by `stride`, `w` by `3 * pixel`), a row's taps
            // at offsets 0, `pixel` and `2 * pixel`. With `p < n` and `k < blocks`,
            // `window_3x3_fits` (checked above, for this very shape: each arm is the block of its
            // `ROWS` and `COLS`, and `window_3x3_fits` refuses any other) puts all of them inside
            // the slices, and the byte offsets fit. The loads may be unaligned, which Armv7-M's
            // `LDR` allows (as the kernels' other int8 word loads). It writes no memory
            // (`readonly`), uses no stack, and writes only the registers named here (the two
            // pointers are declared clobbered) and the Q flag (`SMLABB`, `SMLATT`), which nothing
            // reads.
            unsafe {
                match (ROWS, COLS) {
                    (3, 3) => {
                        asm!("ldr {t1}, [{w}]", "ldr {t2}, [{x}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smulbb {a0}, {t2}, {t3}", "smultt {a2}, {t2}, {t3}", "ldr {t3}, [{x}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smulbb {a1}, {t3}, {t1}", "smultt {a3}, {t3}, {t1}", "ldr {t1}, [{w}, {p}]", "ldr {t2}, [{x}, {p}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}, {p}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "ldr {t1}, [{w}, {p}, lsl #1]", "ldr {t2}, [{x}, {p}, lsl #1]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}, {p}, lsl #1]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "add {x}, {x}, {r}", "add {w}, {w}, {p}", "add {w}, {w}, {p}, lsl #1", "ldr {t1}, [{w}]", "ldr {t2}, [{x}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "ldr {t1}, [{w}, {p}]", "ldr {t2}, [{x}, {p}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}, {p}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "ldr {t1}, [{w}, {p}, lsl #1]", "ldr {t2}, [{x}, {p}, lsl #1]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}, {p}, lsl #1]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "add {x}, {x}, {r}", "add {w}, {w}, {p}", "add {w}, {w}, {p}, lsl #1", "ldr {t1}, [{w}]", "ldr {t2}, [{x}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "ldr {t1}, [{w}, {p}]", "ldr {t2}, [{x}, {p}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}, {p}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "ldr {t1}, [{w}, {p}, lsl #1]", "ldr {t2}, [{x}, {p}, lsl #1]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}, {p}, lsl #1]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", x = inout(reg) xk => _, w = inout(reg) wk => _, p = in(reg) pixel, r = in(reg) stride, off = in(reg) off, a0 = out(reg) a0, a1 = out(reg) a1, a2 = out(reg) a2, a3 = out(reg) a3, t1 = out(reg) _, t2 = out(reg) _, t3 = out(reg) _, options(readonly, nostack))
                    }
                    (3, 2) => {
                        asm!("ldr {t1}, [{w}]", "ldr {t2}, [{x}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smulbb {a0}, {t2}, {t3}", "smultt {a2}, {t2}, {t3}", "ldr {t3}, [{x}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smulbb {a1}, {t3}, {t1}", "smultt {a3}, {t3}, {t1}", "ldr {t1}, [{w}, {p}]", "ldr {t2}, [{x}, {p}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}, {p}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "add {x}, {x}, {r}", "add {w}, {w}, {p}", "add {w}, {w}, {p}, lsl #1", "ldr {t1}, [{w}]", "ldr {t2}, [{x}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "ldr {t1}, [{w}, {p}]", "ldr {t2}, [{x}, {p}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}, {p}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "add {x}, {x}, {r}", "add {w}, {w}, {p}", "add {w}, {w}, {p}, lsl #1", "ldr {t1}, [{w}]", "ldr {t2}, [{x}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "ldr {t1}, [{w}, {p}]", "ldr {t2}, [{x}, {p}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}, {p}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", x = inout(reg) xk => _, w = inout(reg) wk => _, p = in(reg) pixel, r = in(reg) stride, off = in(reg) off, a0 = out(reg) a0, a1 = out(reg) a1, a2 = out(reg) a2, a3 = out(reg) a3, t1 = out(reg) _, t2 = out(reg) _, t3 = out(reg) _, options(readonly, nostack))
                    }
                    (2, 3) => {
                        asm!("ldr {t1}, [{w}]", "ldr {t2}, [{x}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smulbb {a0}, {t2}, {t3}", "smultt {a2}, {t2}, {t3}", "ldr {t3}, [{x}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smulbb {a1}, {t3}, {t1}", "smultt {a3}, {t3}, {t1}", "ldr {t1}, [{w}, {p}]", "ldr {t2}, [{x}, {p}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}, {p}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "ldr {t1}, [{w}, {p}, lsl #1]", "ldr {t2}, [{x}, {p}, lsl #1]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}, {p}, lsl #1]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "add {x}, {x}, {r}", "add {w}, {w}, {p}", "add {w}, {w}, {p}, lsl #1", "ldr {t1}, [{w}]", "ldr {t2}, [{x}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "ldr {t1}, [{w}, {p}]", "ldr {t2}, [{x}, {p}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}, {p}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "ldr {t1}, [{w}, {p}, lsl #1]", "ldr {t2}, [{x}, {p}, lsl #1]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}, {p}, lsl #1]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", x = inout(reg) xk => _, w = inout(reg) wk => _, p = in(reg) pixel, r = in(reg) stride, off = in(reg) off, a0 = out(reg) a0, a1 = out(reg) a1, a2 = out(reg) a2, a3 = out(reg) a3, t1 = out(reg) _, t2 = out(reg) _, t3 = out(reg) _, options(readonly, nostack))
                    }
                    _ => {
                        asm!("ldr {t1}, [{w}]", "ldr {t2}, [{x}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smulbb {a0}, {t2}, {t3}", "smultt {a2}, {t2}, {t3}", "ldr {t3}, [{x}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smulbb {a1}, {t3}, {t1}", "smultt {a3}, {t3}, {t1}", "ldr {t1}, [{w}, {p}]", "ldr {t2}, [{x}, {p}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}, {p}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "add {x}, {x}, {r}", "add {w}, {w}, {p}", "add {w}, {w}, {p}, lsl #1", "ldr {t1}, [{w}]", "ldr {t2}, [{x}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", "ldr {t1}, [{w}, {p}]", "ldr {t2}, [{x}, {p}]", "sxtb16 {t3}, {t1}", "sxtb16 {t1}, {t1}, ror #8", "sxtab16 {t2}, {off}, {t2}", "smlabb {a0}, {t2}, {t3}, {a0}", "smlatt {a2}, {t2}, {t3}, {a2}", "ldr {t3}, [{x}, {p}]", "sxtab16 {t3}, {off}, {t3}, ror #8", "smlabb {a1}, {t3}, {t1}, {a1}", "smlatt {a3}, {t3}, {t1}, {a3}", x = inout(reg) xk => _, w = inout(reg) wk => _, p = in(reg) pixel, r = in(reg) stride, off = in(reg) off, a0 = out(reg) a0, a1 = out(reg) a1, a2 = out(reg) a2, a3 = out(reg) a3, t1 = out(reg) _, t2 = out(reg) _, t3 = out(reg) _, options(readonly, nostack))
                    }
                }
            };
            f(i, [a0, a1, a2, a3]);
            i += 1;
        }
    }
    true
}

/// Four int8 values as one word, the first in the least significant byte (as a little-endian
/// `LDR` of them); 0 unless `chunk` has exactly four elements.
#[inline(always)]
pub(crate) fn word(chunk: &[i8]) -> u32 {
    match *chunk {
        [a, b, c, d] => u32::from_le_bytes([a as u8, b as u8, c as u8, d as u8]),
        _ => 0,
    }
}

/// `value` in both halfwords (the operand that adds one offset to two lanes).
#[inline(always)]
pub(crate) const fn splat16(value: i32) -> u32 {
    (value as u32 & 0xffff) * 0x0001_0001
}

/// What each instruction the wrappers use does to the APSR's flags (Armv7-M Architecture
/// Reference Manual, A7.7): `(mnemonic, writes flags, reads flags: the GE bits, or the
/// condition flags of a branch)`. A wrapper's `asm!`
/// block is `preserves_flags` exactly when none of its instructions writes a flag (`Q` or `GE`
/// here; the test `asm_blocks_declare_their_flag_effects` holds every block to this table, and
/// fails on an instruction it lacks).
#[cfg(test)]
const FLAG_EFFECTS: &[(&str, bool, bool)] = &[
    // Extend and pack: no flags.
    ("sxtb16", false, false),
    ("sxtab16", false, false),
    ("sxtah", false, false),
    ("pkhbt", false, false),
    ("pkhtb", false, false),
    // Halfword products that cannot overflow, and the 64-bit accumulate: no flags.
    ("smulbb", false, false),
    ("smultt", false, false),
    ("smlald", false, false),
    // 32-bit multiply-accumulates: Q on overflow of the sum.
    ("smlad", true, false),
    ("smlabb", true, false),
    ("smlabt", true, false),
    ("smlatb", true, false),
    ("smlatt", true, false),
    // Parallel subtractions: the GE bits; SEL reads them.
    ("ssub8", true, false),
    ("ssub16", true, false),
    ("sel", false, true),
    // The loop of `smlad_2x2_groups`: loads (no flags), its count (N, Z, C, V), the branch
    // that reads Z.
    ("ldr", false, false),
    ("ldrd", false, false),
    ("subs", true, false),
    // The strides of `depthwise_3x3`'s window: ADD without S writes no flag.
    ("add", false, false),
    ("bne", false, true),
    // The end of `smlad_2x2_groups`'s loop, kept on the stack and compared: `CMP` writes N, Z,
    // C and V; `PUSH` and `POP` no flags.
    ("push", false, false),
    ("pop", false, false),
    ("cmp", true, false),
    // Its entry into the loop of four groups an iteration: the groups' bytes (`SUB` without S
    // writes no flag), their count modulo 4 (`AND` likewise), compared (`CMP`, above), the
    // branch to the group that leaves a multiple of four (`BEQ` reads Z).
    ("sub", false, false),
    ("beq", false, true),
    // `smlad_2x2_requant`'s entry into that loop, found once per call: the address of the
    // group to enter (`ADR`: no flags) with the Thumb bit set (`ORR`, below), branched to for
    // every channel pair (`BX`: no flags).
    ("adr", false, false),
    ("bx", false, false),
    // Each `ADR` word-aligned (the directive `.p2align 2`, a `NOP` where it pads: no flags):
    // the assembler's offset for an `ADR` at an address of 2 modulo 4 is 2 bytes short.
    (".p2align", false, false),
    // `rows3_folded`: the word count halved into the pair count (`LSRS` writes N, Z and C),
    // its odd bit tested (`TST` writes N, Z and C).
    ("lsrs", true, false),
    ("tst", true, false),
    // `smlad_2x2_requant`: its frame's words (`STR`), the biases copied (`MOV`), the folded
    // epilogue (`MVN`, `LSL`, `ASR`, `AND`, `ORR` without S write no flag; `SMLAL` none;
    // `SSAT` the Q flag on saturation), the outputs (`STRB`) and the pair count (`SUBS`).
    ("str", false, false),
    ("strb", false, false),
    ("mov", false, false),
    ("mvn", false, false),
    ("lsl", false, false),
    ("asr", false, false),
    ("and", false, false),
    ("orr", false, false),
    ("smlal", false, false),
    ("ssat", true, false),
    // `requant4_folded`'s outputs packed into a word: no flags.
    ("bfi", false, false),
];

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use std::vec::Vec;

    /// Every `asm!` block of this file against [`FLAG_EFFECTS`]: each instruction is in the
    /// table, a block is `preserves_flags` exactly when none of its instructions writes a
    /// flag, and one that reads the GE bits (`SEL`) sets them itself first.
    #[test]
    #[cfg_attr(
        miri,
        ignore = "a check of this file's text, no unsafe code: 20 s under miri"
    )]
    fn asm_blocks_declare_their_flag_effects() {
        let source = include_str!("dsp.rs");
        let mut blocks = 0;
        let mut rest = source;
        while let Some(at) = rest.find("asm!(\"") {
            let block = &rest[at..];
            let end = block.find("\n").expect("an asm! block on one line");
            let block = &block[..end];
            rest = &rest[at + end..];
            blocks += 1;
            // The templates: the string literals before the first operand.
            let templates: Vec<&str> = block
                .split('"')
                .skip(1)
                .step_by(2)
                .take_while(|t| !t.is_empty() && !t.contains('='))
                .collect();
            // Labels (`2:`) are not instructions.
            let mnemonics: Vec<&str> = templates
                .iter()
                .filter(|t| !t.ends_with(':'))
                .map(|t| t.split_whitespace().next().expect("a mnemonic"))
                .collect();
            assert!(!mnemonics.is_empty(), "no instruction in {block}");
            let mut writes = false;
            for m in &mnemonics {
                let &(_, w, reads_ge) = FLAG_EFFECTS
                    .iter()
                    .find(|(name, _, _)| name == m)
                    .unwrap_or_else(|| panic!("{m} is not in FLAG_EFFECTS: classify it"));
                if reads_ge {
                    assert!(writes, "{block}: {m} reads flags set outside the block");
                }
                writes |= w;
            }
            // A block whose every instruction may be declared so names its options; one that
            // stores, makes a frame and writes flags has none to name.
            let options = block.rsplit_once("options(").map_or("", |(_, o)| o);
            assert_eq!(
                options.contains("preserves_flags"),
                !writes,
                "{block}: preserves_flags must be declared exactly when no instruction writes \
                 a flag"
            );
            // A block that stores (`smlad_2x2_requant`'s outputs) declares neither `readonly`
            // nor `nomem`; every other one that loads is `readonly`, the rest `nomem`. A block
            // that keeps values on the stack pushes one first and pops it last, or makes a
            // frame first (`SUB SP`) and drops it last (`ADD SP`), the stack pointer restored,
            // so it is not `nostack`; every other block is.
            let stores = mnemonics.iter().any(|m| m.starts_with("st"));
            let loads = mnemonics.iter().any(|m| m.starts_with("ld"));
            let saves = mnemonics.contains(&"push");
            if saves {
                assert_eq!(mnemonics.first(), Some(&"push"), "{block}");
                assert_eq!(mnemonics.last(), Some(&"pop"), "{block}");
                let pushes = mnemonics.iter().filter(|m| **m == "push").count();
                let pops = mnemonics.iter().filter(|m| **m == "pop").count();
                assert_eq!((pushes, pops), (1, 1), "{block}");
            }
            let frame = templates.iter().filter(|t| t.contains("sp, sp")).count();
            if frame > 0 {
                let (first, last) = (templates.first(), templates.last());
                assert!(
                    frame == 2
                        && first.is_some_and(|t| t.starts_with("sub sp, sp, #"))
                        && last.map(|t| t.replacen("add", "sub", 1)).as_deref() == first.copied(),
                    "{block}: a frame made first and dropped last"
                );
            }
            let stacked = saves || frame > 0;
            if stores {
                assert!(
                    !options.contains("readonly") && !options.contains("nomem"),
                    "{block}"
                );
            } else {
                let memory = if loads { "readonly" } else { "nomem" };
                assert!(options.contains(memory), "{block}");
            }
            assert!(options.contains("nostack") != stacked, "{block}");
        }
        // Every wrapper's block was seen (one per instruction wrapper, SSUB + SEL as one, the
        // loop of `smlad_2x2_groups` (entered inside it by the count modulo 4), the channel pairs of
        // `smlad_2x2_requant`, the loops of `smlad_1x2_words` and `smlad_1x3_words` and their
        // odd last steps, `depthwise_3x3`'s four window shapes, the folded epilogue of four
        // channels, `requant4_folded`, the whole windows and the edges' of two columns with it,
        // `depthwise_3x3_folded`'s two, FULLY_CONNECTED's channel triples with it,
        // `rows3_folded`, and the loops of four words and of one of its interleaved blocks,
        // `smlad_4x1_interleaved`, with their folded epilogue, `interleaved_folded`, and the
        // widening of a pixel pair's words, `widen_words_2`).
        assert_eq!(blocks, 34, "asm! blocks in dsp.rs");
    }

    /// [`smlad_2x2_requant`] against its definition, per pair the sums of the groups' lanes
    /// times the filters' values from the biases, then [`requant_folded`]: windows of 1 to 40
    /// values (a part group among them), filters that hold every pair's reads, end short of
    /// the last pair's, or are empty, fewer biases or constants than pairs; the pairs it runs
    /// are the ones [`Pairs::new`] counts (every read inside the filter), the outputs past
    /// them untouched, and a buffer of other groups or outputs too short run none.
    #[test]
    fn requantised_pairs_equal_their_definition() {
        use crate::requant_pair::Requant;
        let mut state = 0x5eed_2222_u32;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        };
        let cases = if cfg!(miri) { 12 } else { 3000 };
        for case in 0..cases {
            let window = 1 + next() as usize % 40;
            let groups = window.div_ceil(4);
            let channels = 2 * (1 + next() as usize % 5);
            let x: Vec<[u32; 4]> = (0..groups)
                .map(|_| core::array::from_fn(|_| next() & 0x00ff_00ff ^ 0xff80_ff80 & next()))
                .collect();
            // The filter: every channel's values, then 0 to 3 spare bytes, or cut short.
            let len = match case % 4 {
                0 => channels * window + (next() as usize % 4),
                1 => (channels * window).saturating_sub(next() as usize % (2 * window)),
                2 => 4 * groups + window - 1,
                _ => channels * window,
            };
            let filter: Vec<i8> = (0..len).map(|_| next() as i8).collect();
            let pairs = channels / 2;
            let bias: Vec<[i32; 2]> = (0..pairs - (case % 7 == 0) as usize)
                .map(|_| [next() as i32 >> 12, next() as i32 >> 12])
                .collect();
            let requant: Vec<[Requant; 2]> = (0..pairs)
                .map(|_| {
                    core::array::from_fn(|_| Requant {
                        multiplier: (1 << 30) + (next() >> 2) as i32,
                        shift: -2 - (next() % 22) as i32,
                    })
                })
                .collect();
            let o2 = 2 * ((next() % 256) as i32 - 128) + 1;
            let run = Pairs::new(groups, &filter, window, &bias, &requant, o2);
            // The pairs whose reads lie in the filter, and that have their constants.
            let fit = (0..pairs)
                .take_while(|&k| (2 * k + 1) * window + 4 * groups <= len)
                .count();
            assert_eq!(run.len(), fit.min(bias.len()), "{case}");
            let (mut ya, mut yb) = (std::vec![[7_i8; 2]; pairs], std::vec![[7_i8; 2]; pairs]);
            assert_eq!(smlad_2x2_requant(&run, &x, &mut ya, &mut yb), run.len());
            for k in 0..pairs {
                if k >= run.len() {
                    assert_eq!((ya[k], yb[k]), ([7; 2], [7; 2]), "{case}");
                    continue;
                }
                for (c, out) in [(0, [ya[k][0], yb[k][0]]), (1, [ya[k][1], yb[k][1]])] {
                    let f = &filter[(2 * k + c) * window..];
                    for (pixel, &got) in out.iter().enumerate() {
                        let mut acc = bias[k][c];
                        for (g, group) in x.iter().enumerate() {
                            let (lo, hi) = (group[2 * pixel], group[2 * pixel + 1]);
                            // Values 0, 2 in `lo`'s halves, 1, 3 in `hi`'s.
                            let v = [lo as i16, hi as i16, (lo >> 16) as i16, (hi >> 16) as i16];
                            for (j, &v) in v.iter().enumerate() {
                                let w = i32::from(f[4 * g + j]);
                                acc = acc.wrapping_add(w * i32::from(v));
                            }
                        }
                        let r = requant[k][c];
                        assert_eq!(
                            got,
                            requant_folded(acc, r.multiplier, r.shift, o2),
                            "{case}"
                        );
                    }
                }
            }
            // Other groups, or outputs too short: nothing run.
            if run.len() > 0 {
                assert_eq!(smlad_2x2_requant(&run, &x[1..], &mut ya, &mut yb), 0);
                let n = run.len() - 1;
                assert_eq!(smlad_2x2_requant(&run, &x, &mut ya[..n], &mut yb), 0);
            }
        }
    }

    /// The 1 x 2 word loop against its definition: per word the sums of the input values plus
    /// the offset times each filter's values, over the shortest slice (odd and even lengths).
    #[test]
    fn word_loop_sums_offset_values() {
        let mut state = 0x1a2b_0001_u32;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        };
        for (len, offset) in [(0, 3), (1, 128), (2, -127), (5, 0), (8, 77), (9, -128)] {
            let mut words = |n: usize| -> Vec<[i8; 4]> {
                (0..n)
                    .map(|_| next().to_le_bytes().map(|b| b as i8))
                    .collect()
            };
            let (x, fa, fb) = (words(len), words(len + 1), words(len + 2));
            let acc = [next() as i32, i32::MIN + 5];
            let got = smlad_1x2_words(&x, &fa, &fb, splat16(offset), acc);
            let mut want = acc.map(i64::from);
            for ((x, a), b) in x.iter().zip(&fa).zip(&fb) {
                for j in 0..4 {
                    let v = i64::from(x[j]) + i64::from(offset);
                    want[0] += v * i64::from(a[j]);
                    want[1] += v * i64::from(b[j]);
                }
            }
            assert_eq!(got, want.map(|v| v as i32), "{len} {offset}");
        }
    }

    /// The 1 x 3 word loop against its definition: per word the sums of the input values plus
    /// the offset times each of three rows `depth` apart (odd and even word counts, rows longer
    /// than the words read); rows too short for the words leave the sums unchanged.
    #[test]
    fn three_row_loop_sums_offset_values() {
        let mut state = 0x1a2b_0003_u32;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        };
        for (len, depth, offset) in [
            (0, 0, 3),
            (1, 4, 128),
            (2, 9, -127),
            (5, 20, 0),
            (8, 33, 77),
        ] {
            let x: Vec<[i8; 4]> = (0..len)
                .map(|_| next().to_le_bytes().map(|b| b as i8))
                .collect();
            let f: Vec<i8> = (0..3 * depth).map(|_| next() as i8).collect();
            let acc = [next() as i32, i32::MIN + 5, 17];
            let got = smlad_1x3_words(&x, &f, depth, splat16(offset), acc);
            let mut want = acc.map(i64::from);
            for (k, x) in x.iter().enumerate() {
                for j in 0..4 {
                    let v = i64::from(x[j]) + i64::from(offset);
                    for (r, w) in want.iter_mut().enumerate() {
                        *w += v * i64::from(f[r * depth + 4 * k + j]);
                    }
                }
            }
            assert_eq!(got, want.map(|v| v as i32), "{len} {depth} {offset}");
            // One value short of the third row's words, or rows shorter than the words.
            if len > 0 {
                assert_eq!(
                    smlad_1x3_words(&x, &f[..f.len() - 1 - (depth - 4 * len)], depth, 0, acc),
                    acc
                );
                assert_eq!(smlad_1x3_words(&x, &f, 4 * len - 1, 0, acc), acc);
            }
        }
    }

    /// The 2 x 2 group loop against its definition: per group the sums of the matching values
    /// of the pixels' `SXTAB16` lanes and the filters' bytes, over the shortest slice.
    #[test]
    fn group_loop_sums_matching_values() {
        let mut state = 0x2b2b_0001_u32;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        };
        for len in [0, 1, 2, 5, 9] {
            let x: Vec<[u32; 4]> = (0..len).map(|_| [next(), next(), next(), next()]).collect();
            let f = |next: &mut dyn FnMut() -> u32| -> Vec<[i8; 4]> {
                (0..len + 1)
                    .map(|_| next().to_le_bytes().map(|b| b as i8))
                    .collect()
            };
            let (fa, fb) = (f(&mut next), f(&mut next));
            let acc = [next() as i32, next() as i32, 7, i32::MIN];
            let got = smlad_2x2_groups(&x, &fa, &fb, acc);
            let h = |w: u32, l: u32| ((w >> (16 * l)) & 0xffff) as u16 as i16 as i64;
            let mut want = acc.map(i64::from);
            for (k, &[a0, a1, b0, b1]) in x.iter().enumerate() {
                // Value j of a pixel: word j % 2, halfword j / 2.
                let (a, b) = ([a0, a1], [b0, b1]);
                for j in 0..4 {
                    let (xa, xb) = (h(a[j % 2], j as u32 / 2), h(b[j % 2], j as u32 / 2));
                    let (wa, wb) = (fa[k][j] as i64, fb[k][j] as i64);
                    want[0] += xa * wa;
                    want[1] += xa * wb;
                    want[2] += xb * wa;
                    want[3] += xb * wb;
                }
            }
            assert_eq!(got, want.map(|v| v as i32), "{len}");
        }
    }

    /// The definitions, from the Armv7-M Architecture Reference Manual's pseudocode, lane by
    /// lane in `i64` (no wrapping but the final one).
    fn scalar_sxtab16(a: u32, x: u32, rotate: u32) -> u32 {
        let x = x.rotate_right(rotate);
        let lo = ((a & 0xffff) as u16 as i16 as i64 + (x & 0xff) as u8 as i8 as i64) as u64;
        let hi = ((a >> 16) as u16 as i16 as i64 + ((x >> 16) & 0xff) as u8 as i8 as i64) as u64;
        ((lo & 0xffff) | (hi & 0xffff) << 16) as u32
    }

    fn scalar_smlad(a: u32, b: u32, acc: i32, lanes: &[(u32, u32)]) -> i32 {
        let h = |v: u32, l: u32| ((v >> (16 * l)) & 0xffff) as u16 as i16 as i64;
        let sum = lanes
            .iter()
            .fold(acc as i64, |s, &(la, lb)| s + h(a, la) * h(b, lb));
        sum as i32
    }

    /// Edge values (every byte and halfword extreme) and xorshift32 values.
    fn values() -> impl Iterator<Item = u32> {
        let edges = [
            0,
            1,
            0x7f,
            0x80,
            0xff,
            0x7f7f_7f7f,
            0x8080_8080,
            0xffff_ffff,
            0x7fff_8000,
            0x8000_7fff,
            0x0080_ff7f,
            0xff80_0001,
            0x0001_0001,
            0xffff_0000,
        ];
        let mut x = 0x2545_f491_u32;
        let n = if cfg!(miri) { 40 } else { 4000 };
        edges.into_iter().chain((0..n).map(move |_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        }))
    }

    #[test]
    fn extensions_match_the_definitions() {
        for x in values() {
            assert_eq!(sxtb16(x), scalar_sxtab16(0, x, 0), "{x:#x}");
            assert_eq!(sxtb16_ror8(x), scalar_sxtab16(0, x, 8), "{x:#x}");
            for a in values().step_by(97) {
                // SXTAH: the accumulator plus the low halfword of `x` sign-extended, in 64
                // bits, wrapped (at the accumulator's extremes too).
                for acc in [a as i32, i32::MAX, i32::MIN] {
                    let want = (i64::from(acc) + i64::from((x & 0xffff) as u16 as i16)) as i32;
                    assert_eq!(sxtah(acc, x), want, "{acc:#x} {x:#x}");
                }
                assert_eq!(sxtab16(a, x), scalar_sxtab16(a, x, 0), "{a:#x} {x:#x}");
                assert_eq!(sxtab16_ror8(a, x), scalar_sxtab16(a, x, 8), "{a:#x} {x:#x}");
            }
        }
    }

    #[test]
    fn multiply_accumulates_match_the_definitions() {
        for a in values() {
            for b in values().step_by(89) {
                for acc in [
                    0,
                    1,
                    -1,
                    i32::MAX,
                    i32::MIN,
                    a as i32,
                    b.wrapping_mul(3) as i32,
                ] {
                    let ctx = (a, b, acc);
                    assert_eq!(
                        smlad(a, b, acc),
                        scalar_smlad(a, b, acc, &[(0, 0), (1, 1)]),
                        "{ctx:x?}"
                    );
                    assert_eq!(
                        smlabb(a, b, acc),
                        scalar_smlad(a, b, acc, &[(0, 0)]),
                        "{ctx:x?}"
                    );
                    assert_eq!(
                        smlatt(a, b, acc),
                        scalar_smlad(a, b, acc, &[(1, 1)]),
                        "{ctx:x?}"
                    );
                    assert_eq!(
                        smlabt(a, b, acc),
                        scalar_smlad(a, b, acc, &[(0, 1)]),
                        "{ctx:x?}"
                    );
                }
            }
        }
    }

    #[test]
    fn wide_accumulates_products_and_packs_match_the_definitions() {
        let h = |v: u32, l: u32| i64::from((v >> (16 * l)) as u16 as i16);
        let b = |v: u32, i: u32| i64::from((v >> (8 * i)) as u8 as i8);
        for a in values() {
            for x in values().step_by(89) {
                for acc in [0, 1, -1, i64::MAX, i64::MIN, i64::from(a as i32) << 20] {
                    let sum = (i128::from(acc) + i128::from(h(a, 0) * h(x, 0) + h(a, 1) * h(x, 1)))
                        as i64;
                    assert_eq!(smlald(a, x, acc), sum, "{a:#x} {x:#x} {acc}");
                }
                assert_eq!(i64::from(smulbb(a, x)), h(a, 0) * h(x, 0));
                assert_eq!(i64::from(smultt(a, x)), h(a, 1) * h(x, 1));
                assert_eq!(pkhbt(a, x), (a & 0xffff) | ((x & 0xffff) << 16));
                assert_eq!(pkhtb(a, x), (a & 0xffff_0000) | (x >> 16));
                let (m8, m16) = (max8(a, x), max16(a, x));
                for i in 0..4 {
                    assert_eq!(b(m8, i), b(a, i).max(b(x, i)), "{a:#x} {x:#x}");
                }
                for l in 0..2 {
                    assert_eq!(h(m16, l), h(a, l).max(h(x, l)), "{a:#x} {x:#x}");
                }
            }
        }
    }

    #[test]
    fn words_are_little_endian_and_halfwords_splat() {
        assert_eq!(word(&[1, -1, 0x7f, -128]), 0x807f_ff01);
        assert_eq!(word(&[1, 2, 3]), 0);
        assert_eq!(splat16(-255), 0xff01_ff01);
        assert_eq!(splat16(128), 0x0080_0080);
        // The offset trick of the kernels: x + offset in both lanes, for every int8 x and every
        // offset TFLM allows (minus a zero point in -128..=127).
        // Every pair on the host; under miri, a sample that keeps both ends.
        let step = if cfg!(miri) { 15 } else { 1 };
        for offset in (-127..=128).step_by(step).chain([128]) {
            for x in (-128..=127_i32).step_by(step).chain([127]) {
                let w = u32::from_le_bytes([x as u8, 0, (-x - 1) as u8, 0]);
                let s = sxtab16(splat16(offset), w);
                assert_eq!(lane(s, 0), x + offset);
                assert_eq!(lane(s, 1), -x - 1 + offset);
            }
        }
    }
}
