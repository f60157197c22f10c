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

/// Where a tensor's bytes are, for the copies control flow makes.
#[derive(Clone, Debug)]
pub(crate) enum Bytes {
    /// A slot of the arena (`state: false`) or of the persistent region, by its constant.
    Slot {
        name: syn::Ident,
        state: bool,
        bytes: u64,
    },
    /// A constant: the aligned buffer holding it.
    Constant { buffer: syn::Ident, bytes: u64 },
    /// Nothing to copy (no elements, or a resource handle resolved at build time).
    Nothing,
}

/// What the driver knows of the module the rest of codegen made.
pub(crate) struct Module<'a> {
    /// Each op's function (by position in [`crate::tflite::Model::ops`]).
    pub fns: &'a [super::OpFn],
    /// Where each tensor's bytes are (by tensor id).
    pub bytes: &'a [Bytes],
}

/// The views and code that run one subgraph.
struct Driver<'a> {
    plan: &'a ModelPlan,
    file: &'a [u8],
    rt: &'a TokenStream,
    module: &'a Module<'a>,
    fallback: Option<&'a syn::Path>,
    /// The module whose `op_begin` and `op_end` are called around every op, if any.
    op_marks: Option<&'a syn::Path>,
    /// The model keeps state: functions take the persistent region too.
    stateful: bool,
    params: Vec<TokenStream>,
    gaps: Gaps,
}

impl Driver<'_> {
    /// `arena` or `arena, state`: the arguments of a subgraph's function.
    fn args(&self) -> TokenStream {
        if self.stateful {
            quote!(arena, state)
        } else {
            quote!(arena)
        }
    }

    fn tensor_id(&self, op: &Op, t: TensorIndex) -> TensorId {
        let base = self
            .plan
            .model
            .subgraphs
            .get(op.subgraph.get())
            .map_or(0, |s| s.first_tensor);
        TensorId(u32::try_from(base + t.get()).unwrap_or(u32::MAX))
    }

    fn subgraph_tensor(&self, sg: usize, t: TensorIndex) -> TensorId {
        let base = self
            .plan
            .model
            .subgraphs
            .get(sg)
            .map_or(0, |s| s.first_tensor);
        TensorId(u32::try_from(base + t.get()).unwrap_or(u32::MAX))
    }

    /// Copies tensor `from`'s bytes over tensor `to`'s (TFLM's `CopyOp*` and `CopySubgraph*`
    /// helpers: a `memcpy` of the bytes).
    fn copy(&self, from: TensorId, to: TensorId) -> Result<TokenStream, String> {
        let get = |t: TensorId| {
            self.module
                .bytes
                .get(t.get())
                .cloned()
                .unwrap_or(Bytes::Nothing)
        };
        let name = |t: TensorId| {
            self.plan
                .model
                .tensors
                .get(t.get())
                .map_or_else(String::new, |t| t.desc().to_string())
        };
        let (src, dst) = (get(from), get(to));
        let size = |b: &Bytes| match b {
            Bytes::Slot { bytes, .. } | Bytes::Constant { bytes, .. } => *bytes,
            Bytes::Nothing => 0,
        };
        if size(&src) != size(&dst) {
            return Err(format!(
                "control flow copies {} ({} bytes) into {} ({} bytes); TFLM needs them the same size",
                name(from),
                size(&src),
                name(to),
                size(&dst)
            ));
        }
        let region = |state: bool| if state { quote!(state) } else { quote!(arena) };
        Ok(match (src, dst) {
            (_, Bytes::Nothing) | (Bytes::Nothing, _) => quote!(),
            (_, Bytes::Constant { .. }) => {
                return Err(format!(
                    "control flow would write the constant {}",
                    name(to)
                ));
            }
            (
                Bytes::Slot {
                    name: s, state: ss, ..
                },
                Bytes::Slot {
                    name: d, state: ds, ..
                },
            ) if ss == ds => {
                let r = region(ss);
                quote!(#r.as_bytes_mut().copy_within(#s.offset()..#s.end(), #d.offset());)
            }
            (
                Bytes::Slot {
                    name: s, state: ss, ..
                },
                Bytes::Slot {
                    name: d, state: ds, ..
                },
            ) => {
                let (rs, rd) = (region(ss), region(ds));
                quote!(#rd.as_bytes_mut()[#d.offset()..#d.end()].copy_from_slice(&#rs.as_bytes()[#s.offset()..#s.end()]);)
            }
            (
                Bytes::Constant { buffer, .. },
                Bytes::Slot {
                    name: d, state: ds, ..
                },
            ) => {
                let rd = region(ds);
                quote!(#rd.as_bytes_mut()[#d.offset()..#d.end()].copy_from_slice(&#buffer.0);)
            }
        })
    }

    /// The first byte of a bool tensor, as `bool` (an IF's condition, a WHILE's cond output).
    fn condition(&self, t: TensorId) -> Result<TokenStream, String> {
        match self.module.bytes.get(t.get()) {
            Some(Bytes::Slot { name, state, bytes }) if *bytes > 0 => {
                let r = if *state { quote!(state) } else { quote!(arena) };
                Ok(quote!(#r.as_bytes()[#name.offset()] != 0))
            }
            Some(Bytes::Constant { buffer, bytes }) if *bytes > 0 => Ok(quote!(#buffer.0[0] != 0)),
            _ => Err(format!(
                "the condition {} has no bytes",
                self.plan
                    .model
                    .tensors
                    .get(t.get())
                    .map_or_else(String::new, |t| t.desc().to_string())
            )),
        }
    }

    /// The statements of subgraph `sg`.
    fn subgraph(&mut self, sg: usize) -> Vec<TokenStream> {
        let Some(subgraph) = self.plan.model.subgraphs.get(sg) else {
            return Vec::new();
        };
        let mut steps = Vec::new();
        for k in 0..subgraph.op_count {
            let position = subgraph.first_op + k;
            let Some(op) = self.plan.model.ops.get(position) else {
                continue;
            };
            let before = steps.len();
            match self.op(position, op) {
                Ok(step) => steps.push(step),
                Err((label, refusal, has_views)) => {
                    let f = op_fn_name(op);
                    let fallback_views = if self.fns_state(position) {
                        quote!(ops::#f(arena, state))
                    } else {
                        quote!(ops::#f(arena))
                    };
                    // A fallback, when given, runs every op the kernels do not: also those the
                    // model gives what TFLM's kernels would refuse (the user's code decides
                    // what they mean).
                    let overlapped = self
                        .module
                        .fns
                        .get(position)
                        .is_some_and(|f| f.overlap.is_some());
                    match (refusal, self.fallback) {
                        // Its output was planned over its input, in the order of the runtime's
                        // kernel: no other code may run it there.
                        (Refusal::Unsupported(why) | Refusal::Invalid(why), Some(_))
                            if overlapped =>
                        {
                            self.gaps.invalid.push((
                                label,
                                format!("{why}, and its output was planned over its input for the runtime's own kernel, which the fallback's code does not follow (`overlap = false` plans it apart)"),
                            ));
                        }
                        (_, Some(path)) if has_views => {
                            steps.push(quote! { #path::#f(#fallback_views); });
                        }
                        (Refusal::Unsupported(why) | Refusal::Invalid(why), Some(_)) => {
                            self.gaps.invalid.push((
                                label,
                                format!("{why}, and its tensors are not all in the arena, the persistent region or constants, so it has no views for the fallback"),
                            ));
                        }
                        (Refusal::Unsupported(why), None) => {
                            self.gaps.unsupported.push((label, why, has_views));
                        }
                        (Refusal::Invalid(why), None) => self.gaps.invalid.push((label, why)),
                    }
                }
            }
            // The user's marks around the op's step (every op, one that runs nothing too).
            if let (Some(marks), Some(step)) = (self.op_marks, steps.get_mut(before)) {
                let (sg, index) = (
                    proc_macro2::Literal::usize_unsuffixed(sg),
                    proc_macro2::Literal::u32_unsuffixed(op.index.0),
                );
                *step = quote! {
                    #marks::op_begin(#sg, #index);
                    #step
                    #marks::op_end(#sg, #index, arena.as_bytes());
                };
            }
        }
        steps
    }

    fn fns_state(&self, position: usize) -> bool {
        self.module.fns.get(position).is_some_and(|f| f.state)
    }

    /// One op's step, or why it has none (its label, the refusal, whether it has views).
    #[allow(clippy::too_many_lines)]
    fn op(&mut self, position: usize, op: &Op) -> Result<TokenStream, (String, Refusal, bool)> {
        let label = label(op);
        let fnv = self.module.fns.get(position).cloned().unwrap_or_default();
        let args = self.args();
        let fail = |r: Refusal| (label.clone(), r, fnv.exists);
        let invalid = |why: String| (label.clone(), Refusal::Invalid(why), fnv.exists);
        let callee = |i: usize| op.callees.get(i).map(|c| c.get());
        match op.opcode {
            Opcode::Builtin(BuiltinOp::VAR_HANDLE) => {
                // The handle is resolved when the crate compiles: nothing runs.
                return Ok(quote!());
            }
            Opcode::Builtin(BuiltinOp::IF) => {
                let (Some(then), Some(otherwise)) = (callee(0), callee(1)) else {
                    return Err(invalid("its IfOptions are missing".into()));
                };
                let cond = op
                    .inputs
                    .first()
                    .copied()
                    .flatten()
                    .ok_or_else(|| invalid("its condition is missing".into()))?;
                let cond = self.condition(self.tensor_id(op, cond)).map_err(invalid)?;
                let arm = |sg: usize| -> Result<TokenStream, String> {
                    let callee_inputs = self
                        .plan
                        .model
                        .subgraphs
                        .get(sg)
                        .map(|s| s.inputs.clone())
                        .unwrap_or_default();
                    let callee_outputs = self
                        .plan
                        .model
                        .subgraphs
                        .get(sg)
                        .map(|s| s.outputs.clone())
                        .unwrap_or_default();
                    let ins = op.inputs.iter().skip(1);
                    if ins.len() != callee_inputs.len() || op.outputs.len() != callee_outputs.len()
                    {
                        return Err(format!(
                            "subgraph {sg} takes {} inputs and gives {} outputs; the IF passes {} and takes {}",
                            callee_inputs.len(),
                            callee_outputs.len(),
                            op.inputs.len().saturating_sub(1),
                            op.outputs.len()
                        ));
                    }
                    let mut code = Vec::new();
                    for (i, t) in ins.zip(&callee_inputs) {
                        let Some(i) = i else { continue };
                        code.push(self.copy(self.tensor_id(op, *i), self.subgraph_tensor(sg, *t))?);
                    }
                    let f = format_ident!("subgraph_{sg}");
                    code.push(quote!(#f(#args);));
                    for (o, t) in op.outputs.iter().zip(&callee_outputs) {
                        code.push(self.copy(self.subgraph_tensor(sg, *t), self.tensor_id(op, *o))?);
                    }
                    Ok(quote!(#(#code)*))
                };
                let then_code = arm(then).map_err(invalid)?;
                let else_code = arm(otherwise).map_err(invalid)?;
                return Ok(quote! {
                    if #cond {
                        #then_code
                    } else {
                        #else_code
                    }
                });
            }
            Opcode::Builtin(BuiltinOp::WHILE) => {
                let (Some(cond_sg), Some(body_sg)) = (callee(0), callee(1)) else {
                    return Err(invalid("its WhileOptions are missing".into()));
                };
                let sg = |i: usize| self.plan.model.subgraphs.get(i).cloned();
                let (Some(c), Some(b)) = (sg(cond_sg), sg(body_sg)) else {
                    return Err(invalid("its subgraphs do not exist".into()));
                };
                let n = op.inputs.len();
                if op.outputs.len() != n
                    || c.inputs.len() != n
                    || b.inputs.len() != n
                    || b.outputs.len() != n
                {
                    return Err(invalid(format!(
                        "WHILE with {n} inputs and {} outputs, cond taking {}, body taking {} and giving {}: TFLM needs them all equal",
                        op.outputs.len(),
                        c.inputs.len(),
                        b.inputs.len(),
                        b.outputs.len()
                    )));
                }
                let copies =
                    |from: &[TensorId], to: &[TensorId]| -> Result<Vec<TokenStream>, String> {
                        from.iter()
                            .zip(to)
                            .map(|(&f, &t)| self.copy(f, t))
                            .collect()
                    };
                let op_in: Vec<TensorId> = op
                    .inputs
                    .iter()
                    .map(|i| i.map_or(TensorId(u32::MAX), |i| self.tensor_id(op, i)))
                    .collect();
                let op_out: Vec<TensorId> =
                    op.outputs.iter().map(|&o| self.tensor_id(op, o)).collect();
                let cond_in: Vec<TensorId> = c
                    .inputs
                    .iter()
                    .map(|&t| self.subgraph_tensor(cond_sg, t))
                    .collect();
                let body_in: Vec<TensorId> = b
                    .inputs
                    .iter()
                    .map(|&t| self.subgraph_tensor(body_sg, t))
                    .collect();
                let body_out: Vec<TensorId> = b
                    .outputs
                    .iter()
                    .map(|&t| self.subgraph_tensor(body_sg, t))
                    .collect();
                let cond_out = c
                    .outputs
                    .first()
                    .map(|&t| self.subgraph_tensor(cond_sg, t))
                    .ok_or_else(|| invalid(format!("its cond subgraph {cond_sg} has no output")))?;
                let start = copies(&op_in, &cond_in).map_err(&invalid)?;
                let keep = copies(&op_in, &op_out).map_err(&invalid)?;
                let to_body = copies(&op_out, &body_in).map_err(&invalid)?;
                let from_body = copies(&body_out, &op_out).map_err(&invalid)?;
                let to_cond = copies(&op_out, &cond_in).map_err(&invalid)?;
                let test = self.condition(cond_out).map_err(invalid)?;
                let (cf, bf) = (
                    format_ident!("subgraph_{cond_sg}"),
                    format_ident!("subgraph_{body_sg}"),
                );
                return Ok(quote! {
                    #(#start)*
                    #(#keep)*
                    #cf(#args);
                    while #test {
                        #(#to_body)*
                        #bf(#args);
                        #(#from_body)*
                        #(#to_cond)*
                        #cf(#args);
                    }
                });
            }
            Opcode::Builtin(BuiltinOp::CALL_ONCE) => {
                let Some(init) = callee(0) else {
                    return Err(invalid("its CallOnceOptions are missing".into()));
                };
                let k = self
                    .plan
                    .state
                    .call_once
                    .iter()
                    .position(|&p| p == position)
                    .ok_or_else(|| invalid("it has no flag in the persistent region".into()))?;
                let flag = 1 + k;
                let f = format_ident!("subgraph_{init}");
                return Ok(quote! {
                    if state.as_bytes()[STATE_FLAGS + #flag] == 0 {
                        #f(#args);
                        state.as_bytes_mut()[STATE_FLAGS + #flag] = 1;
                    }
                });
            }
            _ => {}
        }
        if self.plan.folding.is_folded(position) {
            // Evaluated when the crate compiled: its outputs are constants in flash.
            return Ok(quote!());
        }
        if let (Some(Some(i)), Some(o)) = (op.inputs.first(), op.outputs.first())
            && self
                .plan
                .aliases
                .binary_search(&(self.tensor_id(op, *i), self.tensor_id(op, *o)))
                .is_ok()
        {
            // An in-place op whose output shares its input's bytes: nothing to do.
            return Ok(quote!());
        }
        let pname = if op.subgraph.0 == 0 {
            format_ident!("OP_{}", op.index.0)
        } else {
            format_ident!("SG{}_OP_{}", op.subgraph.0, op.index.0)
        };
        let cx = Lower {
            model: &self.plan.model,
            tensors: &self.plan.tensors,
            state: &self.plan.state,
            bytes: self.file,
            op,
            rt: self.rt,
            params: &pname,
            folded: &self.plan.folding.data,
            overlap: fnv.overlap,
            // The entry and its check for the output over the input, as the kind declares.
            overwrite: ops::overwrite_of(&op.opcode),
            chosen: None,
            scratch: &fnv.scratch,
        };
        let lowered = match ops::kind(&op.opcode) {
            None => Err(Refusal::Unsupported(format!(
                "the runtime has no kernel for {}{}",
                op.opcode,
                types(&cx)
            ))),
            Some(kind) => match kind.lower {
                None => Err(Refusal::Unsupported(format!(
                    "the runtime has no kernel for {}{} yet",
                    op.opcode,
                    types(&cx)
                ))),
                Some(lower) => lower(&cx),
            },
        };
        // An op with constant inputs that was not folded says why (it may need a larger cap).
        let not_folded = self
            .plan
            .folding
            .not_folded
            .iter()
            .find(|n| n.op == op.desc())
            .map(|n| n.reason.clone());
        let lowered = match (lowered, not_folded) {
            (Err(Refusal::Unsupported(m)), Some(why)) => Err(Refusal::Unsupported(format!(
                "{m}; it was not folded when the crate compiled: {why} (`fold_cap` sets the cap)"
            ))),
            (other, _) => other,
        };
        let c = lowered.map_err(fail)?;
        if !fnv.exists {
            return Err(invalid(
                "its tensors are not all in the arena, the persistent region or constants, so it has no views"
                    .to_owned(),
            ));
        }
        let ins = (0..op.inputs.len()).map(|i| {
            if c.reads.contains(&i) && !fnv.moved.contains(&i) {
                let v = format_ident!("i{i}");
                quote!(#v)
            } else {
                quote!(_)
            }
        });
        let outs = (0..op.outputs.len())
            .map(|i| format_ident!("o{i}"))
            .chain(fnv.moved.iter().map(|i| format_ident!("m{i}")))
            .chain((0..fnv.scratch.len()).map(|k| format_ident!("s{k}")))
            .chain(fnv.kernel_state.then(|| format_ident!("p0")));
        let body = c.body;
        let doc = format!(" {}", op.desc());
        self.params
            .extend(c.params.map(|p| quote!(#[doc = #doc] #p)));
        if let Some(check) = c.check {
            // The kernel's preconditions on the lengths of the views `ops::op_N` hands it,
            // asserted when the crate compiles: the body calls the kernel's proven entry.
            let binds = fnv.lens.iter().map(|(n, e)| quote!(let #n: usize = #e;));
            let why = format!(
                "{label}: its kernel's preconditions do not hold for the views the plan gives it"
            );
            self.params.push(quote! {
                #[allow(unused_variables)]
                const _: () = {
                    #(#binds)*
                    ::core::assert!(#check.is_ok(), #why);
                };
            });
        }
        let f = op_fn_name(op);
        let views = if fnv.state {
            quote!(ops::#f(arena, state))
        } else {
            quote!(ops::#f(arena))
        };
        Ok(quote! {
            {
                let ((#(#ins,)*), (#(#outs,)*)) = #views;
                #body
            }
        })
    }
}

/// ` (int8, float32 -> int8)`: an op's input and output types, for messages.
fn types(cx: &Lower<'_>) -> String {
    let list = |ts: Vec<String>| ts.join(", ");
    let ins: Vec<String> = (0..cx.op.inputs.len())
        .filter_map(|i| cx.optional_input_type(i))
        .collect();
    let outs: Vec<String> = (0..cx.op.outputs.len())
        .filter_map(|i| cx.output(i).ok().map(|t| t.dtype.to_string()))
        .collect();
    if ins.is_empty() && outs.is_empty() {
        String::new()
    } else {
        format!(" ({} -> {})", list(ins), list(outs))
    }
}

/// `op_3`, or `sg1_op_0` for op 0 of subgraph 1.
fn op_fn_name(op: &Op) -> syn::Ident {
    if op.subgraph.0 == 0 {
        format_ident!("op_{}", op.index.0)
    } else {
        format_ident!("sg{}_op_{}", op.subgraph.0, op.index.0)
    }
}

/// The `invoke` function (with `reset` for a model with state, and one function per subgraph
/// the model calls) and the parameter constants, or one message naming every op that cannot
/// run. With `op_marks`, every op's step is between `op_marks::op_begin(subgraph, op)` and
/// `op_marks::op_end(subgraph, op, arena_bytes)`.
pub(crate) fn generate(
    plan: &ModelPlan,
    bytes: &[u8],
    rt: &TokenStream,
    module: &Module<'_>,
    fallback: Option<&syn::Path>,
    op_marks: Option<&syn::Path>,
) -> Result<TokenStream, String> {
    let stateful = !plan.state.is_empty();
    let mut d = Driver {
        plan,
        file: bytes,
        rt,
        module,
        fallback,
        op_marks,
        stateful,
        params: Vec::new(),
        gaps: Gaps::default(),
    };
    let main = d.subgraph(0);
    let mut subgraphs = Vec::new();
    for sg in 1..plan.model.subgraphs.len() {
        let steps = d.subgraph(sg);
        let f = format_ident!("subgraph_{sg}");
        let doc = format!(" Runs subgraph {sg} (called by the control flow of `invoke`).");
        let sig = if stateful {
            quote!(arena: &mut Arena, state: &mut PersistentArena)
        } else {
            quote!(arena: &mut Arena)
        };
        subgraphs.push(quote! {
            #[doc = #doc]
            #[allow(unused_variables)]
            fn #f(#sig) {
                #(#steps)*
            }
        });
    }
    if !d.gaps.is_empty() {
        return Err(d.gaps.message(fallback.is_some()));
    }
    let params = d.params;
    let entry = if stateful {
        let mut fills = Vec::new();
        for v in plan.state.variables.iter().filter(|v| !v.kept) {
            let (o, e, b) = (
                super::ulit(v.offset),
                super::ulit(v.offset + v.bytes),
                proc_macro2::Literal::u8_unsuffixed(v.reset_byte),
            );
            fills.push(quote!(state.as_bytes_mut()[#o..#e].fill(#b);));
        }
        for r in &plan.state.resources {
            let (o, e, b) = (
                super::ulit(r.offset),
                super::ulit(r.offset + r.bytes),
                proc_macro2::Literal::u8_unsuffixed(r.reset_byte),
            );
            fills.push(quote!(state.as_bytes_mut()[#o..#e].fill(#b);));
        }
        for k in &plan.state.kernels {
            let (o, e) = (super::ulit(k.offset), super::ulit(k.offset + k.bytes));
            fills.push(quote!(state.as_bytes_mut()[#o..#e].fill(0);));
        }
        let (mark, first) = if plan.state.flags.is_some() {
            (
                quote!(state.as_bytes_mut()[STATE_FLAGS] = 1;),
                if plan.state.needs_reset() {
                    quote! {
                        if state.as_bytes()[STATE_FLAGS] == 0 {
                            reset(state);
                        }
                    }
                } else {
                    quote!()
                },
            )
        } else {
            (quote!(), quote!())
        };
        let stops = plan
            .model
            .ops
            .iter()
            .any(|op| op.subgraph.0 == 0 && op.is_circular_buffer());
        let reset_fn = quote! {
            /// Puts the model's state back where TFLite Micro's `Reset` puts it: every variable
            /// tensor and resource variable to its reset value (an int8 zero point or 0), every
            /// kernel's state to 0; CALL_ONCE subgraphs that ran stay run. `invoke` resets a new region itself.
            pub fn reset(state: &mut PersistentArena) {
                #(#fills)*
                #mark
            }
        };
        if stops {
            return Ok(quote! {
                /// Kernel parameters, computed when the crate compiled (TFLite Micro's `Prepare`).
                pub mod params {
                    #(#params)*
                }
                #reset_fn
                /// Runs the model once: write the inputs into the arena, call this, read the
                /// outputs when it returns `Invoked::Complete`. The state (`PersistentArena`)
                /// carries from one call to the next, as in TFLite Micro's interpreter; a new,
                /// zeroed region is reset first. The model has a `CIRCULAR_BUFFER`: on the
                /// invocations where it has not reached its period it ends the invocation, as
                /// TFLite Micro's `kTfLiteAbort` does, and this returns `Invoked::Stopped` naming
                /// it: the ops after it did not run and their outputs hold what an earlier
                /// invocation left. Its window (its output, in the persistent region) is not
                /// cleared by `reset`, as TFLite Micro's `Reset` leaves it.
                pub fn invoke(arena: &mut Arena, state: &mut PersistentArena) -> #rt::Invoked {
                    #first
                    #(#main)*
                    #rt::Invoked::Complete
                }
                #(#subgraphs)*
            });
        }
        quote! {
            #reset_fn
            /// Runs the model once: write the inputs into the arena, call this, read the
            /// outputs. The state (`PersistentArena`) carries from one call to the next, as in
            /// TFLite Micro's interpreter; a new, zeroed region is reset first. Every op runs
            /// its kernel on its planned slots (ops without one, the fallback's `op_N` on their
            /// views); control flow runs the subgraphs it calls; nothing is planned or parsed here.
            pub fn invoke(arena: &mut Arena, state: &mut PersistentArena) {
                #first
                #(#main)*
            }
        }
    } else {
        quote! {
            /// Runs the model once: write the inputs into the arena
            /// (`arena.view_mut(inputs::INPUT_0)`), call this, read the outputs
            /// (`arena.view(outputs::OUTPUT_0)`). Every op runs its kernel on its planned slots (ops without
            /// one, the fallback's `op_N` on their views); nothing is planned or parsed here.
            pub fn invoke(arena: &mut Arena) {
                #(#main)*
            }
        }
    };
    Ok(quote! {
        /// Kernel parameters, computed when the crate compiled (TFLite Micro's `Prepare`).
        pub mod params {
            #(#params)*
        }
        #entry
        #(#subgraphs)*
    })
}
