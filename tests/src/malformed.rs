//! The malformed-model suite: models that must be refused, each with the specific error every
//! entry point (library, CLI, `build.rs`, `include_model!`) gives. Built with the Rust model
//! builder or by byte surgery on the project's own models; committed under
//! `tests/models/malformed/` (refreshed with `STOWPLAN_BLESS=1 cargo test -p stowplan-tests
//! --test synthetic`).

use stowplan_planner::tflite::builder::{Callees, ModelBuilder, TensorSpec, ops};
use stowplan_planner::tflite::{BuiltinOp, DType};

/// A model that must be refused, and the message every entry point gives (after `PATH: `).
#[derive(Clone, Copy, Debug)]
pub struct Case {
    /// File stem under `tests/models/malformed/`.
    pub name: &'static str,
    /// Builds the bytes.
    pub build: fn() -> Vec<u8>,
    /// The error message.
    pub message: &'static str,
}

fn le32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// Where an offset field at `at` points.
fn deref(bytes: &[u8], at: usize) -> usize {
    at + le32(bytes, at) as usize
}

/// Where field `id` of the table at `table` is stored.
fn field(bytes: &[u8], table: usize, id: usize) -> usize {
    let vtable = (table as i64 - i64::from(le32(bytes, table) as i32)) as usize;
    let off = u16::from_le_bytes([bytes[vtable + 4 + 2 * id], bytes[vtable + 5 + 2 * id]]);
    assert!(off != 0, "field {id} absent");
    table + off as usize
}

/// Position of the length word of subgraph 0's tensors vector, and of its tensor 0 table.
fn tensors_vector(bytes: &[u8]) -> (usize, usize) {
    let root = deref(bytes, 0);
    let subgraphs = deref(bytes, field(bytes, root, 2));
    let sg0 = deref(bytes, subgraphs + 4);
    let tensors = deref(bytes, field(bytes, sg0, 0));
    (tensors, deref(bytes, tensors + 4))
}

fn one_op(build: impl FnOnce(&mut ModelBuilder, usize, i32) -> i32) -> Vec<u8> {
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "x", DType::Int8, &[4]);
    let y = build(&mut b, sg, x);
    b.io(sg, &[x], &[y]);
    b.finish()
}

fn output(spec: TensorSpec) -> Vec<u8> {
    one_op(|b, sg, x| {
        let y = b.tensor_spec(sg, spec);
        b.op(sg, ops::RELU, &[x], &[y]);
        y
    })
}

fn shaped(shape: &[i32], dtype: DType) -> Vec<u8> {
    output(TensorSpec {
        name: "y".into(),
        type_code: dtype.code(),
        shape: Some(shape.to_vec()),
        ..TensorSpec::default()
    })
}

fn chain_with_offline(words: &[i32]) -> Vec<u8> {
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "x", DType::Int8, &[16]);
    let y = b.tensor(sg, "y", DType::Int8, &[16]);
    b.op(sg, ops::RELU, &[x], &[y]);
    b.io(sg, &[x], &[y]);
    b.offline_plan(words);
    b.finish()
}

/// Subgraph k calls subgraph k + 1 (twice when `twice`), `n` subgraphs deep.
fn call_chain(n: usize, twice: bool) -> Vec<u8> {
    let mut b = ModelBuilder::new();
    let sgs: Vec<usize> = (0..n).map(|i| b.subgraph(&format!("s{i}"))).collect();
    for (k, &sg) in sgs.iter().enumerate() {
        let x = b.tensor(sg, "x", DType::Int8, &[1]);
        if k + 1 < n {
            let next = i32::try_from(k + 1).unwrap_or(i32::MAX);
            let callees = if twice {
                Callees::If {
                    then: next,
                    otherwise: next,
                }
            } else {
                Callees::CallOnce { init: next }
            };
            b.control_flow(sg, callees, &[x], &[x]);
        }
        b.io(sg, &[x], &[x]);
    }
    b.finish()
}

/// ADD of the input and weights `w` whose buffer claims `size` bytes at `offset` after the
/// flatbuffer.
fn weights_after_the_flatbuffer(offset: u64, size: u64) -> Vec<u8> {
    one_op(|b, sg, x| {
        let buffer = b.external_buffer(offset, size);
        let w = b.tensor_spec(
            sg,
            TensorSpec {
                name: "w".into(),
                type_code: DType::Int8.code(),
                shape: Some(vec![4]),
                buffer,
                ..TensorSpec::default()
            },
        );
        let y = b.tensor(sg, "y", DType::Int8, &[4]);
        b.op(sg, ops::ADD, &[x, w], &[y]);
        y
    })
}

/// Every case of the suite.
pub const CASES: &[Case] = &[
    Case {
        name: "empty",
        build: Vec::new,
        message: "not a TFLite model: 0 bytes is too short for a flatbuffer header",
    },
    Case {
        name: "truncated_header",
        build: || crate::chain()[..6].to_vec(),
        message: "not a TFLite model: 6 bytes is too short for a flatbuffer header",
    },
    Case {
        name: "truncated",
        build: crate::truncated,
        message: "malformed TFLite flatbuffer: bytes 448..452 are outside the file (in Model.operator_codes[0])",
    },
    Case {
        name: "wrong_identifier",
        build: || {
            let mut b = crate::chain();
            b[4..8].copy_from_slice(b"TFL2");
            b
        },
        message: "not a TFLite model: file identifier is \"TFL2\", expected \"TFL3\"",
    },
    Case {
        name: "root_out_of_bounds",
        build: || {
            let mut b = crate::chain();
            b[0..4].copy_from_slice(&0x7fff_0000u32.to_le_bytes());
            b
        },
        message: "malformed TFLite flatbuffer: bytes 2147418112..2147418116 are outside the file",
    },
    Case {
        name: "vtable_out_of_bounds",
        build: || {
            let mut b = crate::chain();
            let root = deref(&b, 0);
            b[root..root + 4].copy_from_slice(&(-0x4000_0000i32).to_le_bytes());
            b
        },
        message: "malformed TFLite flatbuffer: offset -1073741824 at byte 8 points outside the file",
    },
    Case {
        name: "ten_million_tensors",
        build: || {
            let mut b = crate::chain();
            let (len, _) = tensors_vector(&b);
            b[len..len + 4].copy_from_slice(&10_000_000u32.to_le_bytes());
            b
        },
        message: "malformed TFLite flatbuffer: bytes 184..40000184 are outside the file (in Model.subgraphs[0].tensors)",
    },
    Case {
        name: "overlapping_tables",
        build: || {
            let mut b = ModelBuilder::new();
            let sg = b.subgraph("main");
            b.tensor(sg, "wide", DType::Int8, &[1; 4_000]);
            b.repeat_last_tensor(sg, 8_000);
            b.finish()
        },
        message: "malformed TFLite flatbuffer: tables and vectors overlap too much (apparent size limit)",
    },
    Case {
        name: "invalid_utf8_name",
        build: || {
            let mut b = crate::chain();
            let (_, tensor0) = tensors_vector(&b);
            let name = deref(&b, field(&b, tensor0, 3));
            b[name + 4] = 0xff;
            b
        },
        message: "malformed TFLite flatbuffer: string at bytes 420..422 is not UTF-8 (in Model.subgraphs[0].tensors[0].name)",
    },
    Case {
        name: "no_subgraphs",
        build: || ModelBuilder::new().finish(),
        message: "model has no subgraphs",
    },
    Case {
        name: "tensor_index_out_of_range",
        build: || {
            one_op(|b, sg, x| {
                b.op(sg, ops::RELU, &[x], &[7]);
                x
            })
        },
        message: "op 0 (RELU) of subgraph 0 has output tensor 7, but the subgraph has 1 tensors",
    },
    Case {
        name: "negative_subgraph_output",
        build: || {
            let mut b = ModelBuilder::new();
            let sg = b.subgraph("main");
            let x = b.tensor(sg, "x", DType::Int8, &[4]);
            b.io(sg, &[x], &[-2]);
            b.finish()
        },
        message: "subgraph 0 has subgraph output tensor -2, but it has 1 tensors",
    },
    Case {
        name: "buffer_index_out_of_range",
        build: || {
            output(TensorSpec {
                name: "y".into(),
                type_code: 9,
                shape: Some(vec![4]),
                buffer: 99,
                ..TensorSpec::default()
            })
        },
        message: "tensor 1 \"y\" of subgraph 0 uses buffer 99, but the model has 1 buffers",
    },
    Case {
        name: "opcode_index_out_of_range",
        build: || {
            one_op(|b, sg, x| {
                let y = b.tensor(sg, "y", DType::Int8, &[4]);
                b.raw_op(sg, 1000, &[x], &[y]);
                y
            })
        },
        message: "op 0 of subgraph 0 uses operator code 1000, but the model has 0",
    },
    Case {
        name: "subgraph_index_out_of_range",
        build: || {
            one_op(|b, sg, x| {
                b.control_flow(
                    sg,
                    Callees::If {
                        then: 0,
                        otherwise: 5,
                    },
                    &[x],
                    &[x],
                );
                x
            })
        },
        message: "op 0 (IF) of subgraph 0 calls subgraph 5, but the model has 1 subgraphs",
    },
    Case {
        name: "missing_while_options",
        build: || {
            one_op(|b, sg, x| {
                b.control_flow_without_options(sg, BuiltinOp::WHILE, &[x], &[x]);
                x
            })
        },
        message: "op 0 (WHILE) of subgraph 0 has no WhileOptions, so its subgraphs are unknown",
    },
    Case {
        name: "negative_dimension",
        build: || shaped(&[1, -3], DType::Int8),
        message: "tensor 1 \"y\" of subgraph 0 has a negative dimension in shape [1,-3]",
    },
    Case {
        name: "dynamic_dimension",
        build: || shaped(&[-1, 3], DType::Int8),
        message: "tensor 1 \"y\" of subgraph 0 has a dynamic shape [-1,3]; give its shape (for example --shape y=1x96x96x1), or serve it from a buffer cache at run time (dynamic = \"cache\")",
    },
    Case {
        name: "size_overflows_64_bits",
        build: || shaped(&[i32::MAX, i32::MAX, i32::MAX, i32::MAX], DType::Complex128),
        message: "tensor 1 \"y\" of subgraph 0 of shape [2147483647,2147483647,2147483647,2147483647] and type complex128 needs more than 4294967295 bytes",
    },
    Case {
        name: "size_overflows_32_bits",
        build: || shaped(&[65_536, 65_536], DType::Int8),
        message: "tensor 1 \"y\" of subgraph 0 of shape [65536,65536] and type int8 needs more than 4294967295 bytes",
    },
    Case {
        name: "tensor_of_2_pow_40_bytes",
        build: || shaped(&[1 << 20, 1 << 20], DType::Int8),
        message: "tensor 1 \"y\" of subgraph 0 of shape [1048576,1048576] and type int8 needs more than 4294967295 bytes",
    },
    Case {
        name: "string_tensor",
        build: crate::string_tensor,
        message: "tensor 1 \"text\" of subgraph 0 has type string, which has no fixed size and cannot be planned",
    },
    Case {
        name: "unknown_type",
        build: || {
            output(TensorSpec {
                name: "y".into(),
                type_code: 77,
                shape: Some(vec![4]),
                ..TensorSpec::default()
            })
        },
        message: "tensor 1 \"y\" of subgraph 0 has type unknown type 77, which has no fixed size and cannot be planned",
    },
    Case {
        name: "read_before_write",
        build: || {
            one_op(|b, sg, x| {
                let ghost = b.tensor(sg, "ghost", DType::Int8, &[4]);
                let y = b.tensor(sg, "y", DType::Int8, &[4]);
                b.op(sg, ops::ADD, &[x, ghost], &[y]);
                y
            })
        },
        message: "op 0 (ADD) of subgraph 0 reads tensor 1 \"ghost\" of subgraph 0, which no earlier op writes and which is not an input, constant or variable",
    },
    Case {
        name: "control_characters_in_names",
        build: || {
            one_op(|b, sg, x| {
                let ghost = b.tensor(sg, "\u{1b}[2J\u{1b}[31mghost\r", DType::Int8, &[4]);
                let y = b.tensor(sg, "y", DType::Int8, &[4]);
                b.op(sg, ops::ADD, &[x, ghost], &[y]);
                y
            })
        },
        message: "op 0 (ADD) of subgraph 0 reads tensor 1 \"\\u{1b}[2J\\u{1b}[31mghost\\r\" of subgraph 0, which no earlier op writes and which is not an input, constant or variable",
    },
    Case {
        name: "weights_after_the_flatbuffer",
        build: || weights_after_the_flatbuffer(16, 4),
        message: "op 0 (ADD) of subgraph 0 reads tensor 1 \"w\" of subgraph 0, whose data is stored after the flatbuffer (Buffer.offset 16, size 4): TFLite Micro reads constants only from Buffer.data; convert the model without external buffers",
    },
    Case {
        name: "weights_beyond_the_file",
        build: || weights_after_the_flatbuffer(1 << 40, 1 << 20),
        message: "op 0 (ADD) of subgraph 0 reads tensor 1 \"w\" of subgraph 0, whose data is stored after the flatbuffer (Buffer.offset 1099511627776, size 1048576, beyond the file's 384 bytes): TFLite Micro reads constants only from Buffer.data; convert the model without external buffers",
    },
    Case {
        name: "while_body_calls_itself",
        build: || {
            let mut b = ModelBuilder::new();
            let main = b.subgraph("main");
            let body = b.subgraph("body");
            let x = b.tensor(main, "x", DType::Int32, &[]);
            b.control_flow(main, Callees::While { cond: 1, body: 1 }, &[x], &[x]);
            b.io(main, &[x], &[x]);
            let bx = b.tensor(body, "bx", DType::Int32, &[]);
            b.control_flow(body, Callees::While { cond: 1, body: 1 }, &[bx], &[bx]);
            b.io(body, &[bx], &[bx]);
            b.finish()
        },
        message: "op 0 (WHILE) of subgraph 1 calls subgraph 1, which is already running: recursive control flow cannot be planned",
    },
    Case {
        name: "exponential_calls",
        build: || call_chain(40, true),
        message: "control flow calls subgraphs so often that the timeline grows by more than 1048576 steps beyond one walk of every subgraph",
    },
    Case {
        name: "calls_too_deep",
        build: || call_chain(70, false),
        message: "op 0 (CALL_ONCE) of subgraph 63 nests control flow deeper than 64 calls",
    },
    Case {
        name: "offline_plan_wrong_count",
        build: || chain_with_offline(&[0]),
        message: "bad OfflineMemoryAllocation metadata: it declares 1 offsets but the model has 2 tensors",
    },
    Case {
        name: "offline_plan_negative_offset",
        build: || chain_with_offline(&[0, -5]),
        message: "bad OfflineMemoryAllocation metadata: tensor id 1 has offset -5; offsets are non-negative, or -1 to plan online",
    },
    Case {
        name: "zero_point_i32_min",
        build: || {
            output(TensorSpec {
                name: "y".into(),
                type_code: DType::Int8.code(),
                shape: Some(vec![4]),
                quantization: Some((vec![0.5], vec![i64::from(i32::MIN)], 0)),
                ..TensorSpec::default()
            })
        },
        message: "tensor 1 \"y\" of subgraph 0 of type int8 has zero point -2147483648, outside int8's range -128..=127",
    },
    Case {
        name: "zero_point_out_of_range",
        build: || {
            output(TensorSpec {
                name: "y".into(),
                type_code: DType::Uint8.code(),
                shape: Some(vec![4]),
                quantization: Some((vec![0.5, 0.5], vec![0, 256], 0)),
                ..TensorSpec::default()
            })
        },
        message: "tensor 1 \"y\" of subgraph 0 of type uint8 has zero point 256, outside uint8's range 0..=255",
    },
    Case {
        name: "offline_plan_misaligned",
        build: || chain_with_offline(&[8, -1]),
        message: "bad OfflineMemoryAllocation metadata: tensor 0 \"x\" of subgraph 0 is at offset 8, not a multiple of the alignment 16",
    },
];
