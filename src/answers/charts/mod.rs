//! The charts (issue 42): SVG files of their own under `/charts/`, written by the build in both
//! layouts, drawn again by `verify`, and inlined in the docs page with a text alternative each:
//! the daily share of the market of the leading models (`share.rs`) and the largest moves of
//! the 7-day trend (`trend.rs`), both from the derivations of the API, unknown never drawn as
//! zero.

mod share;
mod trend;

pub use share::{leading, DayState, Point, Series, ShareChart, LEADING};
pub use trend::{TrendChart, MOVES};

use crate::input::export::Export;
use crate::records::ServedModels;

use crate::answers::addresses::CHART_PATHS;

/// The viewBox's width: 420 units, so that a model ID of 40 characters fits a legend line, and
/// the 13-unit text reads as 11 px on a 390 px phone and 18 px at the text column's width (75ch,
/// the width a chart is shown at on a wider screen).
const WIDTH: f64 = 420.0;

/// A model ID short enough for a chart's line (the full ID is in its description and the
/// table): its start and its end around an ellipsis, since the end is what tells two versions
/// of one family apart (`anthropic/claude-4.5-sonnet` and `…-haiku`).
fn shorten(id: &str, max: usize) -> String {
    let chars: Vec<char> = id.chars().collect();
    if chars.len() <= max {
        return id.to_string();
    }
    let head = max / 3;
    let tail = max - head - 1;
    let start: String = chars[..head].iter().collect();
    let end: String = chars[chars.len() - tail..].iter().collect();
    format!("{start}…{end}")
}

/// The labels of `ids` in a chart, each [`shorten`]ed to `max` characters, no two alike: should
/// two shortened IDs read alike, those are given whole (the chart then spends the width rather
/// than mislead).
fn labels(ids: &[&str], max: usize) -> Vec<String> {
    let short: Vec<String> = ids.iter().map(|id| shorten(id, max)).collect();
    short
        .iter()
        .zip(ids)
        .map(|(label, id)| {
            let alike = short.iter().zip(ids).any(|(l, i)| l == label && i != id);
            if alike {
                (*id).to_string()
            } else {
                label.clone()
            }
        })
        .collect()
}

/// A chart's file: an XML declaration, then the element the docs page inlines.
fn file(svg: &str) -> Vec<u8> {
    format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{svg}\n").into_bytes()
}

/// The charts' files (site-relative path and bytes), in [`CHART_PATHS`] order. The same
/// inputs give the same bytes.
pub fn files(export: &Export, catalog: &ServedModels) -> Vec<(String, Vec<u8>)> {
    let share = ShareChart::of(export, catalog).svg();
    let trend = TrendChart::of(catalog).svg();
    CHART_PATHS
        .iter()
        .zip([share, trend])
        .map(|(path, svg)| (path.trim_start_matches('/').to_string(), file(&svg)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answers::addresses::CHARTS_DIR;

    #[test]
    fn every_address_is_a_file_of_the_charts_directory() {
        for (path, name) in CHART_PATHS.iter().zip(["share", "trend"]) {
            assert_eq!(*path, format!("/{CHARTS_DIR}/{name}.svg"));
        }
    }

    #[test]
    fn long_ids_are_cut_in_the_middle_and_labels_never_alike() {
        assert_eq!(shorten("abc", 3), "abc");
        assert_eq!(shorten("abcdefghij", 7), "ab…ghij");
        let ids = [
            "anthropic/claude-4.5-sonnet-20250929",
            "anthropic/claude-4.5-haiku-20251001",
            "anthropic/claude-4.5-sonnet-20250929:thinking",
        ];
        assert_eq!(shorten(ids[0], 22), "anthrop…onnet-20250929");
        let made = labels(&ids, 22);
        for (i, a) in made.iter().enumerate() {
            assert!(a.chars().count() <= 22 || a == ids[i], "{a}");
            for b in &made[i + 1..] {
                assert_ne!(a, b);
            }
        }
        // Two that would read alike are given whole.
        let twins = ["a/x-middle-one-end", "a/x-middle-two-end", "b/short"];
        assert_eq!(shorten(twins[0], 7), shorten(twins[1], 7));
        assert_eq!(
            labels(&twins, 7),
            ["a/x-middle-one-end", "a/x-middle-two-end", "b/short"]
        );
    }
}
