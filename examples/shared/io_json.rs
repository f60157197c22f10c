//! Reads the first input's and the first output's `data` from a test model's `io.json` (written
//! by `tests/models/make_models.py`, one tensor per line) and writes them as Rust constants, for
//! the examples' `build.rs`. A few lines of string handling: the examples' build scripts need no
//! JSON crate for two number lists.

/// The numbers of the `"data": [...]` list on the first line after `"key": [`.
///
/// # Panics
///
/// If the file does not have that shape (a build-script error is the right outcome).
pub fn data(json: &str, key: &str) -> Vec<f64> {
    let after = json
        .split_once(&format!("\"{key}\": ["))
        .unwrap_or_else(|| panic!("io.json has no {key:?}"))
        .1;
    let list = after
        .split_once("\"data\": [")
        .and_then(|(_, rest)| rest.split_once(']'))
        .unwrap_or_else(|| panic!("io.json's {key:?} has no data list"))
        .0;
    list.split(',')
        .map(|v| {
            v.trim()
                .parse()
                .unwrap_or_else(|e| panic!("io.json {key:?}: {v:?}: {e}"))
        })
        .collect()
}

/// Rust source: `pub const INPUT: [f32; n]` and `pub const EXPECTED: [f32; m]` from `json`.
pub fn constants(json: &str, source: &str) -> String {
    let list = |key: &str| {
        let v = data(json, key);
        // The shortest digits that give the same f32 (io.json holds f32 values widened to f64).
        let items: Vec<String> = v.iter().map(|&x| format!("{:?}", x as f32)).collect();
        (v.len(), items.join(", "))
    };
    let (n, input) = list("inputs");
    let (m, output) = list("outputs");
    format!(
        "/// The input TFLite's interpreter was given (`{source}`).\n\
         pub const INPUT: [f32; {n}] = [{input}];\n\
         /// The output TFLite's interpreter computed for it (`{source}`).\n\
         pub const EXPECTED: [f32; {m}] = [{output}];\n"
    )
}

/// Rust source: `pub const {prefix}_INPUT: [i8; n]` and `pub const {prefix}_EXPECTED: [i8; m]`
/// from an int8 model's `json`.
#[allow(
    dead_code,
    reason = "the Cortex-M example's build.rs includes this file too, without int8 models"
)]
pub fn int8_constants(json: &str, source: &str, prefix: &str) -> String {
    let list = |key: &str| {
        let v = data(json, key);
        let items: Vec<String> = v.iter().map(|&x| format!("{}", x as i8)).collect();
        (v.len(), items.join(", "))
    };
    let (n, input) = list("inputs");
    let (m, output) = list("outputs");
    format!(
        "/// The input TFLite's interpreter was given (`{source}`).\n\
         pub const {prefix}_INPUT: [i8; {n}] = [{input}];\n\
         /// The output TFLite's interpreter computed for it (`{source}`).\n\
         pub const {prefix}_EXPECTED: [i8; {m}] = [{output}];\n"
    )
}
