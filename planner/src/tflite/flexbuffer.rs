//! FlexBuffers maps, the format of custom ops' `custom_options` (TFLM's
//! `TFLite_Detection_PostProcess` reads its options from one).
//!
//! [`root_map`] reads the map at a buffer's root and [`Map::get`] looks a key up, converting
//! the value as TFLM's `flexbuffers::Reference` does (`AsInt32`, `AsFloat`, `AsBool`,
//! `IsNull`), for the scalar types options use: null, int, uint, float, bool and their
//! indirect forms. Everything is checked: every offset and width against the buffer, every
//! key's terminating NUL, the count of every vector against the bytes that would hold it; a
//! malformed buffer is an [`FlexError`], never a panic or an out-of-bounds read, and nothing is
//! allocated in proportion to a count the buffer claims. The key lookup probes like glibc's
//! `bsearch` (the C++ reader's), so an unsorted key vector finds what TFLM finds.
//!
//! [`write_map`] writes such a map (the conformance suite's models), keys sorted as the C++
//! builder sorts them, with a chosen minimum byte width so that every width can be exercised.

use std::fmt;

/// The FlexBuffers types options use (`flexbuffers::Type`).
const NULL: u8 = 0;
const INT: u8 = 1;
const UINT: u8 = 2;
const FLOAT: u8 = 3;
const INDIRECT_INT: u8 = 6;
const INDIRECT_UINT: u8 = 7;
const INDIRECT_FLOAT: u8 = 8;
const MAP: u8 = 9;
const BOOL: u8 = 26;

/// Why a FlexBuffers map cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlexError(String);

impl fmt::Display for FlexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FlexError {}

fn err<T>(msg: impl Into<String>) -> Result<T, FlexError> {
    Err(FlexError(msg.into()))
}

/// A scalar value of a map, before TFLM's conversions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// No value (also what a missing key reads as).
    Null,
    /// A signed integer (`FBT_INT`, `FBT_INDIRECT_INT`).
    Int(i64),
    /// An unsigned integer (`FBT_UINT`, `FBT_INDIRECT_UINT`).
    UInt(u64),
    /// A float (`FBT_FLOAT`, `FBT_INDIRECT_FLOAT`), as `ReadDouble` reads it.
    Float(f64),
    /// A bool (`FBT_BOOL`): its bytes read unsigned and signed.
    Bool {
        /// `ReadUInt64` of its bytes.
        unsigned: u64,
        /// `ReadInt64` of its bytes.
        signed: i64,
    },
}

/// `static_cast<int64_t>(double)` as x86-64 computes it (`cvttsd2si`): truncation, `INT64_MIN`
/// for NaN and values out of range.
fn f64_to_i64_like_x86(x: f64) -> i64 {
    if x.is_nan() || !(-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&x) {
        i64::MIN
    } else {
        x as i64
    }
}

impl Value {
    /// `Reference::IsNull`.
    #[must_use]
    pub const fn is_null(self) -> bool {
        matches!(self, Self::Null)
    }

    /// `Reference::AsInt64`: floats truncated (x86-64's conversion), bools their bytes, null 0.
    #[must_use]
    pub fn as_i64(self) -> i64 {
        match self {
            Self::Null => 0,
            Self::Int(v) => v,
            Self::UInt(v) => v as i64,
            Self::Float(v) => f64_to_i64_like_x86(v),
            Self::Bool { signed, .. } => signed,
        }
    }

    /// `Reference::AsInt32`: [`Self::as_i64`] narrowed (wrapping).
    #[must_use]
    pub fn as_i32(self) -> i32 {
        self.as_i64() as i32
    }

    /// `Reference::AsDouble`.
    #[must_use]
    pub fn as_f64(self) -> f64 {
        match self {
            Self::Null => 0.0,
            Self::Int(v) => v as f64,
            Self::UInt(v) => v as f64,
            Self::Float(v) => v,
            Self::Bool { unsigned, .. } => unsigned as f64,
        }
    }

    /// `Reference::AsFloat`: [`Self::as_f64`] rounded to `f32`.
    #[must_use]
    pub fn as_f32(self) -> f32 {
        self.as_f64() as f32
    }

    /// `Reference::AsBool` for the types it is well defined on: `None` for a float (whose C++
    /// conversion to `uint64_t` is undefined for negative values).
    #[must_use]
    pub fn as_bool(self) -> Option<bool> {
        match self {
            Self::Null => Some(false),
            Self::Int(v) => Some(v != 0),
            Self::UInt(v) => Some(v != 0),
            Self::Bool { unsigned, .. } => Some(unsigned != 0),
            Self::Float(_) => None,
        }
    }
}

/// Bytes `at..at + width` of `buf`, checked.
fn bytes(buf: &[u8], at: usize, width: usize) -> Result<&[u8], FlexError> {
    at.checked_add(width)
        .and_then(|end| buf.get(at..end))
        .ok_or_else(|| {
            FlexError(format!(
                "a {width}-byte value at {at} lies outside the {} bytes",
                buf.len()
            ))
        })
}

/// `ReadUInt64`: `width` bytes little-endian, unsigned.
fn read_u(buf: &[u8], at: usize, width: usize) -> Result<u64, FlexError> {
    let b = bytes(buf, at, width)?;
    Ok(b.iter()
        .rev()
        .fold(0u64, |v, &byte| (v << 8) | u64::from(byte)))
}

/// `ReadInt64`: `width` bytes little-endian, sign-extended.
fn read_i(buf: &[u8], at: usize, width: usize) -> Result<i64, FlexError> {
    let u = read_u(buf, at, width)?;
    let bits = u32::try_from(width * 8).unwrap_or(64);
    Ok(if bits >= 64 {
        u as i64
    } else {
        let shift = 64 - bits;
        ((u << shift) as i64) >> shift
    })
}

/// `ReadDouble`: 4 bytes as `f32`, 8 as `f64`; 1 and 2 bytes as the C++ reader reads them (as
/// `int8_t` and `int16_t`, converted).
fn read_f(buf: &[u8], at: usize, width: usize) -> Result<f64, FlexError> {
    Ok(match width {
        4 => f64::from(f32::from_bits(read_u(buf, at, 4)? as u32)),
        8 => f64::from_bits(read_u(buf, at, 8)?),
        w => read_i(buf, at, w)? as f64,
    })
}

/// A byte width that must be 1, 2, 4 or 8.
fn width(w: u64, what: &str) -> Result<usize, FlexError> {
    match w {
        1 | 2 | 4 | 8 => Ok(w as usize),
        _ => err(format!(
            "{what} is {w} bytes wide; FlexBuffers widths are 1, 2, 4 or 8"
        )),
    }
}

/// `Indirect`: the position `offset` bytes before `at`, where `offset` is read at `at`.
fn indirect(buf: &[u8], at: usize, w: usize) -> Result<usize, FlexError> {
    let off = read_u(buf, at, w)?;
    usize::try_from(off)
        .ok()
        .and_then(|off| at.checked_sub(off))
        .ok_or_else(|| {
            FlexError(format!(
                "an offset of {off} at {at} points before the buffer"
            ))
        })
}

/// A map in a FlexBuffers buffer.
#[derive(Clone, Copy, Debug)]
pub struct Map<'a> {
    buf: &'a [u8],
    /// Where the values start.
    values: usize,
    /// The values' byte width.
    width: usize,
    /// The number of values.
    len: usize,
    /// Where the keys' offsets start.
    keys: usize,
    /// Their byte width.
    keys_width: usize,
    /// The number of keys.
    keys_len: usize,
}

/// The map at the root of `buf`: `Ok(None)` if the root is another type (TFLM's `AsMap` then
/// gives an empty map, whose every key reads as null).
///
/// # Errors
///
/// A buffer too short for its root, a width that is not 1, 2, 4 or 8, an offset or a count
/// that reaches outside the buffer.
pub fn root_map(buf: &[u8]) -> Result<Option<Map<'_>>, FlexError> {
    let n = buf.len();
    let (Some(&bw), Some(&packed)) = (
        n.checked_sub(1).and_then(|i| buf.get(i)),
        n.checked_sub(2).and_then(|i| buf.get(i)),
    ) else {
        return err(format!("{n} bytes hold no FlexBuffers root"));
    };
    let bw = width(u64::from(bw), "the root")?;
    let root = n
        .checked_sub(2 + bw)
        .ok_or_else(|| FlexError(format!("{n} bytes hold no {bw}-byte root")))?;
    if packed >> 2 != MAP {
        return Ok(None);
    }
    let w = 1usize << (packed & 3);
    let values = indirect(buf, root, bw)?;
    let prefix = values
        .checked_sub(3 * w)
        .ok_or_else(|| FlexError("the map's prefix lies before the buffer".to_owned()))?;
    let len = read_u(buf, values - w, w)?;
    let keys_width = width(read_u(buf, prefix + w, w)?, "the map's keys")?;
    let keys = indirect(buf, prefix, w)?;
    let keys_len = read_u(
        buf,
        keys.checked_sub(keys_width)
            .ok_or_else(|| FlexError("the keys' count lies before the buffer".to_owned()))?,
        keys_width,
    )?;
    // The values (and their types) and the keys' offsets must fit in the buffer.
    let fits = |start: usize, count: u64, each: usize| {
        usize::try_from(count)
            .ok()
            .and_then(|c| c.checked_mul(each))
            .and_then(|b| start.checked_add(b))
            .is_some_and(|end| end <= n)
    };
    if !fits(values, len, w + 1) {
        return err(format!(
            "the map claims {len} values of {w} bytes at {values} in {n} bytes"
        ));
    }
    if !fits(keys, keys_len, keys_width) {
        return err(format!(
            "the map claims {keys_len} keys of {keys_width} bytes at {keys} in {n} bytes"
        ));
    }
    // Both fit, so both counts are below the buffer's length.
    Ok(Some(Map {
        buf,
        values,
        width: w,
        len: usize::try_from(len).unwrap_or(0),
        keys,
        keys_width,
        keys_len: usize::try_from(keys_len).unwrap_or(0),
    }))
}

impl Map<'_> {
    /// The NUL-terminated key `i`.
    fn key(&self, i: usize) -> Result<&[u8], FlexError> {
        let at = self.keys + i * self.keys_width;
        let start = indirect(self.buf, at, self.keys_width)?;
        let rest = self.buf.get(start..).unwrap_or(&[]);
        match rest.iter().position(|&b| b == 0) {
            Some(end) => Ok(rest.get(..end).unwrap_or(&[])),
            None => err(format!("key {i} at {start} has no terminating NUL")),
        }
    }

    /// The value of `key` (`Map::operator[]`): the keys searched as glibc's `bsearch` does
    /// (`strcmp` order), [`Value::Null`] where it is not found.
    ///
    /// # Errors
    ///
    /// A key without its NUL, an offset outside the buffer, or a value of a type options do
    /// not take (string, vector, map, blob, ...).
    pub fn get(&self, key: &str) -> Result<Value, FlexError> {
        let (mut lo, mut hi) = (0usize, self.keys_len);
        let wanted = key.as_bytes();
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            // strcmp: unsigned bytes, a prefix first.
            match wanted.cmp(self.key(mid)?) {
                std::cmp::Ordering::Less => hi = mid,
                std::cmp::Ordering::Greater => lo = mid + 1,
                std::cmp::Ordering::Equal => return self.value(mid, key),
            }
        }
        Ok(Value::Null)
    }

    /// Value `i` (`Vector::operator[]`: null past the values' count).
    fn value(&self, i: usize, key: &str) -> Result<Value, FlexError> {
        if i >= self.len {
            return Ok(Value::Null);
        }
        let w = self.width;
        let packed = read_u(self.buf, self.values + self.len * w + i, 1)? as u8;
        let at = self.values + i * w;
        let own = 1usize << (packed & 3);
        Ok(match packed >> 2 {
            NULL => Value::Null,
            INT => Value::Int(read_i(self.buf, at, w)?),
            UINT => Value::UInt(read_u(self.buf, at, w)?),
            FLOAT => Value::Float(read_f(self.buf, at, w)?),
            BOOL => Value::Bool {
                unsigned: read_u(self.buf, at, w)?,
                signed: read_i(self.buf, at, w)?,
            },
            INDIRECT_INT => Value::Int(read_i(self.buf, indirect(self.buf, at, w)?, own)?),
            INDIRECT_UINT => Value::UInt(read_u(self.buf, indirect(self.buf, at, w)?, own)?),
            INDIRECT_FLOAT => Value::Float(read_f(self.buf, indirect(self.buf, at, w)?, own)?),
            other => {
                return err(format!(
                    "\"{key}\" has FlexBuffers type {other}, not a number or a bool"
                ));
            }
        })
    }
}

/// A value for [`write_map`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WriteValue {
    /// `FBT_NULL`.
    Null,
    /// `FBT_INT`.
    Int(i64),
    /// `FBT_FLOAT`, 4 bytes wide when the map is, 8 otherwise.
    Float(f64),
    /// `FBT_BOOL`.
    Bool(bool),
}

/// The bit-width code (0 to 3) of a byte width.
fn code(width: usize) -> u8 {
    match width {
        1 => 0,
        2 => 1,
        4 => 2,
        _ => 3,
    }
}

/// The smallest byte width holding `v` signed.
fn width_i(v: i64) -> usize {
    if i8::try_from(v).is_ok() {
        1
    } else if i16::try_from(v).is_ok() {
        2
    } else if i32::try_from(v).is_ok() {
        4
    } else {
        8
    }
}

/// The smallest byte width holding `v` unsigned.
fn width_u(v: u64) -> usize {
    if v <= 0xff {
        1
    } else if v <= 0xffff {
        2
    } else if v <= 0xffff_ffff {
        4
    } else {
        8
    }
}

/// Pads `out` with zeros to a multiple of `width`.
fn align(out: &mut Vec<u8>, width: usize) {
    while !out.len().is_multiple_of(width) {
        out.push(0);
    }
}

/// Writes `v` in `width` bytes, little-endian.
fn put(out: &mut Vec<u8>, v: u64, width: usize) {
    out.extend_from_slice(v.to_le_bytes().get(..width).unwrap_or(&[]));
}

/// A FlexBuffers buffer whose root is a map of `entries`, its keys sorted (`strcmp` order) and
/// unique (a later duplicate is dropped), values at least `min_width` bytes wide (1, 2, 4 or 8;
/// floats take 4 at least): what the C++ builder's `Map` writes, without its key sharing.
#[must_use]
pub fn write_map(entries: &[(&str, WriteValue)], min_width: usize) -> Vec<u8> {
    let mut sorted: Vec<(&str, WriteValue)> = Vec::new();
    for &(k, v) in entries {
        if !sorted.iter().any(|(s, _)| *s == k) {
            sorted.push((k, v));
        }
    }
    sorted.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut out = Vec::new();
    // The keys' strings.
    let mut key_at = Vec::new();
    for (k, _) in &sorted {
        key_at.push(out.len());
        out.extend_from_slice(k.as_bytes());
        out.push(0);
    }
    // The keys' vector: its count, then an offset per key, at the narrowest width that holds
    // them (offsets grow with the padding, so widen until they fit).
    let n = sorted.len();
    let mut kw = 1;
    let keys_start = loop {
        let start = out.len().next_multiple_of(kw) + kw;
        let fits = width_u(n as u64) <= kw
            && key_at
                .iter()
                .enumerate()
                .all(|(i, &at)| width_u((start + i * kw - at) as u64) <= kw);
        if fits || kw == 8 {
            break start;
        }
        kw *= 2;
    };
    align(&mut out, kw);
    put(&mut out, n as u64, kw);
    for (i, &at) in key_at.iter().enumerate() {
        put(&mut out, (keys_start + i * kw - at) as u64, kw);
    }
    // The map: keys' offset, keys' width, count, values, types.
    let needs = |v: &WriteValue| match *v {
        WriteValue::Null | WriteValue::Bool(_) => 1,
        WriteValue::Int(i) => width_i(i),
        WriteValue::Float(f) => {
            if f64::from(f as f32).to_bits() == f.to_bits() || f.is_nan() {
                4
            } else {
                8
            }
        }
    };
    let mut w = sorted
        .iter()
        .map(|(_, v)| needs(v))
        .chain([min_width.clamp(1, 8), width_u(n as u64), kw])
        .max()
        .unwrap_or(1)
        .next_power_of_two();
    let values = loop {
        let values = out.len().next_multiple_of(w) + 3 * w;
        if width_u((values - 3 * w - keys_start) as u64) <= w || w == 8 {
            break values;
        }
        w *= 2;
    };
    align(&mut out, w);
    put(&mut out, (values - 3 * w - keys_start) as u64, w);
    put(&mut out, kw as u64, w);
    put(&mut out, n as u64, w);
    let mut types = Vec::new();
    for (_, v) in &sorted {
        let (bits, ty, own) = match *v {
            WriteValue::Null => (0, NULL, 1),
            WriteValue::Int(i) => (i as u64, INT, width_i(i)),
            WriteValue::Bool(b) => (u64::from(b), BOOL, 1),
            WriteValue::Float(f) if w == 4 => (u64::from((f as f32).to_bits()), FLOAT, 4),
            WriteValue::Float(f) => (f.to_bits(), FLOAT, needs(v)),
        };
        put(&mut out, bits, w);
        types.push((ty << 2) | code(own));
    }
    out.extend_from_slice(&types);
    // The root: the offset back to the map's values, its packed type, its width.
    let root = out.len();
    let bw = width_u((root - values) as u64).max(1);
    let bw = (bw..=8)
        .find(|&b| b.is_power_of_two() && width_u((root.next_multiple_of(b) - values) as u64) <= b)
        .unwrap_or(8);
    align(&mut out, bw);
    let root = out.len();
    put(&mut out, (root - values) as u64, bw);
    out.push((MAP << 2) | code(w));
    out.push(bw as u8);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<(&'static str, WriteValue)> {
        vec![
            ("y_scale", WriteValue::Float(10.0)),
            ("max_detections", WriteValue::Int(10)),
            ("use_regular_nms", WriteValue::Bool(true)),
            ("nms_iou_threshold", WriteValue::Float(0.5)),
            ("x_scale", WriteValue::Float(0.6)),
            ("num_classes", WriteValue::Int(90)),
            ("big", WriteValue::Int(-70_000)),
            ("nothing", WriteValue::Null),
        ]
    }

    #[test]
    fn round_trips_at_every_width() {
        for min_width in [1, 2, 4, 8] {
            let buf = write_map(&sample(), min_width);
            let map = root_map(&buf).unwrap().unwrap();
            assert_eq!(map.get("max_detections").unwrap(), Value::Int(10));
            assert_eq!(map.get("num_classes").unwrap().as_i32(), 90);
            assert_eq!(map.get("big").unwrap().as_i32(), -70_000);
            assert_eq!(map.get("y_scale").unwrap().as_f32(), 10.0);
            assert_eq!(map.get("nms_iou_threshold").unwrap().as_f32(), 0.5);
            assert_eq!(map.get("x_scale").unwrap().as_f64(), 0.6);
            assert_eq!(map.get("use_regular_nms").unwrap().as_bool(), Some(true));
            assert!(map.get("nothing").unwrap().is_null());
            assert!(map.get("missing").unwrap().is_null());
            assert!(map.get("").unwrap().is_null());
            assert!(map.get("zzz").unwrap().is_null());
        }
    }

    #[test]
    fn narrow_maps_read_back() {
        // Ints and bools only: one byte per value; f32-exact floats: four.
        let small = [("a", WriteValue::Int(-3)), ("b", WriteValue::Bool(false))];
        let buf = write_map(&small, 1);
        let map = root_map(&buf).unwrap().unwrap();
        assert_eq!(map.width, 1);
        assert_eq!(map.get("a").unwrap().as_i32(), -3);
        assert_eq!(map.get("b").unwrap().as_bool(), Some(false));
        let floats = [
            ("h", WriteValue::Float(5.0)),
            ("w", WriteValue::Float(0.25)),
        ];
        let buf = write_map(&floats, 1);
        let map = root_map(&buf).unwrap().unwrap();
        assert_eq!(map.width, 4);
        assert_eq!(map.get("w").unwrap().as_f32(), 0.25);
    }

    #[test]
    fn conversions_follow_the_cpp_reader() {
        assert_eq!(Value::Float(-2.9).as_i32(), -2);
        assert_eq!(Value::Float(f64::NAN).as_i64(), i64::MIN);
        assert_eq!(Value::Int(1 << 33).as_i32(), 0);
        assert_eq!(Value::Int(3).as_f32(), 3.0);
        assert_eq!(Value::Null.as_f32(), 0.0);
        assert_eq!(Value::Float(1.0).as_bool(), None);
        assert_eq!(
            Value::Bool {
                unsigned: 255,
                signed: -1
            }
            .as_i32(),
            -1
        );
    }

    #[test]
    fn a_root_of_another_type_is_no_map() {
        // An int root: [value, packed type INT, width 1].
        assert!(root_map(&[5, INT << 2, 1]).unwrap().is_none());
    }

    #[test]
    fn every_truncation_and_corruption_is_an_error_or_a_value() {
        let buf = write_map(&sample(), 1);
        // Every prefix of the buffer, and every single-byte corruption: no panic.
        for end in 0..buf.len() {
            if let Ok(Some(map)) = root_map(&buf[..end]) {
                for (k, _) in sample() {
                    let _ = map.get(k);
                }
            }
        }
        for i in 0..buf.len() {
            for byte in [0u8, 1, 0x7f, 0x80, 0xff] {
                let mut bad = buf.clone();
                bad[i] = byte;
                if let Ok(Some(map)) = root_map(&bad) {
                    for (k, _) in sample() {
                        let _ = map.get(k);
                    }
                }
            }
        }
        assert!(root_map(&[]).is_err());
        assert!(root_map(&[1]).is_err());
        // A width of 3.
        assert!(root_map(&[0, 0, 0, MAP << 2, 3]).is_err());
        // An offset past the start.
        assert!(root_map(&[200, MAP << 2, 1]).is_err());
    }

    #[test]
    fn a_huge_claimed_count_is_refused_without_allocating() {
        // Hand-made: keys vector [count 1][offset], map prefix, one value, its type, root.
        let mut buf = vec![b'a', 0, 1, 3];
        // Map at 4: keys offset (4 - 3 = 1 back to the keys at 3), keys width 1, count 255.
        buf.extend_from_slice(&[4, 1, 255, 7, INT << 2]);
        // Root: offset back to the values at 7 from 9.
        buf.extend_from_slice(&[2, MAP << 2, 1]);
        assert!(root_map(&buf).is_err());
    }
}
