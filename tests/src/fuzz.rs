//! The bodies of the fuzz targets in `fuzz/`, here so that plain `cargo test` replays the
//! committed regression inputs (`fuzz/regressions/<target>/`) through exactly the same code.
//! Each panics only when it finds a bug.

use stowplan_planner::codegen::{Codegen, GenerateError, ModelFile, generate};
use stowplan_planner::plan::{Buffer, Lifetime, Planner, Problem, lower_bound, run};
use stowplan_planner::tflite::builder::{ModelBuilder, TensorSpec};
use stowplan_planner::tflite::{BuiltinOp, DType, read_model};
use stowplan_planner::verify::verify;
use stowplan_planner::{OfflinePolicy, Options, plan_model};

/// Model bytes through the whole pipeline (read, validate, lifetimes, every planner, verify)
/// and, for models that plan, code generation.
pub fn model_plan(data: &[u8]) {
    for planner in Planner::ALL {
        for offline in [OfflinePolicy::Honour, OfflinePolicy::Replan] {
            let Ok(plan) = plan_model(
                data,
                &Options {
                    planner,
                    offline,
                    ..Options::default()
                },
            ) else {
                continue;
            };
            if plan.declared_aliases.is_empty() {
                assert!(
                    plan.arena_bytes() >= plan.lower_bound_bytes(),
                    "arena below the lower bound"
                );
            }
            if planner == Planner::Linear && offline == OfflinePolicy::Replan {
                assert_eq!(plan.arena_bytes(), plan.naive_bytes());
            }
            if planner == Planner::Greedy && offline == OfflinePolicy::Replan {
                let cg = Codegen {
                    module: "fuzzed".into(),
                    runtime: syn::parse_quote!(::stowplan),
                    model_path: "m.tflite".into(),
                    model_file: ModelFile::ManifestRelative("m.tflite".into()),
                    budget: None,
                    invoke: false,
                    fallback: None,
                };
                match generate(&plan, data, &cg) {
                    Ok(tokens) => {
                        syn::parse2::<syn::File>(tokens).expect("generated code parses");
                    }
                    Err(GenerateError::TooLarge { .. }) => {}
                    Err(e) => panic!("a replanned model without a budget must generate: {e}"),
                }
                // `invoke` too: kernel parameters from fuzzed shapes, options and quantisation
                // give code or an error naming the op, never a panic.
                let with_invoke = Codegen { invoke: true, ..cg };
                match generate(&plan, data, &with_invoke) {
                    Ok(tokens) => {
                        syn::parse2::<syn::File>(tokens).expect("generated invoke parses");
                    }
                    Err(GenerateError::TooLarge { .. } | GenerateError::NoKernel { .. }) => {}
                    Err(e) => panic!("a replanned model without a budget must generate: {e}"),
                }
            }
        }
    }
}

/// Reads bytes as a little stream of numbers.
struct Input<'a>(&'a [u8]);

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        let (first, rest) = self.0.split_first().map_or((0, &[][..]), |(f, r)| (*f, r));
        self.0 = rest;
        first
    }

    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A random abstract problem through every planner; each plan must verify and respect the bound.
pub fn problem_planners(data: &[u8]) {
    let mut input = Input(data);
    let align = 1u64 << (input.byte() % 7);
    let mut buffers = Vec::new();
    while !input.is_empty() && buffers.len() < 512 {
        let size = u64::from(input.u16()) * u64::from(1 + input.byte() % 4);
        let first = u32::from(input.byte());
        let last = first + u32::from(input.byte() % 32);
        let fixed = (input.byte() % 16 == 0).then(|| u64::from(input.byte()) * align);
        buffers.push(Buffer {
            size,
            lifetime: Lifetime::new(first, last),
            fixed_offset: fixed,
        });
    }
    let Ok(problem) = Problem::new(buffers, align) else {
        return;
    };
    let bound = lower_bound(&problem).aligned_bytes;
    let any_fixed = problem.buffers().iter().any(|b| b.fixed_offset.is_some());
    for planner in Planner::ALL {
        let plan = run(&problem, planner);
        let verified =
            verify(&problem, &plan, true).expect("every plan verifies (fixed overlaps allowed)");
        if verified.declared_overlaps.is_empty() {
            assert!(
                plan.arena_bytes() >= bound,
                "{planner}: {} below the bound {bound}",
                plan.arena_bytes()
            );
        }
        if !any_fixed {
            assert!(verify(&problem, &plan, false).is_ok());
        }
    }
}

const TYPES: [DType; 8] = [
    DType::Float32,
    DType::Int8,
    DType::Uint8,
    DType::Int16,
    DType::Int32,
    DType::Bool,
    DType::Float16,
    DType::Int64,
];

/// A random graph written by the model builder and read back: what was written is what is read.
pub fn builder_roundtrip(data: &[u8]) {
    let mut input = Input(data);
    let mut b = ModelBuilder::new();
    let subgraphs = 1 + usize::from(input.byte() % 3);
    let mut expected = Vec::new();
    for s in 0..subgraphs {
        let sg = b.subgraph(&format!("sg{s}"));
        let tensors = 1 + usize::from(input.byte() % 8);
        for t in 0..tensors {
            let dtype = TYPES[usize::from(input.byte()) % TYPES.len()];
            let rank = usize::from(input.byte() % 4);
            let shape: Vec<i32> = (0..rank).map(|_| i32::from(input.byte() % 16)).collect();
            let variable = input.byte() % 8 == 0;
            let name = format!("t{s}_{t}");
            b.tensor_spec(
                sg,
                TensorSpec {
                    name: name.clone(),
                    type_code: dtype.code(),
                    shape: Some(shape.clone()),
                    is_variable: variable,
                    ..TensorSpec::default()
                },
            );
            expected.push((s, name, dtype, shape, variable));
        }
        let n = i32::try_from(tensors).unwrap_or(1);
        let ops = usize::from(input.byte() % 6);
        for _ in 0..ops {
            let x = i32::from(input.byte()) % n;
            let y = i32::from(input.byte()) % n;
            let op = BuiltinOp(i32::from(input.byte() % 100));
            b.op(sg, op, &[x, -1], &[y]);
        }
        b.io(sg, &[0], &[n - 1]);
    }
    let bytes = b.finish();
    let model = read_model(&bytes).expect("what the builder writes, the reader reads");
    assert_eq!(model.subgraphs.len(), subgraphs);
    assert_eq!(model.tensors.len(), expected.len());
    for (t, (s, name, dtype, shape, variable)) in model.tensors.iter().zip(&expected) {
        assert_eq!(t.subgraph.get(), *s);
        assert_eq!(&t.name, name);
        assert_eq!(t.dtype, *dtype);
        assert_eq!(&t.shape, shape);
        assert_eq!(t.is_variable, *variable);
        assert!(!t.is_constant);
    }
    // And the pipeline never panics on it.
    model_plan(&bytes);
}
