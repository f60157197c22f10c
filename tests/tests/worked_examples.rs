//! Worked examples from published write-ups on TFLite memory planning, with correct arithmetic.

use stowplan_planner::plan::{Buffer, Planner, Problem, lower_bound};
use stowplan_planner::verify::solve;

#[test]
fn chain_where_both_tensors_are_live_at_op_0() {
    // t0 [0,0] 602,112 B, t1 [0,1] 802,816 B, t2 [1,2] 401,408 B, t3 [2,2] 200,704 B.
    let problem = Problem::new(
        vec![
            Buffer::new(602_112, 0, 0),
            Buffer::new(802_816, 0, 1),
            Buffer::new(401_408, 1, 2),
            Buffer::new(200_704, 2, 2),
        ],
        16,
    )
    .unwrap();
    assert_eq!(problem.naive_bytes(), 2_007_040);
    let bound = lower_bound(&problem);
    // t0 and t1 are both live at op 0: 602,112 + 802,816. A write-up that ignores op 0 claims
    // 1,204,224 (t1 + t2), which no plan can reach.
    assert_eq!(bound.aligned_bytes, 1_404_928);
    assert_eq!(bound.peak_time, Some(0));
    let greedy = solve(&problem, Planner::Greedy).unwrap();
    assert_eq!(
        greedy.arena_bytes(),
        1_404_928,
        "greedy reaches the bound, so it is optimal"
    );
    assert_eq!(
        solve(&problem, Planner::Linear).unwrap().arena_bytes(),
        2_007_040
    );
}

#[test]
fn small_cnn_where_conv_and_relu_are_live_together() {
    // input 3,072 [0,3], conv 16,384 [1,2], relu 16,384 [2,3], pool 4,096 [3,4], fc 128 [4,4].
    let problem = Problem::new(
        vec![
            Buffer::new(3_072, 0, 3),
            Buffer::new(16_384, 1, 2),
            Buffer::new(16_384, 2, 3),
            Buffer::new(4_096, 3, 4),
            Buffer::new(128, 4, 4),
        ],
        16,
    )
    .unwrap();
    let bound = lower_bound(&problem);
    // At op 2: input + conv + relu.
    assert_eq!(bound.aligned_bytes, 35_840);
    assert_eq!(bound.peak_buffers, [0, 1, 2]);
    // So no plan can be 7,296 B, as one write-up claims.
    assert!(bound.aligned_bytes > 7_296);
    assert_eq!(
        solve(&problem, Planner::Linear).unwrap().arena_bytes(),
        40_064
    );
    assert_eq!(
        solve(&problem, Planner::Greedy).unwrap().arena_bytes(),
        35_840
    );
}
