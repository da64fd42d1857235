//! The trend chart: the largest gains and losses of the 7-day share against the 7 days before,
//! in percentage points, as bars on one axis around zero. Every change is the API's own
//! (`trend.percentage_point_change`, compared as the exact decimal it is); a model whose trend
//! is unknown is counted, never drawn as zero.

use std::fmt::Write;

use rust_decimal::Decimal;

use super::{labels, WIDTH};
use crate::answers::human::{escape, human_points};
use crate::records::ServedModels;

/// How many gains, and how many losses, the trend chart draws at most.
pub const MOVES: usize = 5;

/// The bars' box inside the viewBox: labels left of it, values right of it.
const BAR_LEFT: f64 = 250.0;
const BAR_RIGHT: f64 = 356.0;
const VALUE_RIGHT: f64 = 416.0;
const TOP: f64 = 48.0;
/// One bar's line.
const ROW: f64 = 20.0;

/// One bar: a model and its change, exact and placed.
#[derive(Debug, Clone, PartialEq)]
pub struct Move {
    /// The model's ID.
    pub model_id: String,
    /// The API's exact `percentage_point_change`.
    pub exact: String,
    /// Its value, to place the bar.
    pub value: f64,
}

/// The trend chart's data: the largest gains (largest first), then the largest losses
/// (smallest first), and what is not drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct TrendChart {
    /// The bars, from the largest gain to the largest loss.
    pub moves: Vec<Move>,
    /// Models whose trend is unknown (a 7-day share is), not drawn.
    pub unknown: usize,
    /// Models whose trend is known but not among the drawn (flat or smaller moves).
    pub others: usize,
    /// The window's last day.
    pub end_date: String,
}

impl TrendChart {
    /// The largest moves of the catalog's records, ties by model ID.
    pub fn of(catalog: &ServedModels) -> TrendChart {
        let mut known: Vec<(Decimal, &str, &str)> = Vec::new();
        let mut unknown = 0;
        for record in &catalog.records {
            let change = record
                .trend
                .percentage_point_change
                .as_deref()
                .and_then(|text| text.parse::<Decimal>().ok().map(|d| (d, text)));
            match change {
                Some((d, text)) => known.push((d, text, &record.model_id)),
                None => unknown += 1,
            }
        }
        // Largest first; among equal changes, by model ID.
        known.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.2.cmp(b.2)));
        let gains = known.iter().filter(|k| k.0 > Decimal::ZERO).take(MOVES);
        let mut losses: Vec<_> = known
            .iter()
            .rev()
            .filter(|k| k.0 < Decimal::ZERO)
            .take(MOVES)
            .collect();
        losses.reverse();
        let moves: Vec<Move> = gains
            .chain(losses)
            .filter_map(|(_, text, id)| {
                text.parse::<f64>().ok().map(|value| Move {
                    model_id: (*id).to_string(),
                    exact: (*text).to_string(),
                    value,
                })
            })
            .collect();
        TrendChart {
            others: known.len() - moves.len(),
            moves,
            unknown,
            end_date: catalog.head.window.end_date.clone(),
        }
    }

    /// The chart's title.
    pub fn title(&self) -> String {
        format!(
            "The largest moves of the 7-day share of the market, in percentage points, the 7 days to {} against the 7 before",
            self.end_date
        )
    }

    /// The chart in words (its `<desc>` and the page's caption).
    pub fn description(&self) -> String {
        let mut out = String::new();
        for m in &self.moves {
            let _ = write!(out, "{}: {}. ", m.model_id, human_points(&m.exact));
        }
        let _ = write!(
            out,
            "Not drawn: {} model(s) with a smaller move or none, {} with an unknown trend (a 7-day share unknown).",
            self.others, self.unknown
        );
        out
    }

    /// The chart as an SVG element (the file holds it after an XML declaration).
    pub fn svg(&self) -> String {
        let rows = self.moves.len().max(1) as f64;
        let axis_bottom = TOP + ROW * rows;
        let height = axis_bottom + 46.0;
        let mut out = String::new();
        let _ = write!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"{WIDTH}\" height=\"{height}\" viewBox=\"0 0 {WIDTH} {height}\" role=\"img\" aria-labelledby=\"trend-title trend-desc\" font-family=\"system-ui, sans-serif\" font-size=\"13\">\
<title id=\"trend-title\">{}</title><desc id=\"trend-desc\">{}</desc>\
<rect width=\"{WIDTH}\" height=\"{height}\" fill=\"#fff\"/>\
<text x=\"4\" y=\"17\" font-weight=\"600\" fill=\"#1b1f24\">Trend of the 7-day share, pp</text>\
<text x=\"4\" y=\"34\" fill=\"#5b6470\">Largest moves, 7 days to {} vs the 7 before</text>",
            escape(&self.title()),
            escape(&self.description()),
            escape(&self.end_date),
        );
        let largest = self.moves.iter().map(|m| m.value.abs()).fold(0.0, f64::max);
        let zero = (BAR_LEFT + BAR_RIGHT) / 2.0;
        let half = (BAR_RIGHT - BAR_LEFT) / 2.0;
        let _ = write!(
            out,
            "<line x1=\"{zero}\" x2=\"{zero}\" y1=\"{}\" y2=\"{axis_bottom}\" stroke=\"#5b6470\"/>",
            TOP - 4.0
        );
        if self.moves.is_empty() {
            let _ = write!(
                out,
                "<text x=\"4\" y=\"{:.1}\" fill=\"#5b6470\">no known move to draw</text>",
                TOP + 14.0
            );
        }
        let ids: Vec<&str> = self.moves.iter().map(|m| m.model_id.as_str()).collect();
        let names = labels(&ids, 28);
        for (k, m) in self.moves.iter().enumerate() {
            let y = TOP + ROW * k as f64;
            let length = if largest > 0.0 {
                m.value.abs() / largest * half
            } else {
                0.0
            };
            let (x, colour, arrow) = if m.value > 0.0 {
                (zero, "#137333", "▲")
            } else {
                (zero - length, "#b3261e", "▼")
            };
            let _ = write!(
                out,
                "<g><title>{} {} percentage points</title><text x=\"4\" y=\"{:.1}\" fill=\"#1b1f24\">{}</text><rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{colour}\"/><text x=\"{VALUE_RIGHT}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"{colour}\">{arrow} {}</text></g>",
                escape(&m.model_id),
                escape(&m.exact),
                y + 14.0,
                escape(&names[k]),
                y + 4.0,
                length.max(1.0),
                ROW - 8.0,
                y + 14.0,
                escape(&human_points(&m.exact).replace(" pp", "")),
            );
        }
        let _ = write!(
            out,
            "<text x=\"4\" y=\"{:.1}\" fill=\"#1b1f24\">Not drawn: {} smaller or none,</text><text x=\"4\" y=\"{:.1}\" fill=\"#1b1f24\">{} unknown (a 7-day share unknown)</text></svg>",
            axis_bottom + 20.0,
            self.others,
            axis_bottom + 38.0,
            self.unknown
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_are_the_largest_gains_then_the_largest_losses() {
        let (inputs, now) = (
            crate::input::load(
                std::path::Path::new(crate::input::bundled::SAMPLE_EXPORT),
                Some(std::path::Path::new(crate::input::bundled::SAMPLE_SUPPLY)),
            ),
            crate::parse_now("2026-11-21T12:00:00Z"),
        );
        let (Ok(inputs), Ok(now)) = (inputs, now) else {
            panic!("the sample loads");
        };
        let chart = TrendChart::of(&inputs.served_models(now));
        let values: Vec<f64> = chart.moves.iter().map(|m| m.value).collect();
        assert!(values.windows(2).all(|w| w[0] >= w[1]), "{values:?}");
        assert!(values.iter().all(|v| *v != 0.0));
        assert_eq!(
            chart.moves.len() + chart.others + chart.unknown,
            inputs.served_models(now).records.len()
        );
        assert!(
            chart.unknown > 0,
            "the sample has models with an unknown trend"
        );
    }
}
