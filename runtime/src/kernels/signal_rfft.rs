//! `SignalRfft` (TFLM's `signal/micro/kernels/rfft.cc`, `signal/src/rfft_int16.cc`,
//! `rfft_int32.cc`, `rfft_float.cc`): the real FFT of each frame of the input, as TFLM
//! computes it with KISS FFT (v130, `kiss_fftr` over `kiss_fft`): the frame zero-padded to
//! `fft_length`, packed as `fft_length / 2` complex values, a mixed-radix complex FFT (radix
//! 4, 2, 3 and 5 butterflies, recursing as KISS FFT's `kf_work` does), then the split into the
//! real spectrum's `fft_length / 2 + 1` values. The fixed-point builds (int16: Q15 with int32
//! products; int32: Q31 with int64 products) divide by the radix at every stage, as KISS FFT's
//! `C_FIXDIV` does, and round products as its `sround`; the float build uses the same
//! operations in the same order in `f32`. The twiddle factors and the factorisation (KISS
//! FFT's `kiss_fft_alloc`) are computed when the crate builds and passed in the parameters.
//!
//! The complex work buffer (KISS FFT's `tmpbuf`) is the op's scratch, `fft_length / 2`
//! complex values in 32-bit words: one word per int16 complex value (real part in the low half),
//! two per int32 or float value.

use super::shared::check::{KernelError, check, length, require};

/// The arithmetic of one KISS FFT build (`_kiss_fft_guts.h` for `FIXED_POINT` 16, 32 and
/// float).
pub trait FftScalar: Copy + Default + core::fmt::Debug + sealed::Sealed {
    /// 32-bit words per complex value in the scratch.
    #[doc(hidden)]
    const WORDS: usize;
    #[doc(hidden)]
    fn load(s: &[u32], k: usize) -> Cpx2<Self>;
    #[doc(hidden)]
    fn store(s: &mut [u32], k: usize, c: Cpx2<Self>);
    /// `a + b` stored in the scalar type.
    #[doc(hidden)]
    fn add(a: Self, b: Self) -> Self;
    /// `a - b` stored in the scalar type.
    #[doc(hidden)]
    fn sub(a: Self, b: Self) -> Self;
    /// `-a` stored in the scalar type.
    #[doc(hidden)]
    fn neg(a: Self) -> Self;
    /// `S_MUL(a, b)`.
    #[doc(hidden)]
    fn s_mul(a: Self, b: Self) -> Self;
    /// `C_MUL(m, a, b)`.
    #[doc(hidden)]
    fn c_mul(a: Cpx2<Self>, b: Cpx2<Self>) -> Cpx2<Self>;
    /// `DIVSCALAR(x, k)`.
    #[doc(hidden)]
    fn div(x: Self, k: i32) -> Self;
    /// `HALF_OF(x)` of a value already in the scalar type.
    #[doc(hidden)]
    fn half(x: Self) -> Self;
    /// `HALF_OF(a + b)`, the sum in C's arithmetic (int for int16, wrapping int32, float).
    #[doc(hidden)]
    fn half_sum(a: Self, b: Self) -> Self;
    /// `HALF_OF(a - b)`, likewise.
    #[doc(hidden)]
    fn half_diff(a: Self, b: Self) -> Self;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for i16 {}
    impl Sealed for i32 {}
    impl Sealed for f32 {}
}

/// A complex value (for [`FftScalar`]'s hidden methods).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Cpx2<T> {
    r: T,
    i: T,
}

const fn cpx<T>(r: T, i: T) -> Cpx2<T> {
    Cpx2 { r, i }
}

/// `sround` of Q15.
#[inline(always)]
const fn sround16(x: i32) -> i16 {
    (x.wrapping_add(1 << 14) >> 15) as i16
}

/// `sround` of Q31.
#[inline(always)]
const fn sround32(x: i64) -> i32 {
    (x.wrapping_add(1 << 30) >> 31) as i32
}

impl FftScalar for i16 {
    const WORDS: usize = 1;
    fn load(s: &[u32], k: usize) -> Cpx2<Self> {
        let w = super::shared::at(s, k);
        cpx(w as i16, (w >> 16) as i16)
    }
    fn store(s: &mut [u32], k: usize, c: Cpx2<Self>) {
        if let Some(w) = s.get_mut(k) {
            *w = u32::from(c.r as u16) | (u32::from(c.i as u16) << 16);
        }
    }
    fn add(a: Self, b: Self) -> Self {
        a.wrapping_add(b)
    }
    fn sub(a: Self, b: Self) -> Self {
        a.wrapping_sub(b)
    }
    fn neg(a: Self) -> Self {
        a.wrapping_neg()
    }
    fn s_mul(a: Self, b: Self) -> Self {
        sround16(i32::from(a) * i32::from(b))
    }
    fn c_mul(a: Cpx2<Self>, b: Cpx2<Self>) -> Cpx2<Self> {
        let m = |x: i16, y: i16| i32::from(x) * i32::from(y);
        cpx(
            sround16(m(a.r, b.r).wrapping_sub(m(a.i, b.i))),
            sround16(m(a.r, b.i).wrapping_add(m(a.i, b.r))),
        )
    }
    fn div(x: Self, k: i32) -> Self {
        sround16(i32::from(x) * (32767 / k))
    }
    fn half(x: Self) -> Self {
        x >> 1
    }
    fn half_sum(a: Self, b: Self) -> Self {
        ((i32::from(a) + i32::from(b)) >> 1) as i16
    }
    fn half_diff(a: Self, b: Self) -> Self {
        ((i32::from(a) - i32::from(b)) >> 1) as i16
    }
}

impl FftScalar for i32 {
    const WORDS: usize = 2;
    fn load(s: &[u32], k: usize) -> Cpx2<Self> {
        cpx(
            super::shared::at(s, 2 * k) as i32,
            super::shared::at(s, 2 * k + 1) as i32,
        )
    }
    fn store(s: &mut [u32], k: usize, c: Cpx2<Self>) {
        if let Some(w) = s.get_mut(2 * k) {
            *w = c.r as u32;
        }
        if let Some(w) = s.get_mut(2 * k + 1) {
            *w = c.i as u32;
        }
    }
    fn add(a: Self, b: Self) -> Self {
        a.wrapping_add(b)
    }
    fn sub(a: Self, b: Self) -> Self {
        a.wrapping_sub(b)
    }
    fn neg(a: Self) -> Self {
        a.wrapping_neg()
    }
    fn s_mul(a: Self, b: Self) -> Self {
        sround32(i64::from(a) * i64::from(b))
    }
    fn c_mul(a: Cpx2<Self>, b: Cpx2<Self>) -> Cpx2<Self> {
        let m = |x: i32, y: i32| i64::from(x) * i64::from(y);
        cpx(
            sround32(m(a.r, b.r).wrapping_sub(m(a.i, b.i))),
            sround32(m(a.r, b.i).wrapping_add(m(a.i, b.r))),
        )
    }
    fn div(x: Self, k: i32) -> Self {
        sround32(i64::from(x) * i64::from(2_147_483_647 / k))
    }
    fn half(x: Self) -> Self {
        x >> 1
    }
    fn half_sum(a: Self, b: Self) -> Self {
        a.wrapping_add(b) >> 1
    }
    fn half_diff(a: Self, b: Self) -> Self {
        a.wrapping_sub(b) >> 1
    }
}

impl FftScalar for f32 {
    const WORDS: usize = 2;
    fn load(s: &[u32], k: usize) -> Cpx2<Self> {
        cpx(
            f32::from_bits(super::shared::at(s, 2 * k)),
            f32::from_bits(super::shared::at(s, 2 * k + 1)),
        )
    }
    fn store(s: &mut [u32], k: usize, c: Cpx2<Self>) {
        if let Some(w) = s.get_mut(2 * k) {
            *w = c.r.to_bits();
        }
        if let Some(w) = s.get_mut(2 * k + 1) {
            *w = c.i.to_bits();
        }
    }
    fn add(a: Self, b: Self) -> Self {
        a + b
    }
    fn sub(a: Self, b: Self) -> Self {
        a - b
    }
    fn neg(a: Self) -> Self {
        -a
    }
    fn s_mul(a: Self, b: Self) -> Self {
        a * b
    }
    fn c_mul(a: Cpx2<Self>, b: Cpx2<Self>) -> Cpx2<Self> {
        cpx(a.r * b.r - a.i * b.i, a.r * b.i + a.i * b.r)
    }
    fn div(x: Self, _k: i32) -> Self {
        x
    }
    fn half(x: Self) -> Self {
        x * 0.5
    }
    fn half_sum(a: Self, b: Self) -> Self {
        (a + b) * 0.5
    }
    fn half_diff(a: Self, b: Self) -> Self {
        (a - b) * 0.5
    }
}

/// The most KISS FFT stages (its `MAXFACTORS`).
pub const MAX_FACTORS: usize = 32;

/// Parameters of [`signal_rfft`]: TFLM's `RfftPrepare` and KISS FFT's `kiss_fftr_alloc`, at
/// build time.
#[derive(Clone, Copy, Debug)]
pub struct SignalRfft<T: 'static> {
    /// `fft_length` (even).
    pub fft_length: usize,
    /// Values per input frame (the input's last dimension, at most `fft_length`).
    pub input_length: usize,
    /// Input values in all (a multiple of `input_length`).
    pub input_size: usize,
    /// Output values per frame (`fft_length + 2`: complex values interleaved).
    pub output_length: usize,
    /// KISS FFT's factors of `fft_length / 2`: `[radix, remaining length]` per stage, radices
    /// 2 to 5, stages in order, the rest unused.
    pub factors: [[usize; 2]; MAX_FACTORS],
    /// The stages in use.
    pub stages: usize,
    /// `fft_length / 2` twiddles `exp(-2 pi i k / (fft_length / 2))`, interleaved.
    pub twiddles: &'static [T],
    /// `fft_length / 4` super-twiddles of `kiss_fftr`, interleaved.
    pub super_twiddles: &'static [T],
}

fn tw<T: FftScalar>(t: &[T], k: usize) -> Cpx2<T> {
    cpx(super::shared::at(t, 2 * k), super::shared::at(t, 2 * k + 1))
}

fn fixdiv<T: FftScalar>(c: Cpx2<T>, k: i32) -> Cpx2<T> {
    cpx(T::div(c.r, k), T::div(c.i, k))
}

fn c_add<T: FftScalar>(a: Cpx2<T>, b: Cpx2<T>) -> Cpx2<T> {
    cpx(T::add(a.r, b.r), T::add(a.i, b.i))
}

fn c_sub<T: FftScalar>(a: Cpx2<T>, b: Cpx2<T>) -> Cpx2<T> {
    cpx(T::sub(a.r, b.r), T::sub(a.i, b.i))
}

/// `kf_bfly2`.
fn bfly2<T: FftScalar>(s: &mut [u32], fout: usize, fstride: usize, twiddles: &[T], m: usize) {
    for k in 0..m {
        let a = fixdiv(T::load(s, fout + k), 2);
        let b = fixdiv(T::load(s, fout + k + m), 2);
        let t = T::c_mul(b, tw(twiddles, k * fstride));
        T::store(s, fout + k + m, c_sub(a, t));
        T::store(s, fout + k, c_add(a, t));
    }
}

/// `kf_bfly4` (forward).
fn bfly4<T: FftScalar>(s: &mut [u32], fout: usize, fstride: usize, twiddles: &[T], m: usize) {
    for k in 0..m {
        let f = fout + k;
        let f0 = fixdiv(T::load(s, f), 4);
        let f1 = fixdiv(T::load(s, f + m), 4);
        let f2 = fixdiv(T::load(s, f + 2 * m), 4);
        let f3 = fixdiv(T::load(s, f + 3 * m), 4);
        let s0 = T::c_mul(f1, tw(twiddles, k * fstride));
        let s1 = T::c_mul(f2, tw(twiddles, 2 * k * fstride));
        let s2 = T::c_mul(f3, tw(twiddles, 3 * k * fstride));
        let s5 = c_sub(f0, s1);
        let f0 = c_add(f0, s1);
        let s3 = c_add(s0, s2);
        let s4 = c_sub(s0, s2);
        T::store(s, f + 2 * m, c_sub(f0, s3));
        T::store(s, f, c_add(f0, s3));
        T::store(s, f + m, cpx(T::add(s5.r, s4.i), T::sub(s5.i, s4.r)));
        T::store(s, f + 3 * m, cpx(T::sub(s5.r, s4.i), T::add(s5.i, s4.r)));
    }
}

/// `kf_bfly3`.
fn bfly3<T: FftScalar>(s: &mut [u32], fout: usize, fstride: usize, twiddles: &[T], m: usize) {
    let epi3 = tw(twiddles, fstride * m);
    for k in 0..m {
        let f = fout + k;
        let f0 = fixdiv(T::load(s, f), 3);
        let f1 = fixdiv(T::load(s, f + m), 3);
        let f2 = fixdiv(T::load(s, f + 2 * m), 3);
        let s1 = T::c_mul(f1, tw(twiddles, k * fstride));
        let s2 = T::c_mul(f2, tw(twiddles, 2 * k * fstride));
        let s3 = c_add(s1, s2);
        let s0 = c_sub(s1, s2);
        let fm = cpx(T::sub(f0.r, T::half(s3.r)), T::sub(f0.i, T::half(s3.i)));
        let s0 = cpx(T::s_mul(s0.r, epi3.i), T::s_mul(s0.i, epi3.i));
        T::store(s, f, c_add(f0, s3));
        T::store(s, f + 2 * m, cpx(T::add(fm.r, s0.i), T::sub(fm.i, s0.r)));
        T::store(s, f + m, cpx(T::sub(fm.r, s0.i), T::add(fm.i, s0.r)));
    }
}

/// `kf_bfly5`.
fn bfly5<T: FftScalar>(s: &mut [u32], fout: usize, fstride: usize, twiddles: &[T], m: usize) {
    let ya = tw(twiddles, fstride * m);
    let yb = tw(twiddles, fstride * 2 * m);
    let sm = T::s_mul;
    for u in 0..m {
        let idx = [
            fout + u,
            fout + u + m,
            fout + u + 2 * m,
            fout + u + 3 * m,
            fout + u + 4 * m,
        ];
        let f = idx.map(|i| fixdiv(T::load(s, i), 5));
        let s0 = f[0];
        let s1 = T::c_mul(f[1], tw(twiddles, u * fstride));
        let s2 = T::c_mul(f[2], tw(twiddles, 2 * u * fstride));
        let s3 = T::c_mul(f[3], tw(twiddles, 3 * u * fstride));
        let s4 = T::c_mul(f[4], tw(twiddles, 4 * u * fstride));
        let s7 = c_add(s1, s4);
        let s10 = c_sub(s1, s4);
        let s8 = c_add(s2, s3);
        let s9 = c_sub(s2, s3);
        let out0 = cpx(
            T::add(s0.r, T::add(s7.r, s8.r)),
            T::add(s0.i, T::add(s7.i, s8.i)),
        );
        let s5 = cpx(
            T::add(T::add(s0.r, sm(s7.r, ya.r)), sm(s8.r, yb.r)),
            T::add(T::add(s0.i, sm(s7.i, ya.r)), sm(s8.i, yb.r)),
        );
        let s6 = cpx(
            T::add(sm(s10.i, ya.i), sm(s9.i, yb.i)),
            T::sub(T::neg(sm(s10.r, ya.i)), sm(s9.r, yb.i)),
        );
        let s11 = cpx(
            T::add(T::add(s0.r, sm(s7.r, yb.r)), sm(s8.r, ya.r)),
            T::add(T::add(s0.i, sm(s7.i, yb.r)), sm(s8.i, ya.r)),
        );
        let s12 = cpx(
            T::add(T::neg(sm(s10.i, yb.i)), sm(s9.i, ya.i)),
            T::sub(sm(s10.r, yb.i), sm(s9.r, ya.i)),
        );
        T::store(s, idx[0], out0);
        T::store(s, idx[1], c_sub(s5, s6));
        T::store(s, idx[4], c_add(s5, s6));
        T::store(s, idx[2], c_add(s11, s12));
        T::store(s, idx[3], c_sub(s11, s12));
    }
}

/// `kf_work` with an input stride of 1: the packed frame's complex value `j` is
/// `(frame[2j], frame[2j + 1])`, 0 past the frame.
#[allow(clippy::too_many_arguments)]
fn work<T: FftScalar>(
    s: &mut [u32],
    fout: usize,
    frame: &[T],
    f: usize,
    fstride: usize,
    factors: &[[usize; 2]],
    twiddles: &[T],
) {
    let Some((&[p, m], rest)) = factors.split_first() else {
        return;
    };
    if m == 1 {
        for k in 0..p {
            let j = f + k * fstride;
            T::store(
                s,
                fout + k,
                cpx(
                    super::shared::at(frame, 2 * j),
                    super::shared::at(frame, 2 * j + 1),
                ),
            );
        }
    } else {
        for k in 0..p {
            work(
                s,
                fout + k * m,
                frame,
                f + k * fstride,
                fstride * p,
                rest,
                twiddles,
            );
        }
    }
    match p {
        2 => bfly2(s, fout, fstride, twiddles, m),
        3 => bfly3(s, fout, fstride, twiddles, m),
        4 => bfly4(s, fout, fstride, twiddles, m),
        5 => bfly5(s, fout, fstride, twiddles, m),
        _ => {}
    }
}

/// [`signal_rfft`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_signal_rfft<T: FftScalar>(
    input: usize,
    params: &SignalRfft<T>,
    output: usize,
    scratch: usize,
) -> Result<(), KernelError> {
    let ncfft = params.fft_length / 2;
    check!(require(
        ncfft >= 1 && params.fft_length.is_multiple_of(2),
        "fft_length is not a positive even number"
    ));
    check!(require(
        params.input_length >= 1 && params.input_length <= params.fft_length,
        "the frame is empty or longer than fft_length"
    ));
    check!(require(
        params.input_size.is_multiple_of(params.input_length),
        "the input is not a whole number of frames"
    ));
    check!(length("input", Some(params.input_size), input));
    check!(require(
        params.output_length == params.fft_length + 2,
        "the output frame is not fft_length + 2 values"
    ));
    check!(length(
        "output",
        (params.input_size / params.input_length).checked_mul(params.output_length),
        output
    ));
    check!(require(
        params.stages >= 1 && params.stages <= MAX_FACTORS,
        "the stages are not 1 to MAX_FACTORS"
    ));
    let mut remaining = ncfft;
    let mut s = 0;
    while s < params.stages {
        let [radix, m] = params.factors[s];
        check!(require(
            radix >= 2 && radix <= 5 && remaining.is_multiple_of(radix) && m == remaining / radix,
            "the factors are not KISS FFT's of fft_length / 2 in radices 2 to 5"
        ));
        remaining = m;
        s += 1;
    }
    check!(require(
        remaining == 1,
        "the factors are not KISS FFT's of fft_length / 2 in radices 2 to 5"
    ));
    check!(length("twiddles", Some(2 * ncfft), params.twiddles.len()));
    check!(length(
        "super_twiddles",
        Some(2 * (ncfft / 2)),
        params.super_twiddles.len()
    ));
    let words = match ncfft.checked_mul(T::WORDS) {
        Some(w) => w,
        None => return Err(KernelError::Parameters("the scratch size overflows")),
    };
    require(
        scratch >= words,
        "the scratch holds fewer than fft_length / 2 values",
    )
}

/// TFLM's `RfftEval`: for each frame `k` of `input_length` input values, `kiss_fftr` of the
/// frame zero-padded to `fft_length`: `fft_length / 2 + 1` complex values, interleaved, from
/// output value `k * output_length`.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_signal_rfft`])
/// hold: the parameters are `kiss_fftr_alloc`'s for an even `fft_length` (radices 2 to 5,
/// `fft_length / 2` twiddles and `fft_length / 4` super-twiddles), frames of 1 to `fft_length`
/// values, `input.len() == input_size` (whole frames), `output_length == fft_length + 2` and
/// `output.len() == input_size / input_length * output_length`, `scratch.len() >= fft_length /
/// 2 * T::WORDS`.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn signal_rfft<T: FftScalar>(
    input: &[T],
    params: &SignalRfft<T>,
    output: &mut [T],
    scratch: &mut [u32],
) -> Result<(), KernelError> {
    check_signal_rfft(input.len(), params, output.len(), scratch.len())?;
    proven::signal_rfft(input, params, output, scratch);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`signal_rfft`](super::signal_rfft), its [`check`](super::check_signal_rfft) proven.
    #[inline]
    pub fn signal_rfft<T: FftScalar>(
        input: &[T],
        params: &SignalRfft<T>,
        output: &mut [T],
        scratch: &mut [u32],
    ) {
        debug_assert!(
            super::check_signal_rfft(input.len(), params, output.len(), scratch.len()).is_ok()
        );
        let ncfft = params.fft_length / 2;
        if params.input_length == 0 || ncfft == 0 {
            return;
        }
        let factors = params.factors.get(..params.stages).unwrap_or(&[]);
        let frames = input
            .get(..params.input_size)
            .unwrap_or(input)
            .chunks(params.input_length);
        let outs = output.chunks_mut(params.output_length.max(1));
        for (frame, out) in frames.zip(outs) {
            work(scratch, 0, frame, 0, 1, factors, params.twiddles);
            let put = |out: &mut [T], k: usize, c: Cpx2<T>| {
                if let Some(v) = out.get_mut(2 * k) {
                    *v = c.r;
                }
                if let Some(v) = out.get_mut(2 * k + 1) {
                    *v = c.i;
                }
            };
            let tdc = fixdiv(T::load(scratch, 0), 2);
            put(out, 0, cpx(T::add(tdc.r, tdc.i), T::default()));
            put(out, ncfft, cpx(T::sub(tdc.r, tdc.i), T::default()));
            for k in 1..=ncfft / 2 {
                let fpk = fixdiv(T::load(scratch, k), 2);
                let nk = T::load(scratch, ncfft - k);
                let fpnk = fixdiv(cpx(nk.r, T::neg(nk.i)), 2);
                let f1k = c_add(fpk, fpnk);
                let f2k = c_sub(fpk, fpnk);
                let t = T::c_mul(f2k, tw(params.super_twiddles, k - 1));
                put(
                    out,
                    k,
                    cpx(T::half_sum(f1k.r, t.r), T::half_sum(f1k.i, t.i)),
                );
                put(
                    out,
                    ncfft - k,
                    cpx(T::half_diff(f1k.r, t.r), T::half_diff(t.i, f1k.i)),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(input_length: usize) -> SignalRfft<i16> {
        let mut factors = [[0, 0]; MAX_FACTORS];
        factors[0] = [2, 1];
        SignalRfft {
            fft_length: 4,
            input_length,
            input_size: input_length,
            output_length: 6,
            factors,
            stages: 1,
            // exp(-2 pi i k / 2) and exp(-i pi (1/2 + 1/2)) in Q15, as kiss_fftr_alloc makes them.
            twiddles: &[32767, 0, -32767, 0],
            super_twiddles: &[-32767, 0],
        }
    }

    #[test]
    fn impulse_is_flat() {
        let mut out = [0i16; 6];
        let mut scratch = [0u32; 2];
        signal_rfft(&[1000, 0, 0, 0], &params(4), &mut out, &mut scratch).unwrap();
        // Each of the two stages halves (with Q15's 16383/32768), the split halves again.
        assert_eq!(out, [250, 0, 250, 0, 250, 0]);
        // A shorter frame is zero-padded.
        signal_rfft(&[1000], &params(1), &mut out, &mut scratch).unwrap();
        assert_eq!(out, [250, 0, 250, 0, 250, 0]);
    }

    #[test]
    fn alternating_is_nyquist() {
        let mut out = [0i16; 6];
        let mut scratch = [0u32; 2];
        signal_rfft(
            &[1000, -1000, 1000, -1000],
            &params(4),
            &mut out,
            &mut scratch,
        )
        .unwrap();
        assert_eq!(out[0], 0);
        assert!(out[4] > 900, "{out:?}");
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        let p = params(4);
        refuses([4, 6, 2], [Exact, Exact, AtLeast], |[i, o, s]| {
            let (mut out, mut scratch) = (vec![7_i16; o], vec![0_u32; s]);
            (
                signal_rfft(&vec![0; i], &p, &mut out, &mut scratch),
                untouched(&out, 7),
            )
        });
        let mut out = [7_i16; 6];
        let unfactored = SignalRfft { stages: 0, ..p };
        assert!(signal_rfft(&[0; 4], &unfactored, &mut out, &mut [0; 2]).is_err());
        assert_eq!(out, [7; 6]);
    }
}
