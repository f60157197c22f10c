//! Import circles in a crate's modules: for every directory module `D` (the crate root, a
//! `mod.rs`, or a file with submodules), its child modules are the nodes; a reference from code
//! under child `A` to an item under child `B ≠ A` (a `use` path, or a path in code starting with
//! `crate::`, `super::` or `self::`, resolved through the modules' imports and re-exports) is an
//! edge `A → B`. A strongly connected component of more than one child is a circle. References
//! to `D`'s own items (defined in `D`'s file, not in a child) are not edges.
//!
//! The files are read with `syn`: comments, strings and doc comments never count. Test code
//! (`#[cfg(test)]` items) counts as any other: a test of a lower module that needs a higher one
//! belongs beside the higher one, or in the integration tests.
//!
//! A name that is both a child module and an item of its parent (a function `kind` beside a
//! module `kind`) is read as the module: the check may see an edge the compiler does not, never
//! miss one, and such names confuse readers as much.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use proc_macro2::{Spacing, TokenStream, TokenTree};
use quote::ToTokens;

/// One import: `name` stands for `target`, a path written in module `context`.
#[derive(Clone, Debug)]
struct Import {
    context: Vec<String>,
    target: Vec<String>,
}

/// One module of the crate, file or inline.
#[derive(Debug, Default)]
struct Module {
    /// Child modules by name.
    children: BTreeSet<String>,
    /// Names brought in by `use`, by the name they bind.
    imports: BTreeMap<String, Import>,
    /// `use path::*`.
    globs: Vec<Import>,
    /// Items defined here (functions, types, constants, macros, ..).
    items: BTreeSet<String>,
    /// Excluded: its files are not read, nothing of its insides is known.
    opaque: bool,
}

/// A path written in a module's code.
#[derive(Clone, Debug)]
struct Reference {
    /// The module whose code holds it.
    from: Vec<String>,
    /// The file it is in, relative to the crate's `src/`.
    file: String,
    /// Its segments as written (`crate`, `super`, `self` or a name first).
    path: Vec<String>,
}

/// An edge of a circle: `from → to`, with one reference that makes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The referring child.
    pub from: String,
    /// The referred child.
    pub to: String,
    /// `file: path` of one reference that makes the edge.
    pub example: String,
}

/// A circle among the child modules of one directory module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Circle {
    /// The directory module (`crate`, `crate::ops`).
    pub module: String,
    /// Its children in the circle, sorted.
    pub members: Vec<String>,
    /// The edges among them, each with an example.
    pub edges: Vec<Edge>,
}

impl fmt::Display for Circle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "in `{}`: {}", self.module, self.members.join(" ↔ "))?;
        for e in &self.edges {
            writeln!(f, "    {} → {}  ({})", e.from, e.to, e.example)?;
        }
        Ok(())
    }
}

/// The crate being read.
struct Crate {
    src: PathBuf,
    exclude: Vec<String>,
    modules: BTreeMap<Vec<String>, Module>,
    references: Vec<Reference>,
}

/// The import circles of the crate whose root file is `root` (`src/lib.rs`). A file or
/// directory whose name is in `exclude` (`tflite_generated.rs`, a directory linked from another
/// crate) is not read: its module is a node whose insides are unknown.
///
/// # Errors
///
/// A file that cannot be read or parsed, or a module whose file is missing.
pub fn circles(root: &Path, exclude: &[&str]) -> Result<Vec<Circle>, String> {
    let src = root
        .parent()
        .ok_or_else(|| format!("{} has no directory", root.display()))?
        .to_path_buf();
    let mut c = Crate {
        src,
        exclude: exclude.iter().map(|s| (*s).to_owned()).collect(),
        modules: BTreeMap::new(),
        references: Vec::new(),
    };
    c.read_file(root, &[], true)?;
    Ok(c.circles())
}

/// `circles`, formatted for a test failure: empty when there is none.
///
/// # Errors
///
/// As [`circles`].
pub fn report(root: &Path, exclude: &[&str]) -> Result<String, String> {
    Ok(circles(root, exclude)?
        .iter()
        .map(ToString::to_string)
        .collect())
}

fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .any(|a| a.path().is_ident("cfg") && a.meta.to_token_stream().to_string().contains("test"))
}

fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match &a.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

impl Crate {
    fn excluded(&self, path: &Path) -> bool {
        path.components().any(|c| {
            self.exclude
                .iter()
                .any(|e| c.as_os_str() == std::ffi::OsStr::new(e))
        })
    }

    fn rel(&self, file: &Path) -> String {
        file.strip_prefix(&self.src)
            .unwrap_or(file)
            .display()
            .to_string()
    }

    /// Reads the file of module `module`; `mod_rs` when its submodules' files lie beside it
    /// (`lib.rs`, `mod.rs`) rather than in a folder of its name.
    fn read_file(&mut self, file: &Path, module: &[String], mod_rs: bool) -> Result<(), String> {
        self.modules.entry(module.to_vec()).or_default();
        if self.excluded(file) {
            if let Some(m) = self.modules.get_mut(module) {
                m.opaque = true;
            }
            return Ok(());
        }
        let text = std::fs::read_to_string(file)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        let parsed =
            syn::parse_file(&text).map_err(|e| format!("cannot parse {}: {e}", file.display()))?;
        let dir = if mod_rs {
            file.parent().map(Path::to_path_buf).unwrap_or_default()
        } else {
            let stem = file.file_stem().unwrap_or_default();
            file.parent().unwrap_or(Path::new("")).join(stem)
        };
        let rel = self.rel(file);
        self.read_items(&parsed.items, module, &dir, &rel)
    }

    fn read_items(
        &mut self,
        items: &[syn::Item],
        module: &[String],
        dir: &Path,
        file: &str,
    ) -> Result<(), String> {
        for item in items {
            match item {
                syn::Item::Mod(m) => {
                    let name = m.ident.to_string();
                    let mut child = module.to_vec();
                    child.push(name.clone());
                    self.modules
                        .entry(module.to_vec())
                        .or_default()
                        .children
                        .insert(name.clone());
                    if let Some((_, content)) = &m.content {
                        // Inline: its submodules' files in a folder of its name.
                        self.modules.entry(child.clone()).or_default();
                        self.read_items(content, &child, &dir.join(&name), file)?;
                        continue;
                    }
                    let path = if let Some(p) = path_attr(&m.attrs) {
                        dir.join(p)
                    } else if dir.join(format!("{name}.rs")).is_file() {
                        dir.join(format!("{name}.rs"))
                    } else {
                        dir.join(&name).join("mod.rs")
                    };
                    if !path.is_file() && !self.excluded(&path) {
                        if is_test_only(&m.attrs) {
                            continue;
                        }
                        return Err(format!(
                            "module `{}` of {file}: no file {}",
                            child.join("::"),
                            path.display()
                        ));
                    }
                    let mod_rs = path.file_name().is_some_and(|n| n == "mod.rs");
                    self.read_file(&path, &child, mod_rs)?;
                }
                syn::Item::Use(u) => {
                    let mut leaves = Vec::new();
                    use_leaves(&u.tree, &mut Vec::new(), &mut leaves);
                    let m = self.modules.entry(module.to_vec()).or_default();
                    for leaf in leaves {
                        let import = Import {
                            context: module.to_vec(),
                            target: leaf.path.clone(),
                        };
                        match leaf.binds {
                            Binds::Name(n) => {
                                m.imports.insert(n, import);
                            }
                            Binds::Glob => m.globs.push(import),
                            Binds::Nothing => {}
                        }
                        self.references.push(Reference {
                            from: module.to_vec(),
                            file: file.to_owned(),
                            path: leaf.path,
                        });
                    }
                }
                other => {
                    if let Some(name) = item_name(other) {
                        self.modules
                            .entry(module.to_vec())
                            .or_default()
                            .items
                            .insert(name);
                    }
                    let tokens = other.to_token_stream();
                    scan(tokens, &mut |path| {
                        self.references.push(Reference {
                            from: module.to_vec(),
                            file: file.to_owned(),
                            path,
                        });
                    });
                }
            }
        }
        Ok(())
    }

    /// The module a path written in `context` reaches (the module of the item it names), and
    /// whether it names that module itself; `None` for another crate's path.
    fn resolve(
        &self,
        context: &[String],
        path: &[String],
        depth: u32,
    ) -> Option<(Vec<String>, bool)> {
        if depth > 32 {
            return None;
        }
        let (first, rest) = path.split_first()?;
        let (mut at, rest) = match first.as_str() {
            "crate" | "$crate" => (Vec::new(), rest),
            "self" => (context.to_vec(), rest),
            "super" => {
                let mut at = context.to_vec();
                at.pop()?;
                let mut rest = rest;
                while rest.first().is_some_and(|s| s == "super") {
                    at.pop()?;
                    rest = rest.get(1..).unwrap_or(&[]);
                }
                (at, rest)
            }
            name => {
                // A name in scope in `context`, or another crate.
                let m = self.modules.get(context)?;
                if !(m.children.contains(name)
                    || m.imports.contains_key(name)
                    || m.items.contains(name))
                {
                    return None;
                }
                (context.to_vec(), path)
            }
        };
        let mut rest = rest;
        while let Some((s, tail)) = rest.split_first() {
            let Some(m) = self.modules.get(&at) else {
                return Some((at, false));
            };
            if m.opaque {
                return Some((at, false));
            }
            if m.children.contains(s) {
                at.push(s.clone());
                rest = tail;
                continue;
            }
            if m.items.contains(s) {
                return Some((at, false));
            }
            if let Some(i) = m.imports.get(s) {
                let (to, module) = self.resolve(&i.context, &i.target, depth + 1)?;
                if !module {
                    return Some((to, false));
                }
                at = to;
                rest = tail;
                continue;
            }
            // Through a glob import: the first module whose names hold it.
            let through = m.globs.iter().find_map(|g| {
                let (to, module) = self.resolve(&g.context, &g.target, depth + 1)?;
                let n = self.modules.get(&to)?;
                (module
                    && (n.children.contains(s) || n.items.contains(s) || n.imports.contains_key(s)))
                .then_some(to)
            });
            match through {
                Some(to) => {
                    let mut p = vec!["crate".to_owned()];
                    p.extend(to);
                    p.extend(rest.iter().cloned());
                    return self.resolve(&[], &p, depth + 1);
                }
                None => return Some((at, false)),
            }
        }
        Some((at, true))
    }

    fn circles(&self) -> Vec<Circle> {
        // Edges by directory module: (from, to) → an example.
        let mut edges: BTreeMap<Vec<String>, BTreeMap<(String, String), String>> = BTreeMap::new();
        for r in &self.references {
            let Some((to, _)) = self.resolve(&r.from, &r.path, 0) else {
                continue;
            };
            let common = r.from.iter().zip(&to).take_while(|(a, b)| a == b).count();
            let (Some(a), Some(b)) = (r.from.get(common), to.get(common)) else {
                continue;
            };
            let dir = r.from.get(..common).unwrap_or(&[]).to_vec();
            edges
                .entry(dir)
                .or_default()
                .entry((a.clone(), b.clone()))
                .or_insert_with(|| format!("{}: {}", r.file, r.path.join("::")));
        }
        let mut out = Vec::new();
        for (dir, es) in &edges {
            let nodes: BTreeSet<&String> = es.keys().flat_map(|(a, b)| [a, b]).collect();
            let nodes: Vec<&String> = nodes.into_iter().collect();
            let index = |n: &String| nodes.iter().position(|m| *m == n).unwrap_or(0);
            let mut adj = vec![Vec::new(); nodes.len()];
            for (a, b) in es.keys() {
                adj[index(a)].push(index(b));
            }
            for component in tarjan(&adj) {
                if component.len() < 2 {
                    continue;
                }
                let mut members: Vec<String> =
                    component.iter().map(|&i| nodes[i].clone()).collect();
                members.sort();
                let inside: BTreeSet<&String> = members.iter().collect();
                let edges = es
                    .iter()
                    .filter(|((a, b), _)| inside.contains(a) && inside.contains(b))
                    .map(|((a, b), example)| Edge {
                        from: a.clone(),
                        to: b.clone(),
                        example: example.clone(),
                    })
                    .collect();
                let mut module = vec!["crate".to_owned()];
                module.extend(dir.iter().cloned());
                out.push(Circle {
                    module: module.join("::"),
                    members,
                    edges,
                });
            }
        }
        out
    }
}

/// Tarjan's strongly connected components of a graph given by adjacency lists.
fn tarjan(adj: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct State<'a> {
        adj: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State<'_>, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in &s.adj[v] {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(i) if s.on_stack[w] => s.low[v] = s.low[v].min(i),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            s.out.push(component);
        }
    }
    let n = adj.len();
    let mut s = State {
        adj,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}

/// What a `use` leaf binds.
enum Binds {
    Name(String),
    Glob,
    Nothing,
}

/// One leaf of a `use` tree: its whole path and the name it binds.
struct Leaf {
    path: Vec<String>,
    binds: Binds,
}

fn use_leaves(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<Leaf>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_leaves(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            if name == "self" {
                out.push(Leaf {
                    path: prefix.clone(),
                    binds: prefix.last().cloned().map_or(Binds::Nothing, Binds::Name),
                });
            } else {
                let mut path = prefix.clone();
                path.push(name.clone());
                out.push(Leaf {
                    path,
                    binds: Binds::Name(name),
                });
            }
        }
        syn::UseTree::Rename(r) => {
            let mut path = prefix.clone();
            let ident = r.ident.to_string();
            if ident != "self" {
                path.push(ident);
            }
            let rename = r.rename.to_string();
            out.push(Leaf {
                path,
                binds: if rename == "_" {
                    Binds::Nothing
                } else {
                    Binds::Name(rename)
                },
            });
        }
        syn::UseTree::Glob(_) => out.push(Leaf {
            path: prefix.clone(),
            binds: Binds::Glob,
        }),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_leaves(t, prefix, out);
            }
        }
    }
}

fn item_name(item: &syn::Item) -> Option<String> {
    Some(
        match item {
            syn::Item::Const(i) => &i.ident,
            syn::Item::Enum(i) => &i.ident,
            syn::Item::ExternCrate(i) => &i.ident,
            syn::Item::Fn(i) => &i.sig.ident,
            syn::Item::Macro(i) => i.ident.as_ref()?,
            syn::Item::Static(i) => &i.ident,
            syn::Item::Struct(i) => &i.ident,
            syn::Item::Trait(i) => &i.ident,
            syn::Item::TraitAlias(i) => &i.ident,
            syn::Item::Type(i) => &i.ident,
            syn::Item::Union(i) => &i.ident,
            _ => return None,
        }
        .to_string(),
    )
}

/// Every path in `tokens` that starts with `crate`, `super` or `self` and goes on with `::`,
/// and every leaf of a `use` written inside code (a function's imports).
fn scan(tokens: TokenStream, found: &mut dyn FnMut(Vec<String>)) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while let Some(t) = trees.get(i) {
        match t {
            TokenTree::Group(g) => {
                scan(g.stream(), found);
                i += 1;
            }
            TokenTree::Ident(id) if id == "use" => {
                // Up to the `;`: a `use` tree.
                let end = trees[i + 1..]
                    .iter()
                    .position(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ';'))
                    .map_or(trees.len(), |p| i + 1 + p);
                let stream: TokenStream = trees[i + 1..end].iter().cloned().collect();
                if let Ok(tree) = syn::parse2::<syn::UseTree>(stream) {
                    let mut leaves = Vec::new();
                    use_leaves(&tree, &mut Vec::new(), &mut leaves);
                    for leaf in leaves {
                        found(leaf.path);
                    }
                }
                i = end + 1;
            }
            TokenTree::Ident(id) if id == "crate" || id == "super" || id == "self" => {
                let after_colons = i > 1
                    && matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == ':')
                    && matches!(&trees[i - 2], TokenTree::Punct(p) if p.as_char() == ':');
                let dollar =
                    i > 0 && matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == '$');
                let mut path = vec![if dollar {
                    "$crate".to_owned()
                } else {
                    id.to_string()
                }];
                let mut j = i + 1;
                while let (
                    Some(TokenTree::Punct(a)),
                    Some(TokenTree::Punct(b)),
                    Some(TokenTree::Ident(n)),
                ) = (trees.get(j), trees.get(j + 1), trees.get(j + 2))
                {
                    if a.as_char() != ':' || a.spacing() != Spacing::Joint || b.as_char() != ':' {
                        break;
                    }
                    path.push(n.to_string());
                    j += 3;
                }
                if path.len() > 1 && !after_colons {
                    found(path);
                }
                i = j;
            }
            _ => i += 1,
        }
    }
}
