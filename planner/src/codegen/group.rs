//! Groups: several models run one at a time, sharing one arena.
//!
//! A group's module holds each model's module as it is generated alone (its slots, ops,
//! `invoke`, its own persistent region), and one shared arena as large as the largest model's:
//!
//! - `ARENA_BYTES` (the largest arena), `ALIGN` (the largest alignment), `PERSISTENT_BYTES` (the
//!   sum of the models' states: state is never shared), `RAM_BYTES`, `SEPARATE_ARENA_BYTES` (what
//!   the arenas take apart), `MODELS` (the models' module names);
//! - `Shared`, the group's marker; `Arena` and `StaticArena`, the shared arena's types;
//! - for each model `m`, `impl Member<Shared> for m::Activations` and `pub fn m(&mut Arena) ->
//!   &mut m::Arena`: the shared bytes as that model's arena, borrowed from the shared one, so
//!   that two models' arenas (and views) are never alive at once, and a slot of one model fits
//!   no other model's arena;
//! - the budget check, over the shared arena and every model's state.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{Codegen, GenerateError, generate, over_budget_message, ulit};
use crate::ModelPlan;
use crate::emit::thousands;
use crate::pipeline::{Joint, Pipe};

/// One model of a group: its plan, its file and how to generate it (its `budget` is ignored:
/// the group has one).
#[derive(Clone, Debug)]
pub struct Member<'a> {
    /// The model's plan.
    pub plan: &'a ModelPlan,
    /// The model file.
    pub bytes: &'a [u8],
    /// Its module name, file and options.
    pub codegen: Codegen,
}

/// Names a group's module defines itself, which its models' modules may not take.
const RESERVED: [&str; 12] = [
    "ARENA_BYTES",
    "ALIGN",
    "PERSISTENT_BYTES",
    "RAM_BYTES",
    "SEPARATE_ARENA_BYTES",
    "MODELS",
    "Shared",
    "Arena",
    "StaticArena",
    "BUDGET_BYTES",
    "HANDOVER_BYTES",
    "self",
];

/// The group's figures: the shared arena, the model whose arena it is, the state of all.
fn figures(members: &[Member<'_>]) -> (u64, usize, u64, u64) {
    let mut shared = 0;
    let mut largest = 0;
    for (i, m) in members.iter().enumerate() {
        if m.plan.arena_bytes() > shared {
            shared = m.plan.arena_bytes();
            largest = i;
        }
    }
    let state = members
        .iter()
        .fold(0u64, |s, m| s.saturating_add(m.plan.persistent_bytes));
    let separate = members
        .iter()
        .fold(0u64, |s, m| s.saturating_add(m.plan.arena_bytes()));
    (shared, largest, state, separate)
}

/// The message for a group over budget: the shared arena and the state, the model whose arena
/// sets the shared one, and where its peak is.
#[must_use]
pub fn group_over_budget_message(group: &str, members: &[Member<'_>], budget: u64) -> String {
    let (shared, largest, state, _) = figures(members);
    let ram = shared.saturating_add(state);
    let Some(m) = members.get(largest) else {
        return format!("group `{group}` has no model");
    };
    let others_state = state.saturating_sub(m.plan.persistent_bytes);
    format!(
        "group `{group}` needs {} bytes of RAM (the shared arena of {}, which is model `{}`'s, + state {} of all its models) but the budget is {} (over by {}); model `{}`: {}",
        thousands(ram),
        thousands(shared),
        m.codegen.module,
        thousands(state),
        thousands(budget),
        thousands(ram.saturating_sub(budget)),
        m.codegen.module,
        over_budget_message(m.plan, budget.saturating_sub(others_state))
    )
}

/// Generates the module `group` of these models sharing one arena; see the [module docs](self).
///
/// # Errors
///
/// [`GenerateError::Group`] for a group without models, two models of one module name, a name
/// the group's module uses itself, or a model's arena that cannot be lent (not a multiple of 16
/// bytes); [`GenerateError::OverBudget`] when the shared arena and the states exceed `budget`;
/// what [`generate`] returns for a model.
pub fn generate_group(
    group: &str,
    runtime: &syn::Path,
    budget: Option<u64>,
    members: &[Member<'_>],
    pipeline: Option<(&[Pipe], &Joint)>,
) -> Result<TokenStream, GenerateError> {
    let bad = |message: String| GenerateError::Group { message };
    if members.is_empty() {
        return Err(bad(format!("group `{group}` has no model")));
    }
    for (i, m) in members.iter().enumerate() {
        let name = &m.codegen.module;
        if members.iter().take(i).any(|o| &o.codegen.module == name) {
            return Err(bad(format!(
                "group `{group}` has two models named `{name}`: give one another `name`"
            )));
        }
        if RESERVED.contains(&name.as_str()) || name == group {
            return Err(bad(format!(
                "group `{group}`: a model may not be named `{name}`, which the group's module uses itself; give it another `name`"
            )));
        }
        if m.plan.arena_bytes() % 16 != 0 {
            return Err(bad(format!(
                "group `{group}`: model `{name}`'s arena of {} bytes is not a multiple of 16, so it cannot share the group's arena (it has `align = {}`); plan it with `align = 16`",
                thousands(m.plan.arena_bytes()),
                m.plan.problem.alignment()
            )));
        }
    }
    if let Some(b) = budget {
        let (shared, _, state, _) = figures(members);
        if shared.saturating_add(state) > b {
            return Err(GenerateError::OverBudget {
                message: group_over_budget_message(group, members, b),
            });
        }
    }
    let mut modules = Vec::new();
    for m in members {
        let cg = Codegen {
            budget: None,
            runtime: runtime.clone(),
            ..m.codegen.clone()
        };
        modules.push(generate(m.plan, m.bytes, &cg)?);
    }
    let (shared, largest, state, separate) = figures(members);
    let align = members
        .iter()
        .map(|m| m.plan.problem.alignment())
        .max()
        .unwrap_or(16)
        .max(16);
    let rt = runtime;
    let module = format_ident!("{group}");
    let names: Vec<syn::Ident> = members
        .iter()
        .map(|m| format_ident!("{}", m.codegen.module))
        .collect();
    let name_strs: Vec<&str> = members.iter().map(|m| m.codegen.module.as_str()).collect();
    let address_align = (align > 16).then(|| {
        let a = ulit(align);
        quote!(, #a)
    });
    let (shared_lit, separate_lit, align_lit) = (ulit(shared), ulit(separate), ulit(align));
    let state_sum = names.iter().map(|n| quote!(#n::PERSISTENT_BYTES));
    let checks = names.iter().map(|n| {
        let msg = format!("model `{n}`'s arena is larger than the group's");
        quote!(
            const _: () = ::core::assert!(#n::ARENA_BYTES <= ARENA_BYTES, #msg);
        )
    });
    let lenders = members.iter().zip(&names).map(|(m, n)| {
        let doc = format!(
            " The shared arena as `{n}`'s arena ({} of its {} bytes), borrowed from it: no other model's arena or views can be used meanwhile.",
            thousands(m.plan.arena_bytes()),
            thousands(shared)
        );
        quote! {
            impl #rt::Member<Shared> for #n::Activations {}
            #[doc = #doc]
            #[inline]
            pub fn #n(arena: &mut Arena) -> &mut #n::Arena {
                arena.lend()
            }
        }
    });
    let budget_check = budget.map(|b| {
        let b_lit = syn::LitInt::new(&format!("{b}_u64"), proc_macro2::Span::call_site());
        let msg = format!(
            "group `{group}` needs more RAM than its budget of {} bytes",
            thousands(b)
        );
        quote! {
            /// The budget: the shared arena and every model's state must fit it.
            pub const BUDGET_BYTES: u64 = #b_lit;
            const _: () = ::core::assert!(RAM_BYTES as u64 <= #b_lit, #msg);
        }
    });
    let mut docs = vec![
        format!(
            " Models `{}`, run one at a time, sharing one arena.",
            name_strs.join("`, `")
        ),
        String::new(),
        " | model | file | arena | state |".to_owned(),
        " |---|---|--:|--:|".to_owned(),
    ];
    for (i, m) in members.iter().enumerate() {
        docs.push(format!(
            " | `{}`{} | `{}` | {} | {} |",
            m.codegen.module,
            if i == largest { " (largest)" } else { "" },
            m.codegen.model_path,
            thousands(m.plan.arena_bytes()),
            thousands(m.plan.persistent_bytes)
        ));
    }
    docs.extend([
        String::new(),
        format!(
            " Shared arena {} bytes against {} for separate arenas (saving {}); state {} (each model's own); RAM {}{}.",
            thousands(shared),
            thousands(separate),
            thousands(separate.saturating_sub(shared)),
            thousands(state),
            thousands(shared.saturating_add(state)),
            budget.map_or_else(String::new, |b| format!(", budget {}", thousands(b)))
        ),
        String::new(),
        format!(
            " Each model's module is as if generated alone; `{group}::{}(&mut arena)` gives the shared arena as its arena.",
            name_strs.first().copied().unwrap_or_default()
        ),
    ]);
    let mut handover_checks = Vec::new();
    if let Some((pipes, joint)) = pipeline {
        docs.push(String::new());
        docs.push(
            " Pipeline (each left in place, planned on one timeline with the rest):".to_owned(),
        );
        docs.push(String::new());
        for p in pipes {
            let (Some(a), Some(b)) = (names.get(p.from), names.get(p.to)) else {
                continue;
            };
            docs.push(format!(
                " - `{b}`'s input {} is `{a}`'s output {}",
                p.input, p.output
            ));
            let out = format_ident!("OUTPUT_{}", p.output);
            let inp = format_ident!("INPUT_{}", p.input);
            let msg = format!(
                "`{b}`'s input {} is not where `{a}` leaves its output {}",
                p.input, p.output
            );
            handover_checks.push(quote! {
                const _: () = ::core::assert!(
                    #a::outputs::#out.offset() == #b::inputs::#inp.offset()
                        && #a::outputs::#out.bytes() == #b::inputs::#inp.bytes(),
                    #msg
                );
            });
        }
        docs.push(String::new());
        docs.push(format!(
            " Arena {} bytes, against {} for separate arenas and {} for the larger arena plus the {} bytes handed over (the {} plan).",
            thousands(joint.arena_bytes),
            thousands(joint.separate_bytes),
            thousands(joint.larger_plus_handover_bytes),
            thousands(joint.handover_bytes),
            joint.kept
        ));
    }
    let handover_const = pipeline.map(|(_, joint)| {
        let h = ulit(joint.handover_bytes);
        quote! {
            /// Bytes one model leaves in place for another (the pipeline's hand-overs).
            pub const HANDOVER_BYTES: usize = #h;
        }
    });
    let arena_doc = format!(
        " The shared arena, exactly `ARENA_BYTES` long, its address aligned to {align} bytes."
    );
    Ok(quote! {
        #(#[doc = #docs])*
        #[allow(clippy::all, clippy::pedantic, dead_code)]
        pub mod #module {
            /// Bytes of the shared arena: the largest of the models' arenas.
            pub const ARENA_BYTES: usize = #shared_lit;
            /// Alignment of the shared arena's address: the largest of the models'.
            pub const ALIGN: usize = #align_lit;
            /// Bytes of state: every model keeps its own persistent region.
            pub const PERSISTENT_BYTES: usize = 0 #(+ #state_sum)*;
            /// Bytes of RAM the group needs: the shared arena and every model's state.
            pub const RAM_BYTES: usize = ARENA_BYTES + PERSISTENT_BYTES;
            /// Bytes the models' arenas would take apart.
            pub const SEPARATE_ARENA_BYTES: usize = #separate_lit;
            /// The models' modules, in the order given.
            pub const MODELS: &[&str] = &[#(#name_strs),*];
            /// Marker of the shared arena.
            #[derive(::core::fmt::Debug)]
            pub enum Shared {}
            #[doc = #arena_doc]
            pub type Arena = #rt::Arena<Shared, ARENA_BYTES #address_align>;
            /// The shared arena in a `static`, handed out once (its zero bytes go to `.bss`).
            pub type StaticArena = #rt::StaticArena<Shared, ARENA_BYTES #address_align>;
            #(#checks)*
            #handover_const
            #(#handover_checks)*
            #budget_check
            #(#lenders)*
            #(#modules)*
        }
    })
}
