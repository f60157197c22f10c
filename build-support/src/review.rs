//! What changed between a committed review copy and the fresh output: the arena, the state, the
//! slots and the ops, read back from the two generated files.

use std::collections::BTreeMap;

/// The figures of one generated file that a reviewer cares about.
#[derive(Debug, Default, PartialEq, Eq)]
struct Figures {
    sha256: Option<String>,
    arena: Option<u64>,
    persistent: Option<u64>,
    align: Option<u64>,
    /// Slot name -> (offset, bytes).
    slots: BTreeMap<String, (u64, u64)>,
    /// (subgraph, index) -> opcode.
    ops: BTreeMap<(u64, u64), String>,
}

/// How many names a line lists before "and N more".
const LISTED: usize = 4;

/// A short, line-per-topic summary of what differs between `old` (the committed copy) and
/// `new` (the fresh output). Empty lines are never produced.
pub(crate) fn summary(old: &str, new: &str) -> Vec<String> {
    let Some(before) = figures(old) else {
        return vec![
            "the committed copy does not parse as a generated module (edited by hand?)".to_owned(),
        ];
    };
    let Some(after) = figures(new) else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    if before.sha256 != after.sha256 {
        lines.push(format!(
            "model: sha256 {} -> {}",
            short(before.sha256.as_deref()),
            short(after.sha256.as_deref())
        ));
    }
    for (what, a, b) in [
        ("arena", before.arena, after.arena),
        ("state", before.persistent, after.persistent),
        ("alignment", before.align, after.align),
    ] {
        if a != b {
            lines.push(format!("{what}: {} -> {}", bytes(a), bytes(b)));
        }
    }
    let mut moved = Vec::new();
    let mut resized = Vec::new();
    let mut added = Vec::new();
    for (name, &(offset, size)) in &after.slots {
        match before.slots.get(name) {
            None => added.push(format!("{name} ({size} B at {offset})")),
            Some(&(o, s)) => {
                if s != size {
                    resized.push(format!("{name} {s} -> {size} B"));
                }
                if o != offset {
                    moved.push(format!("{name} {o} -> {offset}"));
                }
            }
        }
    }
    let removed: Vec<String> = before
        .slots
        .keys()
        .filter(|n| !after.slots.contains_key(*n))
        .cloned()
        .collect();
    push_list(&mut lines, "slots moved", &moved);
    push_list(&mut lines, "slots resized", &resized);
    push_list(&mut lines, "slots added", &added);
    push_list(&mut lines, "slots removed", &removed);
    let label = |&(sg, index): &(u64, u64), opcode: &str| {
        if sg == 0 {
            format!("op {index} {opcode}")
        } else {
            format!("op {index} of subgraph {sg} {opcode}")
        }
    };
    let mut ops_added = Vec::new();
    let mut ops_changed = Vec::new();
    for (key, opcode) in &after.ops {
        match before.ops.get(key) {
            None => ops_added.push(label(key, opcode)),
            Some(old) if old != opcode => {
                ops_changed.push(format!("{} -> {opcode}", label(key, old)))
            }
            Some(_) => {}
        }
    }
    let ops_removed: Vec<String> = before
        .ops
        .iter()
        .filter(|(k, _)| !after.ops.contains_key(*k))
        .map(|(k, o)| label(k, o))
        .collect();
    push_list(&mut lines, "ops added", &ops_added);
    push_list(&mut lines, "ops removed", &ops_removed);
    push_list(&mut lines, "ops changed", &ops_changed);
    if lines.is_empty() {
        lines.push(
            "the plan is the same: only comments, docs or code around it differ (a new stowplan version, or an edit by hand)"
                .to_owned(),
        );
    }
    lines
}

fn push_list(lines: &mut Vec<String>, what: &str, items: &[String]) {
    if items.is_empty() {
        return;
    }
    let mut text = items
        .iter()
        .take(LISTED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > LISTED {
        text.push_str(&format!(" and {} more", items.len() - LISTED));
    }
    lines.push(format!("{what} ({}): {text}", items.len()));
}

fn short(sha: Option<&str>) -> String {
    sha.map_or_else(
        || "?".to_owned(),
        |s| s.chars().take(12).collect::<String>(),
    )
}

fn bytes(n: Option<u64>) -> String {
    n.map_or_else(|| "?".to_owned(), |n| format!("{n} B"))
}

/// Reads the figures back from a generated file; `None` if it is not one.
fn figures(text: &str) -> Option<Figures> {
    let file = syn::parse_file(text).ok()?;
    let mut out = Figures {
        sha256: text
            .lines()
            .next()
            .and_then(|l| l.split("(sha256 ").nth(1))
            .and_then(|s| s.split(')').next())
            .map(str::to_owned),
        ..Figures::default()
    };
    let module = file.items.iter().find_map(|i| match i {
        syn::Item::Mod(m) => m.content.as_ref().map(|(_, items)| items),
        _ => None,
    })?;
    for item in module {
        let syn::Item::Const(c) = item else { continue };
        let name = c.ident.to_string();
        match name.as_str() {
            "ARENA_BYTES" => out.arena = int(&c.expr),
            "PERSISTENT_BYTES" => out.persistent = int(&c.expr),
            "ALIGN" => out.align = int(&c.expr),
            "OPS" => out.ops = ops(&c.expr),
            _ => {
                if let Some(slot) = slot(&c.ty, &c.expr) {
                    out.slots.insert(name, slot);
                }
            }
        }
    }
    Some(out)
}

/// An integer literal, or `N_u64 as usize` as generated code writes large ones.
fn int(expr: &syn::Expr) -> Option<u64> {
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse().ok(),
        syn::Expr::Cast(c) => int(&c.expr),
        syn::Expr::Paren(p) => int(&p.expr),
        syn::Expr::Group(g) => int(&g.expr),
        _ => None,
    }
}

/// `Slot<Region, T>` = `Slot::new(offset, len)`: `(offset, bytes)`.
fn slot(ty: &syn::Type, expr: &syn::Expr) -> Option<(u64, u64)> {
    let syn::Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "Slot" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    let elem = args.args.iter().last().and_then(|a| match a {
        syn::GenericArgument::Type(syn::Type::Path(t)) => {
            t.path.get_ident().map(ToString::to_string)
        }
        _ => None,
    })?;
    let size = match elem.as_str() {
        "i8" | "u8" => 1,
        "i16" | "u16" => 2,
        "i32" | "u32" | "f32" => 4,
        "i64" | "u64" | "f64" => 8,
        _ => return None,
    };
    let syn::Expr::Call(call) = expr else {
        return None;
    };
    let mut args = call.args.iter();
    let offset = int(args.next()?)?;
    let len = int(args.next()?)?;
    Some((offset, len.checked_mul(size)?))
}

/// `&[OpInfo { opcode: "ADD", subgraph: 0, index: 2, .. }, ..]`.
fn ops(expr: &syn::Expr) -> BTreeMap<(u64, u64), String> {
    let mut out = BTreeMap::new();
    let syn::Expr::Reference(r) = expr else {
        return out;
    };
    let syn::Expr::Array(a) = &*r.expr else {
        return out;
    };
    for e in &a.elems {
        let syn::Expr::Struct(s) = e else { continue };
        let field = |name: &str| {
            s.fields.iter().find_map(|f| match &f.member {
                syn::Member::Named(i) if i == name => Some(&f.expr),
                _ => None,
            })
        };
        let opcode = field("opcode").and_then(|e| match e {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        });
        let sg = field("subgraph").and_then(int);
        let index = field("index").and_then(int);
        if let (Some(opcode), Some(sg), Some(index)) = (opcode, sg, index) {
            out.insert((sg, index), opcode);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(arena: u64, slots: &[(&str, u64, u64)], ops: &[&str]) -> String {
        let slots: String = slots
            .iter()
            .map(|(n, o, l)| {
                format!("pub const {n}: ::stowplan::Slot<Activations, f32> = ::stowplan::Slot::new({o}, {l});\n")
            })
            .collect();
        let ops: String = ops
            .iter()
            .enumerate()
            .map(|(i, o)| {
                format!("::stowplan::__private_v1::OpInfo {{ opcode: \"{o}\", subgraph: 0, index: {i}, inputs: &[], outputs: &[] }},")
            })
            .collect();
        format!(
            "// @generated by stowplan-build 0.1.0 from m.tflite (sha256 {arena:0<64}). Do not edit.\n\
             pub mod net {{\n pub const ARENA_BYTES: usize = {arena};\n pub const PERSISTENT_BYTES: usize = 0;\n\
             {slots}\n pub const OPS: &[::stowplan::__private_v1::OpInfo] = &[{ops}];\n}}\n"
        )
    }

    #[test]
    fn names_what_moved_grew_appeared_and_vanished() {
        let old = module(
            512,
            &[("X", 0, 4), ("Y", 16, 4), ("Z", 32, 4)],
            &["RELU", "ADD"],
        );
        let new = module(
            528,
            &[("X", 16, 4), ("Y", 0, 8), ("W", 64, 2)],
            &["RELU", "MUL", "SOFTMAX"],
        );
        assert_eq!(
            summary(&old, &new),
            [
                "model: sha256 512000000000 -> 528000000000",
                "arena: 512 B -> 528 B",
                "slots moved (2): X 0 -> 16, Y 16 -> 0",
                "slots resized (1): Y 16 -> 32 B",
                "slots added (1): W (8 B at 64)",
                "slots removed (1): Z",
                "ops added (1): op 2 SOFTMAX",
                "ops changed (1): op 1 ADD -> MUL",
            ]
        );
    }

    #[test]
    fn long_lists_are_cut_and_equal_plans_say_so() {
        let many: Vec<(String, u64, u64)> = (0..6).map(|i| (format!("T{i}"), i * 16, 4)).collect();
        let moved: Vec<(String, u64, u64)> =
            (0..6).map(|i| (format!("T{i}"), i * 16 + 96, 4)).collect();
        fn r(v: &[(String, u64, u64)]) -> Vec<(&str, u64, u64)> {
            v.iter().map(|(n, o, l)| (n.as_str(), *o, *l)).collect()
        }
        let lines = summary(&module(96, &r(&many), &[]), &module(96, &r(&moved), &[]));
        assert_eq!(
            lines.last().unwrap(),
            "slots moved (6): T0 0 -> 96, T1 16 -> 112, T2 32 -> 128, T3 48 -> 144 and 2 more"
        );
        let same = module(96, &r(&many), &["ADD"]);
        assert!(summary(&same, &same)[0].starts_with("the plan is the same"));
        assert_eq!(
            summary("not rust {", &same),
            ["the committed copy does not parse as a generated module (edited by hand?)"]
        );
    }
}
