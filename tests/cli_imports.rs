//! No import cycle among the files of `src/cli` (issue 31): the command's layers are
//! `args` (clap types) → `options` (one options value per subcommand) → the subcommands →
//! `entry` (the one place exit codes are decided), and a file that imports, through others,
//! one that imports it back means the layers have run into each other.
//!
//! The graph is read from the source text, as a reviewer would grep it: every path that
//! names another module of the command (`super::x`, `crate::cli::x`, `use super::{x, y}`,
//! and in `mod.rs` any `x::`), outside `#[cfg(test)]` modules. A folder module (`bench/`,
//! `animate/`, `args/`) is one node: its files are one idea, and the parent file of a
//! folder module names its children by design.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The top-level modules of `src/cli`: `x.rs` or `x/` (with `mod.rs` or beside `x.rs`).
fn modules(cli: &Path) -> BTreeSet<String> {
    fs::read_dir(cli)
        .expect("src/cli")
        .map(|e| e.expect("entry").path())
        .filter_map(|p| {
            if p.is_dir() {
                p.file_name().map(|s| s.to_string_lossy().into_owned())
            } else if p.extension().is_some_and(|e| e == "rs") {
                p.file_stem().map(|s| s.to_string_lossy().into_owned())
            } else {
                None
            }
        })
        .filter(|m| m != "mod")
        .collect()
}

/// Every `.rs` file under `dir`.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).expect("a readable folder") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The text of a file without its `#[cfg(test)]` module (tests may import anything) and
/// without comments (a doc may name a module it does not import).
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => text,
    };
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The identifier at the start of `s`.
fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The first identifier of each comma-separated item of a `{...}` group that starts `s`.
fn group_heads(s: &str) -> Vec<String> {
    let mut heads = Vec::new();
    let (mut depth, mut start) = (0usize, 1usize);
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' | ',' if depth == 1 => {
                heads.push(ident(s[start..].trim_start()).to_string());
                start = i + 1;
                if c == '}' {
                    break;
                }
            }
            '}' => depth -= 1,
            _ => {}
        }
    }
    heads
}

/// The modules of `names` that `code` refers to after `prefix` (`super::`, `cli::`).
fn after(code: &str, prefix: &str, names: &BTreeSet<String>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (i, _) in code.match_indices(prefix) {
        // A whole path segment: `cli::` in `crate::cli::x`, not in `mycli::x`.
        let before = code[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[i + prefix.len()..];
        let heads = if rest.starts_with('{') {
            group_heads(rest)
        } else {
            vec![ident(rest).to_string()]
        };
        found.extend(heads.into_iter().filter(|h| names.contains(h)));
    }
    found
}

/// The import graph: module -> the modules it names.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let cli = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cli");
    let names = modules(&cli);
    let mut all = Vec::new();
    files(&cli, &mut all);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in all {
        let rel = path.strip_prefix(&cli).expect("under src/cli");
        let parts: Vec<String> = rel
            .iter()
            .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
            .collect();
        // src/cli/mod.rs is the module `cli` itself; src/cli/x.rs and src/cli/x/... are x.
        let node = if parts == ["mod"] {
            "cli".to_string()
        } else {
            parts[0].clone()
        };
        let text = code(&fs::read_to_string(&path).expect("a readable file"));
        // `crate::cli::x`, or `cli::x` after `use crate::cli;`.
        let mut refs = after(&text, "cli::", &names);
        if parts.len() == 1 || parts[1..] == ["mod"] {
            // A file directly in src/cli, or a folder's mod.rs: `super::` is `cli`, the
            // parent of its siblings.
            refs.extend(after(&text, "super::", &names));
            if node == "cli" {
                // mod.rs names its children without a prefix.
                for name in &names {
                    if text.contains(&format!("{name}::")) {
                        refs.insert(name.clone());
                    }
                }
            }
        } else {
            // Another file of a folder module: `super::super::` is `cli`.
            refs.extend(after(&text, "super::super::", &names));
        }
        refs.remove(&node);
        graph.entry(node).or_default().extend(refs);
    }
    graph
}

/// A cycle of `graph`, if it has one (depth-first search, grey/black marks).
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        done: &mut BTreeSet<String>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == node) {
            let mut c = path[i..].to_vec();
            c.push(node.to_string());
            return Some(c);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(c) = visit(next, graph, done, path) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|n| visit(n, graph, &mut done, &mut Vec::new()))
}

#[test]
fn no_file_of_the_command_imports_one_that_imports_it() {
    let g = graph();
    for (module, imports) in &g {
        println!("{module} -> {imports:?}"); // shown with --nocapture
    }
    // The reader must see the edges it is there to see, or the test proves nothing.
    assert!(g["count"].contains("options"), "{g:?}");
    assert!(
        g["entry"].contains("options") && g["entry"].contains("count"),
        "{g:?}"
    );
    assert!(g["options"].contains("args"), "{g:?}");
    if let Some(c) = cycle(&g) {
        panic!("import cycle among src/cli files: {}", c.join(" -> "));
    }
}

#[test]
fn the_clap_types_import_nothing_of_the_command_but_value_types() {
    let g = graph();
    let allowed: BTreeSet<String> = ["render"].iter().map(|s| s.to_string()).collect();
    let extra: Vec<&String> = g["args"].difference(&allowed).collect();
    assert!(extra.is_empty(), "args imports {extra:?}");
}

#[test]
fn the_cycle_finder_finds_a_cycle() {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    g.insert("a".into(), ["b".to_string()].into());
    g.insert("b".into(), ["c".to_string()].into());
    g.insert("c".into(), ["a".to_string()].into());
    assert_eq!(cycle(&g).expect("a cycle").len(), 4);
    g.insert("c".into(), BTreeSet::new());
    assert_eq!(cycle(&g), None);
}
