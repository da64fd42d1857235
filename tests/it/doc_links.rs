//! Every relative link of the README and the pages under `docs/` resolves: the file exists and,
//! for a `#fragment` into a Markdown page, a heading of that page has that anchor (GitHub's
//! rule: lower case, punctuation dropped, spaces as hyphens).

use crate::common;

use std::path::{Path, PathBuf};

/// The Markdown pages whose links are checked.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![common::crate_path("README.md")];
    let docs = common::crate_path("docs");
    let mut found: Vec<PathBuf> = std::fs::read_dir(&docs)
        .expect("docs/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    found.sort();
    pages.extend(found);
    pages
}

/// The lines of a page outside fenced code blocks.
fn prose(text: &str) -> Vec<&str> {
    let mut fenced = false;
    text.lines()
        .filter(|line| {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
                return false;
            }
            !fenced
        })
        .collect()
}

/// The targets of `[text](target)` links on a line.
fn links(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        match after.find(')') {
            Some(end) => {
                out.push(after[..end].trim().to_string());
                rest = &after[end..];
            }
            None => break,
        }
    }
    out
}

/// GitHub's anchor of a heading.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(page: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(page).expect("page");
    prose(&text)
        .into_iter()
        .filter_map(|line| line.strip_prefix('#'))
        .map(|h| anchor(h.trim_start_matches('#')))
        .collect()
}

#[test]
fn every_relative_link_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).expect("page");
        let dir = page.parent().expect("a directory");
        for line in prose(&text) {
            for target in links(line) {
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                checked += 1;
                let (path, fragment) = match target.split_once('#') {
                    Some((p, f)) => (p, Some(f)),
                    None => (target.as_str(), None),
                };
                let file = if path.is_empty() {
                    page.clone()
                } else {
                    dir.join(path)
                };
                if !file.exists() {
                    broken.push(format!("{}: {target}: no such file", page.display()));
                    continue;
                }
                if let Some(fragment) = fragment {
                    let is_markdown = file.extension().is_some_and(|x| x == "md");
                    if is_markdown && !anchors(&file).iter().any(|a| a == fragment) {
                        broken.push(format!("{}: {target}: no such heading", page.display()));
                    }
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(
        checked > 20,
        "only {checked} links found: is the parser right?"
    );
}

#[test]
fn the_anchor_rule_is_githubs() {
    assert_eq!(
        anchor(" The build against Netlify's time limit"),
        "the-build-against-netlifys-time-limit"
    );
    assert_eq!(
        anchor("Publishing: the data branch, built by Netlify"),
        "publishing-the-data-branch-built-by-netlify"
    );
    assert_eq!(
        anchor("Agents: MCP and `/llms.txt`"),
        "agents-mcp-and-llmstxt"
    );
}
