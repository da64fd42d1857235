//! The human docs page (`/docs/`): what the API is and is not, the share chart of the leading
//! models (`charts.rs`), the current window as a ranked table, freshness and attribution, the
//! query parameters with example links.
//! Static HTML from `templates/docs.html`, no external assets; unknown values read "unknown".

use std::fmt::Write;

use rust_decimal::Decimal;

use crate::catalogue::{client_config, mcp_url, Connection};
use crate::contract::DOCUMENTATION_VERSION;
use crate::export::FactName;
use crate::query::{self, percent_encode, Order, SortKey};
use crate::records::{ModelRecord, ServedModels, Valued};
use crate::validate::format_date;

const TEMPLATE: &str = include_str!("../templates/docs.html");

/// Escapes text for HTML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A count in short human form with SI prefixes: `155850000000` → `155.85 B`.
pub fn human_count(digits: &str, unit: &str) -> String {
    let Ok(value) = digits.parse::<u128>() else {
        return escape(digits);
    };
    let steps = [(1e15, "P"), (1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")];
    let as_float = value as f64;
    for (scale, prefix) in steps {
        if as_float >= scale {
            return format!("{:.2} {prefix}{unit}", as_float / scale);
        }
    }
    format!("{value} {unit}").trim_end().to_string()
}

/// Bytes in decimal SI units with one decimal and the unit, the page's one byte format (the
/// exact figure is on hover and in the API): `141107412992` → `141.1 GB`.
pub fn human_bytes(digits: &str) -> String {
    let Ok(value) = digits.parse::<u128>() else {
        return escape(digits);
    };
    let steps = [
        (1e15, "PB"),
        (1e12, "TB"),
        (1e9, "GB"),
        (1e6, "MB"),
        (1e3, "kB"),
    ];
    let as_float = value as f64;
    for (scale, unit) in steps {
        if as_float >= scale {
            return format!("{:.1} {unit}", as_float / scale);
        }
    }
    format!("{value} B")
}

/// A fraction as a percentage with two decimals: `0.380053576914` → `38.01 %`.
pub fn human_share(fraction: &str) -> String {
    match fraction.parse::<Decimal>() {
        Ok(f) => format!("{} %", (f * Decimal::ONE_HUNDRED).round_dp(2)),
        Err(_) => escape(fraction),
    }
}

/// A reason code in words, as the page says it beside "unknown" (the code itself is on hover
/// and in the API): `outside_top_50_on_some_days` → "a day outside the top 50".
pub fn reason_words(code: &str) -> String {
    let words = match code {
        "outside_top_50_on_some_days" => "a day outside the top 50",
        "outside_top_50_on_latest_day" => "outside the top 50 that day",
        "source_day_missing" => "a day the source did not deliver",
        "market_total_unavailable" => "a day's market total unknown",
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

/// A percentage-point change with its sign and two decimals: `"1.234"` → `+1.23 pp`.
pub fn human_points(change: &str) -> String {
    match change.parse::<Decimal>() {
        Ok(d) => {
            let sign = if d > Decimal::ZERO { "+" } else { "" };
            format!("{sign}{:.2} pp", d.round_dp(2))
        }
        Err(_) => escape(change),
    }
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

/// The order of the page's table (and so of the chart's leading models): the API's
/// `sort=latest_rank&order=asc`, the rank on the window's last day, models without one after
/// the others by model ID. The first column is that rank, so the two agree.
pub fn table_order(catalog: &ServedModels) -> Vec<usize> {
    query::sorted_indices(catalog, SortKey::LatestRank, Order::Asc)
}

fn table(catalog: &ServedModels) -> String {
    let mut out = format!(
        "<div class=\"scroll\" id=\"ranked-table\"><table>\n<thead><tr><th>Rank on {}</th><th class=\"model\">Model</th><th>30-day tokens</th><th>7-day share</th><th>Trend (7 days vs the 7 before)</th><th>Median input, $ per M tokens</th><th>Median output, $ per M tokens</th><th>Providers</th><th>Context, tokens</th><th>Total params</th><th>Active params</th><th>Weights (BF16)</th><th>Cache at full context</th><th>Supply</th></tr></thead>\n<tbody>\n",
        escape(&catalog.head.window.end_date)
    );
    for index in table_order(catalog) {
        row(&mut out, &catalog.records[index]);
    }
    out.push_str("</tbody></table></div>");
    out
}

/// The share chart inline, its links, and its figures as a table (the text alternative).
fn glance(export: &crate::export::Export, catalog: &ServedModels) -> String {
    let chart = crate::charts::ShareChart::of(export, catalog);
    let mut out = format!(
        "<figure class=\"chart\">{}<figcaption>{} Take it away: <a href=\"{}\">share.svg</a> (SVG); every day of every model: <a href=\"/api/tables/daily.csv\">daily.csv</a>.</figcaption></figure>\n",
        chart.svg(),
        escape(&chart.title()),
        crate::charts::SHARE_PATH
    );
    out.push_str("<p>The chart in words: each model's last, first and highest known share of a day's market (the exact value on hover and in <code>daily.csv</code>), and the days it was outside the top 50.</p>\n<ol class=\"chart-data\">\n");
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
    out.push_str("</ol>");
    out
}

fn status(catalog: &ServedModels) -> String {
    let h = &catalog.head;
    let state_class = if h.freshness.state == "fresh" {
        "state-fresh"
    } else {
        "state-stale"
    };
    format!(
        "<div class=\"facts\">\
<div><b>Freshness</b><span class=\"{state_class}\">{}</span> ({})</div>\
<div><b>Window</b>{} to {} ({} days)</div>\
<div><b>Generated</b>{}</div>\
<div><b>Evaluation cutoff</b>{}</div>\
<div><b>Fresh until</b>{}</div>\
<div><b>Models served</b>{}</div>\
</div>",
        h.freshness.state,
        escape(h.freshness.reason),
        h.window.start_date,
        h.window.end_date,
        h.window.days,
        escape(&h.generated_at),
        escape(&h.evaluation_cutoff),
        h.freshness
            .fresh_until
            .as_deref()
            .map_or("unknown".to_string(), escape),
        catalog.records.len()
    )
}

fn parameters() -> String {
    let sorts = SortKey::names();
    [
        "<li><code>model_id</code>: an exact model ID, URL-encoded (<code>/</code> as <code>%2F</code>, <code>:</code> as <code>%3A</code>); not combinable with the others.</li>".to_string(),
        format!("<li><code>sort</code>: one of <code>{}</code> (default <code>{}</code>). Unknown values sort last in both orders; ties by model ID.</li>", sorts.join("</code>, <code>"), SortKey::DEFAULT.as_str()),
        format!("<li><code>order</code>: <code>asc</code> or <code>desc</code> (default <code>{}</code>).</li>", Order::DEFAULT.as_str()),
        format!("<li><code>limit</code>: {} to {} (default {}).</li>", query::LIMIT_MIN, query::LIMIT_MAX, query::LIMIT_DEFAULT),
        format!("<li><code>offset</code>: 0 to {} (default 0); past the end is an empty page.</li>", query::OFFSET_MAX),
    ]
    .join("\n")
}

fn examples(catalog: Option<&ServedModels>) -> String {
    let mut list = vec![
        ("/api/v1/models".to_string(), "the top 25 by 30-day tokens"),
        (
            "/api/v1/models?sort=latest_rank&order=asc&limit=10".to_string(),
            "the latest day's top 10",
        ),
        (
            "/api/v1/models?sort=total_parameters&order=desc&limit=5".to_string(),
            "the 5 largest models with a known size",
        ),
        (
            "/api/v1/models?limit=25&offset=25".to_string(),
            "the second page",
        ),
    ];
    if let Some(first) = catalog.and_then(|c| c.records.first()) {
        list.push((
            format!(
                "/api/v1/models?model_id={}",
                percent_encode(&first.model_id)
            ),
            "one model by exact ID",
        ));
    }
    list.iter()
        .map(|(href, what)| {
            format!(
                "<li><a href=\"{}\"><code>{}</code></a>: {what}</li>",
                escape(href),
                escape(href)
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A fact's value for people, by its unit: bytes by [`human_bytes`] (the page's one byte
/// format), counts by [`human_count`] with their unit, names as they are.
fn human_fact(value: &str, unit: &str) -> String {
    match unit {
        "bytes" => human_bytes(value),
        "bytes_per_token" => format!("{} per token", human_bytes(value)),
        "architecture" | "format" => escape(value),
        "bits" => format!("{} bits", escape(value)),
        other => format!("{} {}", human_count(value, ""), other.replace('_', " ")),
    }
}

/// The twelve facts of every served model that has at least one, in the table's order, each
/// value linked to the evidence its `source_url` pins (the exact figure on hover); an unknown
/// fact shows its state and reason. The models with none are counted in one line.
fn model_facts(catalog: &ServedModels) -> String {
    let mut out = String::new();
    let mut none: Vec<&str> = Vec::new();
    for index in table_order(catalog) {
        let record = &catalog.records[index];
        let known = record.facts.0.iter().filter(|f| f.value.is_some()).count();
        if known == 0 {
            none.push(&record.model_id);
            continue;
        }
        let _ = write!(
            out,
            "<details data-model=\"{id}\"><summary><code>{id}</code> ({known} of {} facts known)</summary><dl>",
            record.facts.0.len(),
            id = escape(&record.model_id)
        );
        for (spec, fact) in crate::export::FACTS.iter().zip(&record.facts.0) {
            let _ = write!(out, "<dt>{}</dt>", spec.name);
            match (&fact.value, &fact.source_url) {
                (Some(value), Some(url)) => {
                    let _ = write!(
                        out,
                        "<dd data-fact=\"{}\" data-value=\"{}\"><a href=\"{}\" title=\"{} {}; evidence: {}\">{}</a></dd>",
                        spec.name,
                        escape(value),
                        escape(url),
                        escape(value),
                        spec.unit.replace('_', " "),
                        escape(url),
                        human_fact(value, spec.unit)
                    );
                }
                _ => {
                    let _ = write!(
                        out,
                        "<dd data-fact=\"{}\" class=\"unknown\">unknown: {} ({})</dd>",
                        spec.name,
                        fact.state.replace('_', " "),
                        escape(fact.reason.as_deref().unwrap_or(""))
                    );
                }
            }
        }
        out.push_str("</dl></details>\n");
    }
    if !none.is_empty() {
        let _ = writeln!(
            out,
            "<p id=\"no-facts\" data-count=\"{}\">{} of the {} models have none of the twelve facts known yet ({}); each fact's reason is in the API and in <a href=\"/api/tables/models.csv\">models.csv</a>.</p>",
            none.len(),
            none.len(),
            catalog.records.len(),
            none.iter().map(|id| format!("<code>{}</code>", escape(id))).collect::<Vec<_>>().join(", ")
        );
    }
    out
}

/// What the supply states and reasons mean, in the field table's own words.
fn supply_states() -> String {
    let fields = crate::fields::model_response_fields();
    let describe = |suffix: &str| {
        fields
            .iter()
            .find(|f| f.path.ends_with(suffix))
            .map_or(String::new(), |f| escape(&f.description))
    };
    format!(
        "<p>Supply <code>state</code>: {}</p>\n<p>Its <code>reason</code>: {}</p>",
        describe("supply.state"),
        describe("supply.reason")
    )
}

/// The MCP tools as list items: name and what each answers with.
fn mcp_tools() -> String {
    crate::catalogue::TOOLS
        .iter()
        .map(|tool| {
            format!(
                "<li><code>{}</code>: {}</li>",
                tool.name,
                escape(tool.summary)
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The notice that opens the page of a site built from the bundled sample (on the line of the
/// title, so the page of any other site is byte for byte what it was); empty otherwise.
fn sample_notice(catalog: Option<&ServedModels>) -> String {
    match catalog {
        Some(c) if c.sample => format!(
            "\n<p class=\"note\" id=\"sample\"><b>Sample data.</b> {}</p>",
            escape(crate::sample::NOTICE)
        ),
        _ => String::new(),
    }
}

/// The docs page of a build published at `base_url`; `catalog` is `None` for a site without
/// accepted data.
pub fn page(data: Option<(&crate::export::Export, &ServedModels)>, base_url: &str) -> String {
    let catalog = data.map(|(_, c)| c);
    let facts_html =
        catalog.map_or_else(|| "<p>No data in this build.</p>".to_string(), model_facts);
    let glance_html = data.map_or_else(
        || "<p>No data in this build.</p>".to_string(),
        |(export, c)| glance(export, c),
    );
    let (status_html, caption, table_html, attribution) = match catalog {
        Some(c) => (
            status(c),
            format!("Ordered by the rank on the window's last day, {}, as the first column says; the models outside the top 50 that day follow, by model ID. The trend is the change of the 7-day share from the 7 days before, in percentage points (pp). An unknown value says why; hover a value for its exact figure, which the API and the tables give for every value.", c.head.window.end_date),
            table(c),
            escape(&c.head.source.attribution),
        ),
        None => (
            "<p class=\"note\"><b>No accepted data.</b> This build has no accepted export: the model route answers <code>503 data_unavailable</code>; the contract is still served.</p>".to_string(),
            "No data in this build.".to_string(),
            String::new(),
            "Source: OpenRouter (openrouter.ai/rankings), CC BY 4.0.".to_string(),
        ),
    };
    TEMPLATE
        .replace("{{status}}", &status_html)
        .replace("{{table_caption}}", &escape(&caption))
        .replace("{{glance}}", &glance_html)
        .replace("{{table}}", &table_html)
        .replace("{{model_facts}}", &facts_html)
        .replace("{{supply_states}}", &supply_states())
        .replace("{{parameters}}", &parameters())
        .replace("{{examples}}", &examples(catalog))
        .replace("{{mcp_tools}}", &mcp_tools())
        .replace(
            "{{mcp_config}}",
            &escape(&client_config(base_url, Connection::Url)),
        )
        .replace(
            "{{mcp_config_stdio}}",
            &escape(&client_config(base_url, Connection::Stdio)),
        )
        .replace("{{mcp_url}}", &escape(&mcp_url(base_url)))
        .replace("{{base}}", "")
        .replace("{{attribution}}", &attribution)
        .replace("{{sample}}", &sample_notice(catalog))
        .replace("{{documentation_version}}", DOCUMENTATION_VERSION)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_of_contents_links_every_section() {
        let page = page(None, "https://x.test");
        let nav = page
            .split("<nav aria-label=\"Contents\">")
            .nth(1)
            .and_then(|rest| rest.split("</nav>").next())
            .expect("a table of contents");
        let targets: Vec<&str> = nav
            .split("href=\"#")
            .skip(1)
            .filter_map(|rest| rest.split('"').next())
            .collect();
        assert_eq!(targets.len(), page.matches("<h2").count());
        for target in targets {
            assert!(page.contains(&format!("<h2 id=\"{target}\">")), "{target}");
        }
        // It comes before the first section.
        assert!(page.find("<nav").expect("nav") < page.find("<h2").expect("h2"));
    }

    #[test]
    fn human_units() {
        assert_eq!(human_count("155850000000", ""), "155.85 B");
        assert_eq!(human_count("999", ""), "999");
        assert_eq!(human_bytes("141107412992"), "141.1 GB");
        assert_eq!(human_bytes("54000000000"), "54.0 GB");
        assert_eq!(human_fact("81920", "bytes_per_token"), "81.9 kB per token");
        assert_eq!(human_points("1.234567"), "+1.23 pp");
        assert_eq!(human_points("-0.5"), "-0.50 pp");
        assert_eq!(
            reason_words("outside_top_50_on_some_days"),
            "a day outside the top 50"
        );
        assert_eq!(human_share("0.380053576914"), "38.01 %");
        assert_eq!(human_share("0"), "0 %");
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
