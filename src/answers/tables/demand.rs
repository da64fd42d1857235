//! `daily.csv` and `days.csv`: the export's whole demand history, flat. A row of `daily.csv`
//! is a (date, model) the export holds, ranked and shared by the derivations of the model
//! records (`records::rank_rows`, `records::market_total`, `records::share_text`); a row of
//! `days.csv` is a date from the history's first to the window's last, delivered or not.

use std::collections::BTreeMap;

use serde_json::Value;
use time::Date;

use super::csv::{CsvWriter, Written};
use super::schema::{Column, ColumnType, ForeignKey, TableSpec};
use crate::input::export::{window_start, Day, Export};
use crate::input::validate::format_date;
use crate::records::{market_total, rank_rows, share_text};

/// The columns of `daily.csv`.
fn daily_columns() -> Vec<Column> {
    let mut model_id = Column::new(
        "model_id",
        ColumnType::String,
        true,
        "Model ID as the demand source names it (a variant such as :free is its own model). \
May name a model the current window does not serve, so it is not a key of models.csv.",
    );
    model_id.pattern = Some(crate::answers::fields::MODEL_ID);
    let mut rank = Column::new(
        "rank",
        ColumnType::Integer,
        true,
        "Rank among that day's rows: tokens descending, ties by model ID (byte order), 1-based. \
Unit: rank.",
    );
    rank.range = Some((1, crate::input::export::MAX_ROWS_PER_DAY as u64));
    vec![
        Column::new(
            "date",
            ColumnType::Date,
            true,
            "UTC date of the source's daily rankings.",
        ),
        model_id,
        rank,
        Column::new(
            "tokens",
            ColumnType::Integer,
            true,
            "Tokens the model processed that day, as the source reports them. Unit: tokens.",
        ),
        Column::new(
            "share",
            ColumnType::Number,
            false,
            "tokens over that day's market total (days.csv market_tokens), a fraction from 0 \
to 1 (not a percentage), exact then rounded half-to-even to 12 fractional digits, as every share \
of the API. Unit: fraction. Empty when that day's market total is unknown (the source's \
remainder is), never zero.",
        ),
    ]
}

/// The columns of `days.csv`.
fn days_columns() -> Vec<Column> {
    vec![
        Column::new(
            "date",
            ColumnType::Date,
            true,
            "UTC date, every one from the export's first day to the window's last.",
        ),
        Column::new(
            "delivered",
            ColumnType::Boolean,
            true,
            "true when the source delivered this date's rankings; false for a date it did not \
deliver, whose other cells are then empty (unknown, never zero).",
        ),
        Column::new(
            "rows",
            ColumnType::Integer,
            false,
            "Models ranked that day (its rows in daily.csv; at most 50, the top of the source). \
Unit: models. Empty when the date was not delivered.",
        ),
        Column::new(
            "other_tokens",
            ColumnType::Integer,
            false,
            "The source's aggregated remainder of the market: tokens of every model outside the \
day's rows. Unit: tokens. Empty when unknown (the source did not give it, or the date was not \
delivered).",
        ),
        Column::new(
            "market_tokens",
            ColumnType::Integer,
            false,
            "The day's market total: the sum of its rows' tokens plus other_tokens, the \
denominator of every share. Unit: tokens. Empty when other_tokens is.",
        ),
    ]
}

/// The description of a table of demand data: what a row is, and its terms.
fn demand_description(what: &str, attribution: &str) -> String {
    format!(
        "{what} Source: OpenRouter's public daily rankings (the top 50 models of each day), \
licensed CC BY 4.0; reuse requires this attribution: {attribution}"
    )
}

/// The two demand tables' descriptions, keys and sources.
pub(crate) fn specs(attribution: &str, sources: Vec<Value>) -> [TableSpec; 2] {
    [
        TableSpec {
            name: "daily",
            title: "Daily demand",
            description: demand_description(
                "One row per (date, model) the export holds: the whole history, not only the \
window. A model outside the top 50 on a day, or a day the source did not deliver, has no row \
(see days.csv), never a zero.",
                attribution,
            ),
            columns: daily_columns(),
            primary_key: &["date", "model_id"],
            foreign_keys: vec![ForeignKey {
                fields: &["date"],
                resource: "days",
                reference: &["date"],
            }],
            demand_only: true,
            sources: sources.clone(),
        },
        TableSpec {
            name: "days",
            title: "Source days",
            description: demand_description(
                "One row per UTC date from the export's first day to the window's last: \
whether the source delivered it, and its market total when known.",
                attribution,
            ),
            columns: days_columns(),
            primary_key: &["date"],
            foreign_keys: Vec::new(),
            demand_only: true,
            sources,
        },
    ]
}

/// `daily.csv`: by date, then rank.
pub(crate) fn daily_csv(spec: &TableSpec, export: &Export) -> Written {
    let mut csv = CsvWriter::new(&spec.columns);
    for day in &export.days {
        let date = format_date(day.date);
        let market = market_total(day);
        let ranked = rank_rows(day);
        let mut rows: Vec<(&String, u32, u128)> = ranked
            .iter()
            .map(|(id, (rank, tokens))| (id, *rank, *tokens))
            .collect();
        rows.sort_by_key(|(_, rank, _)| *rank);
        for (model_id, rank, tokens) in rows {
            let rank = rank.to_string();
            let tokens_text = tokens.to_string();
            let share = market.map(|total| share_text(tokens, total));
            csv.row([
                Some(date.as_str()),
                Some(model_id.as_str()),
                Some(rank.as_str()),
                Some(tokens_text.as_str()),
                share.as_deref(),
            ]);
        }
    }
    csv.finish()
}

/// Every date from the history's first (or the window's, if earlier) to the window's last.
pub(crate) fn calendar(export: &Export) -> Vec<Date> {
    // The gate keeps every day within the window's end; the maximum is only a guard.
    let window_end = export.window_end();
    let Some(end) = [window_end, export.days.last().map(|d| d.date)]
        .into_iter()
        .flatten()
        .max()
    else {
        return Vec::new();
    };
    let first = [
        window_end.map(window_start),
        export.days.first().map(|d| d.date),
    ]
    .into_iter()
    .flatten()
    .min()
    .unwrap_or(end);
    let mut dates = Vec::new();
    let mut date = first;
    while date <= end {
        dates.push(date);
        match date.next_day() {
            Some(next) => date = next,
            None => break,
        }
    }
    dates
}

/// `days.csv`: by date.
pub(crate) fn days_csv(spec: &TableSpec, export: &Export) -> Written {
    let by_date: BTreeMap<Date, &Day> = export.days.iter().map(|d| (d.date, d)).collect();
    let mut csv = CsvWriter::new(&spec.columns);
    for date in calendar(export) {
        let text = format_date(date);
        match by_date.get(&date) {
            None => csv.row([Some(text.as_str()), Some("false"), None, None, None]),
            Some(day) => {
                let rows = day.rows.len().to_string();
                let other = day.other_tokens.map(|t| t.to_string());
                let market = market_total(day).map(|t| t.to_string());
                csv.row([
                    Some(text.as_str()),
                    Some("true"),
                    Some(rows.as_str()),
                    other.as_deref(),
                    market.as_deref(),
                ]);
            }
        }
    }
    csv.finish()
}
