//! Code generation: the Rust module for a planned model, as tokens.
//!
//! `stowplan-macros` (`include_model!`) and `stowplan-build` (`build.rs`) both call
//! [`generate`] (the macro through [`request::expand`]), so the macro's expansion and the
//! reviewed file are the same tokens. The module holds:
//!
//! - `ARENA_BYTES`, `LOWER_BOUND_BYTES`, `NAIVE_BYTES`, `ALIGN`, `PERSISTENT_BYTES`, `PLANNER`,
//!   `MODEL_PATH`, `MODEL_SHA256`;
//! - marker types `Activations` and `Persistent`, and `Arena` / `StaticArena` /
//!   `PersistentArena`, the runtime's arena types of exactly the planned sizes, their address
//!   aligned to the plan's alignment when it is above 16 (up to [`MAX_ALIGN`]);
//! - one typed `Slot` constant per tensor in the arena or the persistent region, named by the
//!   rule in [`names`], documented with the tensor's name, type, shape, lifetime, offset and
//!   size, and followed by an assertion that it lies inside its region;
//! - each constant tensor as a typed `&'static` slice of its buffer, a 16-byte aligned copy made
//!   when the constant is evaluated from the model file included with `include_bytes!`: weights
//!   never become tokens, and only the buffers reach the binary, not the whole file;
//! - `INPUTS`, `OUTPUTS`, `TENSORS` and `OPS`: the model's inputs, outputs, tensors and ops in
//!   execution order, as tables;
//! - `pub mod inputs` and `pub mod outputs`: the model's inputs and outputs by position
//!   (`inputs::INPUT_0`, `outputs::OUTPUT_0`, ...), the same slots as the constants named after
//!   the tensors, so code does not depend on the names the converter gave;
//! - a compile-time proof that slots live at the same time are disjoint, and the budget check;
//! - `pub mod ops`: one function per op whose tensors are all in the arena, constants or
//!   omitted, returning the views of its inputs (shared) and outputs (mutable) at once, each with
//!   a compile-time proof that its outputs overlap neither each other nor its inputs;
//! - module docs with the figures and an ASCII chart of the layout.
//!
//! Paths are fully qualified (`::core::...`, the runtime through its `__private_v1` module or
//! the crate path given), so the module compiles under `#![no_implicit_prelude]` and with the
//! runtime crate renamed.

pub mod chart;
pub mod group;
mod invoke;
pub mod names;
pub mod request;
pub mod size;

use std::fmt;
use std::fmt::Write as _;

use proc_macro2::{Literal, Span, TokenStream};
use quote::{format_ident, quote};
use sha2::{Digest, Sha256};

use crate::emit::{shape as shape_str, thousands};
use crate::graph::{Placement, TensorKind};
use crate::tflite::DType;
use crate::{ModelPlan, lifetime::TensorLifetime};

/// How generated code tracks the model file (so editing it recompiles the crate).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelFile {
    /// A path relative to the including crate's `Cargo.toml`: tracked as
    /// `include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/", path))`, the same on every machine.
    ManifestRelative(String),
    /// An absolute path (only when a test overrides the manifest directory).
    Absolute(String),
}

/// What to generate.
#[derive(Clone, Debug)]
pub struct Codegen {
    /// Name of the generated module.
    pub module: String,
    /// Path of the runtime crate, `::stowplan` unless renamed.
    pub runtime: syn::Path,
    /// The model path as the user wrote it (relative to `Cargo.toml`), for docs.
    pub model_path: String,
    /// How to track the model file.
    pub model_file: ModelFile,
    /// The arena budget in bytes, if any.
    pub budget: Option<u64>,
    /// Whether to generate `invoke` (the ops run by the runtime's kernels, feature `kernels`).
    pub invoke: bool,
    /// For `invoke`: a module whose `op_N` functions run the ops without a kernel, each given
    /// the views `ops::op_N` returns.
    pub fallback: Option<syn::Path>,
    /// For `invoke`: a module whose functions `op_begin(subgraph, op)` and `op_end(subgraph,
    /// op, arena)` the generated code calls just before and just after every op (marks for a
    /// profiler or an instruction counter; `subgraph` and `op` are integer literals, the op's
    /// subgraph and its index there, `arena` the arena's bytes as the op left them, `&[u8; N]`). `None`, the default, calls nothing: the code is as without it.
    pub op_marks: Option<syn::Path>,
}

/// The largest alignment generated arena types can give their address: the runtime's
/// `SupportedAlign` goes up to 4,096 (a page).
pub const MAX_ALIGN: u64 = 4096;

/// The message for an alignment above [`MAX_ALIGN`].
#[must_use]
pub fn align_too_large(align: u64) -> String {
    format!(
        "align = {align} is more than the runtime's arena types can align their address to ({MAX_ALIGN}); use align = {MAX_ALIGN} or less, or plan with the `stowplan` command, which has no such limit"
    )
}

/// The message for `op_marks` without `invoke`.
#[must_use]
pub fn op_marks_without_invoke(marks: &syn::Path) -> String {
    let path = quote!(#marks).to_string().replace(' ', "");
    format!(
        "op_marks = {path} needs invoke = true: the marks are calls between the ops of the generated `invoke`"
    )
}

/// Why generation failed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum GenerateError {
    /// The arena is larger than the budget.
    OverBudget {
        /// The full message: bytes, the peak and its tensors, the lower bound, a hint.
        message: String,
    },
    /// The model's offline plan aliases tensors live at the same time; safe views must not alias.
    OfflineAliases {
        /// The full message.
        message: String,
    },
    /// An arena or region does not fit the sizes generated code can express.
    TooLarge {
        /// The full message.
        message: String,
    },
    /// `invoke` was asked for, but an op has no kernel.
    NoKernel {
        /// The full message, naming the op and why.
        message: String,
    },
    /// The alignment is above what the runtime's arena types can give ([`MAX_ALIGN`]).
    Alignment {
        /// The full message.
        message: String,
    },
    /// A group of models that cannot share an arena as given (see [`group`]).
    Group {
        /// The full message.
        message: String,
    },
    /// Marks between ops ([`Codegen::op_marks`]) without `invoke`, which is where they go.
    OpMarks {
        /// The full message.
        message: String,
    },
}

impl fmt::Display for GenerateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::OverBudget { message }
            | Self::OfflineAliases { message }
            | Self::TooLarge { message }
            | Self::NoKernel { message }
            | Self::Alignment { message }
            | Self::Group { message }
            | Self::OpMarks { message } => f.write_str(message),
        }
    }
}

impl std::error::Error for GenerateError {}

/// `n` as a literal with `_` every three digits (`2_048`).
fn lit(n: u64) -> syn::LitInt {
    syn::LitInt::new(&underscored(n), Span::call_site())
}

/// `n` as a `usize` expression that compiles on every target: a plain literal up to 65,535 (it
/// fits a 16-bit `usize`), else `n_u64 as usize`, with the module's target-width assertion
/// turning a value the target cannot address into a compile error that states the numbers.
fn ulit(n: u64) -> TokenStream {
    if n <= 0xffff {
        let l = lit(n);
        quote!(#l)
    } else {
        let l = syn::LitInt::new(&format!("{}_u64", underscored(n)), Span::call_site());
        quote!(#l as usize)
    }
}

fn underscored(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('_');
        }
        out.push(c);
    }
    out
}

/// The element type generated code uses for a tensor type (sub-byte and 8-bit float types
/// unpacked to one byte, 16-bit floats as raw `u16`, complex numbers as pairs of floats).
fn element(dtype: DType) -> (TokenStream, u64) {
    match dtype {
        DType::Float32 | DType::Complex64 => (quote!(f32), 4),
        DType::Float64 | DType::Complex128 => (quote!(f64), 8),
        DType::Int8 => (quote!(i8), 1),
        DType::Int16 => (quote!(i16), 2),
        DType::Int32 => (quote!(i32), 4),
        DType::Int64 => (quote!(i64), 8),
        DType::Uint16 | DType::Float16 | DType::Bfloat16 => (quote!(u16), 2),
        DType::Uint32 | DType::Resource => (quote!(u32), 4),
        DType::Uint64 => (quote!(u64), 8),
        _ => (quote!(u8), 1),
    }
}

fn lifetime_str(l: TensorLifetime) -> String {
    let s = |v: Option<u32>| v.map_or_else(|| "-1".to_owned(), |v| v.to_string());
    format!("{}..={}", s(l.first), s(l.last))
}

/// The sha256 of `bytes` in hex.
#[must_use]
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .fold(String::with_capacity(64), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// The message for a model over budget: the arena, plus its state where it has some (the budget
/// covers everything the model needs in RAM).
#[must_use]
pub fn over_budget_message(plan: &ModelPlan, budget: u64) -> String {
    let arena = plan.arena_bytes();
    let state = plan.persistent_bytes;
    let ram = arena.saturating_add(state);
    let lb = plan.lower_bound_bytes();
    let mut live: Vec<(u64, String)> = plan
        .peak_tensors()
        .iter()
        .filter_map(|id| {
            Some((
                plan.tensors.get(id.get())?.bytes?,
                plan.model.tensors.get(id.get())?.name.clone(),
            ))
        })
        .collect();
    live.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut parts: Vec<String> = live
        .iter()
        .take(4)
        .map(|(b, n)| format!("{n} {}", thousands(*b)))
        .collect();
    if live.len() > 4 {
        parts.push(format!("{} more", live.len() - 4));
    }
    let peak = plan.peak_scope().map_or_else(String::new, |scope| {
        format!(
            "; peak at {} with {}",
            plan.describe_scope(scope),
            parts.join(" + ")
        )
    });
    let hint = if lb.saturating_add(state) <= budget {
        "; the lower bound fits the budget, so a better plan may exist: try `planner = \"search\"`"
            .to_owned()
    } else {
        "; no plan can fit: shrink the tensors live at the peak (smaller shapes or overrides) or raise the budget"
            .to_owned()
    };
    if state > 0 {
        return format!(
            "the model needs {} bytes of RAM (arena {} + state {}) but the budget is {} (over by {}){peak}; the arena's lower bound is {}{hint}",
            thousands(ram),
            thousands(arena),
            thousands(state),
            thousands(budget),
            thousands(ram.saturating_sub(budget)),
            thousands(lb)
        );
    }
    format!(
        "arena needs {} bytes but the budget is {} (over by {}){peak}; the lower bound is {}{hint}",
        thousands(arena),
        thousands(budget),
        thousands(arena.saturating_sub(budget)),
        thousands(lb)
    )
}

/// The module docs: figures and the chart.
fn module_docs(plan: &ModelPlan, cg: &Codegen, sha: &str) -> Vec<String> {
    let mut d = Vec::new();
    d.push(format!(
        " Memory plan for `{}` (sha256 {sha}), made by stowplan {}.",
        cg.model_path,
        env!("CARGO_PKG_VERSION")
    ));
    d.push(String::new());
    d.push(" | figure | bytes |".to_owned());
    d.push(" |---|--:|".to_owned());
    d.push(format!(
        " | arena ({} tensors) | {} |",
        plan.buffer_tensors.len(),
        thousands(plan.arena_bytes())
    ));
    d.push(format!(
        " | lower bound | {} (gap {:.2} %) |",
        thousands(plan.lower_bound_bytes()),
        plan.gap_percent()
    ));
    if !plan.problem.overlaps().is_empty() {
        d.push(format!(
            " | tensor-level bound (every tensor in bytes of its own; {} of {} outputs over the input they consume) | {} |",
            plan.overlapped().len(),
            plan.problem.overlaps().len(),
            thousands(plan.tensor_bound_bytes())
        ));
    }
    d.push(format!(
        " | naive (no reuse) | {} (saving {}) |",
        thousands(plan.naive_bytes()),
        thousands(plan.naive_bytes().saturating_sub(plan.arena_bytes()))
    ));
    let st = &plan.state;
    let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    d.push(format!(
        " | state (persistent: {}, {}{}) | {} |",
        plural(st.variables.len(), "variable tensor"),
        plural(st.resources.len(), "resource variable"),
        if st.flags.is_some() { ", flags" } else { "" },
        thousands(plan.persistent_bytes)
    ));
    d.push(format!(
        " | RAM (arena + state) | {} |",
        thousands(plan.arena_bytes().saturating_add(plan.persistent_bytes))
    ));
    if let Some(budget) = cg.budget {
        d.push(format!(" | budget | {} |", thousands(budget)));
    }
    let f = &plan.folding;
    if !f.folded.is_empty() {
        d.push(format!(
            " | flash made by folding ({} op{}; {} of the model's constants no longer read) | {} |",
            f.folded.len(),
            if f.folded.len() == 1 { "" } else { "s" },
            thousands(f.freed_bytes()),
            thousands(f.flash_bytes())
        ));
    }
    d.push(String::new());
    for o in &f.folded {
        d.push(format!(
            " Folded when the crate compiled: {}, {} bytes of constants in flash; it takes no arena and no time in `invoke`.",
            o.op,
            thousands(o.bytes)
        ));
    }
    for o in &f.not_folded {
        d.push(format!(" Not folded: {}: {}.", o.op, o.reason));
    }
    if !f.is_empty() {
        d.push(String::new());
    }
    let p = &plan.plan;
    let proof = if p.proven_optimal() {
        "proven optimal".to_owned()
    } else {
        format!(
            "not proven optimal: no plan is below {} bytes",
            thousands(p.best_bound().max(plan.lower_bound_bytes()))
        )
    };
    d.push(format!(
        " Planner: {} (plan by {}), {proof}; alignment {}.",
        p.planner(),
        p.winner(),
        plan.problem.alignment()
    ));
    d.push(String::new());
    d.push(if plan.overlapped().is_empty() {
        " Layout (time down, arena address across; `.` is free):".to_owned()
    } else {
        " Layout (time down, arena address across; `.` is free, `!` an output over the input it consumes):"
            .to_owned()
    });
    d.push(String::new());
    d.push(" ```text".to_owned());
    for line in chart::chart(plan).lines() {
        d.push(format!(" {line}"));
    }
    d.push(" ```".to_owned());
    d
}

/// Generates the module for `plan` of the model `bytes`.
///
/// # Errors
///
/// [`GenerateError`] if the arena exceeds the budget, an offline plan aliases tensors that are
/// live at the same time, a region is larger than 2^48 bytes, or `op_marks` is given without
/// `invoke`.
pub fn generate(
    plan: &ModelPlan,
    bytes: &[u8],
    cg: &Codegen,
) -> Result<TokenStream, GenerateError> {
    if let (Some(marks), false) = (&cg.op_marks, cg.invoke) {
        return Err(GenerateError::OpMarks {
            message: op_marks_without_invoke(marks),
        });
    }
    if let Some(budget) = cg.budget
        && plan.arena_bytes().saturating_add(plan.persistent_bytes) > budget
    {
        return Err(GenerateError::OverBudget {
            message: over_budget_message(plan, budget),
        });
    }
    if plan.problem.alignment() > MAX_ALIGN {
        return Err(GenerateError::Alignment {
            message: align_too_large(plan.problem.alignment()),
        });
    }
    if let Some(a) = plan.declared_aliases.first() {
        let name = |id: crate::tflite::TensorId| {
            plan.model
                .tensors
                .get(id.get())
                .map_or_else(String::new, |t| t.desc().to_string())
        };
        return Err(GenerateError::OfflineAliases {
            message: format!(
                "the model's offline plan (OfflineMemoryAllocation) puts {} and {} in the same bytes while both are live at {} ({} such pairs); safe Rust views must never alias, so use `offline = \"replan\"` to plan the model again",
                name(a.a),
                name(a.b),
                plan.describe_scope(a.scope),
                plan.declared_aliases.len()
            ),
        });
    }

    let rt = &cg.runtime;
    let p = quote!(#rt::__private_v1);
    let module = format_ident!("{}", cg.module);
    let sha = sha256_hex(bytes);
    let names = names::tensor_consts(&plan.model);
    let model = &plan.model;

    // The persistent region, as the state layer planned it.
    let align = plan.problem.alignment();
    let mut persistent_offsets = vec![None; model.tensors.len()];
    for v in &plan.state.variables {
        if let Some(slot) = persistent_offsets.get_mut(v.tensor.get()) {
            *slot = Some(v.offset);
        }
    }
    let persistent_end = plan.state.bytes;

    // The model file's length, named once: array lengths and const generic arguments use it.
    let file_len = quote!(MODEL_FILE_BYTES);
    let file_len_value = if bytes.len() > 0xffff {
        let l = syn::LitInt::new(
            &format!("{}_u64", underscored(bytes.len() as u64)),
            Span::call_site(),
        );
        quote!(#l as usize)
    } else {
        let l = lit(bytes.len() as u64);
        quote!(#l)
    };
    let file_len_arg = quote!(MODEL_FILE_BYTES);
    let mut items = Vec::new();
    let mut dynamic_items = Vec::new();
    let mut tensor_table = Vec::new();
    let mut constant_buffers: std::collections::BTreeMap<usize, syn::Ident> =
        std::collections::BTreeMap::new();
    let mut multibyte_constants = false;
    // How an op function reaches each tensor (by tensor id).
    let mut access = vec![Access::Other; model.tensors.len()];
    for (tensor, info) in model.tensors.iter().zip(&plan.tensors) {
        let id = tensor.id.get();
        let name = format_ident!("{}", names.get(id).map_or("TENSOR", String::as_str));
        let (elem, elem_size) = element(tensor.dtype);
        let life = plan.lifetimes.tensors.get(id).copied().unwrap_or_default();
        let bytes_n = info.bytes.unwrap_or(0);
        let shape_lits = info.shape.iter().map(|d| Literal::i32_unsuffixed(*d));
        let dtype_name = tensor.dtype.name();
        let tname = &tensor.name;
        let region = match (
            info.placement,
            plan.offset(tensor.id),
            persistent_offsets.get(id).copied().flatten(),
        ) {
            (Placement::Arena, Some(offset), _) => {
                Some((quote!(Activations), quote!(ARENA_BYTES), offset, "arena"))
            }
            (Placement::Persistent, _, Some(offset)) => Some((
                quote!(Persistent),
                quote!(PERSISTENT_BYTES),
                offset,
                "persistent region",
            )),
            _ => None,
        };
        let location = if let Some((marker, limit, offset, where_)) = region {
            let len = bytes_n / elem_size;
            let subgraph = if tensor.subgraph.0 == 0 {
                String::new()
            } else {
                format!(" of subgraph {}", tensor.subgraph)
            };
            let region_note = if where_ == "arena" {
                String::new()
            } else {
                format!(" in the {where_}")
            };
            let doc = format!(
                " `{tname}` `{dtype_name}{}`, {}{subgraph}, lifetime {}, offset {}, {} bytes{region_note}",
                shape_str(&info.shape),
                info.kind.name(),
                lifetime_str(life),
                thousands(offset),
                thousands(bytes_n),
            );
            let (offset_lit, len_lit) = (ulit(offset), ulit(len));
            let check = format!(
                "slot {} lies outside the {where_}",
                names.get(id).map_or("", String::as_str)
            );
            items.push(quote! {
                #[doc = #doc]
                pub const #name: #rt::Slot<#marker, #elem> = #rt::Slot::new(#offset_lit, #len_lit);
                const _: () = ::core::assert!(#name.end() <= #limit, #check);
            });
            if let Some(a) = access.get_mut(id) {
                *a = Access::Slot {
                    name: name.clone(),
                    elem: elem.clone(),
                    span: (offset, offset + len * elem_size),
                    state: where_ != "arena",
                };
            }
            if where_ == "arena" {
                quote!(#p::Location::Arena { offset: #offset_lit, bytes: #name.bytes() })
            } else {
                quote!(#p::Location::Persistent { offset: #offset_lit, bytes: #name.bytes() })
            }
        } else if let Some(data) = plan.folding.data.get(&tensor.id) {
            // Folded when the crate compiled: the computed bytes, in flash.
            let n = lit(data.len() as u64);
            let buffer = format_ident!("FOLDED_{}", id);
            let literal = Literal::byte_string(data);
            items.push(quote! {
                const #buffer: &#p::Aligned<[u8; #n]> = &#p::Aligned(*#literal);
            });
            if !data.is_empty() {
                multibyte_constants |= elem_size > 1;
                let doc = format!(
                    " Constant `{tname}` `{dtype_name}{}`: folded when the crate compiled, {} bytes",
                    shape_str(&info.shape),
                    thousands(data.len() as u64)
                );
                items.push(quote! {
                    #[doc = #doc]
                    pub const #name: &[#elem] = #p::typed::<#elem, #n>(#buffer);
                });
                if let Some(a) = access.get_mut(id) {
                    *a = Access::Constant {
                        name: name.clone(),
                        elem: elem.clone(),
                        buffer: buffer.clone(),
                        bytes: data.len() as u64,
                    };
                }
            }
            quote!(#p::Location::Constant(&#buffer.0))
        } else if info.kind == TensorKind::Constant {
            let range = model
                .buffers
                .get(tensor.buffer.get())
                .and_then(|b| b.data.clone())
                .filter(|r| bytes.get(r.clone()).is_some())
                .unwrap_or(0..0);
            let n = lit(range.len() as u64);
            let buffer = constant_buffers
                .entry(tensor.buffer.get())
                .or_insert_with(|| {
                    // Copied out of the included file when the constant is evaluated: only the
                    // buffers reach the binary, and no weight becomes a token.
                    let ident = format_ident!("BUFFER_{}", tensor.buffer.get());
                    let start = ulit(range.start as u64);
                    items.push(quote! {
                        const #ident: &#p::Aligned<[u8; #n]> =
                            &#p::copy_at::<#n, #file_len_arg>(MODEL_FILE, #start);
                    });
                    ident
                })
                .clone();
            let whole = (range.len() as u64).is_multiple_of(elem_size);
            if whole && !range.is_empty() {
                multibyte_constants |= elem_size > 1;
                let doc = format!(
                    " Constant `{tname}` `{dtype_name}{}`: buffer {}, {} bytes",
                    shape_str(&info.shape),
                    tensor.buffer,
                    thousands(range.len() as u64)
                );
                items.push(quote! {
                    #[doc = #doc]
                    pub const #name: &[#elem] = #p::typed::<#elem, #n>(#buffer);
                });
                if let Some(a) = access.get_mut(id) {
                    *a = Access::Constant {
                        name: name.clone(),
                        elem: elem.clone(),
                        buffer: buffer.clone(),
                        bytes: range.len() as u64,
                    };
                }
            }
            quote!(#p::Location::Constant(&#buffer.0))
        } else {
            if info.placement == Placement::Dynamic {
                let dims = info.shape.iter().map(|&d| match usize::try_from(d) {
                    Ok(d) => quote!(::core::option::Option::Some(#d)),
                    Err(_) => quote!(::core::option::Option::None),
                });
                let doc = format!(
                    " `{tname}` `{dtype_name}{}`, {}{}: sized at run time, its buffer comes from a buffer cache (`{}.alloc(&cache, &[..])`)",
                    shape_str(&info.shape),
                    info.kind.name(),
                    if tensor.subgraph.0 == 0 {
                        String::new()
                    } else {
                        format!(" of subgraph {}", tensor.subgraph)
                    },
                    names.get(id).map_or("", String::as_str),
                );
                let elem_lit = ulit(elem_size);
                dynamic_items.push(quote! {
                    #[doc = #doc]
                    pub const #name: #p::DynamicTensor = #p::DynamicTensor {
                        name: #tname, dtype: #dtype_name, element_bytes: #elem_lit, shape: &[#(#dims),*],
                    };
                });
            }
            if info.bytes == Some(0)
                && info.placement == Placement::None
                && let Some(a) = access.get_mut(id)
            {
                // No element at all (a RESHAPE's empty shape, say): its view is empty.
                *a = Access::Empty { elem: elem.clone() };
            }
            quote!(#p::Location::None)
        };
        tensor_table.push(quote! {
            #p::TensorInfo { name: #tname, dtype: #dtype_name, shape: &[#(#shape_lits),*], location: #location }
        });
    }

    // Resource variables: a slot each in the persistent region; every handle to one is viewed
    // as its slot.
    let shared: Vec<&str> = plan
        .state
        .resources
        .iter()
        .map(|r| r.shared_name.as_str())
        .collect();
    let resource_names = names::resource_consts(&shared, &names);
    for (r, rname) in plan.state.resources.iter().zip(&resource_names) {
        if r.bytes == 0 {
            continue;
        }
        let (elem, elem_size) = element(r.dtype);
        let ident = format_ident!("{}", rname);
        let (offset_lit, len_lit) = (ulit(r.offset), ulit(r.bytes / elem_size));
        let doc = format!(
            " Resource variable `{}`{} `{}`, offset {}, {} bytes in the persistent region",
            r.shared_name,
            if r.container.is_empty() {
                String::new()
            } else {
                format!(" (container `{}`)", r.container)
            },
            r.dtype.name(),
            thousands(r.offset),
            thousands(r.bytes)
        );
        let check = format!("slot {rname} lies outside the persistent region");
        items.push(quote! {
            #[doc = #doc]
            pub const #ident: #rt::Slot<Persistent, #elem> = #rt::Slot::new(#offset_lit, #len_lit);
            const _: () = ::core::assert!(#ident.end() <= PERSISTENT_BYTES, #check);
        });
        for tensor in &model.tensors {
            if plan.state.variable_of(tensor.id) == Some(r)
                && let Some(a) = access.get_mut(tensor.id.get())
            {
                *a = Access::Slot {
                    name: ident.clone(),
                    elem: elem.clone(),
                    span: (r.offset, r.offset + r.bytes),
                    state: true,
                };
            }
        }
    }
    // Kernel scratch: a slot each, live for its op only.
    let mut scratch_slots: Vec<Vec<(syn::Ident, (u64, u64))>> = vec![Vec::new(); model.ops.len()];
    let mut taken = names.clone();
    taken.extend(resource_names.iter().cloned());
    let scratch_names = names::unique(
        plan.scratch
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let op = model.ops.get(s.op);
                let k = plan.scratch.iter().take(i).filter(|o| o.op == s.op).count();
                match op {
                    Some(op) if op.subgraph.0 != 0 => {
                        format!("SCRATCH_SG{}_OP_{}_{k}", op.subgraph, op.index)
                    }
                    Some(op) => format!("SCRATCH_OP_{}_{k}", op.index),
                    None => format!("SCRATCH_{i}"),
                }
            })
            .collect(),
        &taken,
    );
    for (i, (s, sname)) in plan.scratch.iter().zip(&scratch_names).enumerate() {
        let Some(&offset) = plan.plan.offsets().get(plan.buffer_tensors.len() + i) else {
            continue;
        };
        let ident = format_ident!("{}", sname);
        let (o, n) = (ulit(offset), ulit(s.bytes / 4));
        let doc = format!(
            " Scratch of {} (its kernel's working memory while it runs), offset {}, {} bytes",
            model
                .ops
                .get(s.op)
                .map_or_else(String::new, |op| op.desc().to_string()),
            thousands(offset),
            thousands(s.bytes)
        );
        let check = format!("slot {sname} lies outside the arena");
        items.push(quote! {
            #[doc = #doc]
            pub const #ident: #rt::Slot<Activations, u32> = #rt::Slot::new(#o, #n);
            const _: () = ::core::assert!(#ident.end() <= ARENA_BYTES, #check);
        });
        if let Some(list) = scratch_slots.get_mut(s.op) {
            list.push((ident, (offset, offset + s.bytes)));
        }
    }
    // Kernel state: a slot each in the persistent region, handed to its op's kernel.
    let mut kernel_slots: Vec<Option<(syn::Ident, (u64, u64))>> = vec![None; model.ops.len()];
    for k in &plan.state.kernels {
        let Some(op) = model.ops.get(k.op) else {
            continue;
        };
        let sname = if op.subgraph.0 == 0 {
            format!("STATE_OP_{}", op.index)
        } else {
            format!("STATE_SG{}_OP_{}", op.subgraph, op.index)
        };
        let ident = format_ident!("{}", sname);
        let (o, n) = (ulit(k.offset), ulit(k.bytes / 4));
        let doc = format!(
            " Kernel state of {} (kept across invocations), offset {}, {} bytes in the persistent region",
            op.desc(),
            thousands(k.offset),
            thousands(k.bytes)
        );
        let check = format!("slot {sname} lies outside the persistent region");
        items.push(quote! {
            #[doc = #doc]
            pub const #ident: #rt::Slot<Persistent, u32> = #rt::Slot::new(#o, #n);
            const _: () = ::core::assert!(#ident.end() <= PERSISTENT_BYTES, #check);
        });
        if let Some(slot) = kernel_slots.get_mut(k.op) {
            *slot = Some((ident, (k.offset, k.offset + k.bytes)));
        }
    }
    // Outputs over the inputs they consume: one slot covering both, handed to the op's
    // overlapped kernel.
    let mut over_slots: Vec<Option<OverSlot>> = vec![None; model.ops.len()];
    let overlapped = plan.overlapped();
    let over_ops: Vec<(usize, crate::TensorId, crate::TensorId)> = model
        .ops
        .iter()
        .enumerate()
        .filter_map(|(position, op)| {
            // The input the op's kernels write over, as its kind declares.
            let declared = crate::ops::overwrite_of(&op.opcode)?;
            let input = op.inputs.get(declared.input).copied().flatten()?;
            let i = model.tensor(op.subgraph, input)?.id;
            let o = model.tensor(op.subgraph, *op.outputs.first()?)?.id;
            overlapped.contains(&(i, o)).then_some((position, i, o))
        })
        .collect();
    let over_names = names::unique(
        over_ops
            .iter()
            .filter_map(|&(position, _, _)| {
                let op = model.ops.get(position)?;
                Some(if op.subgraph.0 == 0 {
                    format!("OVERLAP_OP_{}", op.index)
                } else {
                    format!("OVERLAP_SG{}_OP_{}", op.subgraph, op.index)
                })
            })
            .collect(),
        &taken,
    );
    for (&(position, i, o), oname) in over_ops.iter().zip(&over_names) {
        let (
            Some(Access::Slot {
                span: si,
                elem: in_elem,
                ..
            }),
            Some(Access::Slot {
                span: so,
                elem: out_elem,
                ..
            }),
        ) = (access.get(i.get()), access.get(o.get()))
        else {
            continue;
        };
        let (Some(t), Some(ot), Some(op)) = (
            model.tensors.get(i.get()),
            model.tensors.get(o.get()),
            model.ops.get(position),
        ) else {
            continue;
        };
        // The view is of the narrower element (a QUANTIZE from int16 to int8 reads its input's
        // bytes from an int8 view); offsets are counted in it.
        let ((_, in_size), (_, out_size)) = (element(t.dtype), element(ot.dtype));
        let (elem, size) = if out_size < in_size {
            (out_elem, out_size)
        } else {
            (in_elem, in_size)
        };
        let (start, end) = (si.0.min(so.0), si.1.max(so.1));
        let ident = format_ident!("{}", oname);
        let tname =
            |id: crate::TensorId| model.tensors.get(id.get()).map_or("", |t| t.name.as_str());
        let doc = format!(
            " `{}` written over `{}`, which {} consumes: one view of both for its overlapped kernel, offset {}, {} bytes (the input {} bytes in, the output {})",
            tname(o),
            tname(i),
            op.desc(),
            thousands(start),
            thousands(end - start),
            thousands(si.0 - start),
            thousands(so.0 - start),
        );
        let check = format!("slot {oname} lies outside the arena");
        let (sl, nl) = (ulit(start), ulit((end - start) / size));
        items.push(quote! {
            #[doc = #doc]
            pub const #ident: #rt::Slot<Activations, #elem> = #rt::Slot::new(#sl, #nl);
            const _: () = ::core::assert!(#ident.end() <= ARENA_BYTES, #check);
        });
        if let Some(slot) = over_slots.get_mut(position) {
            *slot = Some(OverSlot {
                name: ident,
                span: (start, end),
                elem: elem.clone(),
                input_at: (si.0 - start) / size,
                output_at: (so.0 - start) / size,
            });
        }
    }
    if let Some(flags) = plan.state.flags {
        let f = ulit(flags);
        items.push(quote! {
            /// Offset of the persistent region's flags: byte 0 says it was reset once, byte
            /// `1 + i` that the `i`-th CALL_ONCE op ran.
            const STATE_FLAGS: usize = #f;
        });
    }

    let ops = model.ops.iter().map(|op| {
        let opcode = op.opcode.to_string();
        let base = model.subgraphs.get(op.subgraph.get()).map_or(0, |s| s.first_tensor);
        let ins = op.inputs.iter().map(|t| match t {
            Some(t) => {
                let g = Literal::u32_unsuffixed(u32::try_from(base + t.get()).unwrap_or(u32::MAX));
                quote!(::core::option::Option::Some(#g))
            }
            None => quote!(::core::option::Option::None),
        });
        let outs = op.outputs.iter().map(|t| Literal::u32_unsuffixed(u32::try_from(base + t.get()).unwrap_or(u32::MAX)));
        let (sg, idx) = (Literal::u32_unsuffixed(op.subgraph.0), Literal::u32_unsuffixed(op.index.0));
        quote!(#p::OpInfo { opcode: #opcode, subgraph: #sg, index: #idx, inputs: &[#(#ins),*], outputs: &[#(#outs),*] })
    });
    let (op_fns, fns) = op_functions(
        plan,
        &access,
        &scratch_slots,
        &kernel_slots,
        &over_slots,
        &p,
    );
    let dynamic = (!dynamic_items.is_empty()).then(|| {
        quote! {
            /// Tensors sized at run time (a `-1` dimension), left out of the plan: take each
            /// one's buffer from a `stowplan::cache::BufferCache` once its dimensions are known,
            /// with `dynamic::NAME.alloc(&cache, &[dims..])`, and free it (or drop it) after its
            /// last reader.
            pub mod dynamic {
                #(#dynamic_items)*
            }
        }
    });
    let invoke = if cg.invoke {
        // Where each tensor's bytes are, for the copies of control flow.
        let tensor_bytes: Vec<invoke::Bytes> = access
            .iter()
            .map(|a| match a {
                Access::Slot {
                    name, span, state, ..
                } => invoke::Bytes::Slot {
                    name: name.clone(),
                    state: *state,
                    bytes: span.1 - span.0,
                },
                Access::Constant { buffer, bytes, .. } => invoke::Bytes::Constant {
                    buffer: buffer.clone(),
                    bytes: *bytes,
                },
                Access::Empty { .. } | Access::Other => invoke::Bytes::Nothing,
            })
            .collect();
        let module = invoke::Module {
            fns: &fns,
            bytes: &tensor_bytes,
        };
        Some(
            invoke::generate(
                plan,
                bytes,
                &quote!(#rt),
                &module,
                cg.fallback.as_ref(),
                cg.op_marks.as_ref(),
            )
            .map_err(|why| GenerateError::NoKernel {
                message: format!("cannot generate `invoke` for {}: {why}", cg.model_path),
            })?,
        )
    } else {
        None
    };

    let io = |list: &[crate::tflite::TensorIndex]| {
        let ids = list.iter().map(|t| Literal::u32_unsuffixed(t.0));
        quote!(&[#(#ids),*])
    };
    let main = model.subgraphs.first();
    let inputs = io(main.map_or(&[][..], |s| &s.inputs));
    let outputs = io(main.map_or(&[][..], |s| &s.outputs));
    let io_names = IoNames {
        plan,
        access: &access,
        names: &names,
        rt,
        p: &p,
    };
    let inputs_mod = io_names.module(
        "inputs",
        "INPUT",
        "input",
        main.map_or(&[][..], |s| &s.inputs),
    );
    let outputs_mod = io_names.module(
        "outputs",
        "OUTPUT",
        "output",
        main.map_or(&[][..], |s| &s.outputs),
    );

    let proof = disjointness_proof(plan, &p);
    let budget = cg.budget.map(|b| {
        let b_lit = lit(b);
        let msg = format!(
            "the model's RAM (arena + state) exceeds the budget of {} bytes",
            thousands(b)
        );
        quote!(
            const _: () = ::core::assert!(RAM_BYTES <= #b_lit, #msg);
        )
    });
    let endian = multibyte_constants.then(|| {
        quote!(
            const _: () = ::core::assert!(
                ::core::cfg!(target_endian = "little"),
                "TFLite constant data is little-endian; this target is not"
            );
        )
    });
    // The model file, included whole: constants are views into it (never tokens), and a
    // changed file recompiles the crate.
    let include = match &cg.model_file {
        ModelFile::ManifestRelative(rel) => {
            let rel = format!("/{rel}");
            quote!(::core::include_bytes!(
                ::core::concat!(::core::env!("CARGO_MANIFEST_DIR"), #rel)
            ))
        }
        ModelFile::Absolute(abs) => quote!(::core::include_bytes!(#abs)),
    };
    let tracking = quote!(
        /// Bytes of the model file.
        const MODEL_FILE_BYTES: usize = #file_len_value;
        /// The model file, read when the crate compiles; its constant buffers are copied out.
        const MODEL_FILE: &#p::Aligned<[u8; #file_len]> = &#p::Aligned(*#include);
    );

    let too_large = |what: &str, n: u64| GenerateError::TooLarge {
        message: format!(
            "the {what} needs {} bytes, more than generated code can describe",
            thousands(n)
        ),
    };
    if plan.arena_bytes() > crate::plan::MAX_BYTES {
        return Err(too_large("arena", plan.arena_bytes()));
    }
    let docs = module_docs(plan, cg, &sha);
    let arena = ulit(plan.arena_bytes());
    let lower = lit(plan.lower_bound_bytes());
    let naive = lit(plan.naive_bytes());
    let align_lit = ulit(align);
    let persistent = ulit(persistent_end);
    // The target must be able to address both regions: on a 16- or 32-bit target a larger
    // model is a compile error that states the numbers.
    let width = {
        let need = plan.arena_bytes().max(persistent_end);
        (need > 0xffff).then(|| {
            let need_lit = syn::LitInt::new(&format!("{}_u64", underscored(need)), Span::call_site());
            let msg = format!(
                "this model needs a region of {} bytes (arena {}, persistent {}), more than this target's usize can address",
                thousands(need),
                thousands(plan.arena_bytes()),
                thousands(persistent_end)
            );
            quote!(const _: () = ::core::assert!(#need_lit <= ::core::primitive::usize::MAX as u64, #msg);)
        })
    };
    // Above 16, the arena types align their address as the plan aligns offsets.
    let address_align = (align > 16).then(|| {
        let a = ulit(align);
        quote!(, #a)
    });
    let arena_doc = format!(
        " The arena, exactly `ARENA_BYTES` long, its address aligned to {} bytes.",
        align.max(16)
    );
    let persistent_doc = format!(
        " The persistent region, exactly `PERSISTENT_BYTES` long, its address aligned to {} bytes.",
        align.max(16)
    );
    let planner = plan.plan.planner().name();
    let winner = plan.plan.winner().name();
    let proven = plan.plan.proven_optimal();
    let model_path = &cg.model_path;
    // With outputs over the inputs they consume, the bound counts each such pair at its
    // smallest span, and the tensor-level bound comes beside it.
    let bounds = if plan.problem.overlaps().is_empty() {
        quote! {
            /// The most bytes (sizes rounded up to `ALIGN`) live at one time: no plan can be smaller.
            pub const LOWER_BOUND_BYTES: u64 = #lower;
        }
    } else {
        let tensor_level = lit(plan.tensor_bound_bytes());
        quote! {
            /// The most bytes (sizes rounded up to `ALIGN`) live at one time, each output that may lie
            /// over the input it consumes counted at the pair's smallest span: no plan can be smaller.
            pub const LOWER_BOUND_BYTES: u64 = #lower;
            /// The most bytes live at one time with every tensor in bytes of its own: no plan of
            /// whole tensors can be smaller.
            pub const TENSOR_BOUND_BYTES: u64 = #tensor_level;
        }
    };
    Ok(quote! {
        #(#[doc = #docs])*
        #[allow(clippy::all, clippy::pedantic, dead_code)]
        pub mod #module {
            /// Bytes of the arena: the planned region every non-constant, non-variable tensor lives in.
            pub const ARENA_BYTES: usize = #arena;
            #bounds
            /// Bytes the tensors would take without reuse.
            pub const NAIVE_BYTES: u64 = #naive;
            /// Alignment of every offset and size.
            pub const ALIGN: usize = #align_lit;
            /// Bytes of the persistent region: the state kept across invocations (variable
            /// tensors, resource variables, flags).
            pub const PERSISTENT_BYTES: usize = #persistent;
            /// Bytes of RAM the model needs: the arena and the persistent region (what the budget
            /// covers).
            pub const RAM_BYTES: usize = ARENA_BYTES + PERSISTENT_BYTES;
            /// The planner asked for.
            pub const PLANNER: &str = #planner;
            /// The planner whose plan was kept (for `auto`, the one that won).
            pub const PLAN_BY: &str = #winner;
            /// Whether the arena is proven to be the smallest possible for these lifetimes.
            pub const PROVEN_OPTIMAL: bool = #proven;
            /// The model file, relative to the including crate's `Cargo.toml`.
            pub const MODEL_PATH: &str = #model_path;
            /// The sha256 of the model file.
            pub const MODEL_SHA256: &str = #sha;
            /// Marker of this model's arena: its slots fit no other model's arena.
            #[derive(::core::fmt::Debug)]
            pub enum Activations {}
            /// Marker of this model's persistent region.
            #[derive(::core::fmt::Debug)]
            pub enum Persistent {}
            #[doc = #arena_doc]
            pub type Arena = #rt::Arena<Activations, ARENA_BYTES #address_align>;
            /// The arena in a `static`, handed out once (its zero bytes go to `.bss`).
            pub type StaticArena = #rt::StaticArena<Activations, ARENA_BYTES #address_align>;
            #[doc = #persistent_doc]
            pub type PersistentArena = #rt::Arena<Persistent, PERSISTENT_BYTES #address_align>;
            /// The persistent region in a `static`, handed out once (its zero bytes go to `.bss`).
            pub type StaticPersistentArena = #rt::StaticArena<Persistent, PERSISTENT_BYTES #address_align>;
            #width
            #tracking
            #endian
            #(#items)*
            /// The model's input tensors (indexes into `TENSORS`); their slots are in `inputs`.
            pub const INPUTS: &[u32] = #inputs;
            /// The model's output tensors (indexes into `TENSORS`); their slots are in `outputs`.
            pub const OUTPUTS: &[u32] = #outputs;
            #inputs_mod
            #outputs_mod
            /// Every tensor of every subgraph, by tensor id.
            pub const TENSORS: &[#p::TensorInfo] = &[#(#tensor_table),*];
            /// Every op of every subgraph, each subgraph in execution order.
            pub const OPS: &[#p::OpInfo] = &[#(#ops),*];
            #proof
            #budget
            #op_fns
            #invoke
            #dynamic
        }
    })
}

/// What the `inputs` and `outputs` modules are made from.
struct IoNames<'a> {
    plan: &'a ModelPlan,
    access: &'a [Access],
    names: &'a [String],
    rt: &'a syn::Path,
    p: &'a TokenStream,
}

impl IoNames<'_> {
    /// `pub mod inputs` (or `outputs`): one constant per tensor of the list, named by position
    /// (`INPUT_0`, `INPUT_1`, ...), the same slot, constant or dynamic tensor as the item named
    /// after the tensor.
    fn module(
        &self,
        module: &str,
        prefix: &str,
        what: &str,
        list: &[crate::tflite::TensorIndex],
    ) -> TokenStream {
        let (rt, p) = (self.rt, self.p);
        let model = &self.plan.model;
        let base = model.subgraphs.first().map_or(0, |s| s.first_tensor);
        let mut items = Vec::new();
        let mut missing = Vec::new();
        for (k, t) in list.iter().enumerate() {
            let id = base + t.get();
            let ident = format_ident!("{prefix}_{k}");
            let Some(tensor) = model.tensors.get(id) else {
                continue;
            };
            let name = self.names.get(id).map_or("", String::as_str);
            let target = format_ident!("{}", if name.is_empty() { "TENSOR" } else { name });
            let shape = self
                .plan
                .tensors
                .get(id)
                .map_or_else(String::new, |i| shape_str(&i.shape));
            let desc = format!("`{}` `{}{shape}`", tensor.name, tensor.dtype.name());
            let dynamic = self
                .plan
                .tensors
                .get(id)
                .is_some_and(|i| i.placement == Placement::Dynamic);
            match self.access.get(id) {
                Some(Access::Slot { elem, state, .. }) => {
                    let marker = if *state {
                        quote!(Persistent)
                    } else {
                        quote!(Activations)
                    };
                    let doc = format!(" {what} {k}: {desc}, the slot `{name}`");
                    items.push(quote! {
                        #[doc = #doc]
                        pub const #ident: #rt::Slot<super::#marker, #elem> = super::#target;
                    });
                }
                Some(Access::Constant { elem, .. }) => {
                    let doc = format!(" {what} {k}: {desc}, the constant `{name}`");
                    items.push(quote! {
                        #[doc = #doc]
                        pub const #ident: &[#elem] = super::#target;
                    });
                }
                _ if dynamic => {
                    let doc = format!(
                        " {what} {k}: {desc}, sized at run time: the dynamic tensor `dynamic::{name}`"
                    );
                    items.push(quote! {
                        #[doc = #doc]
                        pub const #ident: #p::DynamicTensor = super::dynamic::#target;
                    });
                }
                _ => missing.push(format!(" - `{prefix}_{k}`: {desc} has no bytes in memory.")),
            }
        }
        let mut docs = vec![
            format!(
                " The model's {what}s by position, for code that must not depend on the names the"
            ),
            format!(
                " converter gave: `{prefix}_0` is {what} 0 of subgraph 0, and so on. Each is the same"
            ),
            " slot (or constant, or dynamic tensor) as the item named after the tensor.".to_owned(),
        ];
        if !missing.is_empty() {
            docs.push(String::new());
            docs.push(" No constant for:".to_owned());
            docs.push(String::new());
            docs.extend(missing);
        }
        let module = format_ident!("{module}");
        quote! {
            #(#[doc = #docs])*
            pub mod #module {
                #(#items)*
            }
        }
    }
}

/// Slots the disjointness proof checks per `const` item: each item has its own limit on
/// constant evaluation, and a slot costs a few of its steps.
const PROOF_CHUNK: usize = 65_536;

/// The compile-time proof that slots live at the same time are disjoint (sizes rounded up to the
/// alignment, as planned): the runtime's `Disjoint` sweep over the slots sorted by first time,
/// each with the slot it enters above, and the slots sorted by last time; checked in chunks of
/// [`PROOF_CHUNK`] slots, each a `const` item inside one block (so its names clash with nothing).
/// Work linear in the slots, at build time and when the crate compiles.
///
/// With outputs allowed over the inputs they consume (`plan.problem.overlaps()`), every step is
/// split in two, as the planner splits time (`plan::overlap`): a slot live from `f` to `l` is
/// live from `2f` to `2l + 1`, except that a pair's input leaves after `2l` and its output
/// enters at `2f + 1`. Every other two slots live at the same time still meet (the pairs of
/// each time are complete), and each pair that shares bytes is proven by its op's
/// `kernels::overlap::fits` assertion instead.
fn disjointness_proof(plan: &ModelPlan, p: &TokenStream) -> TokenStream {
    let pairs = plan.problem.overlaps();
    let split = !pairs.is_empty();
    let inputs: std::collections::BTreeSet<usize> = pairs.iter().map(|o| o.input).collect();
    let outputs: std::collections::BTreeSet<usize> = pairs.iter().map(|o| o.output).collect();
    let input_of_pair = |b: usize| inputs.contains(&b);
    let output_of_pair = |b: usize| outputs.contains(&b);
    // (first, last, offset, end) of every slot with bytes.
    let mut spans: Vec<(u32, u32, u64, u64)> = plan
        .problem
        .buffers()
        .iter()
        .zip(plan.plan.offsets())
        .enumerate()
        .filter(|(_, (b, _))| b.size > 0)
        .map(|(i, (b, &o))| {
            let (first, last) = if split {
                // Times stay below 2^31 in problems with overlaps (`MAX_OVERLAP_TIME`).
                let (f, l) = (b.lifetime.first * 2, b.lifetime.last * 2);
                (
                    f + u32::from(output_of_pair(i)),
                    l + u32::from(!input_of_pair(i)),
                )
            } else {
                (b.lifetime.first, b.lifetime.last)
            };
            (first, last, o, o + plan.problem.aligned_size(b.size))
        })
        .collect();
    spans.sort_unstable();
    let mut ends: Vec<u32> = (0..spans.len())
        .filter_map(|i| u32::try_from(i).ok())
        .collect();
    ends.sort_by_key(|&i| (spans.get(i as usize).map_or(0, |s| s.1), i));
    // The same sweep the runtime makes, to find the slot each one enters above.
    let mut live: std::collections::BTreeMap<u64, u32> = std::collections::BTreeMap::new();
    let mut gone = 0;
    let mut below = Vec::with_capacity(spans.len());
    for &(first, _, start, _) in &spans {
        while let Some(&j) = ends.get(gone) {
            let Some(&(_, last, s, _)) = spans.get(j as usize) else {
                break;
            };
            if last >= first {
                break;
            }
            live.remove(&s);
            gone += 1;
        }
        below.push(
            live.range(..start)
                .next_back()
                .map_or(u32::MAX, |(_, &j)| j),
        );
        if let Ok(i) = u32::try_from(below.len() - 1) {
            live.insert(start, i);
        }
    }
    let n = ulit(spans.len() as u64);
    let items = spans.iter().zip(&below).map(|(&(f, l, o, e), &b)| {
        let (o, e) = (ulit(o), ulit(e));
        let (f, l) = (Literal::u32_unsuffixed(f), Literal::u32_unsuffixed(l));
        let above = if b == u32::MAX {
            quote!()
        } else {
            let b = Literal::u32_unsuffixed(b);
            quote!(.above(#b))
        };
        quote!(Span::bytes(#o..#e).live(#f..=#l)#above)
    });
    let ends = ends.iter().map(|&i| Literal::u32_unsuffixed(i));
    let mut steps = Vec::new();
    let mut prev = quote!(#p::Disjoint::<#n>::new());
    for (k, upto) in (PROOF_CHUNK..spans.len().saturating_add(PROOF_CHUNK))
        .step_by(PROOF_CHUNK)
        .enumerate()
    {
        let name = format_ident!("CHECKED_{}", k);
        let upto = ulit(upto.min(spans.len()) as u64);
        steps.push(quote! {
            const #name: #p::Disjoint<#n> = #prev.check(SPANS, ENDS, #upto, ARENA_BYTES);
        });
        prev = quote!(#name);
    }
    quote! {
        const _: () = {
            use #p::Span;
            const SPANS: &[Span; #n] = &[#(#items),*];
            const ENDS: &[u32; #n] = &[#(#ends),*];
            #(#steps)*
            #prev.finish()
        };
    }
}

/// How an op function reaches a tensor.
#[derive(Clone, Debug)]
enum Access {
    /// A slot of the arena or (`state`) of the persistent region, with its byte range.
    Slot {
        name: syn::Ident,
        elem: TokenStream,
        span: (u64, u64),
        state: bool,
    },
    /// A typed constant slice, and the aligned buffer holding its bytes.
    Constant {
        name: syn::Ident,
        elem: TokenStream,
        buffer: syn::Ident,
        bytes: u64,
    },
    /// A tensor of no elements: an empty view.
    Empty { elem: TokenStream },
    /// Anything else (persistent region, no data, not planned): no op function.
    Other,
}

/// The most inputs or outputs an op function takes: the runtime's tuple impls.
const MAX_OP_ARITY: usize = 24;

/// What the driver needs to know of an op's function.
#[derive(Clone, Debug, Default)]
pub(crate) struct OpFn {
    /// `ops::op_N` exists.
    pub exists: bool,
    /// It also takes the persistent region.
    pub state: bool,
    /// Inputs it hands out mutably, after the outputs (state the op updates), in input order.
    pub moved: Vec<usize>,
    /// Scratch slots it hands out after the moved inputs: the bytes of each.
    pub scratch: Vec<u64>,
    /// It hands out its kernel state (`&mut [u32]` in the persistent region) last.
    pub kernel_state: bool,
    /// Its output lies over its first input: `o0` is one view of both, the input this many
    /// elements in, and the output this many ([`ops::Lower::overlap`]).
    pub overlap: Option<(u64, u64)>,
    /// Each view's name in a kernel call (`i0`, `o0`, `m1`, `s0`, `p0`) with a `const`
    /// expression of its length in elements, inside the generated module's `params` (or `ops`).
    pub lens: Vec<(syn::Ident, TokenStream)>,
}

/// One view of an op's output and the input it writes over (`ModelPlan::overlapped`).
#[derive(Clone)]
struct OverSlot {
    name: syn::Ident,
    /// Bytes of the arena it covers.
    span: (u64, u64),
    elem: TokenStream,
    /// Where the input and the output start in it, in elements.
    input_at: u64,
    output_at: u64,
}

/// One view an op function hands out, from one region.
struct View {
    ty: TokenStream,
    value: TokenStream,
    /// `Some(true)` from the persistent region, `Some(false)` from the arena, `None` for
    /// constants and `()`, which need neither.
    state: Option<bool>,
    span: Option<(syn::Ident, (u64, u64))>,
}

/// `pub mod ops`: one function per op whose tensors are all in the arena, the persistent region,
/// constants or omitted, returning all its views at once, each with a compile-time proof that
/// what it writes is disjoint from everything else it touches in the same region.
///
/// Inputs in the persistent region (variable tensors, which the ops that take them update, and
/// the resource variable an ASSIGN_VARIABLE writes) are handed out mutably, after the outputs;
/// their place among the inputs holds `()`.
#[allow(clippy::too_many_lines)]
fn op_functions(
    plan: &ModelPlan,
    access: &[Access],
    scratch: &[Vec<(syn::Ident, (u64, u64))>],
    kernel_state: &[Option<(syn::Ident, (u64, u64))>],
    over: &[Option<OverSlot>],
    p: &TokenStream,
) -> (TokenStream, Vec<OpFn>) {
    let model = &plan.model;
    let mut info = vec![OpFn::default(); model.ops.len()];
    let overlap = |a: (u64, u64), b: (u64, u64)| a.0 < a.1 && b.0 < b.1 && a.0 < b.1 && b.0 < a.1;
    let mut fns = Vec::new();
    let mut skipped = Vec::new();
    for (position, op) in model.ops.iter().enumerate() {
        let base = model
            .subgraphs
            .get(op.subgraph.get())
            .map_or(0, |s| s.first_tensor);
        let tensor_name = |id: usize| model.tensors.get(id).map_or("", |t| t.name.as_str());
        use crate::tflite::{BuiltinOp, Opcode};
        if op.opcode == Opcode::Builtin(BuiltinOp::VAR_HANDLE) {
            // Its handle is resolved when the crate compiles: nothing to view.
            continue;
        }
        if plan.folding.is_folded(position) {
            // Evaluated when the crate compiled: its outputs are constants.
            continue;
        }
        let reads_resource = op.opcode == Opcode::Builtin(BuiltinOp::READ_VARIABLE);
        // CIRCULAR_BUFFER's windows are state only their own op writes: others read them.
        let window = |id: usize| {
            plan.state
                .variables
                .iter()
                .any(|v| v.kept && v.tensor.get() == id)
        };
        let mut reads: Vec<View> = Vec::new();
        let mut writes: Vec<View> = Vec::new();
        let mut moved: Vec<(usize, View)> = Vec::new();
        let mut read_docs = Vec::new();
        let mut write_docs = Vec::new();
        let mut lens: Vec<(syn::Ident, TokenStream)> = Vec::new();
        let mut why = None;
        let unit = || View {
            ty: quote!(()),
            value: quote!(()),
            state: None,
            span: None,
        };
        let over_slot = over.get(position).cloned().flatten();
        for (i, input) in op.inputs.iter().enumerate() {
            if i == 0 && over_slot.is_some() {
                reads.push(unit());
                read_docs.push(format!(
                    "(`{}` is written over: see below)",
                    input.map_or("", |t| tensor_name(base + t.get()))
                ));
                continue;
            }
            match input.map(|t| (base + t.get(), access.get(base + t.get()))) {
                None => {
                    reads.push(unit());
                    read_docs.push("(omitted)".to_owned());
                }
                Some((
                    id,
                    Some(Access::Slot {
                        name,
                        elem,
                        span,
                        state,
                    }),
                )) => {
                    let view = if *state && !reads_resource && !window(id) {
                        format_ident!("m{i}")
                    } else {
                        format_ident!("i{i}")
                    };
                    lens.push((view, quote!(super::#name.len())));
                    if *state && !reads_resource && !window(id) {
                        moved.push((
                            i,
                            View {
                                ty: quote!(&'a mut [#elem]),
                                value: quote!(super::#name),
                                state: Some(true),
                                span: Some((name.clone(), *span)),
                            },
                        ));
                        reads.push(unit());
                        read_docs.push(format!("(`{}` is written: see below)", tensor_name(id)));
                        write_docs.push(format!("`{}` ({name}, state)", tensor_name(id)));
                    } else {
                        reads.push(View {
                            ty: quote!(&'a [#elem]),
                            value: quote!(super::#name),
                            state: Some(*state),
                            span: Some((name.clone(), *span)),
                        });
                        read_docs.push(format!(
                            "`{}` ({name}{})",
                            tensor_name(id),
                            if *state { ", state" } else { "" }
                        ));
                    }
                }
                Some((id, Some(Access::Constant { name, elem, .. }))) => {
                    lens.push((format_ident!("i{i}"), quote!(super::#name.len())));
                    reads.push(View {
                        ty: quote!(&'static [#elem]),
                        value: quote!(super::#name),
                        state: None,
                        span: None,
                    });
                    read_docs.push(format!("`{}` ({name}, constant)", tensor_name(id)));
                }
                Some((id, Some(Access::Empty { elem }))) => {
                    lens.push((format_ident!("i{i}"), quote!(0_usize)));
                    reads.push(View {
                        ty: quote!(&'static [#elem]),
                        value: quote!(<&'static [#elem] as ::core::default::Default>::default()),
                        state: None,
                        span: None,
                    });
                    read_docs.push(format!("`{}` (no elements)", tensor_name(id)));
                }
                Some((id, _)) => {
                    why = Some(format!(
                        "input `{}` is neither in the arena, the persistent region nor a constant",
                        tensor_name(id)
                    ));
                }
            }
        }
        for (k, output) in op.outputs.iter().enumerate() {
            let id = base + output.get();
            if k == 0
                && let Some(o) = &over_slot
            {
                let name = &o.name;
                let elem = &o.elem;
                lens.push((format_ident!("o{k}"), quote!(super::#name.len())));
                writes.push(View {
                    ty: quote!(&'a mut [#elem]),
                    value: quote!(super::#name),
                    state: Some(false),
                    span: Some((name.clone(), o.span)),
                });
                write_docs.push(format!(
                    "`{}` over its input ({name}: the input {} elements in, the output {})",
                    tensor_name(id),
                    o.input_at,
                    o.output_at
                ));
                continue;
            }
            match access.get(id) {
                Some(Access::Slot {
                    name,
                    elem,
                    span,
                    state,
                }) => {
                    lens.push((format_ident!("o{k}"), quote!(super::#name.len())));
                    writes.push(View {
                        ty: quote!(&'a mut [#elem]),
                        value: quote!(super::#name),
                        state: Some(*state),
                        span: Some((name.clone(), *span)),
                    });
                    write_docs.push(format!("`{}` ({name})", tensor_name(id)));
                }
                _ => {
                    why = Some(format!("output `{}` is not in the arena", tensor_name(id)));
                }
            }
        }
        let moved_inputs: Vec<usize> = moved.iter().map(|(i, _)| *i).collect();
        writes.extend(moved.into_iter().map(|(_, v)| v));
        let op_scratch = scratch.get(position).cloned().unwrap_or_default();
        for (k, (name, span)) in op_scratch.iter().enumerate() {
            lens.push((format_ident!("s{k}"), quote!(super::#name.len())));
            writes.push(View {
                ty: quote!(&'a mut [u32]),
                value: quote!(super::#name),
                state: Some(false),
                span: Some((name.clone(), *span)),
            });
            write_docs.push(format!("scratch {name}"));
        }
        let op_state = kernel_state.get(position).cloned().flatten();
        if let Some((name, span)) = &op_state {
            lens.push((format_ident!("p0"), quote!(super::#name.len())));
            writes.push(View {
                ty: quote!(&'a mut [u32]),
                value: quote!(super::#name),
                state: Some(true),
                span: Some((name.clone(), *span)),
            });
            write_docs.push(format!("kernel state {name}"));
        }
        if reads.len() > MAX_OP_ARITY || writes.len() > MAX_OP_ARITY {
            why = Some(format!("more than {MAX_OP_ARITY} inputs or outputs"));
        }
        let spans = |list: &[View], region: bool| -> Vec<(syn::Ident, (u64, u64))> {
            list.iter()
                .filter(|v| v.state == Some(region))
                .filter_map(|v| v.span.clone())
                .collect()
        };
        let clash = [false, true].iter().any(|&region| {
            let (r, w) = (spans(&reads, region), spans(&writes, region));
            w.iter()
                .enumerate()
                .any(|(i, (_, a))| w.iter().skip(i + 1).chain(&r).any(|(_, b)| overlap(*a, *b)))
        });
        if why.is_none() && clash {
            why = Some("an output shares bytes with another of its tensors".to_owned());
        }
        let sg = op.subgraph.0;
        let label = if sg == 0 {
            format!("op {}", op.index.0)
        } else {
            format!("op {} of subgraph {sg}", op.index.0)
        };
        if let Some(why) = why {
            skipped.push(format!(" - {label} (`{}`): {why}.", op.opcode));
            continue;
        }
        let uses_state = reads.iter().chain(&writes).any(|v| v.state == Some(true));
        if let Some(h) = info.get_mut(position) {
            *h = OpFn {
                exists: true,
                state: uses_state,
                moved: moved_inputs,
                scratch: op_scratch
                    .iter()
                    .map(|(_, (a, b))| b.saturating_sub(*a))
                    .collect(),
                kernel_state: op_state.is_some(),
                overlap: over_slot.as_ref().map(|o| (o.input_at, o.output_at)),
                lens,
            };
        }
        let fname = if sg == 0 {
            format_ident!("op_{}", op.index.0)
        } else {
            format_ident!("sg{}_op_{}", sg, op.index.0)
        };
        let doc = format!(
            " Views of {label}, `{}`: reads {}; writes {}.",
            op.opcode,
            if read_docs.is_empty() {
                "nothing".to_owned()
            } else {
                read_docs.join(", ")
            },
            if write_docs.is_empty() {
                "nothing".to_owned()
            } else {
                write_docs.join(", ")
            }
        );
        let span_tokens = |spans: &[(syn::Ident, (u64, u64))]| {
            let items = spans
                .iter()
                .map(|(name, _)| quote!((super::#name.offset(), super::#name.end())));
            quote!(&[#(#items),*])
        };
        let read_types = reads.iter().map(|v| &v.ty);
        let write_types = writes.iter().map(|v| &v.ty);
        if uses_state {
            // Views from each region, then put back in the op's order.
            let bind = |list: &[View], prefix: &str| {
                let mut a_vals = Vec::new();
                let mut s_vals = Vec::new();
                let mut a_names = Vec::new();
                let mut s_names = Vec::new();
                let mut order = Vec::new();
                for (k, v) in list.iter().enumerate() {
                    let n = format_ident!("{prefix}{k}");
                    if v.state == Some(true) {
                        s_vals.push(v.value.clone());
                        s_names.push(n.clone());
                    } else {
                        a_vals.push(v.value.clone());
                        a_names.push(n.clone());
                    }
                    order.push(n);
                }
                (a_vals, s_vals, a_names, s_names, order)
            };
            let (ar, sr, arn, srn, ro) = bind(&reads, "r");
            let (aw, sw, awn, swn, wo) = bind(&writes, "w");
            let (arena_proof_r, arena_proof_w) = (
                span_tokens(&spans(&reads, false)),
                span_tokens(&spans(&writes, false)),
            );
            let (state_proof_r, state_proof_w) = (
                span_tokens(&spans(&reads, true)),
                span_tokens(&spans(&writes, true)),
            );
            fns.push(quote! {
                #[doc = #doc]
                #[inline]
                pub fn #fname<'a>(arena: &'a mut super::Arena, state: &'a mut super::PersistentArena) -> ((#(#read_types,)*), (#(#write_types,)*)) {
                    let ((#(#arn,)*), (#(#awn,)*)) = arena.views((#(#ar,)*), (#(#aw,)*));
                    let ((#(#srn,)*), (#(#swn,)*)) = state.views((#(#sr,)*), (#(#sw,)*));
                    ((#(#ro,)*), (#(#wo,)*))
                }
                const _: () = #p::assert_op_disjoint(#arena_proof_r, #arena_proof_w);
                const _: () = #p::assert_op_disjoint(#state_proof_r, #state_proof_w);
            });
        } else {
            // One region: the lifetimes elide.
            let elide = |t: &TokenStream| -> TokenStream {
                syn::parse2::<syn::Type>(t.clone())
                    .map(|mut ty| {
                        if let syn::Type::Reference(r) = &mut ty
                            && r.lifetime.as_ref().is_some_and(|l| l.ident == "a")
                        {
                            r.lifetime = None;
                        }
                        quote!(#ty)
                    })
                    .unwrap_or_else(|_| t.clone())
            };
            let read_types = reads.iter().map(|v| elide(&v.ty));
            let write_types = writes.iter().map(|v| elide(&v.ty));
            let read_values = reads.iter().map(|v| &v.value);
            let write_values = writes.iter().map(|v| &v.value);
            let (reads_proof, writes_proof) = (
                span_tokens(&spans(&reads, false)),
                span_tokens(&spans(&writes, false)),
            );
            fns.push(quote! {
                #[doc = #doc]
                #[inline]
                pub fn #fname(arena: &mut super::Arena) -> ((#(#read_types,)*), (#(#write_types,)*)) {
                    arena.views((#(#read_values,)*), (#(#write_values,)*))
                }
                const _: () = #p::assert_op_disjoint(#reads_proof, #writes_proof);
            });
        }
    }
    let mut docs = vec![
        " The views of each op's tensors, one function per op (`op_3`, or `sg1_op_0` for op 0 of"
            .to_owned(),
        " subgraph 1): shared views of what it reads (constants as they are, `()` for an omitted"
            .to_owned(),
        " input), mutable views of what it writes. They borrow the arena mutably, so no other view"
            .to_owned(),
        " of it lives meanwhile; each function's outputs are proven disjoint from each other and"
            .to_owned(),
        " from its inputs when the crate compiles.".to_owned(),
    ];
    if !skipped.is_empty() {
        docs.push(String::new());
        docs.push(" No function for:".to_owned());
        docs.push(String::new());
        docs.extend(skipped);
    }
    let tokens = quote! {
        #(#[doc = #docs])*
        pub mod ops {
            #(#fns)*
        }
    };
    (tokens, info)
}
