//! The arena heads the real TFLite Micro interpreter measured on the project's models
//! (`tests/tflm/heads.json`, written by `tests/tflm/check_heads.py --write`): our greedy plan
//! must equal each, through IF, WHILE and CALL_ONCE. `.ci/run` re-measures them with TFLM.

use stowplan_planner::plan::Planner;
use stowplan_planner::{Options, plan_model};
use stowplan_tests::repo_root;

#[test]
fn greedy_equals_the_measured_tflm_head() {
    let text = std::fs::read_to_string(repo_root().join("tests/tflm/heads.json")).unwrap();
    let heads: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&text).unwrap();
    // Our own fixtures (one folder per case) and the runnable synthetic models.
    for case in [
        "call_once",
        "cnn_int8",
        "cond_if",
        "mlp_float",
        "mlp_int8",
        "while_loop",
        "synthetic/chain",
        "synthetic/if_else",
        "synthetic/while_loop",
    ] {
        assert!(heads.contains_key(case), "heads.json has no {case}");
    }
    for (case, head) in &heads {
        let path = match case.split_once('/') {
            Some((dir, stem)) => format!("tests/models/{dir}/{stem}.tflite"),
            None => format!("tests/models/{case}/{case}.tflite"),
        };
        let bytes = std::fs::read(repo_root().join(&path)).unwrap();
        let greedy = Options {
            planner: Planner::Greedy,
            ..Options::default()
        };
        let plan = plan_model(&bytes, &greedy).unwrap();
        assert_eq!(Some(plan.arena_bytes()), head.as_u64(), "{path}");
        // The default planner is never worse.
        let auto = plan_model(&bytes, &Options::default()).unwrap();
        assert!(auto.arena_bytes() <= plan.arena_bytes(), "{path}");
    }
}

#[test]
fn control_flow_fixtures_have_their_ops() {
    for (case, opcode, subgraphs) in [
        ("cond_if", "IF", 3),
        ("while_loop", "WHILE", 3),
        ("call_once", "CALL_ONCE", 2),
    ] {
        let bytes =
            std::fs::read(repo_root().join(format!("tests/models/{case}/{case}.tflite"))).unwrap();
        let plan = plan_model(&bytes, &Options::default()).unwrap();
        assert_eq!(plan.model.subgraphs.len(), subgraphs, "{case}");
        assert!(
            plan.model
                .ops
                .iter()
                .any(|o| o.opcode.to_string() == opcode),
            "{case} has no {opcode}"
        );
    }
}
