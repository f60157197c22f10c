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

/// The README stays short (at most 250 lines).
#[test]
fn the_readme_is_at_most_250_lines() {
    let readme = std::fs::read_to_string(stowplan_tests::repo_root().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(lines <= 250, "README.md has {lines} lines");
}

/// `1234567` as `1,234,567`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The number after `key` on the first line of `text` that holds it (commas ignored).
fn figure(text: &str, key: &str) -> u64 {
    let line = text
        .lines()
        .find_map(|l| l.find(key).map(|i| &l[i + key.len()..]))
        .unwrap_or_else(|| panic!("no line with {key:?}"));
    let digits: String = line
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(char::is_ascii_digit)
        .collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("no number after {key:?}"))
}

/// `17331819` as `17.3 M` (three significant figures).
fn millions(n: u64) -> String {
    let m = n as f64 / 1e6;
    if m >= 10.0 {
        format!("{m:.1} M")
    } else {
        format!("{m:.2} M")
    }
}

/// The README's Cortex-M figures are those of the committed snapshots `examples/cortex-m/run.sh`
/// and `icount.sh` check: person_detect's RAM (bss + stack peak), its arena and bound, the shared
/// arena of the group, and the instruction counts beside TFLM + CMSIS-NN's.
#[test]
fn the_readme_figures_are_the_cortex_m_snapshots() {
    let root = stowplan_tests::repo_root();
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    let readme = read("README.md")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let size = read("examples/cortex-m/person-detect-size.txt");
    let out = read("examples/cortex-m/person-detect.out");
    let ram = figure(&size, "bss ") + figure(&out, "stack peak ");
    let arena = figure(&out, "arena ");
    let bound = figure(&out, "lower bound ");
    let icount = read("examples/cortex-m/icount.txt");
    let group = read("examples/cortex-m/group.out");
    let (pd, pd_tflm) = (
        figure(&icount, "person_detect: "),
        figure(&icount, "TFLite Micro + CMSIS-NN "),
    );
    let ms_at = icount.find("micro_speech: ").unwrap();
    let (ms, ms_tflm) = (
        figure(&icount[ms_at..], "micro_speech: "),
        figure(&icount[ms_at..], "TFLite Micro + CMSIS-NN "),
    );
    let want = [
        format!("{} B of RAM (bss + stack peak)", thousands(ram)),
        format!(
            "person_detect: {} B against {} B",
            thousands(arena),
            thousands(bound)
        ),
        format!(
            "{} B instead of {} B",
            thousands(arena),
            thousands(figure(&group, "separate arenas "))
        ),
        format!(
            "person_detect takes {} instructions (TFLM + CMSIS-NN {})",
            millions(pd),
            millions(pd_tflm)
        ),
        format!("micro_speech {} ({})", millions(ms), millions(ms_tflm)),
    ];
    for w in want {
        assert!(readme.contains(&w), "the README does not say {w:?}");
    }
}
