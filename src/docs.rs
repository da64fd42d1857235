//! The human docs page (`/docs/`): what the API is and is not, the current window as a ranked
//! table with sparklines, freshness and attribution, the query parameters with example links.
//! Static HTML from `templates/docs.html`, no external assets; unknown values read "unknown".

use std::fmt::Write;

use rust_decimal::Decimal;

use crate::catalogue::{client_config, mcp_url, Connection};
use crate::contract::DOCUMENTATION_VERSION;
use crate::export::FactName;
use crate::query::{self, percent_encode, Order, SortKey};
use crate::records::{ModelRecord, ServedModels, Valued};

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

/// Bytes in decimal units: `141107412992` → `141.1 GB`.
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

/// One table cell carrying the exact value in `data-value` and a human rendering.
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
            let why = reason.unwrap_or("unavailable");
            let _ = write!(out, "<td class=\"unknown\" data-field=\"{field}\" data-value=\"\" title=\"unknown: {}\">unknown</td>", escape(why));
        }
    }
}

fn valued_cell(
    out: &mut String,
    field: &str,
    v: &Valued<String>,
    shown: impl FnOnce(&str) -> String,
) {
    cell(out, field, v.value.as_deref(), shown, v.reason.as_deref());
}

/// An inline SVG sparkline of daily tokens; days without a value break the line.
pub fn sparkline(daily: &[Option<u128>]) -> String {
    let (width, height) = (120.0, 24.0);
    // Scaled between the window's smallest and largest day, so day-to-day changes show.
    let max = daily.iter().flatten().copied().max().unwrap_or(0);
    let min = daily.iter().flatten().copied().min().unwrap_or(0);
    let span = (max - min) as f64;
    let step = if daily.len() > 1 {
        width / (daily.len() - 1) as f64
    } else {
        width
    };
    let mut segments: Vec<Vec<String>> = vec![Vec::new()];
    for (i, day) in daily.iter().enumerate() {
        match day {
            Some(tokens) if max > 0 => {
                let x = i as f64 * step;
                let level = if span > 0.0 {
                    (*tokens - min) as f64 / span
                } else {
                    0.5
                };
                let y = height - 2.0 - level * (height - 4.0);
                if let Some(segment) = segments.last_mut() {
                    segment.push(format!("{x:.1},{y:.1}"));
                }
            }
            _ => segments.push(Vec::new()),
        }
    }
    let mut svg = format!(
        "<svg class=\"spark\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"daily tokens over the window\">"
    );
    for segment in segments.iter().filter(|s| !s.is_empty()) {
        if segment.len() == 1 {
            let (x, y) = segment[0].split_once(',').unwrap_or(("0", "0"));
            let _ = write!(
                svg,
                "<circle cx=\"{x}\" cy=\"{y}\" r=\"1.5\" fill=\"#0b6bcb\"/>"
            );
        } else {
            let _ = write!(
                svg,
                "<polyline fill=\"none\" stroke=\"#0b6bcb\" stroke-width=\"1.5\" points=\"{}\"/>",
                segment.join(" ")
            );
        }
    }
    svg.push_str("</svg>");
    svg
}

fn row(out: &mut String, record: &ModelRecord, daily: &[Option<u128>]) {
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
    let _ = write!(out, "<td>{}</td>", sparkline(daily));
    valued_cell(out, "share_7d", &record.share_7d, human_share);
    let trend = &record.trend;
    let arrow = match trend.direction {
        "up" => "▲ up",
        "down" => "▼ down",
        "flat" => "● flat",
        _ => "unknown",
    };
    let class = if trend.direction == "unknown" {
        "unknown-trend"
    } else {
        trend.direction
    };
    let title = trend.percentage_point_change.as_deref().map_or_else(
        || format!("unknown: {}", trend.reason.as_deref().unwrap_or("")),
        |pp| format!("{pp} percentage points"),
    );
    let _ = write!(
        out,
        "<td class=\"{class}\" data-field=\"trend\" data-value=\"{}\" title=\"{}\">{arrow}</td>",
        trend.direction,
        escape(&title)
    );
    for (name, bytes) in [
        (FactName::TotalParameters, false),
        (FactName::ActiveParameters, false),
        (FactName::Bf16WeightsBytes, true),
    ] {
        let f = record.facts.0.get(name.index());
        let name = name.as_str();
        let value = f.and_then(|f| f.value.as_deref());
        let reason = f.and_then(|f| f.reason.as_deref());
        if bytes {
            cell(out, name, value, human_bytes, reason);
        } else {
            cell(out, name, value, |v| human_count(v, ""), reason);
        }
    }
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

fn table(catalog: &ServedModels) -> String {
    let mut out = String::from(
        "<div class=\"scroll\"><table>\n<thead><tr><th>Rank</th><th class=\"model\">Model</th><th>30-day tokens</th><th>Daily tokens</th><th>7-day share</th><th>Trend</th><th>Total params</th><th>Active params</th><th>BF16 weights</th><th>Supply</th></tr></thead>\n<tbody>\n",
    );
    for index in query::sorted_indices(catalog, SortKey::Tokens30d, Order::Desc) {
        row(
            &mut out,
            &catalog.records[index],
            &catalog.daily_tokens[index],
        );
    }
    out.push_str("</tbody></table></div>");
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

/// Every served model's twelve facts, in ranked order, each value linked to the evidence its
/// `source_url` pins; an unknown fact shows its state and reason.
fn model_facts(catalog: &ServedModels) -> String {
    let mut out = String::new();
    for index in query::sorted_indices(catalog, SortKey::Tokens30d, Order::Desc) {
        let record = &catalog.records[index];
        let known = record.facts.0.iter().filter(|f| f.value.is_some()).count();
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
                    let shown = match spec.kind {
                        crate::export::FactKind::Name => escape(value),
                        _ => human_count(value, ""),
                    };
                    let _ = write!(
                        out,
                        "<dd data-fact=\"{}\" data-value=\"{}\"><a href=\"{}\" title=\"evidence: {}\">{shown}</a> {}</dd>",
                        spec.name,
                        escape(value),
                        escape(url),
                        escape(url),
                        spec.unit.replace('_', " ")
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
pub fn page(catalog: Option<&ServedModels>, base_url: &str) -> String {
    let facts_html =
        catalog.map_or_else(|| "<p>No data in this build.</p>".to_string(), model_facts);
    let (status_html, caption, table_html, attribution) = match catalog {
        Some(c) => (
            status(c),
            format!("Ordered by 30-day tokens, highest first; the rank column is the rank on the window's last day, {}. With a mouse, hover a value for its exact figure or the reason it is unknown; the API gives both for every value.", c.head.window.end_date),
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
        assert_eq!(human_share("0.380053576914"), "38.01 %");
        assert_eq!(human_share("0"), "0 %");
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }

    #[test]
    fn sparklines_break_at_unknown_days() {
        let svg = sparkline(&[Some(1), Some(2), None, Some(3), Some(4)]);
        assert_eq!(svg.matches("<polyline").count(), 2);
        let single = sparkline(&[None, Some(1), None]);
        assert!(single.contains("<circle"));
    }
}
