//! `CIRCULAR_BUFFER`: the golden `circular_buffer` (CONV_2D -> CIRCULAR_BUFFER with 3 slots and
//! `cycles_max` 2 -> CONV_2D over the slots) run through its generated `invoke`, which returns
//! `stowplan::Invoked`; and every check of TFLM's Prepare refused, naming the tensor and value.

include!("../expected/circular_buffer.rs");

use stowplan::Invoked;
use stowplan_planner::codegen::{GenerateError, generate};
use stowplan_planner::tflite::DType;
use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::flexbuffer::{WriteValue, write_map};
use stowplan_planner::{Options, plan_model};
use stowplan_tests::CB_FILTER;

/// `y[o] = clamp(sum over slots s and channels c of window[s][c] * filter[o][s][c])`.
fn second_conv(window: &[i8; 12]) -> [i8; 4] {
    let mut y = [0i8; 4];
    for (o, out) in y.iter_mut().enumerate() {
        let sum: i32 = (0..12)
            .map(|k| i32::from(window[k]) * i32::from(CB_FILTER[o * 12 + k]))
            .sum();
        *out = sum.clamp(-128, 127) as i8;
    }
    y
}

#[test]
fn invoke_stops_every_other_time_and_keeps_the_window() {
    let mut arena = circular_buffer::Arena::new();
    let mut state = Box::new(circular_buffer::PersistentArena::new());
    let mut window = [0i8; 12];
    let mut y = [0i8; 4];
    for k in 0..9i8 {
        let x = [k, -k, 2 * k, 100 - k];
        arena.view_mut(circular_buffer::X).copy_from_slice(&x);
        let done = circular_buffer::invoke(&mut arena, &mut state);
        window.copy_within(4.., 0);
        window[8..].copy_from_slice(&x);
        // cycles_max 2: the first invocation counts down to 1 and stops, the second runs.
        if k % 2 == 0 {
            assert_eq!(done, Invoked::Stopped { op: 1 }, "invocation {k}");
        } else {
            assert_eq!(done, Invoked::Complete, "invocation {k}");
            y = second_conv(&window);
        }
        assert_eq!(state.view(circular_buffer::W), &window, "window after {k}");
        // Stopped invocations leave the output as the last complete one wrote it.
        assert_eq!(arena.view(circular_buffer::Y), &y, "output after {k}");
    }
    // `reset` restarts the countdown (TFLM's Reset) and keeps the window (TFLM leaves it).
    circular_buffer::reset(&mut state);
    assert_eq!(state.view(circular_buffer::W), &window);
    assert_eq!(
        circular_buffer::invoke(&mut arena, &mut state),
        Invoked::Stopped { op: 1 }
    );
}

/// `x[in_shape] -> CIRCULAR_BUFFER -> w[out_shape]`, with `options` when given.
fn model(
    in_shape: &[i32],
    out_shape: &[i32],
    types: (DType, DType),
    options: Option<Vec<u8>>,
) -> Vec<u8> {
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = b.quantized(sg, "x", types.0, in_shape, (&[1.0], &[0], 0));
    let w = b.quantized(sg, "w", types.1, out_shape, (&[1.0], &[0], 0));
    match options {
        Some(o) => b.custom_with_options(sg, "CIRCULAR_BUFFER", &[x], &[w], &o),
        None => b.custom(sg, "CIRCULAR_BUFFER", &[x], &[w]),
    };
    b.io(sg, &[x], &[w]);
    b.finish()
}

fn generated(bytes: &[u8]) -> Result<String, String> {
    let plan =
        plan_model(bytes, &Options::default().with_invoke(true)).map_err(|e| e.to_string())?;
    let cg = stowplan_tests::test_codegen("m", true);
    match generate(&plan, bytes, &cg) {
        Ok(tokens) => Ok(tokens.to_string()),
        Err(GenerateError::NoKernel { message }) => Err(message),
        Err(e) => Err(e.to_string()),
    }
}

#[test]
fn each_check_of_tflms_prepare_is_refused_naming_tensor_and_value() {
    let i8s = (DType::Int8, DType::Int8);
    let cases: [(Vec<u8>, &str); 9] = [
        (
            model(&[1, 1, 1, 4], &[2, 3, 1, 4], i8s, None),
            r#"has dims[0] 1 and tensor 1 "w" of subgraph 0 (output) 2; TFLM's Prepare requires them equal"#,
        ),
        (
            model(&[1, 2, 1, 4], &[1, 3, 1, 4], i8s, None),
            r#"tensor 0 "x" of subgraph 0 (input of CIRCULAR_BUFFER) has dims[1] 2; TFLM's Prepare requires 1"#,
        ),
        (
            model(&[1, 1, 2, 4], &[1, 3, 1, 4], i8s, None),
            r#"has dims[2] 2 and tensor 1 "w" of subgraph 0 (output) 1; TFLM's Prepare requires them equal"#,
        ),
        (
            model(&[1, 1, 1, 4], &[1, 3, 1, 5], i8s, None),
            r#"has dims[3] 4 and tensor 1 "w" of subgraph 0 (output) 5; TFLM's Prepare requires them equal"#,
        ),
        (
            model(
                &[1, 1, 1, 4],
                &[1, 3, 1, 4],
                (DType::Int8, DType::Int16),
                None,
            ),
            "is int8 and tensor 1 \"w\" of subgraph 0 (output) int16; TFLM's Prepare requires the same type",
        ),
        (
            model(
                &[1, 1, 1, 4],
                &[1, 3, 1, 4],
                (DType::Int16, DType::Int16),
                None,
            ),
            "(input of CIRCULAR_BUFFER) is int16; CIRCULAR_BUFFER with these inputs needs int8",
        ),
        (
            model(&[1, 1, 1, 4], &[1, 0, 1, 4], i8s, None),
            "has 0 slots (dims[1]); TFLM's Eval moves (num_slots - 1) * depth bytes",
        ),
        (
            model(&[1, 1, 1, 4], &[1, 3, 1, 4], i8s, Some(write_map(&[], 1))),
            "option cycles_max is value 0 of the options",
        ),
        (
            model(&[1, 1, 4], &[1, 3, 4], i8s, None),
            "has 3 dimensions: TFLM's Prepare and Eval read dimensions 0 to 3",
        ),
    ];
    for (bytes, want) in cases {
        match generated(&bytes) {
            Ok(_) => panic!("accepted; wanted a refusal containing {want:?}"),
            Err(message) => assert!(message.contains(want), "{message}\nwanted {want:?}"),
        }
    }
}

#[test]
fn a_batch_other_than_one_and_a_buffer_in_a_called_subgraph_are_unsupported() {
    let bytes = model(
        &[2, 1, 1, 4],
        &[2, 3, 1, 4],
        (DType::Int8, DType::Int8),
        None,
    );
    let message = generated(&bytes).unwrap_err();
    assert!(
        message
            .contains(r#"tensor 1 "w" of subgraph 0 (output of CIRCULAR_BUFFER) has a batch of 2"#),
        "{message}"
    );
    // IF(c, x) with a CIRCULAR_BUFFER in its then branch.
    use stowplan_planner::tflite::builder::Callees;
    let mut b = ModelBuilder::new();
    let main = b.subgraph("main");
    let then = b.subgraph("then");
    let otherwise = b.subgraph("else");
    let c = b.tensor(main, "c", DType::Bool, &[1]);
    let x = b.quantized(main, "x", DType::Int8, &[1, 1, 1, 4], (&[1.0], &[0], 0));
    let y = b.quantized(main, "y", DType::Int8, &[1, 3, 1, 4], (&[1.0], &[0], 0));
    b.control_flow(
        main,
        Callees::If {
            then: then as i32,
            otherwise: otherwise as i32,
        },
        &[c, x],
        &[y],
    );
    b.io(main, &[c, x], &[y]);
    for sg in [then, otherwise] {
        let xi = b.quantized(sg, "xi", DType::Int8, &[1, 1, 1, 4], (&[1.0], &[0], 0));
        let yi = b.quantized(sg, "yi", DType::Int8, &[1, 3, 1, 4], (&[1.0], &[0], 0));
        b.custom(sg, "CIRCULAR_BUFFER", &[xi], &[yi]);
        b.io(sg, &[xi], &[yi]);
    }
    let message = generated(&b.finish()).unwrap_err();
    assert!(
        message.contains(
            "CIRCULAR_BUFFER in subgraph 1: TFLM's IF, WHILE and CALL_ONCE pass its kTfLiteAbort on"
        ),
        "{message}"
    );
}

#[test]
fn cycles_max_follows_tflms_prepare_and_its_count() {
    // Five windows of 2x96 with no options (the fifth count: period 1), then one of 5 slots
    // (period 1, the count back to 0), then one more 2x96 (count 1: period 2), then one with
    // cycles_max 7 and one with -3 (count 2: period 2).
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = b.quantized(sg, "x", DType::Int8, &[1, 1, 2, 96], (&[1.0], &[0], 0));
    let mut outs = Vec::new();
    let windows: [(i32, Option<i64>); 9] = [
        (1, None),
        (2, None),
        (3, None),
        (4, None),
        (1, None),
        (5, None),
        (2, None),
        (3, Some(7)),
        (2, Some(-3)),
    ];
    for (i, (slots, cycles)) in windows.iter().enumerate() {
        let w = b.quantized(
            sg,
            &format!("w{i}"),
            DType::Int8,
            &[1, *slots, 2, 96],
            (&[1.0], &[0], 0),
        );
        match cycles {
            Some(c) => {
                let o = write_map(&[("cycles_max", WriteValue::Int(*c))], 4);
                b.custom_with_options(sg, "CIRCULAR_BUFFER", &[x], &[w], &o)
            }
            None => b.custom(sg, "CIRCULAR_BUFFER", &[x], &[w]),
        };
        outs.push(w);
    }
    b.io(sg, &[x], &outs);
    let bytes = b.finish();
    let model = stowplan_planner::tflite::read_model(&bytes).unwrap();
    let got: Vec<i32> = model
        .ops
        .iter()
        .map(|op| stowplan_planner::ops::circular_buffer_cycles_max(&model, &bytes, op).unwrap())
        .collect();
    assert_eq!(got, [2, 2, 2, 2, 1, 1, 2, 7, 2]);
    // The generated code carries them as the kernels' parameters.
    let text = generated(&bytes).unwrap().replace(' ', "");
    assert_eq!(text.matches("cycles_max:1,").count(), 2, "{text}");
    assert_eq!(text.matches("cycles_max:7,").count(), 1);
    assert!(text.contains("->::stowplan::Invoked"));
}

/// The persistent region keeps every item on its own boundary whatever the alignment asked
/// for: with `align = 1`, the 9-byte window before it, the countdown's `u32` words still start
/// at a multiple of 4 (the typed view over them needs it), and the generated module says so.
#[test]
fn kernel_state_is_word_aligned_at_any_alignment() {
    let bytes = model(
        &[1, 1, 1, 3],
        &[1, 3, 1, 3],
        (DType::Int8, DType::Int8),
        None,
    );
    for alignment in [1, 2, 4, 16] {
        let options = Options {
            alignment,
            ..Options::default().with_invoke(true)
        };
        let plan = plan_model(&bytes, &options).unwrap();
        let [window] = plan.state.variables[..] else {
            panic!("one kept window: {:?}", plan.state.variables);
        };
        let [countdown] = plan.state.kernels[..] else {
            panic!("one kernel state: {:?}", plan.state.kernels);
        };
        assert_eq!(window.bytes, 9);
        assert!(
            countdown.offset.is_multiple_of(4),
            "align {alignment}: {countdown:?}"
        );
        assert!(
            countdown.offset >= window.offset + window.bytes,
            "align {alignment}"
        );
        assert!(plan.state.bytes >= countdown.offset + countdown.bytes);
        let cg = stowplan_tests::test_codegen("m", true);
        generate(&plan, &bytes, &cg).unwrap();
    }
}
