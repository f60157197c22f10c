//! The `stowplan` command line: tables, JSON, CSV problems, and one-line errors with a non-zero
//! exit for every bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn stowplan(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stowplan"))
        .args(args)
        .current_dir(repo())
        .output()
        .unwrap()
}

fn ok(args: &[&str]) -> String {
    let out = stowplan(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs a failing command; returns its one stderr line.
fn fails(args: &[&str], code: i32) -> String {
    let out = stowplan(args);
    assert_eq!(
        out.status.code(),
        Some(code),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: "), "{err}");
    err
}

fn temp(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stowplan-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn shared() -> Option<PathBuf> {
    let dir =
        std::env::var_os("STOWPLAN_SHARED").map_or_else(|| repo().join("../shared"), PathBuf::from);
    if dir.join("models").is_dir() {
        Some(dir)
    } else {
        let message = "CLI checks on the shared models skipped: ../shared is absent";
        assert!(
            std::env::var_os("CI").is_none_or(|v| v != "true"),
            "{message}, and CI=true: a skip in CI is a failure"
        );
        eprintln!("notice: {message}");
        None
    }
}

const CHAIN: &str = "tests/models/synthetic/chain.tflite";

#[test]
fn table_and_summary() {
    let out = ok(&["plan", CHAIN, "--planner", "greedy"]);
    assert!(out.starts_with("model tests/models/synthetic/chain.tflite: 1 subgraphs, 3 ops, 4 tensors; planner greedy, alignment 16"), "{out}");
    assert!(
        out.contains("arena                  512 B  (4 tensors planned)"),
        "{out}"
    );
    assert!(
        out.contains("lower bound            512 B  (raw 512 B); gap 0.00 %"),
        "{out}"
    );
    assert!(
        out.contains("naive                1,024 B  saving 512 B (50.0 %)"),
        "{out}"
    );
    assert!(
        out.contains("peak at op 0 (RELU) of subgraph 0 (time 1)"),
        "{out}"
    );
    let linear = ok(&["plan", CHAIN, "--planner", "linear", "--align=64"]);
    assert!(linear.contains("arena                1,024 B"), "{linear}");
}

#[test]
fn json_schema() {
    let v: Value =
        serde_json::from_str(&ok(&["plan", CHAIN, "--planner", "greedy", "--json"])).unwrap();
    assert_eq!(v["model"], CHAIN);
    assert_eq!(v["planner"], "greedy");
    assert_eq!(v["alignment"], 16);
    assert_eq!(v["arena_bytes"], 512);
    assert_eq!(v["persistent_bytes"], 0);
    assert_eq!(v["lower_bound_bytes"], 512);
    assert_eq!(v["naive_bytes"], 1024);
    let tensors = v["tensors"].as_array().unwrap();
    assert_eq!(tensors.len(), 4);
    let t0 = &tensors[0];
    for key in [
        "subgraph", "index", "name", "dtype", "shape", "bytes", "first", "last", "kind", "offset",
    ] {
        assert!(!t0[key].is_null(), "tensor field {key} missing: {t0}");
    }
    assert_eq!(t0["kind"], "input");
    assert_eq!(
        (
            t0["first"].as_i64(),
            t0["last"].as_i64(),
            t0["offset"].as_u64()
        ),
        (Some(0), Some(1), Some(256))
    );
    assert_eq!(tensors[3]["kind"], "output");
    let ops = v["ops"].as_array().unwrap();
    assert_eq!(ops.len(), 3);
    assert_eq!(ops[2]["time"], 3);
    assert_eq!(ops[2]["opcode"], "RELU");
    assert_eq!(ops[2]["inputs"], serde_json::json!([2]));
    assert_eq!(ops[2]["outputs"], serde_json::json!([3]));
}

#[test]
fn variables_constants_and_control_flow_in_json() {
    let v: Value = serde_json::from_str(&ok(&[
        "plan",
        "tests/models/synthetic/variables.tflite",
        "--json",
    ]))
    .unwrap();
    assert_eq!(v["persistent_bytes"], 848);
    let state = &v["tensors"][1];
    assert_eq!(
        (state["kind"].as_str(), state["placement"].as_str()),
        (Some("variable"), Some("persistent"))
    );
    assert!(state["offset"].is_null());
    assert_eq!(state["state_offset"], 0);
    assert_eq!(v["ram_bytes"], 80 + 848);
    let vars = v["state"]["variables"].as_array().unwrap();
    assert_eq!(vars.len(), 2);
    // int16[1,320] then int16[1,100] (640 B, then 200 B at the next multiple of 16).
    assert_eq!(
        (vars[1]["offset"].as_u64(), vars[1]["bytes"].as_u64()),
        (Some(640), Some(200))
    );
    assert!(v["state"]["flags"].is_null());
    let v: Value = serde_json::from_str(&ok(&[
        "plan",
        "tests/models/synthetic/if_else.tflite",
        "--json",
    ]))
    .unwrap();
    assert_eq!(v["subgraphs"].as_array().unwrap().len(), 3);
    assert_eq!(v["ops"][0]["callees"], serde_json::json!([1, 2]));
    assert_eq!(v["tensors"][4]["subgraph"], 1);
    assert_eq!(v["tensors"][4]["first"], 2);
}

#[test]
fn state_in_every_report() {
    let model = "tests/models/synthetic/call_once.tflite";
    let text = ok(&["plan", model]);
    for line in [
        "state                   48 B  (raw 34 B; 0 variable tensors, 1 resource variable behind 2 resource handle tensors, flags), kept apart",
        // The handles in the table point at the variable they stand for, as the summary counts.
        "    1   0     1  handle       resource []                         4  5..=8        variable         state+0",
        "    4   1     0  init/handle  resource []                         4  3..=4        variable         state+0",
        "RAM                    144 B  (arena + state)",
        "  state+0               32 B  resource variable \"state\" float32",
        "  state+32               2 B  flags (reset once, 1 CALL_ONCE op)",
    ] {
        assert!(text.contains(line), "{line:?} missing from\n{text}");
    }
    let v: Value = serde_json::from_str(&ok(&["plan", model, "--json"])).unwrap();
    let state = &v["state"];
    assert_eq!(
        (state["bytes"].as_u64(), state["raw_bytes"].as_u64()),
        (Some(48), Some(34))
    );
    assert_eq!(state["resources"][0]["shared_name"], "state");
    assert_eq!(state["resources"][0]["bytes"], 32);
    assert_eq!(state["flags"]["offset"], 32);
    assert_eq!(
        state["flags"]["call_once_ops"],
        serde_json::json!([{"subgraph": 0, "index": 0}])
    );
    assert_eq!(v["ram_bytes"], v["arena_bytes"].as_u64().unwrap() + 48);

    let svg = std::env::temp_dir().join(format!("stowplan-cli-state-{}.svg", std::process::id()));
    ok(&["plan", model, "--svg", svg.to_str().unwrap()]);
    let picture = std::fs::read_to_string(&svg).unwrap();
    let _ = std::fs::remove_file(&svg);
    assert!(picture.contains("state 48 B, RAM 144 B"), "{picture}");
    assert!(
        picture
            .contains("<title>resource variable &quot;state&quot; float32: 32 B at state offset 0"),
        "{picture}"
    );
    assert!(picture.contains("flags (reset once, 1 CALL_ONCE op): 2 B at state offset 32"));
    // A model without state has no state column.
    let svg_chain =
        std::env::temp_dir().join(format!("stowplan-cli-nostate-{}.svg", std::process::id()));
    ok(&["plan", CHAIN, "--svg", svg_chain.to_str().unwrap()]);
    let picture = std::fs::read_to_string(&svg_chain).unwrap();
    let _ = std::fs::remove_file(&svg_chain);
    assert!(!picture.contains("persistent"), "{picture}");
}

/// The SVG counts time as the table does: each tensor's tooltip shows the table's lifetime, the
/// axis labels the table's times, and the peak is the summary's; labels are clipped to their
/// rectangles.
#[test]
fn svg_time_matches_the_table() {
    for model in [
        CHAIN,
        "tests/models/synthetic/branches.tflite",
        "tests/models/synthetic/call_once.tflite",
    ] {
        let svg = std::env::temp_dir().join(format!(
            "stowplan-cli-time-{}-{}.svg",
            std::process::id(),
            model.len()
        ));
        let text = ok(&["plan", model, "--svg", svg.to_str().unwrap()]);
        let picture = std::fs::read_to_string(&svg).unwrap();
        let _ = std::fs::remove_file(&svg);
        let mut checked = 0;
        for line in text.lines().skip(2) {
            let cols: Vec<&str> = line.split_whitespace().collect();
            // id sg index name dtype shape bytes lifetime kind offset
            let Some(offset) = cols
                .last()
                .and_then(|o| o.replace(',', "").parse::<u64>().ok())
            else {
                continue;
            };
            let (id, name, lifetime) = (cols[0], cols[3], cols[cols.len() - 3]);
            let tooltip = format!("<title>{id} {name}: ");
            let at = picture
                .find(&tooltip)
                .unwrap_or_else(|| panic!("{model}: no rectangle for {id} {name}"));
            let rest = &picture[at..];
            let title = &rest[..rest.find("</title>").unwrap()];
            assert!(
                title.ends_with(&format!("at offset {offset}, time {lifetime}"))
                    || title.contains(&format!("at offset {}, time {lifetime}", thousands(offset))),
                "{model}: {title} vs the table's {lifetime}"
            );
            checked += 1;
        }
        assert!(checked >= 3, "{model}: {checked} rows compared");
        let peak = text
            .lines()
            .find_map(|l| l.split("(time ").nth(1))
            .and_then(|t| t.split(')').next())
            .unwrap();
        assert!(
            picture.contains(&format!(">peak at time {peak}</text>")),
            "{model}: the table's peak is at {peak}"
        );
        // Every label inside a rectangle is clipped to it.
        let labels = picture.matches("<text x=").count();
        let clipped = picture.matches("\" clip-path=\"url(#label-").count();
        assert!(
            clipped >= 3 && clipped == picture.matches("<clipPath id=\"label-").count(),
            "{model}: {clipped} of {labels}"
        );
    }
    // The axis: chain's tensors live at times 0..=3 in the table, and the axis says 0, 1, 2, 3.
    let svg = std::env::temp_dir().join(format!("stowplan-cli-axis-{}.svg", std::process::id()));
    ok(&["plan", CHAIN, "--svg", svg.to_str().unwrap()]);
    let picture = std::fs::read_to_string(&svg).unwrap();
    let _ = std::fs::remove_file(&svg);
    let axis: Vec<&str> = picture
        .lines()
        .filter(|l| l.contains("y=\"568.0\""))
        .filter_map(|l| l.split('>').nth(1)?.split('<').next())
        .collect();
    assert_eq!(axis, ["0", "1", "2", "3"]);
}

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

#[test]
fn shape_overrides() {
    let model = "tests/models/synthetic/dynamic_dim.tflite";
    let err = fails(&["plan", model], 1);
    assert!(
        err.contains("has a dynamic shape [-1,10]; give its shape"),
        "{err}"
    );
    let out = ok(&[
        "plan",
        model,
        "--shape",
        "x=2x10",
        "--shape",
        "1=2x10",
        "--shape=y=2x10",
        "--json",
    ]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["arena_bytes"], 160);
    assert_eq!(v["tensors"][0]["shape"], serde_json::json!([2, 10]));
    fails(&["plan", model, "--shape", "x=2xten"], 2);
}

#[test]
fn csv_problems() {
    let csv = temp(
        "p.csv",
        b"id,lower,upper,size\nA,0,2,10\nB,1,3,20\nC,3,4,30\n",
    );
    let v: Value =
        serde_json::from_str(&ok(&["plan", "--problem", csv.to_str().unwrap(), "--json"])).unwrap();
    assert_eq!(v["alignment"], 1);
    assert_eq!(v["arena_bytes"], 30);
    assert_eq!(v["lower_bound_bytes"], 30);
    assert_eq!(v["offsets"], serde_json::json!({ "A": 20, "B": 0, "C": 0 }));
    let bad = temp("bad.csv", b"id,lower,upper,size\nA,0,2\n");
    let err = fails(&["plan", "--problem", bad.to_str().unwrap()], 1);
    assert!(
        err.ends_with("problem CSV line 2: expected 4 columns, found 3\n"),
        "{err}"
    );
}

#[test]
fn usage_and_input_errors() {
    assert!(ok(&[]).contains("usage:"));
    assert!(ok(&["--help"]).contains("usage:"));
    assert!(ok(&["plan", "--help"]).contains("usage:"));
    assert!(ok(&["--version"]).starts_with("stowplan "));
    fails(&["frobnicate"], 2);
    fails(&["plan"], 2);
    fails(&["plan", CHAIN, "--planner", "magic"], 2);
    fails(&["plan", CHAIN, "--align", "12"], 2);
    fails(&["plan", CHAIN, "--align"], 2);
    fails(&["plan", CHAIN, "--bogus"], 2);
    fails(&["plan", CHAIN, CHAIN], 2);
    fails(&["plan", CHAIN, "--offline", "maybe"], 2);
    let err = fails(&["plan", CHAIN, "--scratch", "cmsis"], 2);
    assert!(
        err.contains("--scratch cmsis: expected none, tflm or stowplan"),
        "{err}"
    );
    let err = fails(&["plan", "no/such/model.tflite"], 1);
    assert!(
        err.starts_with("error: cannot read no/such/model.tflite: "),
        "{err}"
    );
    let err = fails(&["plan", "Cargo.toml"], 1);
    assert!(err.contains("not a TFLite model"), "{err}");
    let bytes = std::fs::read(repo().join(CHAIN)).unwrap();
    for cut in [0, 7, 8, 100, bytes.len() / 2, bytes.len() - 20] {
        let path = temp(&format!("cut{cut}.tflite"), &bytes[..cut]);
        fails(&["plan", path.to_str().unwrap()], 1);
    }
}

#[test]
fn every_shared_model_plans_as_json() {
    let Some(shared) = shared() else { return };
    let mut count = 0;
    for entry in std::fs::read_dir(shared.join("models")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "tflite") {
            continue;
        }
        let v: Value =
            serde_json::from_str(&ok(&["plan", path.to_str().unwrap(), "--json"])).unwrap();
        let planned: Vec<&Value> = v["tensors"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["placement"] == "arena")
            .collect();
        assert_eq!(planned.len() as u64, v["planned_tensors"].as_u64().unwrap());
        assert!(planned.iter().all(|t| t["offset"].is_u64()));
        count += 1;
        // Cut points through the CLI: an error and exit 1.
        let bytes = std::fs::read(&path).unwrap();
        for cut in [9, bytes.len() / 3, bytes.len() - 32] {
            let cut_path = temp(
                &format!("{}-{cut}", path.file_name().unwrap().to_string_lossy()),
                &bytes[..cut],
            );
            fails(&["plan", cut_path.to_str().unwrap()], 1);
        }
    }
    assert_eq!(count, 13);
}

#[test]
fn minimalloc_instances_plan_and_verify() {
    let Some(shared) = shared() else { return };
    let csv: &Path = &shared.join("benchmarks/minimalloc/K.1048576.csv");
    let v: Value = serde_json::from_str(&ok(&[
        "plan",
        "--problem",
        csv.to_str().unwrap(),
        "--capacity",
        "1048576",
        "--json",
    ]))
    .unwrap();
    assert_eq!(v["lower_bound_bytes"], 1_048_576);
    assert_eq!(v["arena_bytes"], 1_048_576);
    assert_eq!(v["proven_optimal"], true);
    assert_eq!(v["winner"], "search");
    assert_eq!(v["offsets"].as_object().unwrap().len(), 454);
    let err = fails(
        &[
            "plan",
            "--problem",
            csv.to_str().unwrap(),
            "--capacity",
            "1048576",
            "--steps",
            "10",
        ],
        1,
    );
    assert!(err.contains("found in 10 search steps"), "{err}");
}

#[test]
fn planners_capacity_steps_and_svg() {
    // TFLite Micro's golden problem: greedy 90, lower bound 80.
    let csv = temp(
        "golden.csv",
        b"id,lower,upper,size\na,0,2,10\nb,1,3,20\nc,2,4,30\nd,3,5,40\ne,0,2,50\n",
    );
    let csv = csv.to_str().unwrap();
    let json = |args: &[&str]| -> Value {
        let mut all = vec!["plan", "--problem", csv, "--json"];
        all.extend_from_slice(args);
        serde_json::from_str(&ok(&all)).unwrap()
    };
    let greedy = json(&["--planner", "greedy"]);
    assert_eq!(greedy["arena_bytes"], 90);
    assert_eq!(greedy["winner"], "greedy");
    assert_eq!(greedy["proven_optimal"], false);
    assert_eq!(greedy["best_bound_bytes"], 80);
    assert_eq!(greedy["search_steps"], 0);
    let auto = json(&[]);
    assert_eq!(auto["planner"], "auto");
    assert_eq!(auto["arena_bytes"], 80);
    assert_eq!(auto["proven_optimal"], true);
    assert!(auto["winner"].is_string());
    for planner in [
        "best-fit",
        "conflicts",
        "lifetime",
        "urgency",
        "search",
        "linear",
    ] {
        let v = json(&["--planner", planner]);
        assert_eq!(v["planner"], planner);
        assert!(v["arena_bytes"].as_u64().unwrap() >= 80, "{planner}");
    }
    // A budget of one step cannot improve on greedy; a capacity below the bound is refused.
    let one = json(&["--planner", "search", "--steps", "1"]);
    assert_eq!(
        (one["arena_bytes"].as_u64(), one["search_steps"].as_u64()),
        (Some(90), Some(1))
    );
    let err = fails(&["plan", "--problem", csv, "--capacity", "79"], 1);
    assert!(
        err.contains("no plan fits a capacity of 79 bytes: the arena needs at least 80 bytes"),
        "{err}"
    );
    let err = fails(
        &[
            "plan",
            "--problem",
            csv,
            "--capacity",
            "85",
            "--planner",
            "greedy",
        ],
        1,
    );
    assert!(
        err.contains("no plan within a capacity of 85 bytes found"),
        "{err}"
    );
    assert_eq!(json(&["--capacity", "85"])["arena_bytes"], 80);
    fails(&["plan", "--problem", csv, "--capacity", "lots"], 2);
    fails(&["plan", "--problem", csv, "--steps"], 2);
    // The text report says who won and whether it is optimal.
    let text = ok(&["plan", "--problem", csv]);
    assert!(text.contains("planner      auto: "), "{text}");
    assert!(text.contains("proven optimal"), "{text}");
    // Pictures.
    let svg = std::env::temp_dir().join(format!("stowplan-cli-{}.svg", std::process::id()));
    ok(&["plan", "--problem", csv, "--svg", svg.to_str().unwrap()]);
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(picture.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(picture.trim_end().ends_with("</svg>"));
    // One rectangle per buffer, the background and the frame (label clips apart).
    let rects = |p: &str| p.matches("<rect ").count() - p.matches("<clipPath ").count();
    assert_eq!(rects(&picture), 5 + 2);
    ok(&["plan", CHAIN, "--svg", svg.to_str().unwrap()]);
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert_eq!(rects(&picture), 4 + 2);
    assert!(picture.contains("lower bound 512 B"));
    let err = fails(&["plan", CHAIN, "--svg", "no/such/dir/x.svg"], 1);
    assert!(err.contains("cannot write no/such/dir/x.svg"), "{err}");
}

#[test]
fn tflm_kernel_scratch_on_shared_models() {
    let Some(models) = shared() else {
        return;
    };
    // SignalRfft asks for 1,024 B at op 3: with it, audio_preprocessor's optimum is TFLM's head.
    let model = models.join("models/tflm_audio_preprocessor_int8.tflite");
    let model = model.to_str().unwrap();
    let arena = |extra: &[&str]| {
        let mut args = vec!["plan", model, "--json"];
        args.extend_from_slice(extra);
        let json: serde_json::Value = serde_json::from_str(&ok(&args)).unwrap();
        json["arena_bytes"].as_u64().unwrap()
    };
    assert_eq!(arena(&[]), 2_096);
    assert_eq!(arena(&["--scratch", "none"]), 2_096);
    assert_eq!(arena(&["--scratch", "tflm"]), 3_040);
    assert_eq!(arena(&["--scratch=tflm", "--planner", "greedy"]), 3_040);
}

/// `stowplan generate` writes the file `Config::generate` writes, byte for byte, run from the
/// crate's root (or with `--manifest-dir`).
#[test]
fn generate_writes_what_build_rs_writes() {
    let dir = std::env::temp_dir().join(format!("stowplan-cli-generate-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let tests = repo().join("tests");
    type Case = (
        &'static str,
        &'static [&'static str],
        fn(&mut stowplan_build::Config),
    );
    let cases: [Case; 5] = [
        ("plain", &["models/synthetic/chain.tflite"], |_| {}),
        (
            "options",
            &[
                "models/synthetic/residual.tflite",
                "--budget",
                "1 KiB",
                "--align=64",
                "--planner",
                "greedy",
                "--name",
                "net",
                "--runtime",
                "::renamed",
            ],
            |c| {
                c.budget(1024)
                    .align(64)
                    .planner(stowplan_build::Planner::Greedy)
                    .name("net")
                    .runtime_crate("::renamed");
            },
        ),
        (
            "shapes",
            &[
                "models/synthetic/dynamic_dim.tflite",
                "--shape",
                "x=2x10",
                "--shape",
                "1=2x10",
                "--shape",
                "y=2x10",
                "--offline",
                "replan",
            ],
            |c| {
                c.shape("x=2x10")
                    .shape("1=2x10")
                    .shape("y=2x10")
                    .offline(stowplan_build::OfflinePolicy::Replan);
            },
        ),
        (
            "dynamic",
            &["models/synthetic/dynamic_dim.tflite", "--dynamic", "cache"],
            |c| {
                c.dynamic_cache(true);
            },
        ),
        (
            "op-marks",
            &[
                "models/cnn_int8/cnn_int8.tflite",
                "--invoke",
                "--op-marks",
                "crate::marks",
            ],
            |c| {
                c.invoke(true).op_marks("crate::marks");
            },
        ),
    ];
    for (case, args, configure) in cases {
        let out = dir.join(format!("{case}.rs"));
        let mut cli: Vec<&str> = vec!["generate"];
        cli.extend_from_slice(args);
        let out_str = out.to_string_lossy().into_owned();
        cli.extend(["-o", out_str.as_str()]);
        let o = Command::new(env!("CARGO_BIN_EXE_stowplan"))
            .args(&cli)
            .current_dir(&tests)
            .output()
            .unwrap();
        assert!(
            o.status.success() && o.stdout.is_empty(),
            "{case}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let out_dir = dir.join(format!("{case}-out"));
        std::fs::create_dir_all(&out_dir).unwrap();
        let mut config = stowplan_build::Config::new();
        config
            .model(args[0])
            .manifest_dir(&tests)
            .out_dir(&out_dir)
            .bless(false);
        configure(&mut config);
        let g = config.generate().unwrap();
        let cli_text = std::fs::read(&out).unwrap();
        assert_eq!(
            cli_text,
            std::fs::read(&g.path).unwrap(),
            "{case}: the CLI and build.rs differ"
        );
    }
    // Without -o, the same bytes on stdout.
    let stdout = Command::new(env!("CARGO_BIN_EXE_stowplan"))
        .args(["generate", "models/synthetic/chain.tflite"])
        .current_dir(&tests)
        .output()
        .unwrap();
    assert_eq!(stdout.stdout, std::fs::read(dir.join("plain.rs")).unwrap());
}

/// The desktop example's review copy, which its build.rs keeps in sync, is what `stowplan
/// generate` writes with the same options.
#[test]
fn generate_reproduces_the_desktop_review_copy() {
    let out = temp("cnn.rs", b"");
    let out_str = out.to_string_lossy().into_owned();
    ok(&[
        "generate",
        "../../tests/models/cnn_int8/cnn_int8.tflite",
        "--manifest-dir",
        "examples/desktop",
        "--name",
        "cnn",
        "--budget",
        "1024",
        "--invoke",
        "-o",
        &out_str,
    ]);
    let cli = std::fs::read_to_string(&out).unwrap();
    let copy =
        std::fs::read_to_string(repo().join("examples/desktop/src/generated/cnn.rs")).unwrap();
    let first_difference = cli
        .lines()
        .zip(copy.lines())
        .position(|(a, b)| a != b)
        .map(|i| i + 1);
    assert!(
        cli == copy,
        "the CLI's output differs from examples/desktop/src/generated/cnn.rs (first at line {first_difference:?})"
    );
}

#[test]
fn generate_refuses_bad_arguments_in_one_line() {
    for (args, code, message) in [
        (
            &["generate"][..],
            2,
            "error: generate needs a MODEL.tflite (relative to the crate's Cargo.toml); see stowplan --help",
        ),
        (
            &[
                "generate",
                "tests/models/synthetic/chain.tflite",
                "--budget",
                "4MB",
            ],
            2,
            "error: --budget 4MB: \"4MB\" is ambiguous: MB means 1,000,000 bytes in SI but 1,048,576 in common use; write \"4 MiB\" for 4,194,304 bytes, or \"4_000_000\" for 4,000,000 bytes",
        ),
        (
            &[
                "generate",
                "tests/models/synthetic/chain.tflite",
                "--name",
                "not an ident",
            ],
            2,
            "error: name \"not an ident\" is not a Rust identifier",
        ),
        (
            &[
                "generate",
                "tests/models/synthetic/residual.tflite",
                "--budget",
                "256",
            ],
            1,
            "error: tests/models/synthetic/residual.tflite: arena needs 384 bytes but the budget is 256 (over by 128); peak at op 2 (ADD) of subgraph 0 with a 128 + b 128 + out 128; the lower bound is 384; no plan can fit: shrink the tensors live at the peak (smaller shapes or overrides) or raise the budget",
        ),
        (
            &[
                "generate",
                "tests/models/synthetic/chain.tflite",
                "--align",
                "8192",
            ],
            1,
            "error: tests/models/synthetic/chain.tflite: align = 8192 is more than the runtime's arena types can align their address to (4096); use align = 4096 or less, or plan with the `stowplan` command, which has no such limit",
        ),
        (
            &[
                "generate",
                "tests/models/synthetic/chain.tflite",
                "--op-marks",
                "crate::marks",
            ],
            2,
            "error: op_marks \"crate::marks\" needs invoke(true): the marks are calls between the ops of the generated `invoke`",
        ),
        (
            &[
                "generate",
                "tests/models/cnn_int8/cnn_int8.tflite",
                "--invoke",
                "--op-marks",
                "crate::marks::",
            ],
            2,
            "error: op_marks path \"crate::marks::\": unexpected end of input, expected identifier; expected the path of a module, such as \"crate::marks\"",
        ),
        (
            &[
                "generate",
                "tests/models/cnn_int8/cnn_int8.tflite",
                "--op-marks",
            ],
            2,
            "error: --op-marks needs a value; see stowplan --help",
        ),
    ] {
        assert_eq!(fails(args, code).trim_end(), message, "{args:?}");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn output_that_cannot_be_written_exits_1_with_a_message() {
    // A full disk.
    let out = Command::new(env!("CARGO_BIN_EXE_stowplan"))
        .args(["plan", "tests/models/synthetic/chain.tflite", "--json"])
        .current_dir(repo())
        .stdout(std::fs::File::create("/dev/full").unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("error: cannot write the output: ") && err.lines().count() == 1,
        "{err}"
    );
    // A pipe whose reader is gone (`| head -c 100` once it has read enough).
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_stowplan"))
        .args(["plan", "tests/models/synthetic/chain.tflite"])
        .current_dir(repo())
        .stdout(writer)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with("error: cannot write the output: "), "{err}");
}

#[test]
fn control_characters_from_the_model_are_escaped() {
    use stowplan_planner::tflite::DType;
    use stowplan_planner::tflite::builder::{ModelBuilder, ops};
    // A tensor name and a custom op code with an ESC sequence: the table and the error show it
    // escaped, never raw.
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "x\u{1b}[31mred", DType::Int8, &[4]);
    let y = b.tensor(sg, "y", DType::Int8, &[4]);
    let z = b.tensor(sg, "z", DType::Int8, &[4]);
    b.op(sg, ops::RELU, &[x], &[y]);
    b.custom(sg, "Evil\u{1b}]0;title\u{7}", &[y], &[z]);
    b.io(sg, &[x], &[z]);
    let path = temp("escape.tflite", &b.finish());
    let table = ok(&["plan", path.to_str().unwrap()]);
    assert!(!table.contains('\u{1b}'), "{table}");
    assert!(table.contains("x\\u{1b}[31mred"), "{table}");

    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "x", DType::Int8, &[4]);
    let y = b.tensor(sg, "y\u{1b}[2J", DType::Int8, &[-4]);
    b.op(sg, ops::RELU, &[x], &[y]);
    b.io(sg, &[x], &[y]);
    let path = temp("escape_error.tflite", &b.finish());
    let err = fails(&["plan", path.to_str().unwrap()], 1);
    assert!(!err.contains('\u{1b}'), "{err}");
    assert!(err.contains("y\\u{1b}[2J"), "{err}");
}

#[test]
fn group_reports_each_model_and_the_shared_arena() {
    let chain = "tests/models/synthetic/chain.tflite";
    let residual = "tests/models/synthetic/residual.tflite";
    let text = ok(&["group", chain, residual, "--budget", "1KiB"]);
    assert!(text.starts_with("== model `chain`\n"), "{text}");
    assert!(text.contains("== model `residual`\n"));
    assert!(text.contains(
        "  shared arena 512 B (separate arenas 896 B, saving 384 B); state 0 B, each model's own; RAM 512 B, budget 1,024 B\n"
    ), "{text}");
    let v: Value = serde_json::from_str(&ok(&["group", chain, residual, "--json"])).unwrap();
    assert_eq!(v["shared_arena_bytes"], 512);
    assert_eq!(v["separate_arena_bytes"], 896);
    assert_eq!(v["models"][1]["name"], "residual");
    assert_eq!(v["models"][1]["report"]["arena_bytes"], 384);
    assert!(v["pipeline"].is_null());
    let err = fails(&["group", chain, residual, "--budget", "256"], 1);
    assert!(err.starts_with("error: group `group` needs 512 bytes of RAM (the shared arena of 512, which is model `chain`'s"), "{err}");
    assert!(err.contains("peak at op 0 (RELU)"), "{err}");
    assert!(fails(&["group"], 2).contains("group needs one or more MODEL.tflite"));
    assert!(
        fails(&["group", chain, chain], 2).contains("two models of the group are named `chain`")
    );
    assert!(
        fails(&["group", chain, "--pipe", "chain.output_0"], 2)
            .contains("is not `model.output_N -> model.input_N`")
    );

    // A pipeline: the chain into a copy of itself.
    let dir = std::env::temp_dir().join(format!("stowplan-cli-group-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let second = dir.join("second.tflite");
    std::fs::copy(repo().join(chain), &second).unwrap();
    let second = second.to_str().unwrap();
    let svg = dir.join("group.svg");
    let v: Value = serde_json::from_str(&ok(&[
        "group",
        chain,
        second,
        "--invoke",
        "--pipe",
        "chain.output_0 -> second.input_0",
        "--json",
        "--svg",
        svg.to_str().unwrap(),
    ]))
    .unwrap();
    assert_eq!(v["pipeline"]["arena_bytes"], 512);
    assert_eq!(v["pipeline"]["larger_plus_handover_bytes"], 512);
    assert_eq!(v["pipeline"]["handover_bytes"], 256);
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert_eq!(
        picture.matches("<svg ").count(),
        3,
        "the group and its two models"
    );
    assert!(picture.contains("<title>second: "));
    let err = fails(
        &[
            "group",
            chain,
            second,
            "--pipe",
            "second.output_0 -> chain.input_0",
        ],
        1,
    );
    assert!(err.contains("runs before it"), "{err}");
}

#[test]
fn generate_writes_a_group_as_build_rs_does() {
    let dir = std::env::temp_dir().join(format!("stowplan-cli-gen-group-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("models")).unwrap();
    for m in ["chain", "residual"] {
        std::fs::copy(
            repo().join(format!("tests/models/synthetic/{m}.tflite")),
            dir.join(format!("models/{m}.tflite")),
        )
        .unwrap();
    }
    let d = dir.to_str().unwrap();
    let text = ok(&[
        "generate",
        "models/chain.tflite",
        "models/residual.tflite",
        "--name",
        "pair",
        "--budget",
        "1KiB",
        "--invoke",
        "--manifest-dir",
        d,
    ]);
    let member = |path: &str| {
        let mut c = stowplan_build::Config::new();
        c.model(path).invoke(true);
        c
    };
    let (expected, _) = stowplan_build::Config::new()
        .name("pair")
        .budget(1024)
        .manifest_dir(&dir)
        .member(member("models/chain.tflite"))
        .member(member("models/residual.tflite"))
        .render()
        .unwrap();
    assert_eq!(text, expected);
    std::fs::copy(
        dir.join("models/chain.tflite"),
        dir.join("models/second.tflite"),
    )
    .unwrap();
    let piped = ok(&[
        "generate",
        "models/chain.tflite",
        "models/second.tflite",
        "--pipe",
        "chain.output_0 -> second.input_0",
        "--manifest-dir",
        d,
    ]);
    assert!(
        piped.contains("pub const HANDOVER_BYTES: usize = 256;"),
        "{piped}"
    );
    let err = fails(
        &[
            "generate",
            "models/chain.tflite",
            "--pipe",
            "chain.output_0 -> chain.input_0",
            "--manifest-dir",
            d,
        ],
        1,
    );
    assert!(err.contains("runs before it"), "{err}");
}

/// Each op's MACs recomputed from `plan --json`'s tensor shapes, by the rule `stowplan macs`
/// documents: CONV_2D's filter is [out, h, w, in per group], DEPTHWISE_CONV_2D's [1, h, w, out],
/// FULLY_CONNECTED's weights end in the accumulation depth.
fn macs_from_the_plan(model: &str) -> Vec<Option<u64>> {
    let plan: Value = serde_json::from_str(&ok(&["plan", model, "--json"])).unwrap();
    let tensors = plan["tensors"].as_array().unwrap();
    let shape = |sg: &Value, index: &Value| -> Vec<u64> {
        let t = tensors
            .iter()
            .find(|t| t["subgraph"] == *sg && t["index"] == *index)
            .unwrap();
        t["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap())
            .collect()
    };
    plan["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|op| {
            let sg = &op["subgraph"];
            let out: u64 = shape(sg, &op["outputs"][0]).iter().product();
            let filter = || shape(sg, &op["inputs"][1]);
            match op["opcode"].as_str().unwrap() {
                "CONV_2D" => Some(out * filter()[1..].iter().product::<u64>()),
                "DEPTHWISE_CONV_2D" => Some(out * filter()[1] * filter()[2]),
                "FULLY_CONNECTED" => Some(out * filter().last().unwrap()),
                _ => None,
            }
        })
        .collect()
}

/// `stowplan macs MODEL --json` (its total, per op), checked against its text form.
fn macs_of(model: &str) -> (u64, Vec<Option<u64>>) {
    let v: Value = serde_json::from_str(&ok(&["macs", model, "--json"])).unwrap();
    assert_eq!(v["model"], model);
    let ops = v["ops"].as_array().unwrap();
    let macs: Vec<Option<u64>> = ops.iter().map(|o| o["macs"].as_u64()).collect();
    let total = v["total_macs"].as_u64().unwrap();
    assert_eq!(total, macs.iter().flatten().sum::<u64>());
    let text = ok(&["macs", model]);
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        format!(
            "{model}: {} multiply-accumulates in {} of {} ops",
            thousands(total),
            macs.iter().flatten().count(),
            ops.len()
        )
    );
    assert!(lines.next().unwrap().starts_with("subgraph     op  opcode"));
    for (line, op) in lines.zip(ops) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let shown = op["macs"]
            .as_u64()
            .map_or_else(|| "-".to_owned(), thousands);
        // The kernel as `name/epilogue` (or its name alone, or "-"), its expected instructions.
        let kernel = match (op["kernel"].as_str(), op["epilogue"].as_str()) {
            (Some(k), Some(e)) => format!("{k}/{e}"),
            (Some(k), None) => k.to_owned(),
            (None, _) => "-".to_owned(),
        };
        let expected = op["expected_instructions"]
            .as_u64()
            .map_or_else(|| "-".to_owned(), thousands);
        let want = [
            op["subgraph"].to_string(),
            op["index"].to_string(),
            op["opcode"].as_str().unwrap().to_owned(),
            shown,
            kernel,
            expected,
        ];
        assert_eq!(fields, want, "{line}");
    }
    assert_eq!(text.lines().count(), ops.len() + 2);
    (total, macs)
}

/// The test CNN's CONV_2Ds and DEPTHWISE_CONV_2D each name the kernel and epilogue form that
/// generated `invoke` calls for them, as the review copy's `OP_N_KERNEL` constants do
/// (`examples/desktop/src/generated/cnn.rs`), with an expected cost; the other ops none.
#[test]
fn macs_name_each_ops_kernel() {
    let cnn = "tests/models/cnn_int8/cnn_int8.tflite";
    let v: Value = serde_json::from_str(&ok(&["macs", cnn, "--json"])).unwrap();
    let ops = v["ops"].as_array().unwrap();
    let named: Vec<Option<(&str, &str)>> = ops
        .iter()
        .map(|o| Some((o["kernel"].as_str()?, o["epilogue"].as_str()?)))
        .collect();
    let shift2 = |k| Some((k, "shift2"));
    assert_eq!(
        named,
        [
            shift2("gathered"),
            None,
            shift2("widened_64"),
            shift2("taps"),
            None,
            None,
            None,
            None,
            shift2("interleaved_folded"),
            None
        ]
    );
    let review =
        std::fs::read_to_string(repo().join("examples/desktop/src/generated/cnn.rs")).unwrap();
    // ADD names its loop, with no epilogue form (and no cost model).
    assert_eq!(ops[4]["opcode"], "ADD");
    assert_eq!(ops[4]["kernel"], "same_half_shift1");
    assert!(ops[4]["epilogue"].is_null() && ops[4]["expected_instructions"].is_null());
    let at = review.find("OP_4_KERNEL: u8 = ").unwrap();
    assert!(
        review[at..]
            .split(';')
            .next()
            .unwrap()
            .ends_with("::stowplan::kernels::add_kernel::SAME_HALF_SHIFT1"),
        "{}",
        &review[at..at + 80]
    );
    for (i, (o, n)) in ops.iter().zip(&named).enumerate() {
        assert_eq!(
            o["expected_instructions"].as_u64().is_some(),
            n.is_some(),
            "{o}"
        );
        let Some((kernel, epilogue)) = n else {
            continue;
        };
        let at = review.find(&format!("OP_{i}_KERNEL: u8 = ")).unwrap();
        let constant: String = review[at..]
            .split(';')
            .next()
            .unwrap()
            .split_whitespace()
            .collect();
        assert!(
            constant.ends_with(&format!(
                "::{}|::stowplan::kernels::{}::EPILOGUE_{}",
                kernel.to_ascii_uppercase(),
                match o["opcode"].as_str() {
                    Some("CONV_2D") => "conv_kernel",
                    Some("FULLY_CONNECTED") => "fully_connected_kernel",
                    _ => "depthwise_kernel",
                },
                epilogue.to_ascii_uppercase()
            )),
            "{constant}"
        );
    }
}

#[test]
fn macs_per_op_follow_the_models_shapes() {
    let cnn = "tests/models/cnn_int8/cnn_int8.tflite";
    let (total, macs) = macs_of(cnn);
    assert_eq!(macs, macs_from_the_plan(cnn));
    // Two CONV_2D, a DEPTHWISE_CONV_2D and a FULLY_CONNECTED, among 10 ops.
    assert_eq!(macs.len(), 10);
    assert_eq!(macs.iter().flatten().count(), 4);
    assert_eq!(total, 7_344);

    // A dynamic dimension needs --shape, as for planning.
    let dynamic = "tests/models/malformed/dynamic_dimension.tflite";
    let err = fails(&["macs", dynamic], 1);
    assert!(err.contains("has a dynamic shape [-1,3]"), "{err}");
    assert!(
        ok(&["macs", dynamic, "--shape", "y=2x3"])
            .contains(" 0 multiply-accumulates in 0 of 1 ops")
    );

    let Some(shared) = shared() else { return };
    let models = shared.join("models");
    // The figures TFLite Micro's models are cited with: micro_speech 336,000 (DEPTHWISE_CONV_2D
    // 320,000, FULLY_CONNECTED 16,000), person_detect 7.16 M.
    let ms = models.join("tflm_micro_speech_int8.tflite");
    let ms = ms.to_str().unwrap();
    let (total, macs) = macs_of(ms);
    assert_eq!(macs, macs_from_the_plan(ms));
    assert_eq!(
        (total, macs),
        (336_000, vec![None, Some(320_000), Some(16_000), None])
    );
    let pd = models.join("tflm_person_detect_int8.tflite");
    let pd = pd.to_str().unwrap();
    let (total, macs) = macs_of(pd);
    assert_eq!(macs, macs_from_the_plan(pd));
    assert_eq!((total + 5_000) / 10_000, 716, "{total}");
    assert_eq!(macs.iter().flatten().count(), 28);
}

#[test]
fn macs_refuses_bad_arguments_in_one_line() {
    let cnn = "tests/models/cnn_int8/cnn_int8.tflite";
    assert!(ok(&["macs", "--help"]).contains("stowplan macs MODEL.tflite"));
    let err = fails(&["macs"], 2);
    assert!(err.contains("macs needs a MODEL.tflite"), "{err}");
    let err = fails(&["macs", cnn, "--planner", "greedy"], 2);
    assert!(err.contains("unknown option --planner for macs"), "{err}");
    let err = fails(&["macs", cnn, cnn], 2);
    assert!(err.contains("one model at a time"), "{err}");
    let err = fails(&["macs", cnn, "--shape"], 2);
    assert!(err.contains("--shape needs a value"), "{err}");
    let err = fails(&["macs", cnn, "--shape", "x=1xq"], 2);
    assert!(err.contains("--shape x=1xq: "), "{err}");
    let err = fails(&["macs", cnn, "--json=yes"], 2);
    assert!(err.contains("unknown option --json"), "{err}");
    let err = fails(&["macs", "no/such/model.tflite"], 1);
    assert!(
        err.starts_with("error: cannot read no/such/model.tflite: "),
        "{err}"
    );
    let err = fails(&["macs", "Cargo.toml"], 1);
    assert!(err.contains("not a TFLite model"), "{err}");
    let bytes = std::fs::read(repo().join(cnn)).unwrap();
    for cut in [0, 9, bytes.len() / 2, bytes.len() - 20] {
        let path = temp(&format!("macs-cut{cut}.tflite"), &bytes[..cut]);
        fails(&["macs", path.to_str().unwrap()], 1);
    }
}
