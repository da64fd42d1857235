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

/// The viewBox's width: 360 units, so that on a 390 px phone a unit is about a pixel and the
/// 13-unit text reads as 12–13 px.
const WIDTH: f64 = 360.0;

/// A model ID short enough for a chart's line (the full ID is in its description and the
/// table).
fn shorten(id: &str, max: usize) -> String {
    if id.chars().count() <= max {
        id.to_string()
    } else {
        let cut: String = id.chars().take(max - 1).collect();
        format!("{cut}…")
    }
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
    fn long_ids_are_cut() {
        assert_eq!(shorten("abc", 3), "abc");
        assert_eq!(shorten("abcd", 3), "ab…");
    }
}
