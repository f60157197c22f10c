//! The README's list of supported ops is derived from the conformance table
//! (`docs/conformance.md`, written by `tests/conformance/run.py --full --table`): an op and type
//! appear in the README exactly when the table shows every output value identical with TFLite
//! Micro and no parameter difference. `STOWPLAN_BLESS=1` rewrites the README's block.

use std::collections::BTreeMap;

const BEGIN: &str = "<!-- ops: generated from docs/conformance.md by tests/tests/readme.rs -->";
const END: &str = "<!-- ops: end -->";

/// One row of the conformance table.
struct Row {
    op: String,
    types: String,
    compared: u64,
    identical: u64,
    parameter_differences: u64,
}

fn number(cell: &str) -> u64 {
    cell.trim()
        .replace(',', "")
        .parse()
        .unwrap_or_else(|e| panic!("{cell:?} in docs/conformance.md is not a number: {e}"))
}

fn rows(table: &str) -> Vec<Row> {
    table
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| op ") && !l.starts_with("|---"))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').map(str::trim).collect();
            assert_eq!(cells.len(), 10, "a row of docs/conformance.md: {l}");
            Row {
                op: cells[0].to_owned(),
                types: cells[2].to_owned(),
                compared: number(cells[5]),
                identical: number(cells[6]),
                parameter_differences: number(cells[8]),
            }
        })
        .collect()
}

/// The README block: the ops and the types each is bit-exact for (ops with the same types on one
/// line, in the order of their first op).
fn block(rows: &[Row]) -> String {
    let mut ops: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for r in rows {
        if r.compared > 0 && r.identical == r.compared && r.parameter_differences == 0 {
            let types = ops.entry(&r.op).or_default();
            if !types.contains(&r.types.as_str()) {
                types.push(&r.types);
            }
        }
    }
    // Ops with the same types share a line, so the list stays short.
    let mut by_types: Vec<(String, Vec<&str>)> = Vec::new();
    for (op, mut types) in ops {
        types.sort_unstable();
        let types = types.join(", ");
        match by_types.iter_mut().find(|(t, _)| *t == types) {
            Some((_, ops)) => ops.push(op),
            None => by_types.push((types, vec![op])),
        }
    }
    let mut out = format!("{BEGIN}\n| ops | bit-exact for |\n|---|---|\n");
    for (types, ops) in by_types {
        out.push_str(&format!("| {} | {types} |\n", ops.join(", ")));
    }
    out.push_str(END);
    out
}

#[test]
fn the_readme_lists_exactly_the_bit_exact_ops_of_the_conformance_table() {
    let root = stowplan_tests::repo_root();
    let table = std::fs::read_to_string(root.join("docs/conformance.md")).unwrap();
    let rows = rows(&table);
    assert!(
        rows.len() > 20,
        "docs/conformance.md has {} rows",
        rows.len()
    );
    let failing: Vec<String> = rows
        .iter()
        .filter(|r| r.identical != r.compared || r.parameter_differences != 0)
        .map(|r| format!("{} {}", r.op, r.types))
        .collect();
    assert!(
        failing.is_empty(),
        "the conformance table shows differences: {failing:?}"
    );
    let want = block(&rows);
    let path = root.join("README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let start = readme.find(BEGIN).expect("the README has the ops block");
    let end = readme[start..].find(END).expect("the ops block ends") + start + END.len();
    let have = &readme[start..end];
    if have != want {
        if std::env::var_os("STOWPLAN_BLESS").is_some_and(|v| v == "1") {
            let new = format!("{}{want}{}", &readme[..start], &readme[end..]);
            std::fs::write(&path, new).unwrap();
        } else {
            panic!(
                "the README's op list is stale; rerun with STOWPLAN_BLESS=1\n--- README\n{have}\n--- from docs/conformance.md\n{want}"
            );
        }
    }
}

#[test]
fn rows_that_differ_are_left_out() {
    let table = "| op | module | types | variants | models | output values compared | identical | parameter sets checked | parameter differences | refused by both |\n|---|\n\
        | ADD | `add` | int8 | 1 | 3 | 10 | 10 | 3 | 0 | 0 |\n\
        | ADD | `add` | float32 | 1 | 3 | 10 | 9 | 3 | 0 | 0 |\n\
        | MUL | `mul` | int8 | 1 | 3 | 1,000 | 1,000 | 3 | 1 | 0 |\n";
    let b = block(&rows(table));
    assert!(b.contains("| ADD | int8 |\n"), "{b}");
    let two = "| ABS | `x` | int8 | 1 | 3 | 10 | 10 | 0 | 0 | 0 |\n\
        | NEG | `x` | int8 | 1 | 3 | 10 | 10 | 0 | 0 | 0 |\n";
    assert!(block(&rows(two)).contains("| ABS, NEG | int8 |\n"));
    assert!(!b.contains("float32") && !b.contains("MUL"), "{b}");
}
