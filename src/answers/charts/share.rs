//! The share chart: the daily share of the market of the leading models over the export's
//! whole history, one axis. Every share is the API's own (`records::market_total`,
//! `records::share_text`, the dates of `days.csv`); a day a model has no row, a day the source
//! did not deliver and a day whose market total is unknown are gaps, never zero.

use std::collections::BTreeMap;
use std::fmt::Write;

use time::Date;

use super::{labels, WIDTH};
use crate::answers::human::{escape, human_share};
use crate::input::export::{Day, Export};
use crate::input::validate::format_date;
use crate::records::{market_total, share_text, ServedModels};

/// How many models the share chart draws: the first rows of the docs page's table.
pub const LEADING: usize = 6;

/// Line colours (dark enough for 3:1 against white) with a dash pattern each, so no line is
/// told from another by colour alone.
const STYLES: [(&str, &str); LEADING] = [
    ("#0b6bcb", ""),
    ("#c2410c", "7 3"),
    ("#137333", "2 2"),
    ("#9c27b0", "9 3 2 3"),
    ("#5b4a00", "4 4"),
    ("#1b1f24", "1 3"),
];

/// The plot's box inside the viewBox.
const LEFT: f64 = 42.0;
const RIGHT: f64 = 412.0;
const TOP: f64 = 44.0;
const BOTTOM: f64 = 220.0;
/// One legend line.
const LINE: f64 = 19.0;

/// What is known of the market on one date of the history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DayState {
    /// Delivered, with a known market total: every row has a share.
    Known,
    /// The source did not deliver the date.
    NotDelivered,
    /// Delivered, but the source's remainder (so the market total) is unknown.
    MarketUnknown,
}

/// A known share: its date's index in [`ShareChart::dates`] and the API's exact text.
pub type Point<'a> = (usize, &'a str);

/// One model's line: its share on each date of the history, when known.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// The model's ID.
    pub model_id: String,
    /// Per date of [`ShareChart::dates`]: the API's exact share text and its value to plot.
    pub shares: Vec<Option<(String, f64)>>,
    /// Delivered dates on which the model had no row (outside the top 50).
    pub days_outside: usize,
}

impl Series {
    /// The first and last known shares, with their dates' indices.
    pub fn ends(&self) -> Option<(Point<'_>, Point<'_>)> {
        let mut known = self
            .shares
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.as_ref().map(|(text, _)| (i, text.as_str())));
        let first = known.next()?;
        Some((first, known.next_back().unwrap_or(first)))
    }

    /// The highest known share and its date's index (the first such date).
    pub fn highest(&self) -> Option<(usize, &str, f64)> {
        self.shares
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.as_ref().map(|(text, v)| (i, text.as_str(), *v)))
            .fold(None, |best: Option<(usize, &str, f64)>, point| match best {
                Some(b) if b.2 >= point.2 => Some(b),
                _ => Some(point),
            })
    }
}

/// The share chart's data: every date of the history and each leading model's line.
#[derive(Debug, Clone, PartialEq)]
pub struct ShareChart {
    /// Every date from the history's first to the window's last, delivered or not.
    pub dates: Vec<Date>,
    /// What is known of each date's market.
    pub days: Vec<DayState>,
    /// The lines, in the table's order.
    pub series: Vec<Series>,
    /// The date whose ranks chose the models (the window's last day).
    pub ranked_on: String,
}

/// The models the share chart draws: the first [`LEADING`] rows of the docs page's table.
pub fn leading(catalog: &ServedModels) -> Vec<String> {
    crate::answers::human::table_order(catalog)
        .into_iter()
        .take(LEADING)
        .map(|i| catalog.records[i].model_id.clone())
        .collect()
}

impl ShareChart {
    /// The lines of `models` over the whole history of `export`, in one pass over its days.
    pub fn new(export: &Export, models: &[String], ranked_on: &str) -> ShareChart {
        let dates = crate::answers::tables::calendar(export);
        let by_date: BTreeMap<Date, &Day> = export.days.iter().map(|d| (d.date, d)).collect();
        let mut days = Vec::with_capacity(dates.len());
        let mut series: Vec<Series> = models
            .iter()
            .map(|id| Series {
                model_id: id.clone(),
                shares: Vec::with_capacity(dates.len()),
                days_outside: 0,
            })
            .collect();
        for date in &dates {
            let day = by_date.get(date);
            let market = day.and_then(|d| market_total(d));
            days.push(match (day, market) {
                (None, _) => DayState::NotDelivered,
                (Some(_), None) => DayState::MarketUnknown,
                (Some(_), Some(_)) => DayState::Known,
            });
            for line in &mut series {
                let tokens = day.and_then(|d| {
                    d.rows
                        .iter()
                        .find(|r| r.model_id == line.model_id)
                        .map(|r| r.total_tokens)
                });
                if day.is_some() && tokens.is_none() {
                    line.days_outside += 1;
                }
                let share = tokens.zip(market).and_then(|(tokens, market)| {
                    let text = share_text(tokens, market);
                    text.parse::<f64>().ok().map(|value| (text, value))
                });
                line.shares.push(share);
            }
        }
        ShareChart {
            dates,
            days,
            series,
            ranked_on: ranked_on.to_string(),
        }
    }

    /// The chart of a site's catalog: the leading models over the export's history.
    pub fn of(export: &Export, catalog: &ServedModels) -> ShareChart {
        ShareChart::new(export, &leading(catalog), &catalog.head.window.end_date)
    }

    fn count(&self, state: DayState) -> usize {
        self.days.iter().filter(|d| **d == state).count()
    }

    /// The chart's title.
    pub fn title(&self) -> String {
        match (self.dates.first(), self.dates.last()) {
            (Some(first), Some(last)) => format!(
                "Daily share of the market of the {} leading models by rank on {}, {} to {}",
                self.series.len(),
                self.ranked_on,
                format_date(*first),
                format_date(*last)
            ),
            _ => "Daily share of the market: no history".to_string(),
        }
    }

    /// One sentence per line and one for the gaps: the chart in words (its `<desc>`).
    pub fn description(&self) -> String {
        let mut out = String::new();
        for line in &self.series {
            let _ = write!(out, "{}: ", line.model_id);
            match (line.ends(), line.highest()) {
                (Some(((fi, first), (li, last))), Some((hi, high, _))) => {
                    let _ = write!(
                        out,
                        "{} on {}, {} on {}, highest {} on {}",
                        human_share(first),
                        format_date(self.dates[fi]),
                        human_share(last),
                        format_date(self.dates[li]),
                        human_share(high),
                        format_date(self.dates[hi]),
                    );
                }
                _ => out.push_str("no known share in the history"),
            }
            let _ = write!(
                out,
                "; outside the top 50 on {} day(s). ",
                line.days_outside
            );
        }
        match self.gap_words() {
            Some(words) => {
                let _ = write!(
                    out,
                    "No share is known on the shaded days ({words}): gaps, never zero."
                );
            }
            None => out.push_str("Every day's market total is known."),
        }
        out
    }

    /// The chart as an SVG element: the file of its own holds it after an XML declaration, the
    /// docs page inlines it as it is.
    pub fn svg(&self) -> String {
        let legend_top = BOTTOM + 40.0;
        // A legend line for the gaps only when there are any: no "0 not delivered".
        let gaps = self.gap_words();
        let gap_lines = if gaps.is_some() { 2.0 } else { 0.0 };
        let height = legend_top + LINE * (self.series.len() as f64 + gap_lines) + 4.0;
        let mut out = String::new();
        let _ = write!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"{WIDTH}\" height=\"{height}\" viewBox=\"0 0 {WIDTH} {height}\" role=\"img\" aria-labelledby=\"share-title share-desc\" font-family=\"system-ui, sans-serif\" font-size=\"13\">\
<title id=\"share-title\">{}</title><desc id=\"share-desc\">{}</desc>\
<rect width=\"{WIDTH}\" height=\"{height}\" fill=\"#fff\"/>\
<text x=\"4\" y=\"17\" font-weight=\"600\" fill=\"#1b1f24\">Daily share of the market</text>\
<text x=\"4\" y=\"34\" fill=\"#5b6470\">{} leading by rank on {}; a gap: no share</text>",
            escape(&self.title()),
            escape(&self.description()),
            self.series.len(),
            escape(&self.ranked_on),
        );
        let n = self.dates.len().max(1) as f64;
        let step = (RIGHT - LEFT) / n;
        let x = |i: usize| LEFT + (i as f64 + 0.5) * step;
        // Days without any share: shaded across the plot.
        for (i, state) in self.days.iter().enumerate() {
            if *state != DayState::Known {
                let _ = write!(
                    out,
                    "<rect x=\"{:.1}\" y=\"{TOP}\" width=\"{:.1}\" height=\"{}\" fill=\"#dde1e6\"/>",
                    LEFT + i as f64 * step,
                    step.max(1.5),
                    BOTTOM - TOP
                );
            }
        }
        let (top, tick) = scale(
            self.series
                .iter()
                .flat_map(|s| s.shares.iter().flatten().map(|(_, v)| *v))
                .fold(0.0, f64::max),
        );
        let y = |v: f64| BOTTOM - v / top * (BOTTOM - TOP);
        let mut level = 0.0;
        while level <= top + tick / 2.0 {
            let _ = write!(
                out,
                "<line x1=\"{LEFT}\" x2=\"{RIGHT}\" y1=\"{0:.1}\" y2=\"{0:.1}\" stroke=\"#d8dde3\"/><text x=\"{1}\" y=\"{2:.1}\" text-anchor=\"end\" fill=\"#5b6470\">{3} %</text>",
                y(level),
                LEFT - 4.0,
                y(level) + 4.0,
                percent_label(level),
            );
            level += tick;
        }
        for (i, label) in x_ticks(&self.dates) {
            let _ = write!(
                out,
                "<line x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"{BOTTOM}\" y2=\"{1}\" stroke=\"#5b6470\"/><text x=\"{0:.1}\" y=\"{2}\" text-anchor=\"middle\" fill=\"#5b6470\">{label}</text>",
                x(i),
                BOTTOM + 4.0,
                BOTTOM + 18.0
            );
        }
        for (line, (colour, dash)) in self.series.iter().zip(STYLES) {
            let dash_attr = if dash.is_empty() {
                String::new()
            } else {
                format!(" stroke-dasharray=\"{dash}\"")
            };
            for run in runs(&line.shares) {
                if let [(i, v)] = run.as_slice() {
                    let _ = write!(
                        out,
                        "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"2.2\" fill=\"{colour}\"/>",
                        x(*i),
                        y(*v)
                    );
                } else {
                    let points: Vec<String> = run
                        .iter()
                        .map(|(i, v)| format!("{:.1},{:.1}", x(*i), y(*v)))
                        .collect();
                    let _ = write!(
                        out,
                        "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"1.8\"{dash_attr} points=\"{}\"/>",
                        points.join(" ")
                    );
                }
            }
        }
        let ids: Vec<&str> = self.series.iter().map(|s| s.model_id.as_str()).collect();
        let names = labels(&ids, 40);
        for (k, (line, (colour, dash))) in self.series.iter().zip(STYLES).enumerate() {
            let ly = legend_top + LINE * k as f64;
            let last = line
                .ends()
                .map_or("no known share".to_string(), |(_, (_, last))| {
                    human_share(last)
                });
            let _ = write!(
                out,
                "<line x1=\"4\" x2=\"30\" y1=\"{0:.1}\" y2=\"{0:.1}\" stroke=\"{colour}\" stroke-width=\"2.5\" stroke-dasharray=\"{dash}\"/><text x=\"36\" y=\"{1:.1}\" fill=\"#1b1f24\">{2}. {3} ({4})</text>",
                ly - 4.0,
                ly,
                k + 1,
                escape(&names[k]),
                escape(&last)
            );
        }
        if let Some(words) = gaps {
            let ly = legend_top + LINE * self.series.len() as f64;
            let _ = write!(
                out,
                "<rect x=\"4\" y=\"{:.1}\" width=\"26\" height=\"10\" fill=\"#dde1e6\"/><text x=\"36\" y=\"{ly:.1}\" fill=\"#1b1f24\">no share known that day:</text><text x=\"36\" y=\"{:.1}\" fill=\"#1b1f24\">{words}</text>",
                ly - 9.0,
                ly + LINE,
            );
        }
        out.push_str("</svg>");
        out
    }

    /// The shaded days in words, only the kinds that happened (`1 not delivered, 1 market total
    /// unknown`; `2 not delivered`), or `None` when every day's market is known.
    fn gap_words(&self) -> Option<String> {
        let parts: Vec<String> = [
            (self.count(DayState::NotDelivered), "not delivered"),
            (self.count(DayState::MarketUnknown), "market total unknown"),
        ]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
        (!parts.is_empty()).then(|| parts.join(", "))
    }
}

/// The axis's top and its tick, from the largest value: at most six ticks of 1, 2 or 5 × 10^k.
fn scale(max: f64) -> (f64, f64) {
    let max = if max > 0.0 { max } else { 0.01 };
    let mut tick = 0.0001;
    loop {
        for m in [1.0, 2.0, 5.0] {
            let t = tick * m;
            if (max / t).ceil() <= 5.0 {
                return ((max / t).ceil() * t, t);
            }
        }
        tick *= 10.0;
    }
}

/// A tick's percentage without float noise: `0.05` → `5`, `0.025` → `2.5`.
fn percent_label(fraction: f64) -> String {
    let text = format!("{:.2}", fraction * 100.0);
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The labelled dates: over a long history the first day of a month (of every second, third …
/// month, so that at most six are labelled), else every seventh day.
fn x_ticks(dates: &[Date]) -> Vec<(usize, String)> {
    let label = |d: &Date| {
        let month = d.month().to_string();
        format!("{} {}", month.get(..3).unwrap_or(&month), d.day())
    };
    if dates.len() <= 45 {
        return dates
            .iter()
            .enumerate()
            .step_by(7)
            .map(|(i, d)| (i, label(d)))
            .collect();
    }
    let firsts: Vec<(usize, &Date)> = dates
        .iter()
        .enumerate()
        .filter(|(_, d)| d.day() == 1)
        .collect();
    let stride = firsts.len().div_ceil(6).max(1);
    firsts
        .into_iter()
        .step_by(stride)
        .map(|(i, d)| (i, label(d)))
        .collect()
}

/// Runs of consecutive known points (index and value): a gap ends a run.
fn runs(shares: &[Option<(String, f64)>]) -> Vec<Vec<(usize, f64)>> {
    let mut out: Vec<Vec<(usize, f64)>> = vec![Vec::new()];
    for (i, share) in shares.iter().enumerate() {
        match share {
            Some((_, v)) => {
                if let Some(run) = out.last_mut() {
                    run.push((i, *v));
                }
            }
            None => out.push(Vec::new()),
        }
    }
    out.retain(|run| !run.is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_axis_has_round_ticks() {
        assert_eq!(percent_label(scale(0.38).0), "40");
        assert_eq!(percent_label(scale(0.38).1), "10");
        assert_eq!(percent_label(scale(0.023).0), "2.5");
        assert_eq!(percent_label(scale(0.0).0), "1");
    }

    #[test]
    fn at_most_six_dates_are_labelled() {
        let start = time::macros::date!(2025 - 01 - 01);
        let days =
            |n: i64| -> Vec<Date> { (0..n).map(|i| start + time::Duration::days(i)).collect() };
        assert_eq!(x_ticks(&days(30)).len(), 5);
        assert_eq!(x_ticks(&days(120))[0], (0, "Jan 1".to_string()));
        for n in [46, 120, 400, 1000] {
            let ticks = x_ticks(&days(n));
            assert!((1..=6).contains(&ticks.len()), "{n}: {ticks:?}");
        }
    }

    #[test]
    fn gaps_break_the_line() {
        let shares = [Some(1.0), None, Some(2.0), Some(3.0), None]
            .map(|v| v.map(|v: f64| (v.to_string(), v)));
        let runs = runs(&shares);
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[0], vec![(0, 1.0)]);
        assert_eq!(runs[1], vec![(2, 2.0), (3, 3.0)]);
    }
}
