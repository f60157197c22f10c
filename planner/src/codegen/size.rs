//! Sizes as people write them: `"48 KiB"`, `"1.5 MiB"`, `"49152"`, `"512 B"`.
//!
//! The units are binary and case-insensitive: `B` (or none) is one byte, `KiB` 1,024 bytes,
//! `MiB` 1,048,576 bytes, `GiB` 1,073,741,824 bytes (`kib`, `KIB`, `mib` read the same). `K`,
//! `KB`, `kB`, `M`, `MB`, `G` and `GB` are refused: in SI they are powers of 1,000, in common use
//! powers of 1,024, and a budget read the wrong way is 2.4 % to 7.4 % off; the message says what
//! to write for either meaning. A fraction must come to whole bytes (`"1.5 KiB"` is 1,536;
//! `"1.1 B"` is refused). `_` may group digits.

use std::fmt;

/// Why a size string was refused; its `Display` says what to write instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizeError {
    message: String,
}

impl fmt::Display for SizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SizeError {}

fn refuse(message: String) -> SizeError {
    SizeError { message }
}

/// Reads a size in bytes; see the [module docs](self) for the units.
///
/// # Errors
///
/// [`SizeError`] for anything but a number with an optional binary unit, an ambiguous unit (with
/// what to write instead), a fraction of a byte, or more than `u64::MAX` bytes.
pub fn parse_size(text: &str) -> Result<u64, SizeError> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let unit = unit.trim();
    let expected = || {
        refuse(format!(
            "cannot read {text:?} as a size: expected a number of bytes, optionally with B, KiB, MiB or GiB, such as \"48 KiB\""
        ))
    };
    let scale: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        "k" | "kb" => return Err(ambiguous(text, number, unit, "KiB", 1_000, 1 << 10)),
        "m" | "mb" => return Err(ambiguous(text, number, unit, "MiB", 1_000_000, 1 << 20)),
        "g" | "gb" => {
            return Err(ambiguous(text, number, unit, "GiB", 1_000_000_000, 1 << 30));
        }
        _ => return Err(expected()),
    };
    let too_large = || refuse(format!("{text:?} is more than 2^64 bytes"));
    let number = number.replace('_', "");
    if number.is_empty() {
        return Err(expected());
    }
    match number.split_once('.') {
        None => number
            .parse::<u64>()
            .map_err(|_| expected())?
            .checked_mul(scale)
            .ok_or_else(too_large),
        Some((whole, frac)) => {
            let whole = if whole.is_empty() { "0" } else { whole };
            if frac.is_empty() || frac.contains('.') {
                return Err(expected());
            }
            // Exact decimal: whole * scale + frac * scale / 10^len, which must be whole bytes.
            let w = whole
                .parse::<u64>()
                .map_err(|_| expected())?
                .checked_mul(scale)
                .ok_or_else(too_large)?;
            let denom = u32::try_from(frac.len())
                .ok()
                .and_then(|n| 10u64.checked_pow(n))
                .ok_or_else(expected)?;
            let f = frac
                .parse::<u64>()
                .map_err(|_| expected())?
                .checked_mul(scale)
                .ok_or_else(too_large)?;
            if f % denom != 0 {
                return Err(refuse(format!("{text:?} is not a whole number of bytes")));
            }
            w.checked_add(f / denom).ok_or_else(too_large)
        }
    }
}

fn ambiguous(text: &str, number: &str, unit: &str, binary: &str, si: u64, iec: u64) -> SizeError {
    let n = number.trim().replace('_', "");
    let value = |scale: u64| {
        n.parse::<u64>()
            .ok()
            .and_then(|v| v.checked_mul(scale))
            .map(crate::emit::thousands)
    };
    let example = match (value(iec), value(si)) {
        (Some(iec_bytes), Some(si_bytes)) => format!(
            "write \"{n} {binary}\" for {iec_bytes} bytes, or \"{}\" for {si_bytes} bytes",
            si_bytes.replace(',', "_")
        ),
        _ => format!("write {binary} (1,024-based) or the number of bytes"),
    };
    refuse(format!(
        "{text:?} is ambiguous: {unit} means {} bytes in SI but {} in common use; {example}",
        crate::emit::thousands(si),
        crate::emit::thousands(iec)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_units_in_any_case() {
        assert_eq!(parse_size("48 KiB"), Ok(49_152));
        assert_eq!(parse_size("8 kib"), Ok(8_192));
        assert_eq!(parse_size("8KIB"), Ok(8_192));
        assert_eq!(parse_size("1.5 MiB"), Ok(1_572_864));
        assert_eq!(parse_size("4 mib"), Ok(4_194_304));
        assert_eq!(parse_size("1 GiB"), Ok(1 << 30));
        assert_eq!(parse_size("2048"), Ok(2048));
        assert_eq!(parse_size("2_048 B"), Ok(2048));
        assert_eq!(parse_size(".5 KiB"), Ok(512));
    }

    #[test]
    fn ambiguous_units_say_what_to_write() {
        assert_eq!(
            parse_size("4MB").unwrap_err().to_string(),
            "\"4MB\" is ambiguous: MB means 1,000,000 bytes in SI but 1,048,576 in common use; write \"4 MiB\" for 4,194,304 bytes, or \"4_000_000\" for 4,000,000 bytes"
        );
        assert_eq!(
            parse_size("8 kb").unwrap_err().to_string(),
            "\"8 kb\" is ambiguous: kb means 1,000 bytes in SI but 1,024 in common use; write \"8 KiB\" for 8,192 bytes, or \"8_000\" for 8,000 bytes"
        );
        assert!(
            parse_size("64K")
                .unwrap_err()
                .to_string()
                .contains("\"64 KiB\"")
        );
        assert!(
            parse_size("1.5 MB")
                .unwrap_err()
                .to_string()
                .contains("write MiB")
        );
    }

    #[test]
    fn refused() {
        assert_eq!(
            parse_size("1.1 B").unwrap_err().to_string(),
            "\"1.1 B\" is not a whole number of bytes"
        );
        for bad in ["lots", "", "KiB", "1..2", "1.", "4 parsecs"] {
            assert!(
                parse_size(bad)
                    .unwrap_err()
                    .to_string()
                    .starts_with("cannot read "),
                "{bad}"
            );
        }
        assert_eq!(
            parse_size("99999999999999999999 MiB")
                .unwrap_err()
                .to_string(),
            "cannot read \"99999999999999999999 MiB\" as a size: expected a number of bytes, optionally with B, KiB, MiB or GiB, such as \"48 KiB\""
        );
        assert_eq!(
            parse_size("99999999999999 MiB").unwrap_err().to_string(),
            "\"99999999999999 MiB\" is more than 2^64 bytes"
        );
    }
}
