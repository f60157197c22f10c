//! `invoke`: the generated function that runs a model's ops in order on the planned slots, with
//! the runtime's kernels (`stowplan::kernels`, feature `kernels`).
//!
//! This is only the driver: the order of the ops, their views (`ops::op_N`), reshapes that
//! share their input's bytes, the user's fallback, and one error for every op that cannot run.
//! What each op computes at build time (TFLM's `Prepare`: multipliers, shifts, paddings,
//! activation ranges) and the call of its kernel come from its module in [`crate::ops`].

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::ModelPlan;
use crate::ops::{self, Lower, Refusal};
use crate::tflite::{BuiltinOp, Op, Opcode, TensorId, TensorIndex};

/// Why some ops cannot be part of `invoke`.
#[derive(Default)]
struct Gaps {
    /// Ops the runtime has no kernel for (or not for these types or options): `(label, why,
    /// whether the op has views a fallback could take)`.
    unsupported: Vec<(String, String, bool)>,
    /// Ops that cannot run as the model has them.
    invalid: Vec<(String, String)>,
}

impl Gaps {
    fn is_empty(&self) -> bool {
        self.unsupported.is_empty() && self.invalid.is_empty()
    }

    /// One message for every gap: grouped by the op's code and the reason, the fallback hint
    /// only where a fallback can serve.
    fn message(&self, fallback_given: bool) -> String {
        let mut out = String::new();
        // Ops with the same reason on one line, in the order of their first op.
        let group = |list: &[(String, String)]| -> String {
            let mut by: Vec<(&str, Vec<&str>)> = Vec::new();
            for (label, why) in list {
                match by.iter_mut().find(|(w, _)| *w == why.as_str()) {
                    Some((_, labels)) => labels.push(label),
                    None => by.push((why, vec![label])),
                }
            }
            by.iter()
                .map(|(why, labels)| format!("\n  {}: {why}", labels.join(", ")))
                .collect()
        };
        if !self.unsupported.is_empty() {
            let n = self.unsupported.len();
            out.push_str(&format!(
                "{n} op{} no kernel:",
                if n == 1 { " has" } else { "s have" }
            ));
            let list: Vec<(String, String)> = self
                .unsupported
                .iter()
                .map(|(l, w, _)| (l.clone(), w.clone()))
                .collect();
            out.push_str(&group(&list));
        }
        if !self.invalid.is_empty() {
            let n = self.invalid.len();
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&format!(
                "{n} op{} run as the model has {}:",
                if n == 1 { " cannot" } else { "s cannot" },
                if n == 1 { "it" } else { "them" }
            ));
            out.push_str(&group(&self.invalid));
        }
        let servable: Vec<&str> = self
            .unsupported
            .iter()
            .filter(|(_, _, has_views)| *has_views)
            .map(|(l, _, _)| l.as_str())
            .collect();
        if !fallback_given && !servable.is_empty() && self.invalid.is_empty() {
            out.push_str(&format!(
                "\nto run {} with your own code, give `fallback = path::to::module`, whose `op_N` functions then run them on their views",
                if servable.len() == self.unsupported.len() {
                    "them".to_owned()
                } else {
                    servable.join(", ")
                }
            ));
        }
        out
    }
}

/// `op 3 (CONV_2D)`, with the subgraph where it is not 0.
fn label(op: &Op) -> String {
    if op.subgraph.0 == 0 {
        format!("op {} ({})", op.index, op.opcode)
    } else {
        op.desc().to_string()
    }
}

/// The `invoke` function and its parameter constants, or one message naming every op that
/// cannot run.
///
/// `has_op_fn(position)` says whether `ops::op_N` exists for the op at that position.
pub(crate) fn generate(
    plan: &ModelPlan,
    bytes: &[u8],
    rt: &TokenStream,
    has_op_fn: &dyn Fn(usize) -> bool,
    fallback: Option<&syn::Path>,
) -> Result<TokenStream, String> {
    let mut params = Vec::new();
    let mut steps = Vec::new();
    let mut gaps = Gaps::default();
    for (position, op) in plan.model.ops.iter().enumerate() {
        let label = label(op);
        let has_views = has_op_fn(position);
        let f = format_ident!("op_{}", op.index.0);
        if op.subgraph.0 != 0 {
            // Run by the control-flow op that calls its subgraph (that op is the gap, if any).
            continue;
        }
        let refusal =
            if let Opcode::Builtin(BuiltinOp::IF | BuiltinOp::WHILE | BuiltinOp::CALL_ONCE) =
                op.opcode
            {
                Refusal::Unsupported(
                    "control flow (the op with the subgraphs it runs) has no kernel".to_owned(),
                )
            } else {
                let base = plan
                    .model
                    .subgraphs
                    .get(op.subgraph.get())
                    .map_or(0, |s| s.first_tensor);
                let id =
                    |t: TensorIndex| TensorId(u32::try_from(base + t.get()).unwrap_or(u32::MAX));
                if let (Some(Some(i)), Some(o)) = (op.inputs.first(), op.outputs.first())
                    && plan.aliases.contains(&(id(*i), id(*o)))
                {
                    // An in-place op whose output shares its input's bytes: nothing to do.
                    continue;
                }
                let pname = format_ident!("OP_{}", op.index.0);
                let cx = Lower {
                    model: &plan.model,
                    tensors: &plan.tensors,
                    bytes,
                    op,
                    rt,
                    params: &pname,
                };
                let lowered = match ops::kind(&op.opcode) {
                    None => Err(Refusal::Unsupported(format!(
                        "the runtime has no kernel for {}",
                        op.opcode
                    ))),
                    Some(kind) => match kind.lower {
                        None => Err(Refusal::Unsupported(format!(
                            "the runtime has no kernel for {} yet",
                            op.opcode
                        ))),
                        Some(lower) => lower(&cx),
                    },
                };
                match lowered {
                    Ok(c) if has_views => {
                        let ins = (0..op.inputs.len()).map(|i| {
                            if c.reads.contains(&i) {
                                let v = format_ident!("i{i}");
                                quote!(#v)
                            } else {
                                quote!(_)
                            }
                        });
                        let outs = (0..op.outputs.len()).map(|i| format_ident!("o{i}"));
                        let body = c.body;
                        let doc = format!(" {}", op.desc());
                        params.extend(c.params.map(|p| quote!(#[doc = #doc] #p)));
                        steps.push(quote! {
                            {
                                let ((#(#ins,)*), (#(#outs,)*)) = ops::#f(arena);
                                #body
                            }
                        });
                        continue;
                    }
                    Ok(_) => {
                        gaps.invalid.push((
                            label,
                            "its tensors are not all in the arena or constants, so it has no views"
                                .to_owned(),
                        ));
                        continue;
                    }
                    Err(r) => r,
                }
            };
        // A fallback, when given, runs every op the kernels do not: also those the model gives
        // what TFLM's kernels would refuse (the user's code decides what they mean).
        match (refusal, fallback) {
            (_, Some(path)) if has_views => steps.push(quote! { #path::#f(ops::#f(arena)); }),
            (Refusal::Unsupported(why) | Refusal::Invalid(why), Some(_)) => gaps.invalid.push((
                label,
                format!("{why}, and its tensors are not all in the arena or constants, so it has no views for the fallback"),
            )),
            (Refusal::Unsupported(why), None) => gaps.unsupported.push((label, why, has_views)),
            (Refusal::Invalid(why), None) => gaps.invalid.push((label, why)),
        }
    }
    if !gaps.is_empty() {
        return Err(gaps.message(fallback.is_some()));
    }
    Ok(quote! {
        /// Kernel parameters, computed when the crate compiled (TFLite Micro's `Prepare`).
        pub mod params {
            #(#params)*
        }
        /// Runs the model once: write the inputs into the arena (`arena.view_mut(INPUT)`), call
        /// this, read the outputs. Every op runs its kernel on its planned slots (ops without
        /// one, the fallback's `op_N` on their views); nothing is planned or parsed here.
        pub fn invoke(arena: &mut Arena) {
            #(#steps)*
        }
    })
}
