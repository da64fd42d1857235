//! The docs page's figures: the ranked table (in the order of its first column, the trend's
//! size in percentage points, the supply summary, weights and cache, an unknown value's reason
//! in words) and the share chart with its figures in words.

use std::fmt::Write;

use crate::answers::human::{
    escape, human_bytes, human_count, human_points, human_share, table_order,
};
use crate::input::export::FactName;
use crate::input::validate::format_date;
use crate::query::percent_encode;
use crate::records::{ModelRecord, ServedModels, Valued};

/// A reason code in words, as the page says it beside "unknown" (the code itself is on hover
/// and in the API): `outside_top_50_on_some_days` → "a day outside the top 50".
pub fn reason_words(code: &str) -> String {
    let words = match code {
        "outside_top_50_on_some_days" => "a day outside the top 50",
        "outside_top_50_on_latest_day" => "outside the top 50",
        "source_day_missing" => "a day not delivered",
        "market_total_unavailable" => "a market total unknown",
        "share_7d_unavailable" => "7-day share unknown",
        "share_prior_7d_unavailable" => "prior 7-day share unknown",
        "no_endpoint_reported" => "no endpoint reports it",
        "supply_not_collected" => "supply not collected",
        "latest_collection_failed" => "latest collection failed",
        "route_collection_failed" => "its route failed to collect",
        "no_current_route" => "no current route",
        "several_current_routes" => "several current routes",
        other => return other.replace('_', " "),
    };
    words.to_string()
}

/// "unknown" with its reason in words (the code on hover): never a zero.
fn unknown_html(reason: Option<&str>) -> String {
    let code = reason.unwrap_or("unavailable");
    format!(
        "unknown<small title=\"{}\">{}</small>",
        escape(code),
        escape(&reason_words(code))
    )
}

/// One table cell carrying the exact value in `data-value` and a human rendering, the exact
/// figure on hover; an unknown value reads "unknown" with its reason in words.
fn cell(
    out: &mut String,
    field: &str,
    value: Option<&str>,
    shown: impl FnOnce(&str) -> String,
    reason: Option<&str>,
) {
    match value {
        Some(v) => {
            let _ = write!(
                out,
                "<td data-field=\"{field}\" data-value=\"{}\" title=\"{}\">{}</td>",
                escape(v),
                escape(v),
                shown(v)
            );
        }
        None => {
            let _ = write!(
                out,
                "<td class=\"unknown\" data-field=\"{field}\" data-value=\"\">{}</td>",
                unknown_html(reason)
            );
        }
    }
}

fn valued_cell<T: ToString>(
    out: &mut String,
    field: &str,
    v: &Valued<T>,
    shown: impl FnOnce(&str) -> String,
) {
    let value = v.value.as_ref().map(ToString::to_string);
    cell(out, field, value.as_deref(), shown, v.reason.as_deref());
}

/// The trend cell: its direction with the size in percentage points, in plain sight.
fn trend_cell(out: &mut String, trend: &crate::records::Trend) {
    let (class, shown) = match (trend.direction, trend.percentage_point_change.as_deref()) {
        ("up", Some(pp)) => ("up", format!("▲ {}", human_points(pp))),
        ("down", Some(pp)) => ("down", format!("▼ {}", human_points(pp))),
        ("flat", Some(pp)) => ("flat", format!("● {}", human_points(pp))),
        _ => ("unknown", unknown_html(trend.reason.as_deref())),
    };
    let exact = trend
        .percentage_point_change
        .as_deref()
        .map_or_else(String::new, |pp| {
            format!(" title=\"{} percentage points\"", escape(pp))
        });
    let _ = write!(
        out,
        "<td class=\"{class}\" data-field=\"trend\" data-value=\"{}\"{exact}>{shown}</td>",
        trend.direction
    );
}

/// A fact's cell, shown by `shown`.
fn fact_cell(out: &mut String, record: &ModelRecord, name: FactName, shown: fn(&str) -> String) {
    let f = record.facts.0.get(name.index());
    cell(
        out,
        name.as_str(),
        f.and_then(|f| f.value.as_deref()),
        shown,
        f.and_then(|f| f.reason.as_deref()),
    );
}

/// The supply summary's cells: prices, providers and context, or the supply's own reason.
fn supply_cells(out: &mut String, supply: &crate::records::SupplyState) {
    let fields = [
        "median_input_price_per_million",
        "median_output_price_per_million",
        "listed_providers",
        "maximum_context_tokens",
    ];
    let Some(s) = &supply.summary else {
        for field in fields {
            cell(
                out,
                field,
                None,
                |v| v.to_string(),
                supply.reason.as_deref(),
            );
        }
        return;
    };
    let dollars = |v: &str| format!("${}", escape(v));
    valued_cell(out, fields[0], &s.median_input_price_per_million, dollars);
    valued_cell(out, fields[1], &s.median_output_price_per_million, dollars);
    valued_cell(out, fields[2], &s.listed_providers, |v| v.to_string());
    valued_cell(out, fields[3], &s.maximum_context_tokens, |v| {
        human_count(v, "")
    });
}

fn row(out: &mut String, record: &ModelRecord) {
    let _ = write!(out, "<tr data-model-id=\"{}\">", escape(&record.model_id));
    let rank = record.latest_rank.value.map(|r| r.to_string());
    cell(
        out,
        "latest_rank",
        rank.as_deref(),
        |v| v.to_string(),
        record.latest_rank.reason.as_deref(),
    );
    let _ = write!(
        out,
        "<td class=\"model\"><a href=\"/api/v1/models?model_id={}\"><code>{}</code></a></td>",
        percent_encode(&record.model_id),
        escape(&record.model_id)
    );
    valued_cell(out, "tokens_30d", &record.tokens_30d, |v| {
        human_count(v, "")
    });
    valued_cell(out, "share_7d", &record.share_7d, human_share);
    trend_cell(out, &record.trend);
    supply_cells(out, &record.supply);
    fact_cell(out, record, FactName::TotalParameters, |v| {
        human_count(v, "")
    });
    fact_cell(out, record, FactName::ActiveParameters, |v| {
        human_count(v, "")
    });
    fact_cell(out, record, FactName::Bf16WeightsBytes, human_bytes);
    fact_cell(
        out,
        record,
        FactName::FullSequenceAttentionBytes,
        human_bytes,
    );
    let supply = &record.supply;
    let _ = write!(
        out,
        "<td class=\"supply\" data-field=\"supply_state\" data-value=\"{}\" title=\"{}\">{}</td>",
        supply.state,
        escape(supply.reason.as_deref().unwrap_or("")),
        supply.state.replace('_', " ")
    );
    out.push_str("</tr>\n");
}

pub(super) fn table(catalog: &ServedModels) -> String {
    let mut out = format!(
        "<div class=\"scroll\" id=\"ranked-table\"><table>\n<thead><tr><th>Rank on {}</th><th class=\"model\">Model</th><th>30-day tokens</th><th>7-day share</th><th>Trend (7 days vs the 7 before)</th><th>Median input, $ per M tokens</th><th>Median output, $ per M tokens</th><th>Providers</th><th>Context, tokens</th><th>Total params</th><th>Active params</th><th>Weights (BF16)</th><th>Cache at full context</th><th>Supply</th></tr></thead>\n<tbody>\n",
        escape(&catalog.head.window.end_date)
    );
    for index in table_order(catalog) {
        row(&mut out, &catalog.records[index]);
    }
    out.push_str("</tbody></table></div>\n<p>This table as CSV, every value with its state and reason: <a href=\"/api/tables/models.csv\">models.csv</a> (<a href=\"/api/tables/datapackage.json\">all the tables</a>).</p>");
    out
}

/// The share chart inline, its links, and its figures in words (the text alternative).
pub(super) fn glance(export: &crate::input::export::Export, catalog: &ServedModels) -> String {
    let chart = crate::answers::charts::ShareChart::of(export, catalog);
    let mut out = format!(
        "<figure class=\"chart\">{}<figcaption>{} Take it away: <a href=\"{}\">share.svg</a> (SVG); every day of every model: <a href=\"/api/tables/daily.csv\">daily.csv</a>.</figcaption></figure>\n",
        chart.svg(),
        escape(&chart.title()),
        crate::answers::addresses::SHARE_PATH
    );
    out.push_str("<p>The share chart in words: each model's last, first and highest known share of a day's market (the exact value on hover and in <code>daily.csv</code>), and the days it was outside the top 50.</p>\n<ol class=\"chart-data\">\n");
    for line in &chart.series {
        let _ = write!(
            out,
            "<li data-series=\"{}\"><code>{}</code>: ",
            escape(&line.model_id),
            escape(&line.model_id)
        );
        let ends = line.ends();
        let points = [
            ("last", "last", ends.map(|(_, last)| last)),
            ("first", "first", ends.map(|(first, _)| first)),
            (
                "highest",
                "highest",
                line.highest().map(|(i, text, _)| (i, text)),
            ),
        ];
        if ends.is_none() {
            out.push_str("<span class=\"unknown\">no known share in the history</span>");
        }
        for (k, (name, label, point)) in points.into_iter().enumerate() {
            let Some((i, text)) = point else { continue };
            let (open, close) = if k == 0 {
                ("", "")
            } else if k == 1 {
                (" (", "")
            } else {
                ("; ", ")")
            };
            let _ = write!(
                out,
                "{open}{label} <span data-share=\"{name}\" data-date=\"{}\" data-value=\"{}\" title=\"{}\">{} on {}</span>{close}",
                format_date(chart.dates[i]),
                escape(text),
                escape(text),
                human_share(text),
                format_date(chart.dates[i])
            );
        }
        let _ = writeln!(
            out,
            "; outside the top 50 on {} day(s).</li>",
            line.days_outside
        );
    }
    out.push_str("</ol>\n");
    let trend = crate::answers::charts::TrendChart::of(catalog);
    let _ = writeln!(
        out,
        "<figure class=\"chart\">{}<figcaption>{}. Take it away: <a href=\"{}\">trend.svg</a> (SVG); every model's trend is in the table below.</figcaption></figure>",
        trend.svg(),
        escape(&trend.title()),
        crate::answers::addresses::TREND_PATH
    );
    out
}
