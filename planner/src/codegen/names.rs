//! How generated code names things: deterministic, collision-free, documented.
//!
//! Tensor constants: the tensor's name up to its first `;` (TFLite joins fused names with `;`),
//! uppercased, every run of characters other than ASCII letters and digits turned into one `_`,
//! trimmed of `_` at both ends and cut to at most 48 characters between words (at an `_`; inside
//! a word only if its first word is longer). An empty result becomes `TENSOR`; a
//! leading digit gets `T_` in front. Tensors of subgraph `n > 0` get `SG{n}_` in front. When
//! several tensors get the same name, or a name equals one of the module's fixed items
//! ([`RESERVED`]) or has the form of a constant buffer's item (`BUFFER_` and digits), each of them
//! gets `_{id}` appended, where `id` is the tensor's index over all subgraphs; if that is still
//! taken, `_` is appended until it is free. Names are assigned in tensor id order, so the rule
//! depends only on the model.
//!
//! Module name: the file stem, lowercased, with runs of other characters turned into `_`; a
//! leading digit gets `model_` in front, and a Rust keyword gets `_model` appended.

use std::collections::{BTreeMap, BTreeSet};

use crate::tflite::Model;

/// Names of the fixed items of a generated module, which tensor constants never take.
pub const RESERVED: &[&str] = &[
    "ARENA_BYTES",
    "LOWER_BOUND_BYTES",
    "NAIVE_BYTES",
    "ALIGN",
    "PERSISTENT_BYTES",
    "PLANNER",
    "PLAN_BY",
    "PROVEN_OPTIMAL",
    "MODEL_PATH",
    "MODEL_SHA256",
    "MODEL_FILE",
    "MODEL_FILE_BYTES",
    "INPUTS",
    "OUTPUTS",
    "TENSORS",
    "OPS",
    "RAM_BYTES",
    "STATE_FLAGS",
];

const MAX_LEN: usize = 48;

/// Whether `name` has the form of a constant buffer's item, `BUFFER_{n}` or `FOLDED_{n}`.
fn is_buffer_item(name: &str) -> bool {
    // `BUFFER_<n>`, and `FOLDED_<n>`: the bytes of a constant folded when the crate compiled.
    ["BUFFER_", "FOLDED_"].iter().any(|p| {
        name.strip_prefix(p)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    })
}

fn screaming(name: &str) -> String {
    let head = name.split(';').next().unwrap_or_default();
    let mut out = String::with_capacity(head.len());
    let mut gap = false;
    for c in head.chars() {
        if c.is_ascii_alphanumeric() {
            if gap && !out.is_empty() {
                out.push('_');
            }
            gap = false;
            out.push(c.to_ascii_uppercase());
        } else {
            gap = true;
        }
    }
    if out.len() > MAX_LEN {
        // Cut between words (at an `_`), never inside one, unless a single word is longer.
        let cut = out
            .get(..=MAX_LEN)
            .and_then(|head| head.rfind('_'))
            .filter(|&at| at > 0)
            .unwrap_or(MAX_LEN);
        out.truncate(cut);
        while out.ends_with('_') {
            out.pop();
        }
    }
    if out.is_empty() {
        out.push_str("TENSOR");
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert_str(0, "T_");
    }
    out
}

/// The constant name of every tensor, by tensor id.
#[must_use]
pub fn tensor_consts(model: &Model) -> Vec<String> {
    let bases: Vec<String> = model
        .tensors
        .iter()
        .map(|t| {
            let base = screaming(&t.name);
            if t.subgraph.0 == 0 {
                base
            } else {
                format!("SG{}_{base}", t.subgraph)
            }
        })
        .collect();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for b in &bases {
        *counts.entry(b.as_str()).or_default() += 1;
    }
    let mut used: BTreeSet<String> = RESERVED.iter().map(|r| (*r).to_owned()).collect();
    let mut names = Vec::with_capacity(bases.len());
    for (id, base) in bases.iter().enumerate() {
        let clash = counts.get(base.as_str()).copied().unwrap_or(0) > 1
            || RESERVED.contains(&base.as_str())
            || is_buffer_item(base);
        let mut name = if clash {
            format!("{base}_{id}")
        } else {
            base.clone()
        };
        while used.contains(&name) {
            name.push('_');
        }
        used.insert(name.clone());
        names.push(name);
    }
    names
}

/// The constant name of each resource variable (by its shared name): `RESOURCE_` and the
/// shared name as a tensor's, made unique against `taken` (the tensor constants) and each other
/// by appending `_`.
#[must_use]
pub fn resource_consts(shared_names: &[&str], taken: &[String]) -> Vec<String> {
    let wanted: Vec<String> = shared_names
        .iter()
        .map(|n| format!("RESOURCE_{}", screaming(n).trim_start_matches("T_")))
        .collect();
    unique(wanted, taken)
}

/// `wanted` names, each made unique against `taken` (and the fixed items) and the others by
/// appending `_`.
#[must_use]
pub fn unique(wanted: Vec<String>, taken: &[String]) -> Vec<String> {
    let mut used: BTreeSet<String> = taken.iter().cloned().collect();
    used.extend(RESERVED.iter().map(|r| (*r).to_owned()));
    wanted
        .into_iter()
        .map(|mut name| {
            while used.contains(&name) {
                name.push('_');
            }
            used.insert(name.clone());
            name
        })
        .collect()
}

/// The module name for a model file stem.
#[must_use]
pub fn module_name(stem: &str) -> String {
    let mut out = String::new();
    let mut gap = false;
    for c in stem.chars() {
        if c.is_ascii_alphanumeric() {
            if gap && !out.is_empty() {
                out.push('_');
            }
            gap = false;
            out.push(c.to_ascii_lowercase());
        } else {
            gap = true;
        }
    }
    if out.is_empty() {
        out.push_str("model");
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert_str(0, "model_");
    }
    if syn::parse_str::<syn::Ident>(&out).is_err() {
        out.push_str("_model");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn screaming_names() {
        assert_eq!(screaming("conv2d_3/out"), "CONV2D_3_OUT");
        assert_eq!(
            screaming("model/dense/MatMul;model/dense/BiasAdd"),
            "MODEL_DENSE_MATMUL"
        );
        assert_eq!(screaming("serving_default_x:0"), "SERVING_DEFAULT_X_0");
        assert_eq!(screaming("__"), "TENSOR");
        assert_eq!(screaming("3d"), "T_3D");
        assert_eq!(screaming(&"a".repeat(100)).len(), 48);
        // Cut between words, not inside one.
        assert_eq!(
            screaming("mobilenetv2_1.00_224/block_16_depthwise_relu/Relu6;mobilenetv2/x"),
            "MOBILENETV2_1_00_224_BLOCK_16_DEPTHWISE_RELU"
        );
        assert_eq!(
            screaming("model/sequential/conv2d_transpose_block/BiasAdd_and_more"),
            "MODEL_SEQUENTIAL_CONV2D_TRANSPOSE_BLOCK_BIASADD"
        );
    }

    #[test]
    fn buffer_items_are_recognised() {
        assert!(is_buffer_item("BUFFER_1"));
        assert!(is_buffer_item("BUFFER_120"));
        assert!(!is_buffer_item("BUFFER_"));
        assert!(!is_buffer_item("BUFFER_1_5"));
        assert!(!is_buffer_item("BUFFERS_1"));
    }

    #[test]
    fn module_names() {
        assert_eq!(module_name("person_detect"), "person_detect");
        assert_eq!(module_name("KWS-model.v2"), "kws_model_v2");
        assert_eq!(module_name("2x"), "model_2x");
        assert_eq!(module_name("type"), "type_model");
        assert_eq!(module_name("---"), "model");
    }
}
