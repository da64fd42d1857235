//! The human docs page (`/docs/`): what the API is and is not, the share chart of the leading
//! models (`charts.rs`), the current window as a ranked table, freshness and attribution, the
//! query parameters with example links.
//! Static HTML from `templates/docs.html`, no external assets; unknown values read "unknown".

use std::fmt::Write;

use crate::answers::catalogue::{client_config, mcp_url, Connection};
use crate::answers::contract::DOCUMENTATION_VERSION;
use crate::query::{self, percent_encode, Order, SortKey};
use crate::records::ServedModels;

mod ranked;

use crate::answers::human::table_order;
use crate::answers::human::{escape, human_bytes, human_count};
pub use ranked::reason_words;
use ranked::{first_chart, glance, table};

const TEMPLATE: &str = include_str!("../../../templates/docs.html");

/// The text of the page's one `<style>` element, exactly as served: the page carries no other
/// style (no `style` attribute, no `<style>` in its SVG), so its hash is the whole of what the
/// page's `Content-Security-Policy` must allow of styles.
pub fn style_text() -> &'static str {
    TEMPLATE
        .split_once("<style>")
        .and_then(|(_, rest)| rest.split_once("</style>"))
        .map_or("", |(style, _)| style)
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
        for (spec, fact) in crate::input::export::FACTS.iter().zip(&record.facts.0) {
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
    let fields = crate::answers::fields::model_response_fields();
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
    crate::answers::catalogue::TOOLS
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
            escape(crate::input::sample::NOTICE)
        ),
        _ => String::new(),
    }
}

/// The docs page of a build published at `base_url`; `catalog` is `None` for a site without
/// accepted data.
pub fn page(data: Option<(&crate::input::Inputs, &ServedModels)>, base_url: &str) -> String {
    let catalog = data.map(|(_, c)| c);
    let supply = data.and_then(|(inputs, _)| inputs.supply.as_ref());
    let facts_html =
        catalog.map_or_else(|| "<p>No data in this build.</p>".to_string(), model_facts);
    let first_chart_html = data.map_or_else(String::new, |(inputs, c)| {
        format!("\n{}", first_chart(&inputs.export, c))
    });
    let glance_html = data.map_or_else(
        || "<p>No data in this build.</p>".to_string(),
        |(inputs, c)| glance(&inputs.export, c),
    );
    let (status_html, caption, table_html, attribution) = match catalog {
        Some(c) => (
            status(c),
            format!("Ordered by the rank on the window's last day, {}, as the first column says; the models outside the top 50 that day follow, by model ID. The trend is the change of the 7-day share from the 7 days before, in percentage points (pp) and relative to the share before (a small share that doubles is +100 %). The providers are named the cheapest first (by input price, then output price), each at its cheapest endpoint, the first three and a count of the rest; every endpoint is in supply.csv and in the MCP tool get_providers. The context is the longest a provider serves (128K is 131,072 tokens); the cache at full context is computed at the model's own maximum length, written beside it. An unknown value says why; hover a value for its exact figure, which the API and the tables give for every value.", c.head.window.end_date),
            table(c, supply),
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
        .replace("\n{{first_chart}}", &first_chart_html)
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
    fn the_page_has_one_style_element_and_no_style_attribute() {
        let page = page(None, "https://x.test");
        assert_eq!(page.matches("<style").count(), 1);
        assert!(!page.contains(" style="));
        assert!(page.contains(&format!("<style>{}</style>", style_text())));
        assert!(!style_text().is_empty());
    }

    #[test]
    fn human_units() {
        assert_eq!(human_fact("81920", "bytes_per_token"), "81.9 kB per token");
        assert_eq!(
            reason_words("outside_top_50_on_some_days"),
            "a day outside the top 50"
        );
    }
}
