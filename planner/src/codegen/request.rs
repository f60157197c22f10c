//! The `include_model!` front end: parse the macro input, resolve the model path, plan, and
//! generate, with every error on the span it concerns.
//!
//! ```text
//! include_model!("models/net.tflite",
//!     budget = 48 * 1024,          // or a string: "48 KiB", "1.5 MiB", "49152" (see `size`)
//!     align = 16,                  // a power of two
//!     planner = "greedy",          // a planner name
//!     name = net,                  // the module name (default: from the file stem)
//!     crate = ::stowplan,          // the runtime crate's path, if renamed
//!     shape = "input=1x96x96x1",   // for -1 dimensions; repeatable
//!     offline = "replan",          // "honour" (default) or "replan" an offline plan
//!     invoke = true,               // generate `invoke` (runtime feature `kernels`)
//!     fallback = crate::my_ops,    // with invoke: `my_ops::op_N(views)` for ops without a kernel
//!     overlap = false,             // with invoke: keep every output off the input it consumes
//!     op_marks = crate::marks,     // with invoke: marks::op_begin(sg, op) / op_end(sg, op, arena) around each op
//!     dynamic = "cache",           // tensors with -1 dimensions: from a BufferCache at run time
//! )
//! ```

use std::path::{Path, PathBuf};

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{Expr, Ident, LitStr, Token};

use super::{Codegen, GenerateError, ModelFile, generate};
use crate::graph::ShapeOverride;
use crate::plan::Planner;
use crate::{OfflinePolicy, Options, plan_model};

/// The environment variable that overrides `CARGO_MANIFEST_DIR` for resolving model paths
/// (trybuild builds test cases in a scratch crate elsewhere).
pub const MANIFEST_DIR_OVERRIDE: &str = "STOWPLAN_MANIFEST_DIR";

/// Largest model file read.
const MAX_FILE_BYTES: u64 = (1 << 31) - 1;

struct Arg {
    key: Ident,
    value: Value,
}

enum Value {
    Expr(Expr),
    Path(syn::Path),
}

/// The parsed macro input.
struct Input {
    path: LitStr,
    args: Vec<Arg>,
}

impl Parse for Input {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let path: LitStr = input.parse().map_err(|e| {
            syn::Error::new(e.span(), "expected the model path as a string literal, relative to Cargo.toml: include_model!(\"models/net.tflite\", budget = 48 * 1024)")
        })?;
        let mut args = Vec::new();
        while !input.is_empty() {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break;
            }
            let key = Ident::parse_any(input)?;
            input.parse::<Token![=]>()?;
            let value = if key == "crate" || key == "fallback" {
                Value::Path(input.call(syn::Path::parse_mod_style)?)
            } else {
                Value::Expr(input.parse()?)
            };
            args.push(Arg { key, value });
        }
        Ok(Self { path, args })
    }
}

fn err(span: Span, message: impl std::fmt::Display) -> syn::Error {
    syn::Error::new(span, message)
}

/// Evaluates integer literal arithmetic (`48 * 1024`, `(1 << 16) - 256`) with checked math.
/// Errors cover the whole expression they concern (`new_spanned`), so the caret marks all of
/// `4 * 1024`, not its first token.
fn eval(expr: &Expr, what: &str) -> syn::Result<u64> {
    let overflow = || syn::Error::new_spanned(expr, format!("{what} arithmetic overflows 64 bits"));
    match expr {
        Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => i.base10_parse::<u64>(),
            syn::Lit::Str(s) => super::size::parse_size(&s.value()).map_err(|e| err(s.span(), e)),
            other => Err(err(
                other.span(),
                format!("expected an integer or a size string such as \"48 KiB\" for {what}"),
            )),
        },
        Expr::Paren(p) => eval(&p.expr, what),
        Expr::Group(g) => eval(&g.expr, what),
        Expr::Binary(b) => {
            let (l, r) = (eval(&b.left, what)?, eval(&b.right, what)?);
            match b.op {
                syn::BinOp::Add(_) => l.checked_add(r),
                syn::BinOp::Sub(_) => l.checked_sub(r),
                syn::BinOp::Mul(_) => l.checked_mul(r),
                syn::BinOp::Div(_) => l.checked_div(r),
                syn::BinOp::Shl(_) => u32::try_from(r)
                    .ok()
                    .and_then(|r| l.checked_shl(r))
                    .filter(|v| v >> r == l),
                _ => {
                    return Err(err(
                        b.op.span(),
                        format!("only + - * / << are allowed in {what}"),
                    ));
                }
            }
            .ok_or_else(overflow)
        }
        Expr::Path(p) => {
            let name = quote!(#p).to_string().replace(' ', "");
            Err(syn::Error::new_spanned(
                expr,
                format!(
                    "a macro cannot read the value of a named constant such as `{name}`: write the number here (`{what} = 48 * 1024` or `{what} = \"48 KiB\"`), or leave it out and check the constant after the macro: `const _: () = assert!(net::RAM_BYTES <= {name} as usize);` (build.rs's `Config` takes the constant itself)"
                ),
            ))
        }
        other => Err(syn::Error::new_spanned(
            other,
            format!(
                "expected integer literal arithmetic such as 48 * 1024, or a string such as \"48 KiB\", for {what}"
            ),
        )),
    }
}

fn string_value(expr: &Expr, what: &str) -> syn::Result<LitStr> {
    match expr {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Ok(s.clone()),
        other => Err(err(
            other.span(),
            format!("{what} must be a string literal"),
        )),
    }
}

/// Options read from the macro input, each with its span for errors.
struct Parsed {
    path: LitStr,
    options: Options,
    /// The budget and its expression (errors about it cover the whole expression).
    budget: Option<(u64, Expr)>,
    name: Option<Ident>,
    runtime: syn::Path,
    invoke: bool,
    fallback: Option<syn::Path>,
    /// `overlap = ...` as given: outputs over the inputs they consume (with `invoke`, on unless
    /// `false`).
    overlap: Option<(bool, Span)>,
    /// `op_marks = path`: the module whose `op_begin`/`op_end` `invoke` calls around each op.
    op_marks: Option<syn::Path>,
}

fn parse_args(input: Input) -> Result<Parsed, syn::Error> {
    let mut errors: Option<syn::Error> = None;
    let mut push = |e: syn::Error| match &mut errors {
        Some(all) => all.combine(e),
        None => errors = Some(e),
    };
    let mut parsed = Parsed {
        path: input.path,
        options: Options::default(),
        budget: None,
        name: None,
        runtime: syn::parse_quote!(::stowplan),
        invoke: false,
        fallback: None,
        overlap: None,
        op_marks: None,
    };
    let mut seen: Vec<String> = Vec::new();
    for Arg { key, value } in input.args {
        let k = key.unraw().to_string();
        if k != "shape" && seen.contains(&k) {
            push(err(key.span(), format!("option `{k}` is given twice")));
            continue;
        }
        seen.push(k.clone());
        let result: syn::Result<()> = (|| {
            match (k.as_str(), &value) {
                ("budget", Value::Expr(e)) => parsed.budget = Some((eval(e, "budget")?, e.clone())),
                ("fold_cap", Value::Expr(e)) => {
                    parsed.options.fold_cap = Some(eval(e, "fold_cap")?)
                }
                ("align", Value::Expr(e)) => {
                    let a = eval(e, "align")?;
                    if !a.is_power_of_two() {
                        return Err(syn::Error::new_spanned(
                            e,
                            format!("align must be a power of two such as 16, found {a}"),
                        ));
                    }
                    if a > super::MAX_ALIGN {
                        return Err(syn::Error::new_spanned(e, super::align_too_large(a)));
                    }
                    parsed.options.alignment = a;
                }
                ("planner", Value::Expr(e)) => {
                    let s = string_value(e, "planner")?;
                    parsed.options.planner =
                        s.value().parse::<Planner>().map_err(|x| err(s.span(), x))?;
                }
                ("name", Value::Expr(Expr::Path(p))) if p.path.get_ident().is_some() => {
                    parsed.name = p.path.get_ident().cloned();
                }
                ("name", Value::Expr(e)) => {
                    return Err(err(
                        e.span(),
                        "name must be an identifier, such as name = net",
                    ));
                }
                ("crate", Value::Path(path)) => parsed.runtime = path.clone(),
                ("fallback", Value::Path(path)) => parsed.fallback = Some(path.clone()),
                ("shape", Value::Expr(e)) => {
                    let s = string_value(e, "shape")?;
                    let o: ShapeOverride = s.value().parse().map_err(|x| err(s.span(), x))?;
                    parsed.options.shapes.push(o);
                }
                ("offline", Value::Expr(e)) => {
                    let s = string_value(e, "offline")?;
                    parsed.options.offline = match s.value().as_str() {
                        "honour" | "honor" => OfflinePolicy::Honour,
                        "replan" => OfflinePolicy::Replan,
                        other => {
                            return Err(err(
                                s.span(),
                                format!(
                                    "offline must be \"honour\" or \"replan\", found {other:?}"
                                ),
                            ));
                        }
                    };
                }
                ("dynamic", Value::Expr(e)) => {
                    let s = string_value(e, "dynamic")?;
                    parsed.options.dynamic_cache = match s.value().as_str() {
                        "cache" => true,
                        "plan" => false,
                        other => {
                            return Err(err(
                                s.span(),
                                format!("dynamic must be \"cache\" or \"plan\", found {other:?}"),
                            ));
                        }
                    };
                }
                (
                    "invoke",
                    Value::Expr(Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Bool(b),
                        ..
                    })),
                ) => {
                    parsed.invoke = b.value;
                }
                ("invoke", Value::Expr(e)) => {
                    return Err(err(e.span(), "invoke must be true or false"));
                }
                (
                    "overlap",
                    Value::Expr(Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Bool(b),
                        ..
                    })),
                ) => {
                    parsed.overlap = Some((b.value, b.span()));
                }
                ("overlap", Value::Expr(e)) => {
                    return Err(err(e.span(), "overlap must be true or false"));
                }
                ("op_marks", Value::Expr(Expr::Path(p)))
                    if p.qself.is_none()
                        && p.attrs.is_empty()
                        && p.path.segments.iter().all(|s| s.arguments.is_none()) =>
                {
                    parsed.op_marks = Some(p.path.clone());
                }
                ("op_marks", Value::Expr(e)) => {
                    return Err(syn::Error::new_spanned(
                        e,
                        "op_marks must be the path of a module with functions `op_begin` and `op_end`, such as op_marks = crate::marks",
                    ));
                }
                (other, _) => {
                    return Err(err(
                        key.span(),
                        format!(
                            "unknown option `{other}`; expected one of budget, align, planner, name, crate, shape, offline, invoke, fallback, overlap, op_marks, dynamic, fold_cap"
                        ),
                    ));
                }
            }
            Ok(())
        })();
        if let Err(e) = result {
            push(e);
        }
    }
    match errors {
        Some(e) => Err(e),
        None => Ok(parsed),
    }
}

/// The `name` and `crate` options as given, if well formed, whatever the other options are.
fn names_asked(input: &Input) -> (Option<Ident>, Option<syn::Path>) {
    let mut name = None;
    let mut runtime = None;
    for Arg { key, value } in &input.args {
        match (key.unraw().to_string().as_str(), value) {
            ("name", Value::Expr(Expr::Path(p))) => name = p.path.get_ident().cloned(),
            ("crate", Value::Path(p)) => runtime = Some(p.clone()),
            _ => {}
        }
    }
    (name, runtime)
}

/// A stub module so that the error above is the only one the user sees.
fn stub(name: &Ident, runtime: &syn::Path) -> TokenStream {
    quote! {
        #[allow(dead_code)]
        pub mod #name {
            pub const ARENA_BYTES: usize = 0;
            pub const LOWER_BOUND_BYTES: u64 = 0;
            pub const NAIVE_BYTES: u64 = 0;
            pub const ALIGN: usize = 16;
            pub const PERSISTENT_BYTES: usize = 0;
            #[derive(::core::fmt::Debug)]
            pub enum Activations {}
            #[derive(::core::fmt::Debug)]
            pub enum Persistent {}
            pub type Arena = #runtime::Arena<Activations, 0>;
            pub type PersistentArena = #runtime::Arena<Persistent, 0>;
        }
    }
}

/// Expands `include_model!` given its input and the manifest directory to resolve paths
/// against (`None`: read `STOWPLAN_MANIFEST_DIR`, else `CARGO_MANIFEST_DIR`).
#[must_use]
pub fn expand(input: TokenStream, manifest_dir: Option<&Path>) -> TokenStream {
    let input: Input = match syn::parse2(input) {
        Ok(i) => i,
        Err(e) => return e.into_compile_error(),
    };
    let path_span = input.path.span();
    let stem_name = {
        let value = input.path.value();
        let stem = Path::new(&value)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ident::new(&super::names::module_name(&stem), path_span)
    };
    // The placeholder after a bad argument keeps the module name and runtime path asked for,
    // so that the argument's error is the only one (no E0428 for a second module `name`).
    let (asked_name, asked_runtime) = names_asked(&input);
    let parsed = match parse_args(input) {
        Ok(p) => p,
        Err(e) => {
            let mut out = e.into_compile_error();
            out.extend(stub(
                asked_name.as_ref().unwrap_or(&stem_name),
                &asked_runtime.unwrap_or_else(|| syn::parse_quote!(::stowplan)),
            ));
            return out;
        }
    };
    let name = parsed.name.clone().unwrap_or(stem_name);
    match expand_parsed(&parsed, &name, manifest_dir) {
        Ok(tokens) => tokens,
        Err((e, tracking)) => {
            let mut out = e.into_compile_error();
            out.extend(stub(&name, &parsed.runtime));
            out.extend(tracking);
            out
        }
    }
}

type Failure = (syn::Error, TokenStream);

fn expand_parsed(
    parsed: &Parsed,
    name: &Ident,
    manifest_dir: Option<&Path>,
) -> Result<TokenStream, Failure> {
    let loaded = load(parsed, name, manifest_dir)?;
    let span = parsed.path.span();
    generate(&loaded.plan, &loaded.bytes, &loaded.codegen).map_err(|e| {
        let error = match (&e, &parsed.budget) {
            (GenerateError::OverBudget { .. }, Some((_, budget))) => {
                syn::Error::new_spanned(budget, e)
            }
            _ => err(span, e),
        };
        (error, loaded.tracking)
    })
}

/// A model read and planned, with what generating it needs.
struct Loaded {
    bytes: Vec<u8>,
    plan: crate::ModelPlan,
    codegen: Codegen,
    /// Tokens that make the crate recompile when the file changes (for error expansions).
    tracking: TokenStream,
}

fn load(parsed: &Parsed, name: &Ident, manifest_dir: Option<&Path>) -> Result<Loaded, Failure> {
    let lit = &parsed.path;
    let span = lit.span();
    let rel = lit.value();
    let none = TokenStream::new;
    if Path::new(&rel).is_absolute() {
        return Err((
            err(
                span,
                "absolute model paths only work on this machine; use a path relative to Cargo.toml",
            ),
            none(),
        ));
    }
    let (root, overridden) = match manifest_dir {
        Some(dir) => (dir.to_path_buf(), false),
        None => match std::env::var_os(MANIFEST_DIR_OVERRIDE) {
            Some(dir) => (PathBuf::from(dir), true),
            None => match std::env::var_os("CARGO_MANIFEST_DIR") {
                Some(dir) => (PathBuf::from(dir), false),
                None => {
                    return Err((
                        err(
                            span,
                            "CARGO_MANIFEST_DIR is not set: include_model! must be expanded by cargo",
                        ),
                        none(),
                    ));
                }
            },
        },
    };
    let full = root.join(&rel);
    let model_file = if overridden {
        ModelFile::Absolute(full.to_string_lossy().into_owned())
    } else {
        ModelFile::ManifestRelative(rel.clone())
    };
    let read = std::fs::metadata(&full).and_then(|m| {
        if m.len() > MAX_FILE_BYTES {
            Err(std::io::Error::other(format!(
                "{} bytes is more than the limit of {MAX_FILE_BYTES}",
                m.len()
            )))
        } else {
            std::fs::read(&full)
        }
    });
    let bytes = read.map_err(|e| {
        (
            err(
                span,
                format!("cannot read model {rel:?} (relative to Cargo.toml): {e}"),
            ),
            none(),
        )
    })?;
    let cg = Codegen {
        module: name.to_string(),
        runtime: parsed.runtime.clone(),
        model_path: rel.clone(),
        model_file,
        budget: parsed.budget.as_ref().map(|(b, _)| *b),
        invoke: parsed.invoke,
        fallback: parsed.fallback.clone(),
        op_marks: parsed.op_marks.clone(),
    };
    // From here on the file exists: track it, so fixing the model recompiles the crate.
    let tracking = match &cg.model_file {
        ModelFile::ManifestRelative(r) => {
            let r = format!("/{r}");
            quote!(
                const _: &[u8] =
                    ::core::include_bytes!(::core::concat!(::core::env!("CARGO_MANIFEST_DIR"), #r));
            )
        }
        ModelFile::Absolute(a) => quote!(
            const _: &[u8] = ::core::include_bytes!(#a);
        ),
    };
    if let (Some(marks), false) = (&parsed.op_marks, parsed.invoke) {
        return Err((
            syn::Error::new_spanned(marks, super::op_marks_without_invoke(marks)),
            tracking,
        ));
    }
    let mut options = parsed.options.clone().with_invoke(parsed.invoke);
    match parsed.overlap {
        Some((true, span)) if !parsed.invoke => {
            return Err((
                err(
                    span,
                    "overlap = true needs invoke = true: only the runtime's own kernels keep the order it relies on",
                ),
                tracking,
            ));
        }
        Some((on, _)) => options.overlaps = on && parsed.invoke,
        None => {}
    }
    let plan = plan_model(&bytes, &options)
        .map_err(|e| (err(span, format!("{rel}: {e}")), tracking.clone()))?;
    Ok(Loaded {
        bytes,
        plan,
        codegen: cg,
        tracking,
    })
}

/// One item of `include_models!`: a group option or a model.
enum GroupItem {
    Arg(Arg),
    Model(Ident, Input),
}

/// The parsed input of `include_models!`.
struct GroupInput {
    items: Vec<GroupItem>,
}

impl Parse for GroupInput {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let mut items = Vec::new();
        while !input.is_empty() {
            let key = Ident::parse_any(input)?;
            if key == "model" && input.peek(syn::token::Paren) {
                let inner;
                syn::parenthesized!(inner in input);
                items.push(GroupItem::Model(key, inner.parse()?));
            } else {
                input.parse::<Token![=]>().map_err(|e| {
                    err(
                        e.span(),
                        "expected `option = value` or `model(\"path\", options)`: include_models!(name = audio, budget = 64 * 1024, model(\"models/kws.tflite\", invoke = true), model(\"models/cmd.tflite\"))",
                    )
                })?;
                let value = if key == "crate" {
                    Value::Path(input.call(syn::Path::parse_mod_style)?)
                } else {
                    Value::Expr(input.parse()?)
                };
                items.push(GroupItem::Arg(Arg { key, value }));
            }
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        Ok(Self { items })
    }
}

/// A placeholder group module after an error, so that the error is the only one.
fn group_stub(name: &Ident, runtime: &syn::Path, members: &[Ident]) -> TokenStream {
    let mut unique: Vec<&Ident> = Vec::new();
    for m in members {
        if !unique.contains(&m) {
            unique.push(m);
        }
    }
    let stubs = unique.into_iter().map(|m| stub(m, runtime));
    quote! {
        #[allow(dead_code)]
        pub mod #name {
            pub const ARENA_BYTES: usize = 0;
            pub const ALIGN: usize = 16;
            pub const PERSISTENT_BYTES: usize = 0;
            pub const RAM_BYTES: usize = 0;
            #[derive(::core::fmt::Debug)]
            pub enum Shared {}
            pub type Arena = #runtime::Arena<Shared, 0>;
            #(#stubs)*
        }
    }
}

/// Expands `include_models!`: several models run one at a time, sharing one arena (see
/// [`super::group`]), given its input and the manifest directory (as [`expand`]).
#[must_use]
pub fn expand_group(input: TokenStream, manifest_dir: Option<&Path>) -> TokenStream {
    let input: GroupInput = match syn::parse2(input) {
        Ok(i) => i,
        Err(e) => return e.into_compile_error(),
    };
    let mut errors: Option<syn::Error> = None;
    let mut push = |e: syn::Error| match &mut errors {
        Some(all) => all.combine(e),
        None => errors = Some(e),
    };
    let mut group: Option<Ident> = None;
    let mut budget: Option<(u64, Expr)> = None;
    let mut runtime: syn::Path = syn::parse_quote!(::stowplan);
    let mut pipes: Vec<LitStr> = Vec::new();
    let mut models: Vec<(Ident, Parsed, Ident)> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for item in input.items {
        match item {
            GroupItem::Arg(Arg { key, value }) => {
                let k = key.unraw().to_string();
                if k != "pipe" && seen.contains(&k) {
                    push(err(key.span(), format!("option `{k}` is given twice")));
                    continue;
                }
                seen.push(k.clone());
                match (k.as_str(), value) {
                    ("pipe", Value::Expr(e)) => match string_value(&e, "pipe") {
                        Ok(s) => pipes.push(s),
                        Err(x) => push(x),
                    },
                    ("name", Value::Expr(Expr::Path(p))) if p.path.get_ident().is_some() => {
                        group = p.path.get_ident().cloned();
                    }
                    ("name", Value::Expr(e)) => push(err(
                        e.span(),
                        "name must be an identifier, such as name = audio",
                    )),
                    ("budget", Value::Expr(e)) => match eval(&e, "budget") {
                        Ok(b) => budget = Some((b, e)),
                        Err(x) => push(x),
                    },
                    ("crate", Value::Path(p)) => runtime = p,
                    (other, _) => push(err(
                        key.span(),
                        format!(
                            "unknown group option `{other}`; a group takes name, budget, crate and pipe, and each model its own options: model(\"models/net.tflite\", {other} = ...)"
                        ),
                    )),
                }
            }
            GroupItem::Model(key, model) => {
                let path_span = model.path.span();
                let stem = Path::new(&model.path.value())
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                for Arg { key, .. } in &model.args {
                    let k = key.unraw().to_string();
                    if k == "budget" || k == "crate" {
                        push(err(
                            key.span(),
                            format!(
                                "a group has one `{k}`, for all its models: give it to the group, include_models!({k} = ..., model(...))"
                            ),
                        ));
                    }
                }
                match parse_args(model) {
                    Ok(parsed) => {
                        let name = parsed.name.clone().unwrap_or_else(|| {
                            Ident::new(&super::names::module_name(&stem), path_span)
                        });
                        models.push((key, parsed, name));
                    }
                    Err(e) => push(e),
                }
            }
        }
    }
    let group = group.unwrap_or_else(|| Ident::new("models", Span::call_site()));
    let member_names: Vec<Ident> = models.iter().map(|(_, _, n)| n.clone()).collect();
    if models.is_empty() {
        push(err(
            Span::call_site(),
            "include_models! needs at least one model(\"path\", options)",
        ));
    }
    if let Some(e) = errors {
        let mut out = e.into_compile_error();
        out.extend(group_stub(&group, &runtime, &member_names));
        return out;
    }
    let names: Vec<String> = member_names.iter().map(ToString::to_string).collect();
    let mut parsed_pipes = Vec::new();
    for spec in &pipes {
        match crate::pipeline::parse_pipe(&spec.value(), &names) {
            Ok(p) => parsed_pipes.push(p),
            Err(e) => {
                let mut out = err(spec.span(), e).into_compile_error();
                out.extend(group_stub(&group, &runtime, &member_names));
                return out;
            }
        }
    }
    let mut loaded = Vec::new();
    let mut tracking = TokenStream::new();
    let mut failure: Option<syn::Error> = None;
    for (_, parsed, name) in &models {
        match load(parsed, name, manifest_dir) {
            Ok(l) => {
                tracking.extend(l.tracking.clone());
                loaded.push(l);
            }
            Err((e, t)) => {
                tracking.extend(t);
                match &mut failure {
                    Some(all) => all.combine(e),
                    None => failure = Some(e),
                }
            }
        }
    }
    let fail = |e: syn::Error, tracking: TokenStream| {
        let mut out = e.into_compile_error();
        out.extend(group_stub(&group, &runtime, &member_names));
        out.extend(tracking);
        out
    };
    if let Some(e) = failure {
        return fail(e, tracking);
    }
    let (mut plans, files): (Vec<crate::ModelPlan>, Vec<(Vec<u8>, Codegen)>) = loaded
        .into_iter()
        .map(|l| (l.plan, (l.bytes, l.codegen)))
        .unzip();
    let joint = if parsed_pipes.is_empty() {
        None
    } else {
        let planner = models
            .first()
            .map_or_else(Planner::default, |m| m.1.options.planner);
        match crate::pipeline::plan_pipeline(
            &mut plans,
            &names,
            &parsed_pipes,
            &crate::plan::Settings::new(planner),
        ) {
            Ok(j) => Some(j),
            Err(e) => {
                let span = pipes.first().map_or_else(Span::call_site, LitStr::span);
                return fail(err(span, e), tracking);
            }
        }
    };
    let members: Vec<super::group::Member<'_>> = plans
        .iter()
        .zip(&files)
        .map(|(plan, (bytes, codegen))| super::group::Member {
            plan,
            bytes,
            codegen: codegen.clone(),
        })
        .collect();
    match super::group::generate_group(
        &group.to_string(),
        &runtime,
        budget.as_ref().map(|(b, _)| *b),
        &members,
        joint.as_ref().map(|j| (parsed_pipes.as_slice(), j)),
    ) {
        Ok(tokens) => tokens,
        Err(e) => {
            let error = match (&e, &budget) {
                (GenerateError::OverBudget { .. }, Some((_, b))) => syn::Error::new_spanned(b, e),
                _ => err(
                    models.first().map_or_else(Span::call_site, |m| m.0.span()),
                    e,
                ),
            };
            fail(error, tracking)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_arithmetic() {
        let e: Expr = syn::parse_quote!(48 * 1024);
        assert_eq!(eval(&e, "budget").unwrap(), 49_152);
        let e: Expr = syn::parse_quote!((1 << 16) - 256);
        assert_eq!(eval(&e, "budget").unwrap(), 65_280);
        let e: Expr = syn::parse_quote!(1 << 70);
        assert!(eval(&e, "budget").is_err());
        let e: Expr = syn::parse_quote!("8 kib");
        assert_eq!(eval(&e, "budget").unwrap(), 8_192);
        let e: Expr = syn::parse_quote!(BUDGET);
        assert!(
            eval(&e, "budget")
                .unwrap_err()
                .to_string()
                .contains("cannot read the value of a named constant such as `BUDGET`")
        );
    }
}
