//! The bundled sample's mark, and the notice everything built from it carries. The sample
//! (`data/sample/`) has real model names with invented demand, facts and supply; so that its
//! invented facts cannot pass for evidence, every available fact's `source_url` is pinned to
//! [`SAMPLE_COMMIT`], a commit of all zeros that no repository has. An export whose available
//! facts all carry it is the sample (or a file made from it, as `benches/scale_export.py`
//! makes), and its docs page, `/llms.txt` and MCP instructions open with the notice; a
//! collected export pins real commits, so nothing built from real inputs says it. The API's
//! bodies are untouched: the sample's own `demand_source.attribution` says what it is.

use crate::input::export::Export;

/// The commit every available fact of the sample is pinned to: all zeros, which Git never
/// gives a real commit.
pub const SAMPLE_COMMIT: &str = "0000000000000000000000000000000000000000";

/// What is said first about a site built from the sample (plain text; Markdown-safe).
pub const NOTICE: &str = "This site is built from the bundled sample (data/sample/): real model \
names with invented demand, facts and supply figures, not OpenRouter's or Hugging Face's data. \
Its facts link to commit 0000000000000000000000000000000000000000, which does not exist. Do not \
cite or reuse these numbers; build from collected data (model-demand collect) for real ones.";

/// True when `export` is the bundled sample: it has at least one available fact and every
/// available fact's `source_url` has [`SAMPLE_COMMIT`] as a path segment.
pub fn is_sample(export: &Export) -> bool {
    let mut urls = export
        .models
        .values()
        .flat_map(|entry| entry.facts.iter())
        .filter_map(|fact| fact.source_url.as_deref())
        .peekable();
    urls.peek().is_some() && urls.all(|url| url.split('/').any(|part| part == SAMPLE_COMMIT))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn load(dir: &str) -> Export {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        crate::input::load(&dir.join("export.json"), None)
            .expect("the export loads")
            .export
    }

    #[test]
    fn the_bundled_sample_carries_the_mark_and_fixtures_do_not() {
        assert!(is_sample(&load("data/sample")));
        assert!(!is_sample(&load("tests/fixtures/small")));
        assert!(!is_sample(&load("tests/fixtures/edge")));
    }

    #[test]
    fn one_fact_pinned_elsewhere_is_no_sample() {
        let mut export = load("data/sample");
        let fact = export
            .models
            .values_mut()
            .flat_map(|entry| entry.facts.iter_mut())
            .find(|fact| fact.source_url.is_some())
            .expect("an available fact");
        fact.source_url = Some(
            "https://huggingface.co/a/b/blob/e33a150dc8ae8b1254500c3b46644983c4c5e30d/config.json"
                .to_string(),
        );
        assert!(!is_sample(&export));
        // No available fact at all: nothing marks it.
        for entry in export.models.values_mut() {
            for fact in &mut entry.facts {
                fact.source_url = None;
            }
        }
        assert!(!is_sample(&export));
    }
}
