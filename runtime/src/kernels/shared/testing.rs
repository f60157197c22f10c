//! Test helpers the ops' tests share: geometries, packed int4 filters, and the seeded inputs and
//! multipliers the DSP kernels' tests draw (forms of every epilogue).

extern crate std;
use std::vec::Vec;

use super::requant::Requant;
use super::window::{ConvGeometry, ConvS8, Part};

/// A stride-1, undilated, unpadded geometry of these shapes (depth multiplier 1).
pub(crate) fn geometry(input: [usize; 4], filter: [usize; 4], output: [usize; 4]) -> ConvGeometry {
    ConvGeometry {
        input,
        filter,
        output,
        stride_h: 1,
        stride_w: 1,
        dilation_h: 1,
        dilation_w: 1,
        pad_h: 0,
        pad_w: 0,
        depth_multiplier: 1,
    }
}

/// One geometry: `[N, H, W, C]`, `O` filters of `kh x kw`, strides, dilations, and the
/// padding (`None`: TFLite's SAME, `Some(p)`: `p` on both sides, `Some(0)` being VALID).
#[allow(clippy::too_many_arguments)]
pub(crate) fn padded(
    [n, h, w, c]: [usize; 4],
    o: usize,
    [kh, kw]: [usize; 2],
    [sh, sw]: [usize; 2],
    [dh, dw]: [usize; 2],
    pad: Option<usize>,
) -> Option<ConvGeometry> {
    // TFLM's output size and padding per dimension.
    let dim = |size: usize, k: usize, s: usize, d: usize| -> Option<(usize, usize)> {
        let extent = (k - 1) * d + 1;
        match pad {
            None => {
                let out = size.div_ceil(s);
                let total = ((out - 1) * s + extent).saturating_sub(size);
                Some((out, total / 2))
            }
            Some(p) => {
                let padded = size + 2 * p;
                (padded >= extent).then(|| ((padded - extent) / s + 1, p))
            }
        }
    };
    let (oh, ph) = dim(h, kh, sh, dh)?;
    let (ow, pw) = dim(w, kw, sw, dw)?;
    Some(ConvGeometry {
        input: [n, h, w, c],
        filter: [o, kh, kw, c],
        output: [n, oh, ow, o],
        stride_h: sh,
        stride_w: sw,
        dilation_h: dh,
        dilation_w: dw,
        pad_h: ph,
        pad_w: pw,
        depth_multiplier: 1,
    })
}

/// The overlapped driver's chunks of `g` (as `overlap`'s walk makes them), cut at random:
/// per batch, runs of whole output rows (their input rows, the padding above moved to
/// match, [`Part::WHOLE`]), and rows cut into runs of pixels (the input rows the row's
/// windows reach, all columns, the run's first column and up to as many input pixels
/// skipped as its first window leaves of its first row). Each: the chunk's geometry, part,
/// input elements and output elements of the whole tensors.
pub(crate) fn driver_chunks(
    g: &ConvGeometry,
    rng: &mut Rng,
) -> Vec<(ConvGeometry, Part, [usize; 2], [usize; 2])> {
    let [n, h, w, c] = g.input;
    let [_, oh, ow, o] = g.output;
    let extent = (g.filter[1] - 1) * g.dilation_h + 1;
    let first_row = |y: usize| (y * g.stride_h).saturating_sub(g.pad_h).min(h);
    let end_row = |y: usize| (y * g.stride_h + extent).saturating_sub(g.pad_h).min(h);
    let first_column = |x: usize| (x * g.stride_w).saturating_sub(g.pad_w).min(w);
    let mut out = Vec::new();
    for b in 0..n {
        let mut y = 0;
        while y < oh {
            let rows = 1 + rng.below(oh - y);
            let (r0, r1) = (first_row(y), end_row(y + rows - 1));
            if r0 >= r1 {
                // Windows of padding alone: no chunk can hold them.
                y += rows;
                continue;
            }
            let sub = ConvGeometry {
                input: [1, r1 - r0, w, c],
                output: [1, rows, ow, o],
                pad_h: g.pad_h + r0 - y * g.stride_h,
                ..*g
            };
            let at = (b * h + r0) * w * c;
            let input = [at, at + (r1 - r0) * w * c];
            let out_at = (b * oh + y) * ow * o;
            if rows > 1 || rng.below(2) == 0 {
                let output = [out_at, out_at + rows * ow * o];
                out.push((sub, Part::WHOLE, input, output));
                y += rows;
                continue;
            }
            // One row in runs of pixels.
            let mut x = 0;
            while x < ow {
                let x1 = x + 1 + rng.below(ow - x);
                let skip = rng.below(first_column(x) + 1);
                let sub = ConvGeometry {
                    output: [1, 1, x1 - x, o],
                    ..sub
                };
                let part = Part { x0: x, skip };
                let input = [input[0] + skip * c, input[1]];
                let output = [out_at + x * o, out_at + x1 * o];
                out.push((sub, part, input, output));
                x = x1;
            }
            y += 1;
        }
    }
    out
}

/// Up to 64 int4 values packed two to a byte, the first in the low nibble, and the number
/// of bytes used.
pub(crate) fn pack(values: &[i8]) -> ([u8; 32], usize) {
    let mut bytes = [0u8; 32];
    for (i, &v) in values.iter().enumerate() {
        let nibble = (v as u8) & 0x0f;
        bytes[i / 2] |= if i.is_multiple_of(2) {
            nibble
        } else {
            nibble << 4
        };
    }
    (bytes, values.len().div_ceil(2))
}

/// Runs `f`, a kernel given a part that skips input pixels its windows read: in debug builds
/// it must fail (the kernels' check that no read falls outside their slice), and this says
/// whether it did; in release builds, which do not check, it runs and this says `true`.
pub(crate) fn fails_in_debug(f: impl FnOnce()) -> bool {
    extern crate std;
    use std::panic::{AssertUnwindSafe, catch_unwind};
    static QUIET: std::sync::Once = std::sync::Once::new();
    // The expected failures' messages stay out of the test output; every other panic prints.
    QUIET.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(std::boxed::Box::new(move |info| {
            let expected = info
                .payload()
                .downcast_ref::<std::string::String>()
                .is_some_and(|m| m.contains("a kernel would read outside its slice"));
            if !expected {
                default(info);
            }
        }));
    });
    let failed = catch_unwind(AssertUnwindSafe(f)).is_err();
    failed || !cfg!(debug_assertions)
}

/// xorshift32, seeded: the test inputs' source.
pub(crate) struct Rng(pub(crate) u32);

impl Rng {
    /// The next state.
    pub(crate) fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        self.0
    }

    /// A value in `0..n`.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.next() as usize % n
    }

    /// A value in `lo..=hi`.
    pub(crate) fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.next() as usize % (hi - lo + 1)
    }

    /// One of `items`.
    pub(crate) fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    /// `n` int8 values, a quarter of them at the extremes.
    pub(crate) fn values(&mut self, n: usize) -> Vec<i8> {
        (0..n)
            .map(|_| {
                let r = self.next();
                match r % 8 {
                    0 => -128,
                    1 => 127,
                    _ => (r >> 8) as i8,
                }
            })
            .collect()
    }

    /// An int8 value, a quarter of them at the extremes.
    pub(crate) fn s8(&mut self) -> i8 {
        let r = self.next();
        match r % 8 {
            0 => -128,
            1 => 127,
            _ => (r >> 8) as i8,
        }
    }

    /// An int16 value, a quarter of them at the extremes.
    pub(crate) fn s16(&mut self) -> i16 {
        let r = self.next();
        match r % 8 {
            0 => i16::MIN,
            1 => i16::MAX,
            _ => (r >> 8) as i16,
        }
    }

    /// int8 values, a quarter of them at the extremes.
    pub(crate) fn fill(&mut self, v: &mut [i8]) {
        for x in v {
            *x = self.s8();
        }
    }

    /// int8 values, a quarter of them at the extremes (as [`Rng::fill`]).
    pub(crate) fn fill8(&mut self, v: &mut [i8]) {
        self.fill(v);
    }

    /// int16 values, a quarter of them at the extremes.
    pub(crate) fn fill16(&mut self, v: &mut [i16]) {
        for x in v {
            *x = self.s16();
        }
    }
}

/// Channels the multiplier tables below hold: more than the tests' layers have, so that every
/// channel has its own multiplier (a channel past a table would read 0: a constant output).
pub(crate) const TABLE: usize = 160;

/// Multipliers of the models' layers (right shifts of 1 and more: epilogue form 5).
pub(crate) static REQUANT: [Requant; TABLE] = {
    let mut r = [Requant {
        multiplier: 0,
        shift: 0,
    }; TABLE];
    let mut i = 0;
    while i < TABLE {
        r[i] = Requant {
            multiplier: (1 << 30) + (i as i32 % 24) * 37_000_001,
            // Mostly the shifts of the models' layers, a right shift of 1 among them.
            shift: if i % 7 == 3 { -1 } else { -7 - (i as i32 % 5) },
        };
        i += 1;
    }
    r
};

/// Multipliers outside the right form in every fifth channel (shifts 1, 0, -1, -32 and a
/// negative multiplier): the blocked kernels take the general requantisation.
pub(crate) static REQUANT_GENERAL: [Requant; TABLE] = {
    let mut r = REQUANT;
    let mut i = 0;
    while i < TABLE {
        if i % 5 == 2 {
            r[i] = match i % 4 {
                0 => Requant {
                    multiplier: 1 << 30,
                    shift: 1,
                },
                1 => Requant {
                    multiplier: (1 << 30) + 12345,
                    shift: 0,
                },
                2 => Requant {
                    multiplier: i32::MAX,
                    shift: -1,
                },
                _ => Requant {
                    multiplier: -(1 << 30),
                    shift: -5,
                },
            };
        }
        i += 1;
    }
    r
};

/// Right shifts of 2 and more only: the kernels' shortest requantisation.
pub(crate) static REQUANT_TWO: [Requant; TABLE] = {
    let mut r = REQUANT;
    let mut i = 0;
    while i < TABLE {
        r[i].shift = -7 - (i as i32 % 5);
        i += 1;
    }
    r
};

/// Right shifts of 2 to 31, those past 23 in every third channel: the epilogue form 6 whose
/// constants the folded epilogue (`crate::dsp::requant_folded`) does not take.
pub(crate) static REQUANT_DEEP: [Requant; TABLE] = {
    let mut r = REQUANT;
    let mut i = 0;
    while i < TABLE {
        r[i].shift = if i % 3 == 1 {
            -24 - (i as i32 % 8)
        } else {
            -2 - (i as i32 % 22)
        };
        i += 1;
    }
    r
};

/// `$f::<K>$args` with `K` the kernel constant `$k`, a run-time value, as generated code calls
/// a kernel with a constant: each of the kernels named, alone and with each epilogue form's bits
/// (`EPILOGUE_GENERAL`, `EPILOGUE_SHIFT1`, `EPILOGUE_SHIFT2`), and `PORTABLE` and `ANY`, all
/// named in the caller's scope (an op's `kernel` module). Panics for any other value.
macro_rules! with_kernel_constant {
    ($k:expr, $f:ident, [$($kernel:ident),*], $args:tt) => {{
        let k: u8 = $k;
        $(
            if k == $kernel {
                return $f::<$kernel>$args;
            }
            if k == $kernel | EPILOGUE_GENERAL {
                return $f::<{ $kernel | EPILOGUE_GENERAL }>$args;
            }
            if k == $kernel | EPILOGUE_SHIFT1 {
                return $f::<{ $kernel | EPILOGUE_SHIFT1 }>$args;
            }
            if k == $kernel | EPILOGUE_SHIFT2 {
                return $f::<{ $kernel | EPILOGUE_SHIFT2 }>$args;
            }
        )*
        match k {
            PORTABLE => $f::<PORTABLE>$args,
            ANY => $f::<ANY>$args,
            _ => panic!("no kernel constant {k:#x}"),
        }
    }};
}
pub(crate) use with_kernel_constant;

pub(crate) fn params(geometry: ConvGeometry, rng: &mut Rng) -> ConvS8 {
    let offsets = [-127, 128, 0, 5, -3];
    let requant: &'static [Requant] = match rng.next() % 4 {
        0 => &REQUANT_GENERAL,
        1 => &REQUANT,
        2 => &REQUANT_DEEP,
        _ => &REQUANT_TWO,
    };
    // The whole int8 range (no fused activation) or a narrower one.
    let (act_min, act_max) = if rng.next().is_multiple_of(2) {
        (-128, 127)
    } else {
        (-100, 90)
    };
    ConvS8 {
        geometry,
        input_offset: offsets[rng.next() as usize % offsets.len()],
        output_offset: (rng.next() % 21) as i32 - 10,
        requant,
        act_min,
        act_max,
    }
}

/// The int16 (16x8) DSP kernels' test helpers.
pub(crate) mod s16 {
    use crate::kernels::shared::{ConvGeometry, Part, Requant};

    pub(crate) use super::Rng;

    /// Multipliers and shifts that spread the sums over the int16 range, with the extremes
    /// among them (the largest multiplier, a zero one, left shifts, a shift of -31).
    pub(crate) static REQUANT: [Requant; 32] = {
        let mut r = [Requant {
            multiplier: 0,
            shift: 0,
        }; 32];
        let mut i = 0;
        while i < 32 {
            r[i] = match i % 8 {
                3 => Requant {
                    multiplier: i32::MAX,
                    shift: -14,
                },
                5 => Requant {
                    multiplier: 1 << 30,
                    shift: 1 - (i as i32 % 3),
                },
                6 if i > 8 => Requant {
                    multiplier: 0,
                    shift: 0,
                },
                7 if i > 16 => Requant {
                    multiplier: (1 << 30) + 1,
                    shift: -31,
                },
                _ => Requant {
                    multiplier: (1 << 30) + (i as i32 % 24) * 37_000_001,
                    shift: -10 - (i as i32 % 7),
                },
            };
            i += 1;
        }
        r
    };

    /// A clamp range: the whole int16 range or a narrower one (a fused activation).
    pub(crate) fn act(rng: &mut Rng) -> (i32, i32) {
        match rng.next() % 3 {
            0 => (-32768, 32767),
            1 => (0, 32767),
            _ => (-1000, 6000),
        }
    }

    /// `(stride, dilation, pad, out)` of one dimension of `size` with a filter of `filter`
    /// taps, `None` if the output would be empty.
    pub(crate) fn dim(
        rng: &mut Rng,
        size: usize,
        filter: usize,
    ) -> Option<(usize, usize, usize, usize)> {
        let (stride, dilation) = (rng.range(1, 3), rng.range(1, 2));
        let extent = (filter - 1) * dilation + 1;
        let pad = rng.range(0, extent - 1);
        let out = (size + 2 * pad).checked_sub(extent)? / stride + 1;
        Some((stride, dilation, pad, out))
    }

    /// A part of the geometry `g` (the in-place driver's: the output's first column `x0`, the
    /// input pixels missing at the start of the slice, never one its windows read), or the
    /// whole; a third of the time a part.
    pub(crate) fn part(rng: &mut Rng, g: &ConvGeometry) -> Part {
        if rng.next().is_multiple_of(3) {
            let x0 = rng.range(0, 2);
            let first = Part { x0, skip: 0 }.first_read(g);
            Part {
                x0,
                skip: rng.range(0, first.min(4).min(g.input[0] * g.input[1] * g.input[2])),
            }
        } else {
            Part::WHOLE
        }
    }

    /// Whether `v` holds at least three distinct values (outputs neither all clamped nor
    /// constant: the sums reached them).
    pub(crate) fn varied(v: &[i16]) -> bool {
        let first = v.first().copied().unwrap_or(0);
        let other = v.iter().copied().find(|&x| x != first);
        other.is_some_and(|o| v.iter().any(|&x| x != first && x != o))
    }
}

/// The blocked ADD and MUL's test helpers: random shapes, cases and one-buffer layouts.
pub(crate) mod binary {
    extern crate std;
    use core::fmt::Debug;
    use std::vec;
    use std::vec::Vec;

    use super::Rng;
    use crate::kernels::shared::broadcast::BinaryShape;

    /// Cases per test: fewer under miri.
    pub(crate) const CASES: usize = if cfg!(miri) { 6 } else { 500 };

    /// A shape of `len` elements in six dimensions (`len` in one of them, or split in two).
    pub(crate) fn shape_of(rng: &mut Rng, len: usize) -> [usize; 6] {
        let mut s = [1; 6];
        let d = rng.below(6);
        if len.is_multiple_of(3) && len > 0 && rng.below(2) == 0 {
            s[d] = 3;
            s[(d + 1 + rng.below(5)) % 6] = len / 3;
        } else {
            s[d] = len;
        }
        s
    }

    /// Same shapes, a scalar second input and a scalar first one (`[]`-like all-ones shapes),
    /// lengths 0 to 70 and a longer one, slices now and then shorter or longer than the shapes.
    pub(crate) fn binary_case(rng: &mut Rng) -> (BinaryShape, Vec<i8>, Vec<i8>, usize) {
        binary_case_of(rng, Rng::s8)
    }

    /// [`binary_case`] with the elements drawn by `value`.
    pub(crate) fn binary_case_of<T>(
        rng: &mut Rng,
        value: fn(&mut Rng) -> T,
    ) -> (BinaryShape, Vec<T>, Vec<T>, usize) {
        let len = if rng.below(10) == 0 {
            rng.below(600)
        } else {
            rng.below(71)
        };
        let out = shape_of(rng, len);
        let ones = [1; 6];
        let (s1, s2) = match rng.below(4) {
            0 | 1 => (out, out),
            2 => (out, ones),
            _ => (ones, out),
        };
        let count = |s: &[usize; 6]| s.iter().product::<usize>();
        // Mostly the shapes' sizes; now and then a slice off by a few elements.
        let mut size = |n: usize| match rng.below(10) {
            0 => n.saturating_sub(rng.below(6)),
            1 => n + rng.below(6),
            _ => n,
        };
        let (n1, n2, no) = (size(count(&s1)), size(count(&s2)), size(len));
        let x1 = (0..n1).map(|_| value(rng)).collect();
        let x2 = (0..n2).map(|_| value(rng)).collect();
        (
            BinaryShape {
                input1: s1,
                input2: s2,
                output: out,
            },
            x1,
            x2,
            no,
        )
    }

    /// The output of a one-buffer entry `run(buf, input_at, output_at)` that must run, with
    /// `x1` `d` elements above the output.
    pub(crate) fn on_one_buffer(
        x1: &[i8],
        d: usize,
        run: impl FnOnce(&mut [i8], usize, usize) -> bool,
    ) -> Vec<i8> {
        let mut buf = vec![0_i8; d + x1.len()];
        buf[d..].copy_from_slice(x1);
        assert!(run(&mut buf, d, 0), "declined at d {d}");
        buf.truncate(x1.len());
        buf
    }

    /// The layouts `(input_at, output_at)` of a one-buffer case of `len` elements: the output
    /// from element 0, 1 or 2, the first input 0 (a full alias), 1, 2, 3, 4, 5 and more
    /// elements above it, below it and disjoint, and one element below it (refused unless
    /// `len` is at most 1).
    pub(crate) fn layouts(rng: &mut Rng, len: usize) -> Vec<(usize, usize)> {
        let o = rng.below(3);
        let far = [6 + rng.below(8), len + rng.below(3)];
        let mut v: Vec<_> = [0, 1, 2, 3, 4, 5]
            .into_iter()
            .chain(far)
            .map(|d| (o + d, o))
            .collect();
        v.push((o, o + len + rng.below(3)));
        v.push((o, o + 1));
        v
    }

    /// A one-buffer entry `run(buf, input_at, output_at)` at every layout of [`layouts`], on a
    /// buffer of sentinels holding `x1` at `input_at`: where it runs, `want` at `output_at` and
    /// every other element as it was; where it declines, the buffer unchanged. It must run
    /// exactly at the layouts `binary_fits` accepts when `blocked` (the two-slice kernel ran
    /// blocked). Returns how many layouts ran.
    pub(crate) fn check_one_buffer<T: Copy + PartialEq + Debug + From<i8>>(
        rng: &mut Rng,
        what: &str,
        x1: &[T],
        want: &[T],
        blocked: bool,
        run: impl Fn(&mut [T], usize, usize) -> bool,
    ) -> usize {
        let len = x1.len();
        let mut ran = 0;
        for (ia, oa) in layouts(rng, len) {
            let mut buf = vec![T::from(0x55); ia.max(oa) + len + 2];
            buf[ia..ia + len].copy_from_slice(x1);
            let before = buf.clone();
            let fits = ia >= oa || ia + len <= oa;
            let ok = run(&mut buf, ia, oa);
            assert_eq!(ok, blocked && fits, "{what} at {ia}, {oa}, {len} elements");
            if !ok {
                assert_eq!(buf, before, "{what} declined, yet written");
                continue;
            }
            ran += 1;
            assert_eq!(buf[oa..oa + len], want[..], "{what} at {ia}, {oa}");
            for (k, (&now, &was)) in buf.iter().zip(&before).enumerate() {
                if !(oa..oa + len).contains(&k) {
                    assert_eq!(now, was, "{what} at {ia}, {oa}: element {k} written");
                }
            }
        }
        ran
    }

    /// A one-buffer case: `len` elements (0 to 70, now and then up to 600; fewer under miri),
    /// the first input of the output's shape (the one-buffer entries' layouts need it), the
    /// second the same shape or a scalar, now and then a second slice shorter or longer than
    /// its shape: `(shape, x1, x2, len)`.
    pub(crate) fn one_buffer_case(rng: &mut Rng) -> (BinaryShape, Vec<i8>, Vec<i8>, usize) {
        let len = if cfg!(miri) {
            rng.below(24)
        } else if rng.below(10) == 0 {
            rng.below(600)
        } else {
            rng.below(71)
        };
        let out = shape_of(rng, len);
        let scalar = rng.below(3) == 0;
        let s2 = if scalar { [1; 6] } else { out };
        let n2 = match (scalar, rng.below(10)) {
            (true, _) => 1,
            (false, 0) => len.saturating_sub(1 + rng.below(5)),
            (false, 1) => len + 1 + rng.below(5),
            _ => len,
        };
        let shape = BinaryShape {
            input1: out,
            input2: s2,
            output: out,
        };
        let x1: Vec<i8> = (0..len).map(|_| rng.s8()).collect();
        let x2: Vec<i8> = (0..n2).map(|_| rng.s8()).collect();
        (shape, x1, x2, len)
    }

    /// Every pair of int16 edge values (the extremes, 0, ±1, and values whose products and
    /// sums are at their extremes): the first inputs and the second ones, `n * n` each, and `n`.
    pub(crate) fn edge_pairs16() -> (Vec<i16>, Vec<i16>, usize) {
        let edges: Vec<i16> = vec![
            i16::MIN,
            i16::MIN + 1,
            -16384,
            -1,
            0,
            1,
            2,
            16384,
            i16::MAX - 1,
            i16::MAX,
            12345,
            -23456,
        ];
        let n = edges.len();
        let x1: Vec<i16> = edges
            .iter()
            .flat_map(|&a| edges.iter().map(move |_| a))
            .collect();
        let x2: Vec<i16> = edges.iter().flat_map(|_| edges.iter().copied()).collect();
        (x1, x2, n)
    }
}

/// The in-place driver's test helpers: random window geometries, their least displacements'
/// neighbourhoods, and the xorshift64 the driver's tests draw from.
pub(crate) mod window {
    extern crate std;
    use std::vec::Vec;

    use crate::kernels::shared::ConvGeometry;
    use crate::kernels::shared::broadcast::BinaryShape;

    /// xorshift64, seeded.
    pub(crate) struct Rng(pub(crate) u64);
    impl Rng {
        pub(crate) fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        pub(crate) fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// Cases per test: fewer under miri.
    pub(crate) const CASES: usize = if cfg!(miri) { 6 } else { 600 };

    /// Output size and TFLM's padding of one dimension (`same`: SAME, else VALID).
    pub(crate) fn dimension(
        size: usize,
        filter: usize,
        stride: usize,
        dilation: usize,
        same: bool,
    ) -> Option<(usize, usize)> {
        let extent = (filter - 1) * dilation + 1;
        let out = if same {
            size.div_ceil(stride)
        } else {
            (size.checked_sub(extent)? / stride) + 1
        };
        let pad = ((out - 1) * stride + extent).saturating_sub(size) / 2;
        Some((out, pad))
    }

    /// A random CONV_2D (`depthwise == false`) or DEPTHWISE_CONV_2D geometry: pointwise ones
    /// a quarter of the time.
    pub(crate) fn random_geometry(rng: &mut Rng, depthwise: bool) -> ConvGeometry {
        loop {
            let n = 1 + rng.below(2);
            let (h, w, c) = (1 + rng.below(9), 1 + rng.below(8), 1 + rng.below(5));
            let pointwise = rng.below(4) == 0;
            let (fh, fw) = if pointwise {
                (1, 1)
            } else {
                (1 + rng.below(3), 1 + rng.below(3))
            };
            let (sh, sw) = if pointwise {
                (1, 1)
            } else {
                (1 + rng.below(2), 1 + rng.below(2))
            };
            let (dh, dw) = if pointwise {
                (1, 1)
            } else {
                (1 + rng.below(2), 1 + rng.below(2))
            };
            let same = !pointwise && rng.below(2) == 0;
            let (Some((oh, ph)), Some((ow, pw))) = (
                dimension(h, fh, sh, dh, same),
                dimension(w, fw, sw, dw, same),
            ) else {
                continue;
            };
            let multiplier = 1 + rng.below(3);
            let (oc, filter) = if depthwise {
                (c * multiplier, [1, fh, fw, c * multiplier])
            } else {
                let oc = 1 + rng.below(6);
                (oc, [oc, fh, fw, c])
            };
            return ConvGeometry {
                input: [n, h, w, c],
                filter,
                output: [n, oh, ow, oc],
                stride_h: sh,
                stride_w: sw,
                dilation_h: dh,
                dilation_w: dw,
                pad_h: ph,
                pad_w: pw,
                depth_multiplier: if depthwise { multiplier } else { 1 },
            };
        }
    }

    pub(crate) fn elements(shape: [usize; 4]) -> usize {
        shape.iter().product()
    }

    /// The displacements to try: `D`, just above, a random one below the output's end, and
    /// one past it (disjoint).
    pub(crate) fn displacements(rng: &mut Rng, least: usize, output: usize) -> [usize; 4] {
        [least, least + 1, least + rng.below(output + 1), output + 1]
    }

    /// The least input element each output pixel (batch, y, x, in order) reads, from the
    /// geometry alone: its window's first row and column, clamped into the input.
    pub(crate) fn first_reads(g: &ConvGeometry) -> Vec<usize> {
        let [n, h, w, c] = g.input;
        let [_, oh, ow, _] = g.output;
        let mut reads = Vec::new();
        for b in 0..n {
            for y in 0..oh {
                for x in 0..ow {
                    let top = (y * g.stride_h).saturating_sub(g.pad_h).min(h);
                    let left = (x * g.stride_w).saturating_sub(g.pad_w).min(w);
                    reads.push(((b * h + top) * w + left) * c);
                }
            }
        }
        reads
    }

    /// A cell of an instrumented buffer: free, an input element not yet written over, or an
    /// output element.
    #[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
    pub(crate) enum Cell {
        #[default]
        Free,
        Input(usize),
        Output(usize),
    }

    /// A random binary shape: the output's dimensions, the first input's the same, the second's
    /// some of them 1.
    pub(crate) fn random_binary(rng: &mut Rng) -> (BinaryShape, usize, usize) {
        let mut dims = [1_usize; 6];
        for d in &mut dims[2..] {
            *d = 1 + rng.below(4);
        }
        let mut second = dims;
        for d in &mut second {
            if rng.below(3) == 0 {
                *d = 1;
            }
        }
        let shape = BinaryShape {
            input1: dims,
            input2: second,
            output: dims,
        };
        (shape, dims.iter().product(), second.iter().product())
    }
}

/// Refused calls: a kernel entry given slices of lengths its check refuses returns an error and
/// writes nothing.
pub(crate) mod refusal {
    extern crate std;
    pub(crate) use std::vec;

    use crate::kernels::KernelError;

    /// How a slice's length may differ from the consistent one.
    #[derive(Clone, Copy, Debug)]
    pub(crate) enum Len {
        /// Exactly: one more and one less are refused.
        Exact,
        /// At least: one less is refused.
        AtLeast,
        /// At most: one more is refused.
        AtMost,
    }

    /// `call(lens)` runs an entry on slices of `lens` elements (its outputs filled with a value
    /// it does not write) and returns its result and whether every output is as it was: `Ok`
    /// for `ok`, and an error with nothing written for `ok` with each length one off as `rel`
    /// says it must not be.
    pub(crate) fn refuses<const N: usize>(
        ok: [usize; N],
        rel: [Len; N],
        mut call: impl FnMut([usize; N]) -> (Result<(), KernelError>, bool),
    ) {
        assert_eq!(call(ok).0, Ok(()), "lengths {ok:?} refused");
        for i in 0..N {
            let more = matches!(rel[i], Len::Exact | Len::AtMost).then(|| ok[i] + 1);
            let less = matches!(rel[i], Len::Exact | Len::AtLeast)
                .then(|| ok[i].checked_sub(1))
                .flatten();
            for len in [more, less].into_iter().flatten() {
                let mut lens = ok;
                lens[i] = len;
                let (result, untouched) = call(lens);
                assert!(result.is_err(), "lengths {lens:?} accepted");
                assert!(untouched, "lengths {lens:?}: an output was written");
            }
        }
    }

    /// Whether every element of `s` is still `v`.
    pub(crate) fn untouched<T: PartialEq>(s: &[T], v: T) -> bool {
        s.iter().all(|x| *x == v)
    }
}
