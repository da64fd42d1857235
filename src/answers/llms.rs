//! `/llms.txt` (llmstxt.org): the short Markdown guide for agents at the site's root, one more
//! rendering of the contract. Its routes, parameters, agent instructions and links are read from
//! the about and OpenAPI documents (`contract.rs`, built from `query` and `fields.rs`), its
//! errors from [`ErrorCode`], and its MCP set-up from `mcp`, so it cannot drift from them.
//! Deterministic: the same base and docs URLs give the same bytes.

use std::fmt::Write;

use serde_json::Value;

use crate::answers::catalogue::{
    client_config, mcp_url, Connection, HISTORIES_INSTRUCTION, MCP_INSTRUCTIONS, READING, TOOLS,
};
use crate::answers::contract;
use crate::answers::render::ErrorCode;

/// Site-relative path of the guide.
pub const LLMS_FILE: &str = "llms.txt";

/// The summary paragraph under the title: what the contract promises, in a few sentences.
const SUMMARY: &str = "A public, anonymous, read-only JSON API served as static files: no key, \
header or cookie; only GET and HEAD. Every value carries its own `state` and `reason`: a null \
value is unknown, never zero, and must not be replaced with a number. Exact decimals are JSON \
strings; a `fraction` is a share from 0 to 1. Demand (OpenRouter's public rankings) and model \
facts (Hugging Face files pinned by commit) are separate sources. The API does not identify \
underserved models. Read the contract before querying models.";

/// The quick start that opens the guide: one request and the shape of its answer (abridged by
/// hand: `…` stands for what each member holds; the contract defines every field).
const QUICK_START: &str = r#"Quick start: `GET {base}/api/v1/models?limit=2` answers the top two models by 30-day tokens:

```json
{"schema_version": "model-demand.agent-api.v1",
 "generated_at": "…Z", "evaluation_cutoff": "…Z",
 "freshness": {"state": "fresh", "fresh_until": "…Z", "reason": "within_expected_update_window"},
 "window": {"start_date": "…", "end_date": "…", "days": 30},
 "source": {"name": "OpenRouter", "url": "https://openrouter.ai/rankings", …, "attribution": "…"},
 "query": {"mode": "list", "model_id": null, "sort": "tokens_30d", "order": "desc", "limit": 2, "offset": 0},
 "pagination": {"total_matching_models": …, "offset": 0, "limit": 2, "returned_count": 2, "has_next_page": true},
 "models": [
  {"model_id": "…", "model_release_id": "…", "first_visible_date": "…",
   "latest_rank": {"value": 1, "state": "available", "reason": null},
   "tokens_30d": {"value": "…", "unit": "tokens", "state": "available", "reason": null},
   "trend": {"direction": "down", "state": "available", "reason": null, …},
   "facts": {"total_parameters": {"value": null, "unit": "parameters", "state": "not_available", "reason": "evidence_missing", "source_url": null}, …},
   "supply": {"state": "available", "reason": null, "summary": {…}}, …},
  …]}
```

Every value is an object with its `state` and `reason`: `"value": null` is unknown, never zero. A position in `models` is not a rank: the rank is `latest_rank`. In URLs, percent-encode a model ID (`model_id=a%2Fb%3Afree`); MCP tool arguments take it as written (`a/b:free`)."#;

/// A JSON value's text: strings without quotes, anything else as JSON.
fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `/llms.txt` of a site published at `base_url` (its documentation at `docs_url` when given);
/// `sample` when the site is built from the bundled sample, which the guide then says first.
pub fn llms_txt(base_url: &str, docs_url: Option<&str>, sample: bool) -> String {
    let base = base_url.trim_end_matches('/');
    // The supply launch state is the only build-dependent member, and this guide omits it.
    let about = contract::about(base, docs_url, false);
    let openapi = contract::openapi(base, docs_url);
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", text(&openapi["info"]["title"]));
    let _ = writeln!(out, "> {}\n", text(&openapi["info"]["summary"]));
    if sample {
        let _ = writeln!(out, "**Sample data.** {}\n", crate::input::sample::NOTICE);
    }
    let _ = writeln!(out, "{}\n", QUICK_START.replace("{base}", base));
    let _ = writeln!(out, "{SUMMARY}\n");

    out.push_str("## Routes\n\n");
    for route in about["routes"].as_array().into_iter().flatten() {
        let _ = writeln!(
            out,
            "- `{} {}`: {}",
            text(&route["method"]),
            text(&route["path"]),
            text(&route["description"])
        );
    }
    for tag in ["feeds", "tables"] {
        for (path, item) in openapi["paths"].as_object().into_iter().flatten() {
            if item["get"]["tags"][0] == tag {
                let _ = writeln!(out, "- `GET {path}`: {}.", text(&item["get"]["summary"]));
            }
        }
    }
    let _ = writeln!(
        out,
        "- `GET /api/openapi.json`: the OpenAPI {} description of these routes.",
        text(&openapi["openapi"])
    );
    let _ = writeln!(
        out,
        "- `GET /{LLMS_FILE}`: this guide.\n\nParameters of `GET /api/v1/models`, each at most once:\n"
    );
    for parameter in about["query_parameters"].as_array().into_iter().flatten() {
        let mut facts = vec![text(&parameter["type"])];
        if !parameter["default"].is_null() {
            facts.push(format!("default `{}`", text(&parameter["default"])));
        }
        if let Some(allowed) = parameter["allowed_values"].as_array() {
            let names: Vec<String> = allowed.iter().map(|v| format!("`{}`", text(v))).collect();
            facts.push(format!("one of {}", names.join(", ")));
        }
        let _ = writeln!(
            out,
            "- `{}` ({}): {}",
            text(&parameter["name"]),
            facts.join("; "),
            text(&parameter["description"])
        );
    }
    out.push_str(
        "\nErrors are JSON, `{\"schema_version\": \"model-demand.agent-api-error.v1\", \"error\": CODE, \"message\": TEXT}`; parse `error`, not the message:\n\n",
    );
    for code in ErrorCode::ALL {
        let _ = writeln!(out, "- {} `{}`", code.status(), code.as_str());
    }

    out.push_str("\n## Agent instructions\n\n");
    for (n, line) in about["agent_instructions"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let _ = writeln!(out, "{}. {}", n + 1, text(line));
    }

    let links = &about["links"];
    let documentation = text(&links["documentation"]);
    out.push_str("\n## Links\n\n");
    let _ = writeln!(out, "- [Contract]({base}/api/v1/about): routes, parameters, every field with its type, unit and nullability, states, sources and licenses, agent instructions.");
    let _ = writeln!(
        out,
        "- [OpenAPI 3.1]({}): the same API for generated clients, as strict as the server.",
        text(&links["openapi"])
    );
    let _ = writeln!(out, "- [Documentation]({documentation}): the API for people, with the current ranked table and each model's facts.");
    let _ = writeln!(
        out,
        "- [Export feed]({}): the accepted export, with daily demand history.",
        text(&links["full_export"])
    );
    let _ = writeln!(
        out,
        "- [Supply feed]({base}/api/supply): provider supply and the history of supply collections."
    );
    let _ = writeln!(
        out,
        "- [Tables]({base}{}): the records, the daily demand history, the source days and the supply endpoints as CSV (UTF-8, a header row; an empty cell is unknown, never zero, with each value's `_state` and `_reason` beside it), described by this Frictionless Data Package.",
        crate::answers::tables::DATAPACKAGE_PATH
    );

    out.push_str("\n## MCP server\n\n");
    let _ = writeln!(
        out,
        "Agents that use the Model Context Protocol reach this API as tools at `{}` (Streamable HTTP, stateless, JSON responses): {}. Each tool answers with the API's own bytes, cut to what is asked (every value object whole); a refusal of the API is a tool error whose text is the API's error body. {} {} {}\n\nAdd it to a client by URL:\n",
        mcp_url(base),
        TOOLS
            .iter()
            .map(|tool| format!("`{}` ({})", tool.name, tool.summary))
            .collect::<Vec<_>>()
            .join(", "),
        READING,
        HISTORIES_INSTRUCTION,
        MCP_INSTRUCTIONS[1..].join(" ")
    );
    let _ = writeln!(
        out,
        "```json\n{}\n```\n\nOr start the same server on stdio with `model-demand mcp` (the program on `PATH`):\n",
        client_config(base, Connection::Url)
    );
    let _ = writeln!(
        out,
        "```json\n{}\n```",
        client_config(base, Connection::Stdio)
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guide_names_every_route_parameter_and_instruction() {
        let guide = llms_txt("https://x.test/", None, false);
        assert!(guide.starts_with("# model-demand\n\n> "));
        // The quick start comes right after the summary line: one request and its shape.
        let after_summary = guide.split("\n\n").nth(2).expect("a third paragraph");
        assert!(
            after_summary.starts_with("Quick start: `GET https://x.test/api/v1/models?limit=2`"),
            "{after_summary}"
        );
        assert!(guide.contains("`a/b:free`") && guide.contains("model_id=a%2Fb%3Afree"));
        assert!(guide.contains(READING));
        for needle in [
            "`GET /api/v1/about`",
            "`GET /api/v1/models`",
            "`GET /api/export`",
            "`GET /api/supply`",
            "`GET /api/tables/datapackage.json`",
            "`GET /api/tables/models.csv`",
            "`GET /api/tables/daily.csv`",
            "https://x.test/api/tables/datapackage.json",
            "`GET /api/openapi.json`",
            "https://x.test/docs/",
            "\"--base-url\"",
            "\"url\": \"https://x.test/mcp\"",
        ] {
            assert!(guide.contains(needle), "{needle} missing");
        }
        for name in crate::query::PARAMETERS {
            assert!(guide.contains(&format!("- `{name}` (")), "{name}");
        }
        for line in contract::AGENT_INSTRUCTIONS {
            assert!(guide.contains(line), "{line}");
        }
        assert_eq!(
            guide,
            llms_txt("https://x.test", None, false),
            "deterministic"
        );
        assert!(
            !guide.contains("Sample data") && !guide.contains(crate::input::sample::SAMPLE_COMMIT)
        );
    }

    #[test]
    fn a_guide_to_the_sample_says_so_right_after_its_summary() {
        let guide = llms_txt("https://x.test", None, true);
        let third = guide.split("\n\n").nth(2).expect("a third paragraph");
        assert_eq!(
            third,
            format!("**Sample data.** {}", crate::input::sample::NOTICE)
        );
        // Otherwise the same guide.
        assert_eq!(
            guide.replacen(&format!("{third}\n\n"), "", 1),
            llms_txt("https://x.test", None, false)
        );
    }
}
