//! The docs page's figures: the ranked table (in the order of its first column, the trend's
//! size in percentage points, the supply summary, weights and cache, an unknown value's reason
//! in words) and the share chart with its figures in words.

use std::fmt::Write;

use crate::answers::human::{
    escape, human_bytes, human_context, human_count, human_points, human_relative, human_share,
    table_order,
};
use crate::input::export::FactName;
use crate::input::supply::Supply;
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

/// The trend cell: its direction with the size in percentage points and as a relative change
/// of the share (which ranks a different top five), in plain sight.
fn trend_cell(out: &mut String, trend: &crate::records::Trend) {
    let relative = trend
        .relative_change
        .as_deref()
        .map_or_else(String::new, |r| {
            format!(
                "<small data-relative=\"{}\">{} relative</small>",
                escape(r),
                human_relative(r)
            )
        });
    let (class, shown) = match (trend.direction, trend.percentage_point_change.as_deref()) {
        ("up", Some(pp)) => ("up", format!("▲ {}{relative}", human_points(pp))),
        ("down", Some(pp)) => ("down", format!("▼ {}{relative}", human_points(pp))),
        ("flat", Some(pp)) => ("flat", format!("● {}{relative}", human_points(pp))),
        _ => ("unknown", unknown_html(trend.reason.as_deref())),
    };
    let exact = trend
        .percentage_point_change
        .as_deref()
        .map_or_else(String::new, |pp| {
            let ratio = trend
                .relative_change
                .as_deref()
                .map_or_else(String::new, |r| format!("; relative change {}", escape(r)));
            format!(" title=\"{} percentage points{ratio}\"", escape(pp))
        });
    let _ = write!(
        out,
        "<td class=\"{class}\" data-field=\"trend\" data-value=\"{}\"{exact}>{shown}</td>",
        trend.direction
    );
}

/// A fact's cell, shown by `shown`.
fn fact_cell(
    out: &mut String,
    record: &ModelRecord,
    name: FactName,
    shown: impl FnOnce(&str) -> String,
) {
    let f = record.facts.0.get(name.index());
    cell(
        out,
        name.as_str(),
        f.and_then(|f| f.value.as_deref()),
        shown,
        f.and_then(|f| f.reason.as_deref()),
    );
}

/// How many providers the providers cell names; the rest are counted.
pub(crate) const PROVIDERS_SHOWN: usize = 3;

/// The providers cell: the providers of the model's current route by name, the cheapest first
/// (each at its cheapest endpoint's input and output price), at most [`PROVIDERS_SHOWN`] and
/// the count of the rest; `data-value` is `listed_providers`. No route to read is "unknown"
/// with the supply's reason in words.
fn providers_cell(out: &mut String, record: &ModelRecord, supply: Option<&Supply>) {
    let route = supply
        .and_then(|s| s.collections.last())
        .and_then(|c| crate::records::current_route(c, &record.model_id).ok());
    let (Some(route), Some(summary)) = (route, &record.supply.summary) else {
        cell(
            out,
            "providers",
            None,
            |v| v.to_string(),
            record.supply.reason.as_deref(),
        );
        return;
    };
    let mut seen = std::collections::BTreeSet::new();
    let named: Vec<&crate::input::supply::Endpoint> =
        crate::answers::providers::cheapest_first(route)
            .into_iter()
            .filter(|e| seen.insert(e.provider.as_str()))
            .collect();
    let price = |p: Option<rust_decimal::Decimal>| {
        p.map_or("not listed".to_string(), |p| {
            format!("${}", crate::base::decimal::plain(p))
        })
    };
    let mut items = String::new();
    for e in named.iter().take(PROVIDERS_SHOWN) {
        let _ = write!(
            items,
            "<li>{} <small>{} in / {} out</small></li>",
            escape(&e.provider),
            price(e.input_price_per_million),
            price(e.output_price_per_million)
        );
    }
    let rest = named.len().saturating_sub(PROVIDERS_SHOWN);
    let more = match rest {
        0 => String::new(),
        n => format!("<small class=\"more\">and {n} more</small>"),
    };
    let all: Vec<&str> = named.iter().map(|e| e.provider.as_str()).collect();
    let count = summary.listed_providers.value.unwrap_or(named.len() as u64);
    let _ = write!(
        out,
        "<td class=\"providers\" data-field=\"providers\" data-value=\"{count}\" title=\"{}\">{}<ol>{items}</ol>{more}</td>",
        escape(&all.join(", ")),
        if named.is_empty() { "none listed" } else { "" }
    );
}

/// The supply summary's cells: prices and context, or the supply's own reason.
fn supply_cells(out: &mut String, supply: &crate::records::SupplyState) {
    let fields = [
        "median_input_price_per_million",
        "median_output_price_per_million",
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
    valued_cell(out, fields[2], &s.maximum_context_tokens, human_context);
}

/// The cache at full context, with the context length it is computed at beside it (a model's
/// maximum, which may be far more than any provider serves).
fn cache_cell(out: &mut String, record: &ModelRecord) {
    let length = record
        .facts
        .0
        .get(FactName::CalculationSequenceLength.index())
        .and_then(|f| f.value.clone());
    fact_cell(out, record, FactName::FullSequenceAttentionBytes, |v| {
        let at = length.as_deref().map_or_else(
            || "at a length not known".to_string(),
            |l| format!("at {} tokens", human_context(l)),
        );
        format!("{}<small>{at}</small>", human_bytes(v))
    });
}

fn row(out: &mut String, record: &ModelRecord, supply: Option<&Supply>) {
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
        "<td class=\"model\"><a href=\"/api/v1/models?model_id={}\"><code>{}</code></a><br>{}</td>",
        percent_encode(&record.model_id),
        escape(&record.model_id),
        open_weights_note(record)
    );
    valued_cell(out, "tokens_30d", &record.tokens_30d, |v| {
        human_count(v, "")
    });
    valued_cell(out, "share_7d", &record.share_7d, human_share);
    trend_cell(out, &record.trend);
    providers_cell(out, record, supply);
    supply_cells(out, &record.supply);
    fact_cell(out, record, FactName::TotalParameters, |v| {
        human_count(v, "")
    });
    fact_cell(out, record, FactName::ActiveParameters, |v| {
        human_count(v, "")
    });
    fact_cell(out, record, FactName::Bf16WeightsBytes, human_bytes);
    cache_cell(out, record);
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

pub(super) fn table(catalog: &ServedModels, supply: Option<&Supply>) -> String {
    let mut out = format!(
        "<div class=\"scroll\" id=\"ranked-table\"><table>\n<thead><tr><th>Rank on {}</th><th class=\"model\">Model</th><th>30-day tokens</th><th>7-day share</th><th>Trend of the 7-day share vs the 7 days before: percentage points, relative change</th><th class=\"providers\">Providers, the cheapest first: $ per M tokens in / out</th><th>Median input, $ per M tokens</th><th>Median output, $ per M tokens</th><th>Context, tokens</th><th>Total params</th><th>Active params</th><th>Weights (BF16)</th><th>Cache at full context (the length beside it)</th><th>Supply</th></tr></thead>\n<tbody>\n",
        escape(&catalog.head.window.end_date)
    );
    for index in table_order(catalog) {
        row(&mut out, &catalog.records[index], supply);
    }
    out.push_str("</tbody></table></div>\n<p>This table as CSV, every value with its state and reason: <a href=\"/api/tables/models.csv\">models.csv</a> (<a href=\"/api/tables/datapackage.json\">all the tables</a>).</p>");
    out
}

/// The share chart inline with its links: the page's first figure, right below its lede, so a
/// phone shows it on the first screen (its figures in words are in [`glance`]).
pub(super) fn first_chart(export: &crate::input::export::Export, catalog: &ServedModels) -> String {
    let chart = crate::answers::charts::ShareChart::of(export, catalog);
    format!(
        "<figure class=\"chart\" id=\"share-chart\">{}<figcaption>{}. Its figures in words are <a href=\"#glance\">at a glance</a>. Take it away: <a href=\"{}\">share.svg</a> (SVG); every day of every model: <a href=\"/api/tables/daily.csv\">daily.csv</a>.</figcaption></figure>",
        chart.svg(),
        escape(&chart.title()),
        crate::answers::addresses::SHARE_PATH
    )
}

/// The share chart's figures in words (its text alternative), and the trend chart.
pub(super) fn glance(export: &crate::input::export::Export, catalog: &ServedModels) -> String {
    let chart = crate::answers::charts::ShareChart::of(export, catalog);
    let mut out = String::new();
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

/// Whether the weights are published, beside the model's ID: `models.csv`'s `open_weights`
/// (one derivation, `tables::open_weights`), in words; an unknown says why, never "closed".
fn open_weights_note(record: &ModelRecord) -> String {
    let json = serde_json::to_value(record).unwrap_or_default();
    let [open, evidence, url] = crate::answers::tables::open_weights::cells(&json);
    let evidence = evidence.unwrap_or_default();
    match (open.as_deref(), url) {
        (Some("true"), Some(url)) => format!(
            "<small data-field=\"open_weights\" data-value=\"true\"><a href=\"{}\">open weights</a></small>",
            escape(&url)
        ),
        (Some("false"), _) => {
            "<small data-field=\"open_weights\" data-value=\"false\">closed weights</small>".to_string()
        }
        _ => format!(
            "<small data-field=\"open_weights\" data-value=\"\" title=\"{}\">weights: unknown, {}</small>",
            escape(&evidence),
            match evidence.as_str() {
                "weights_access_unknown" => "no repository known",
                "open_checkpoint_unavailable" => "the repository refused or failed",
                _ => "no checkpoint fact known",
            }
        ),
    }
}
