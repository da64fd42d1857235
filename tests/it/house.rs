//! The house by stage (issue 46): the file-level import graph of `src/`, read from the code's
//! own paths (`crate::…`, `super::…`), has no circle, and no file imports from a stage after
//! its own. A module naming its own submodules (a `mod.rs` re-exporting them) contains them and
//! is not counted as importing them. The stages are the top-level modules in the order of the
//! data's path (docs/internals.md, "The data's path"); a test module is outside the graph, as
//! it imports what it tests.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::common::crate_path;

/// The stages, first to last: a file may import from its own stage and the ones before it.
/// `collect` writes through the gate, so it stands on `input`; nothing but the program uses it.
const STAGES: &[(&str, &[&str])] = &[
    ("base", &["base"]),
    ("input", &["input"]),
    ("collect", &["collect"]),
    ("records", &["records"]),
    ("query", &["query"]),
    ("answers", &["answers"]),
    ("site", &["site"]),
    ("agents", &["agents"]),
    ("preview", &["preview"]),
    ("program", &["", "cli", "commands", "verify", "main"]),
];

/// A module path (`["site", "netlify"]`) of a file under `src/`.
fn module_of(rel: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_string)
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

fn stage_of(module: &[String]) -> usize {
    let top = module.first().map(String::as_str).unwrap_or("");
    STAGES
        .iter()
        .position(|(_, tops)| tops.contains(&top))
        .unwrap_or_else(|| panic!("src/{top} belongs to no stage: add it to STAGES"))
}

/// The code of a file without comments, string contents and `#[cfg(test)]` items: what its
/// imports are read from.
fn code_without_tests(text: &str) -> (String, BTreeSet<String>) {
    let mut code = String::new();
    let mut test_children = BTreeSet::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let line = line.split("//").next().unwrap_or_default();
        if line.trim() == "#[cfg(test)]" {
            // The next item is test code: a `mod x;` names a test file, a block is skipped.
            let Some(next) = lines.next() else { break };
            let item = next.trim();
            if let Some(name) = item
                .strip_prefix("mod ")
                .and_then(|rest| rest.strip_suffix(';'))
            {
                test_children.insert(name.trim().to_string());
                continue;
            }
            let mut depth = next.matches('{').count() as i64 - next.matches('}').count() as i64;
            let mut opened = depth > 0;
            while opened && depth > 0 {
                let Some(inner) = lines.next() else { break };
                let inner = inner.split("//").next().unwrap_or_default();
                depth += inner.matches('{').count() as i64 - inner.matches('}').count() as i64;
                opened = true;
            }
            continue;
        }
        code.push_str(line);
        code.push('\n');
    }
    (code, test_children)
}

/// Every `src/` file's module path and import-relevant code, test files left out.
fn read_house() -> BTreeMap<Vec<String>, (String, String)> {
    let src = crate_path("src");
    let mut texts = BTreeMap::new();
    for entry in walkdir::WalkDir::new(&src).sort_by_file_name() {
        let entry = entry.expect("walks src/");
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some("rs") {
            continue;
        }
        let rel = rel_of(&src, path);
        let text = std::fs::read_to_string(path).expect("reads a source file");
        texts.insert(rel, text);
    }
    let mut test_files = BTreeSet::new();
    let mut house = BTreeMap::new();
    for (rel, text) in &texts {
        let (code, test_children) = code_without_tests(text);
        let module = module_of(rel);
        for child in test_children {
            let mut m = module.clone();
            m.push(child);
            test_files.insert(m);
        }
        house.insert(module, (rel.clone(), code));
    }
    house.retain(|module, _| !test_files.contains(module));
    house
}

fn rel_of(src: &Path, path: &Path) -> String {
    path.strip_prefix(src)
        .expect("under src/")
        .to_string_lossy()
        .replace('\\', "/")
}

/// The paths a file names: each a list of segments from the crate root.
fn named_paths(module: &[String], code: &str) -> Vec<Vec<String>> {
    let children = children_of(code);
    named_paths_with(module, &children, code)
}

/// The submodules a file declares (`mod x;`).
fn children_of(code: &str) -> BTreeSet<String> {
    code.lines()
        .filter_map(|l| {
            let l = l.trim();
            let l = l.strip_prefix("pub ").unwrap_or(l);
            let l = l.strip_prefix("pub(crate) ").unwrap_or(l);
            l.strip_prefix("mod ")
                .and_then(|r| r.strip_suffix(';'))
                .map(|n| n.trim().to_string())
        })
        .collect()
}

/// [`named_paths`] with the file's submodules given (a re-export line alone declares none).
fn named_paths_with(
    module: &[String],
    children: &BTreeSet<String>,
    code: &str,
) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let tokens = tokenize(code);
    let mut i = 0;
    while i < tokens.len() {
        let (start, mut j): (Vec<String>, usize) = match tokens[i].as_str() {
            "crate" => (Vec::new(), i + 1),
            "super" => {
                // `super` is the parent of the file's module, `super::super` its parent's.
                let mut base = module.to_vec();
                base.pop();
                let mut j = i + 1;
                while tokens.get(j).map(String::as_str) == Some("::")
                    && tokens.get(j + 1).map(String::as_str) == Some("super")
                {
                    base.pop();
                    j += 2;
                }
                (base, j)
            }
            name if children.contains(name)
                && tokens.get(i + 1).map(String::as_str) == Some("::")
                && (i == 0 || tokens[i - 1] != "::") =>
            {
                let mut base = module.to_vec();
                base.push(name.to_string());
                (base, i + 1)
            }
            _ => {
                i += 1;
                continue;
            }
        };
        // Follow `::segment` and one level of `::{a, b::c}` groups.
        let mut path = start;
        while tokens.get(j).map(String::as_str) == Some("::") {
            match tokens.get(j + 1).map(String::as_str) {
                Some("{") => {
                    let mut k = j + 2;
                    let mut current = path.clone();
                    while k < tokens.len() && tokens[k] != "}" {
                        match tokens[k].as_str() {
                            "," => {
                                paths.push(std::mem::replace(&mut current, path.clone()));
                            }
                            "::" | "self" | "as" | "{" => {}
                            t if t.chars().all(|c| c.is_alphanumeric() || c == '_')
                                && tokens.get(k - 1).map(String::as_str) != Some("as") =>
                            {
                                current.push(t.to_string());
                            }
                            _ => {}
                        }
                        k += 1;
                    }
                    paths.push(current);
                    j = k;
                    break;
                }
                Some(seg) if seg.chars().all(|c| c.is_alphanumeric() || c == '_') => {
                    path.push(seg.to_string());
                    j += 2;
                }
                _ => break,
            }
        }
        paths.push(path);
        i = j.max(i + 1);
    }
    paths
}

/// Identifiers, `::` and the group punctuation of code, string literals left out.
fn tokenize(code: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            tokens.push(chars[start..i].iter().collect());
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            tokens.push("::".into());
            i += 2;
        } else {
            if !c.is_whitespace() {
                tokens.push(c.to_string());
            }
            i += 1;
        }
    }
    tokens
}

/// The file a path's item lives in: the longest prefix of the path that is a file of the house,
/// followed through re-exports (`pub use child::Item`) to the file that defines the item, so that
/// a circle through a `mod.rs` facade is still seen.
fn resolve(
    house: &BTreeMap<Vec<String>, (String, String)>,
    reexports: &BTreeMap<Vec<String>, Vec<String>>,
    path: &[String],
) -> Option<String> {
    let mut path = path.to_vec();
    for _ in 0..8 {
        // The longest prefix that is a re-export (`charts::ShareChart` of `charts::ShareChart::of`).
        let found = (1..=path.len()).rev().find_map(|n| {
            reexports
                .get(&path[..n])
                .filter(|original| original.as_slice() != &path[..n])
                .map(|original| (n, original.clone()))
        });
        match found {
            Some((n, mut original)) => {
                original.extend_from_slice(&path[n..]);
                path = original;
            }
            None => break,
        }
    }
    (0..=path.len())
        .rev()
        .find_map(|n| house.get(&path[..n]).map(|(r, _)| r.clone()))
}

/// The file-level import graph: file → the files it takes names from.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let house = read_house();
    // `module::Item` → the path it re-exports, from every `pub use` (of any visibility).
    let mut reexports: BTreeMap<Vec<String>, Vec<String>> = BTreeMap::new();
    for (module, (_, code)) in &house {
        let children = children_of(code);
        for line in code.split(';') {
            let line = line.trim();
            if !(line.starts_with("pub use ") || line.starts_with("pub(crate) use ")) {
                continue;
            }
            for path in named_paths_with(module, &children, line) {
                if let Some(item) = path.last() {
                    let mut public = module.clone();
                    public.push(item.clone());
                    reexports.insert(public, path);
                }
            }
        }
    }
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, (rel, code)) in &house {
        let targets = edges.entry(rel.clone()).or_default();
        for path in named_paths(module, code) {
            if let Some(target) = resolve(&house, &reexports, &path) {
                // A module naming its own submodules (the `mod.rs` that declares and re-exports
                // them) is their container, not an importer: only the other way counts.
                let contains = module_of(&target).starts_with(module);
                if &target != rel && !path.is_empty() && !contains {
                    targets.insert(target);
                }
            }
        }
    }
    edges
}

/// Circles of the graph (strongly connected components of more than one file).
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    // Kosaraju: order by finish time, then walk the reversed graph.
    let mut order = Vec::new();
    let mut seen = BTreeSet::new();
    for start in edges.keys() {
        let mut stack = vec![(start.clone(), false)];
        while let Some((node, done)) = stack.pop() {
            if done {
                order.push(node);
                continue;
            }
            if !seen.insert(node.clone()) {
                continue;
            }
            stack.push((node.clone(), true));
            for next in edges.get(&node).into_iter().flatten() {
                if !seen.contains(next) {
                    stack.push((next.clone(), false));
                }
            }
        }
    }
    let mut reversed: BTreeMap<&String, Vec<&String>> = BTreeMap::new();
    for (from, tos) in edges {
        for to in tos {
            reversed.entry(to).or_default().push(from);
        }
    }
    let mut assigned = BTreeSet::new();
    let mut found = Vec::new();
    for node in order.iter().rev() {
        if assigned.contains(node) {
            continue;
        }
        let mut component = Vec::new();
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if !assigned.insert(n.clone()) {
                continue;
            }
            component.push(n.clone());
            for prev in reversed.get(n).into_iter().flatten() {
                if !assigned.contains(*prev) {
                    stack.push(prev);
                }
            }
        }
        if component.len() > 1 {
            component.sort();
            found.push(component);
        }
    }
    found
}

#[test]
fn the_house_has_no_circle() {
    let edges = graph();
    let count: usize = edges.values().map(BTreeSet::len).sum();
    println!("src/: {} files, {count} file-to-file imports", edges.len());
    assert!(count > 100, "the graph was read ({count} imports)");
    let found = circles(&edges);
    assert!(
        found.is_empty(),
        "import circles in src/ (each a set of files that import each other): {found:#?}"
    );
}

#[test]
fn no_file_imports_from_a_later_stage() {
    let edges = graph();
    let mut wrong = Vec::new();
    for (from, tos) in &edges {
        let from_stage = stage_of(&module_of(from));
        for to in tos {
            let to_stage = stage_of(&module_of(to));
            if to_stage > from_stage {
                wrong.push(format!(
                    "src/{from} ({}) imports src/{to} ({})",
                    STAGES[from_stage].0, STAGES[to_stage].0
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the data's path:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_graph_reader_sees_a_circle_and_a_backward_import() {
    // The reader itself: two files that name each other make a circle, and a stage-0 file
    // naming a later stage is caught, so a passing house is not a reader that sees nothing.
    let a = named_paths(
        &["answers".into(), "human".into()],
        "use crate::answers::page::{escape, ranked::table};\nfn f() { super::charts::x(); }\n",
    );
    assert!(a.contains(&vec!["answers".into(), "page".into(), "escape".into()]));
    assert!(a.contains(&vec![
        "answers".into(),
        "page".into(),
        "ranked".into(),
        "table".into()
    ]));
    assert!(a.contains(&vec!["answers".into(), "charts".into(), "x".into()]));
    let mut edges = BTreeMap::new();
    edges.insert("a.rs".to_string(), BTreeSet::from(["b.rs".to_string()]));
    edges.insert("b.rs".to_string(), BTreeSet::from(["a.rs".to_string()]));
    edges.insert("c.rs".to_string(), BTreeSet::from(["a.rs".to_string()]));
    assert_eq!(
        circles(&edges),
        vec![vec!["a.rs".to_string(), "b.rs".to_string()]]
    );
    assert!(stage_of(&module_of("base/error.rs")) < stage_of(&module_of("site/mod.rs")));
}
