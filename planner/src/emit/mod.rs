//! Reports of a plan: a text table for people, JSON for tools.

mod json;
mod svg;
mod text;

pub use json::{model_json, problem_json, write_model_json};
pub use svg::{model_svg, plan_svg, stack_svg};
pub use text::{model_text, problem_text};

/// `1234567` as `1,234,567`.
#[must_use]
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A shape as `[1,96,96,1]` (the format's own, [`crate::tflite::format_shape`]).
pub use crate::tflite::format_shape as shape;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(2_451_840), "2,451,840");
    }
}
