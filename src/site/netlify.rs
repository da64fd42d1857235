//! The CDN rules: `_redirects`, `_headers` and `netlify.toml`, all derived from the query
//! module, so every plain request reaches exactly the precomputed file `query/` names.
//!
//! Netlify's redirect engine matches a query rule when every named parameter is present
//! (extra ones are ignored) and takes the first match, so rules run from the most specific to
//! the least, and a placeholder fallback that answers 400 follows the literal rules of each
//! parameter it guards (DESIGN §7).

use std::fmt::Write;

use crate::answers::render::ErrorCode;
use crate::answers::tables;
use crate::query::{list_file, model_file, ListQuery, Order, SortKey, ANSWERS_DIR};

use crate::answers::addresses::CHART_PATHS;
pub use crate::answers::addresses::MODELS_PATH;

/// Site-relative path of the precomputed body of an error.
pub fn error_file(code: ErrorCode) -> String {
    format!("_api/errors/{}.json", code.as_str())
}

/// Every answer's guard against content sniffing: a browser takes each body as the type it
/// is served with (a JSON error body is never run as HTML, a CSV never as script).
pub const NOSNIFF: (&str, &str) = ("X-Content-Type-Options", "nosniff");

/// The headers every JSON answer carries, on the CDN and in the preview server alike.
pub const JSON_HEADERS: [(&str, &str); 4] = [
    ("Content-Type", "application/json"),
    ("Access-Control-Allow-Origin", "*"),
    ("Cache-Control", "public, max-age=0, must-revalidate"),
    NOSNIFF,
];

/// What the docs page may load: nothing but its own `<style>` element (by its SHA-256, so an
/// injected style or any script is refused) and `data:` images (its inline icon). The page has
/// no script, no external asset and no form; its charts are SVG elements of the document, which
/// a policy does not govern; no page may frame it. The hash is of
/// [`crate::answers::page::style_text`]: a test keeps the two equal (edit the template's style,
/// then this line and `netlify.toml`).
pub const PAGE_CSP: &str = "default-src 'none'; style-src 'sha256-pA62JUb7+emR/j3NXeiJckap0OhnTUm+dvzVO4k+bzQ='; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The headers of the HTML docs page: its policy, and no referrer sent to the sources it links.
pub const HTML_HEADERS: [(&str, &str); 6] = [
    ("Content-Type", "text/html; charset=utf-8"),
    ("Access-Control-Allow-Origin", "*"),
    ("Cache-Control", "public, max-age=0, must-revalidate"),
    NOSNIFF,
    ("Content-Security-Policy", PAGE_CSP),
    ("Referrer-Policy", "no-referrer"),
];

/// The headers of `/llms.txt`, a Markdown guide: plain text, so every browser and agent shows it.
pub const TEXT_HEADERS: [(&str, &str); 4] = [
    ("Content-Type", "text/plain; charset=utf-8"),
    ("Access-Control-Allow-Origin", "*"),
    ("Cache-Control", "public, max-age=0, must-revalidate"),
    NOSNIFF,
];

/// The headers of the flat tables' CSV files (`/api/tables/*.csv`), with the feeds' CORS and
/// caching.
pub const CSV_HEADERS: [(&str, &str); 4] = [
    ("Content-Type", "text/csv; charset=utf-8"),
    ("Access-Control-Allow-Origin", "*"),
    ("Cache-Control", "public, max-age=0, must-revalidate"),
    NOSNIFF,
];

/// The headers of the tables' Parquet twins (`/api/tables/*.parquet`), with the feeds' CORS
/// and caching.
pub const PARQUET_HEADERS: [(&str, &str); 4] = [
    ("Content-Type", tables::PARQUET_MEDIA_TYPE),
    ("Access-Control-Allow-Origin", "*"),
    ("Cache-Control", "public, max-age=0, must-revalidate"),
    NOSNIFF,
];

/// The headers of the charts (`/charts/*.svg`): SVG images, with the feeds' CORS and caching.
pub const SVG_HEADERS: [(&str, &str); 4] = [
    ("Content-Type", "image/svg+xml"),
    ("Access-Control-Allow-Origin", "*"),
    ("Cache-Control", "public, max-age=0, must-revalidate"),
    NOSNIFF,
];

/// A `_headers` rule: a path pattern (exact, or a prefix ending in `/*`) and its header set.
type HeaderRule = (&'static str, &'static [(&'static str, &'static str)]);

/// The rules of `_headers` and `netlify.toml` that every site has. No two of them match one
/// path (a test holds it): what a host does with a header two matching rules both set is its
/// own (Cloudflare Pages joins the values with a comma, `netlify dev` keeps the later one,
/// Netlify's CDN does not document it), so the `/api/` addresses are listed one by one rather
/// than under `/api/*`, which would also match the tables' CSV files.
const COMMON_HEADER_RULES: [HeaderRule; 10] = [
    ("/api/v1/*", &JSON_HEADERS),
    ("/api/openapi.json", &JSON_HEADERS),
    ("/api/export", &JSON_HEADERS),
    ("/api/export.json", &JSON_HEADERS),
    ("/api/supply", &JSON_HEADERS),
    ("/api/supply.json", &JSON_HEADERS),
    ("/_api/*", &JSON_HEADERS),
    ("/docs/*", &HTML_HEADERS),
    ("/manifest.json", &JSON_HEADERS),
    ("/llms.txt", &TEXT_HEADERS),
];

/// The rules of the tables and the charts, in the `_headers` of a site with data only: a site
/// without data answers their addresses with the JSON 503, which must not be labelled CSV or SVG.
const TABLE_HEADER_RULES: [HeaderRule; 11] = [
    (tables::DATAPACKAGE_PATH, &JSON_HEADERS),
    (tables::CSV_PATHS[0], &CSV_HEADERS),
    (tables::CSV_PATHS[1], &CSV_HEADERS),
    (tables::CSV_PATHS[2], &CSV_HEADERS),
    (tables::CSV_PATHS[3], &CSV_HEADERS),
    (tables::PARQUET_PATHS[0], &PARQUET_HEADERS),
    (tables::PARQUET_PATHS[1], &PARQUET_HEADERS),
    (tables::PARQUET_PATHS[2], &PARQUET_HEADERS),
    (tables::PARQUET_PATHS[3], &PARQUET_HEADERS),
    (CHART_PATHS[0], &SVG_HEADERS),
    (CHART_PATHS[1], &SVG_HEADERS),
];

/// Path patterns of a site's `_headers`, with the header set each gets.
fn header_rules(has_data: bool) -> impl Iterator<Item = HeaderRule> {
    let tables: &[HeaderRule] = if has_data { &TABLE_HEADER_RULES } else { &[] };
    COMMON_HEADER_RULES
        .into_iter()
        .chain(tables.iter().copied())
}

/// True when a `_headers` pattern matches the site file `key` (public path `/KEY`).
fn pattern_matches(pattern: &str, key: &str) -> bool {
    // Every pattern is an absolute path; the key is the same path without its `/`.
    let pattern = pattern.strip_prefix('/').unwrap_or(pattern);
    match pattern.strip_suffix('*') {
        Some(prefix) => key.starts_with(prefix),
        None => key == pattern,
    }
}

/// The headers the CDN gives a public path (`/api/v1/about`), by the `_headers` pattern that
/// matches it; JSON headers where none does.
pub fn headers_for(public_path: &str) -> &'static [(&'static str, &'static str)] {
    public_path
        .strip_prefix('/')
        .map_or(&JSON_HEADERS, headers_for_file)
}

/// The headers the CDN gives the site file `key` (public path `/KEY`), as [`headers_for`] that
/// path, without making it: the preview server asks this once a request. A table's file exists
/// only on a site with data, so the rules of such a site apply.
pub fn headers_for_file(key: &str) -> &'static [(&'static str, &'static str)] {
    header_rules(true)
        .find(|(pattern, _)| pattern_matches(pattern, key))
        .map_or(&JSON_HEADERS, |(_, headers)| headers)
}

/// A redirect of the site: `from` is an exact path, or a prefix when it ends in `*`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Redirect {
    /// The old address (`/docs/*` matches the path and everything below it).
    pub from: String,
    /// Where it lives now (a site path or an absolute URL).
    pub to: String,
    /// 301 for a moved address, 302 for an address that only leads somewhere (`/`).
    #[serde(default = "permanent")]
    pub status: u16,
}

fn permanent() -> u16 {
    301
}

impl Redirect {
    /// True when a decoded request path falls under this redirect. Like Netlify's rules, an
    /// exact `from` also matches with a trailing slash (`/api/v1/`).
    pub fn matches(&self, path: &str) -> bool {
        match self.from.strip_suffix("/*") {
            Some(dir) => path == dir || path.starts_with(&format!("{dir}/")),
            None => path == self.from || trailing_slash_of(path, &self.from),
        }
    }
}

/// True when `path` is `rule_path` with one trailing slash: Netlify normalizes the request path
/// before its rules match, so `/a` and `/a/` are the same rule (README, "Trailing slashes").
pub fn trailing_slash_of(path: &str, rule_path: &str) -> bool {
    rule_path != "/" && path.strip_suffix('/') == Some(rule_path)
}

/// Addresses published earlier and where they live now. Add a row when an address moves; the
/// CDN answers it with a 301 and so does the preview server.
pub const ALIASES: [(&str, &str); 2] = [
    ("/api/v1", "/api/v1/about"),
    ("/api/v1/openapi.json", "/api/openapi.json"),
];

/// The site's root has no document of its own: it leads to the docs page (302, so the root
/// stays free to become something else).
pub const ROOT_REDIRECT: (&str, &str) = ("/", "/docs/");

/// The redirects of a build: the alias table, the root and, when the docs live on their own
/// host, the site's `/docs/` address pointing there.
pub fn redirect_rules(docs_url: Option<&str>) -> Vec<Redirect> {
    let mut rules: Vec<Redirect> = ALIASES
        .iter()
        .map(|(from, to)| Redirect {
            from: from.to_string(),
            to: to.to_string(),
            status: 301,
        })
        .collect();
    rules.push(Redirect {
        from: ROOT_REDIRECT.0.to_string(),
        to: ROOT_REDIRECT.1.to_string(),
        status: 302,
    });
    if let Some(url) = docs_url {
        rules.push(Redirect {
            from: "/docs/*".to_string(),
            to: url.to_string(),
            status: 301,
        });
    }
    rules
}

fn redirect_lines(out: &mut String, redirects: &[Redirect]) {
    out.push_str("\n# Moved addresses (301) and the root, which leads to the docs (302).\n");
    for r in redirects {
        let _ = writeln!(out, "{}  {}  {}!", r.from, r.to, r.status);
    }
}

/// Public addresses served from a file of another name. The extensionless addresses come from
/// `.json` files, so every host (and `netlify dev`) gives them a JSON type by extension, not
/// only through `_headers`.
pub const ABOUT_FILE: &str = "api/v1/about.json";
/// The file behind `/api/export`.
pub const EXPORT_FILE: &str = "api/export.json";
/// The file behind `/api/supply`.
pub const SUPPLY_FILE: &str = "api/supply.json";

/// `(public path, site file)` of every rewrite to a static file; the feeds only on a site with
/// data (without, they are 503).
pub fn file_rewrites(has_data: bool) -> Vec<(&'static str, &'static str)> {
    let mut rewrites = vec![("/api/v1/about", ABOUT_FILE)];
    if has_data {
        rewrites.extend([("/api/export", EXPORT_FILE), ("/api/supply", SUPPLY_FILE)]);
    }
    rewrites
}

fn rewrite_lines(out: &mut String, has_data: bool) {
    out.push_str("\n# Extensionless addresses served from their .json files.\n");
    for (from, file) in file_rewrites(has_data) {
        let _ = writeln!(out, "{from}  /{file}  200");
    }
}

/// The catch-all, after the rules that shadow the configuration files: `netlify dev` serves
/// `_redirects` and `_headers` as files, so forced rules answer them with the JSON 404 on any
/// host, as the preview server does.
fn not_found_lines(out: &mut String) {
    let not_found = error_file(ErrorCode::NotFound);
    out.push_str("\n# The CDN's configuration is not served.\n");
    for file in CONFIG_FILES {
        let _ = writeln!(out, "/{file}  /{not_found}  404!");
    }
    out.push_str("\n# Anything else is a JSON 404.\n");
    let _ = writeln!(out, "/*  /{not_found}  404");
}

/// Paths a site without data answers with 503 `data_unavailable`: the model route, the feeds,
/// the tables and the charts.
pub const UNAVAILABLE_PATHS: [&str; 14] = [
    MODELS_PATH,
    "/api/export",
    "/api/supply",
    tables::DATAPACKAGE_PATH,
    tables::CSV_PATHS[0],
    tables::CSV_PATHS[1],
    tables::CSV_PATHS[2],
    tables::CSV_PATHS[3],
    tables::PARQUET_PATHS[0],
    tables::PARQUET_PATHS[1],
    tables::PARQUET_PATHS[2],
    tables::PARQUET_PATHS[3],
    CHART_PATHS[0],
    CHART_PATHS[1],
];

/// Files of the site that configure the CDN and are never served.
pub const CONFIG_FILES: [&str; 2] = ["_redirects", "_headers"];

/// The `_headers` file of a site with data (`has_data`) or without.
pub fn headers_file(has_data: bool) -> String {
    let mut out = String::from(
        "# Generated by model-demand build: headers of every public and rewrite-target path.\n",
    );
    for (pattern, headers) in header_rules(has_data) {
        let _ = writeln!(out, "{pattern}");
        for (name, value) in headers {
            let _ = writeln!(out, "  {name}: {value}");
        }
    }
    out
}

/// The repository's `netlify.toml`: publish directory, build command and the headers every
/// site's `_headers` has (the tables' are in `_headers` alone: a site without data has no
/// tables). A test keeps the committed file equal to this text.
pub fn netlify_toml() -> String {
    let mut out = String::from(
        "# Generated by `model-demand netlify-toml`; a test keeps it equal to the code's rules.\n\
         # Netlify builds the committed inputs (data/live/ on the data branch; README, \"Publishing\"):\n\
         # the no-data site when there are none, never the bundled sample; then `verify`.\n\
         [build]\n  command = \"bash scripts/netlify/build.sh\"\n  publish = \"out\"\n\n\
         # The edge function applies the query rules the redirect rules cannot (README, \"The CDN\"),\n\
         # and assembles the list answers of the edge layout; Netlify's CDN may keep those answers\n\
         # (their Netlify-CDN-Cache-Control) until the next deploy (docs/decisions.md).\n\
         [[edge_functions]]\n  path = \"/api/v1/models\"\n  function = \"models\"\n  cache = \"manual\"\n\n\
         # The MCP tools by URL: Streamable HTTP, stateless, JSON answers (docs/agents.md).\n\
         [[edge_functions]]\n  path = \"/mcp\"\n  function = \"mcp\"\n",
    );
    for (pattern, headers) in COMMON_HEADER_RULES {
        let _ = write!(
            out,
            "\n[[headers]]\n  for = \"{pattern}\"\n  [headers.values]\n"
        );
        for (name, value) in headers {
            let _ = writeln!(out, "    {name} = \"{value}\"");
        }
    }
    out
}

/// One query-rule line.
fn rule(out: &mut String, conditions: &[String], target: &str, status: u16) {
    let conditions = conditions.join(" ");
    let _ = writeln!(out, "{MODELS_PATH}  {conditions}  /{target}  {status}");
}

/// A list target with placeholders for the parameters the request gives and defaults for the rest.
fn list_target(sort: SortKey, order: Order, limit: bool, offset: bool) -> String {
    let defaults = ListQuery::default();
    let template = list_file(&ListQuery {
        sort,
        order,
        ..defaults
    });
    // list_file ends in "/{limit}/{offset}.json"; swap in placeholders where given.
    let stem = template
        .rsplitn(3, '/')
        .nth(2)
        .unwrap_or(ANSWERS_DIR)
        .to_string();
    let limit = if limit {
        ":limit".to_string()
    } else {
        defaults.limit.to_string()
    };
    let offset = if offset {
        ":offset".to_string()
    } else {
        defaults.offset.to_string()
    };
    format!("{stem}/{limit}/{offset}.json")
}

/// The conditions for the optional limit and offset parameters.
fn paging_conditions(limit: bool, offset: bool) -> Vec<String> {
    let mut c = Vec::new();
    if limit {
        c.push("limit=:limit".to_string());
    }
    if offset {
        c.push("offset=:offset".to_string());
    }
    c
}

/// Every combination of limit and offset presence, most specific first.
const PAGING: [(bool, bool); 4] = [(true, true), (true, false), (false, true), (false, false)];

/// One literal rule per served model to its exact answer (Netlify compares the decoded value,
/// case-sensitively), then the JSON 404 for any other `model_id`: the same in both layouts.
fn exact_lookup_rules(out: &mut String, model_ids: &[String]) {
    for id in model_ids {
        rule(out, &[format!("model_id={id}")], &model_file(id), 200);
    }
    rule(
        out,
        &["model_id=:id".to_string()],
        &error_file(ErrorCode::ModelNotFound),
        404,
    );
}

/// The `_redirects` file of a site with data serving `model_ids`.
pub fn redirects_file(model_ids: &[String], redirects: &[Redirect]) -> String {
    let mut out = String::from(
        "# Generated by model-demand build. First match wins; query rules match when every named\n\
         # parameter is present, so the most specific rules come first.\n\n# Exact lookups: one literal rule per served model.\n",
    );
    exact_lookup_rules(&mut out, model_ids);

    let invalid = error_file(ErrorCode::InvalidQuery);
    out.push_str("\n# Lists with sort and order.\n");
    for (limit, offset) in PAGING {
        for sort in SortKey::ALL {
            for order in Order::ALL {
                let mut c = vec![
                    format!("sort={}", sort.as_str()),
                    format!("order={}", order.as_str()),
                ];
                c.extend(paging_conditions(limit, offset));
                rule(&mut out, &c, &list_target(sort, order, limit, offset), 200);
            }
        }
    }
    rule(
        &mut out,
        &["sort=:sort".to_string(), "order=:order".to_string()],
        &invalid,
        400,
    );
    out.push_str("\n# Lists with sort only.\n");
    for (limit, offset) in PAGING {
        for sort in SortKey::ALL {
            let mut c = vec![format!("sort={}", sort.as_str())];
            c.extend(paging_conditions(limit, offset));
            rule(
                &mut out,
                &c,
                &list_target(sort, Order::DEFAULT, limit, offset),
                200,
            );
        }
    }
    rule(&mut out, &["sort=:sort".to_string()], &invalid, 400);
    out.push_str("\n# Lists with order only.\n");
    for (limit, offset) in PAGING {
        for order in Order::ALL {
            let mut c = vec![format!("order={}", order.as_str())];
            c.extend(paging_conditions(limit, offset));
            rule(
                &mut out,
                &c,
                &list_target(SortKey::DEFAULT, order, limit, offset),
                200,
            );
        }
    }
    rule(&mut out, &["order=:order".to_string()], &invalid, 400);
    out.push_str("\n# Lists with defaults for sort and order.\n");
    for (limit, offset) in PAGING {
        let target = list_target(SortKey::DEFAULT, Order::DEFAULT, limit, offset);
        let c = paging_conditions(limit, offset);
        if c.is_empty() {
            let _ = writeln!(out, "{MODELS_PATH}  /{target}  200");
        } else {
            rule(&mut out, &c, &target, 200);
        }
    }
    rewrite_lines(&mut out, true);
    redirect_lines(&mut out, redirects);
    not_found_lines(&mut out);
    out
}

/// The `_redirects` file of the `edge` layout (DESIGN §8.1): exact lookups stay literal rules
/// to their files; every list answer is the edge function's to assemble, and should the
/// function not run (its `onError` is `bypass`), a list request gets the JSON 503
/// `data_unavailable` here, never a page that does not exist.
pub fn edge_redirects_file(model_ids: &[String], redirects: &[Redirect]) -> String {
    let mut out = String::from(
        "# Generated by model-demand build --layout edge. First match wins. List answers are\n\
         # assembled by the edge function; without it they are the JSON 503 below.\n\n# Exact lookups: one literal rule per served model.\n",
    );
    exact_lookup_rules(&mut out, model_ids);
    out.push_str("\n# Lists: the edge function's; this answers only when it cannot run.\n");
    let _ = writeln!(
        out,
        "{MODELS_PATH}  /{}  503",
        error_file(ErrorCode::DataUnavailable)
    );
    rewrite_lines(&mut out, true);
    redirect_lines(&mut out, redirects);
    not_found_lines(&mut out);
    out
}

/// The `_redirects` file of a site built without data: the model route and the feeds are 503.
pub fn unavailable_redirects_file(redirects: &[Redirect]) -> String {
    let unavailable = error_file(ErrorCode::DataUnavailable);
    let mut out =
        String::from("# Generated by model-demand build --unavailable: no accepted data.\n");
    for path in UNAVAILABLE_PATHS {
        let _ = writeln!(out, "{path}  /{unavailable}  503");
    }
    rewrite_lines(&mut out, false);
    redirect_lines(&mut out, redirects);
    not_found_lines(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_targets_use_placeholders_only_where_given() {
        assert_eq!(
            list_target(SortKey::LatestRank, Order::Asc, true, false),
            "_api/models/list/latest_rank/asc/:limit/0.json"
        );
        assert_eq!(
            list_target(SortKey::Tokens30d, Order::Desc, false, false),
            list_file(&ListQuery::default())
        );
    }

    #[test]
    fn no_two_header_rules_match_one_path() {
        // As loosely as Netlify's own matcher: case-insensitive, `/a/*` matching anything that
        // starts with `/a` (its regular expression is `^/a/?(.*)/?$`).
        let reach = |pattern: &str| {
            let lower = pattern.to_ascii_lowercase();
            match lower.strip_suffix("/*") {
                Some(prefix) => (prefix.to_string(), true),
                None => (lower, false),
            }
        };
        let rules: Vec<HeaderRule> = header_rules(true).collect();
        for (i, (a, _)) in rules.iter().enumerate() {
            for (b, _) in &rules[i + 1..] {
                let ((pa, wa), (pb, wb)) = (reach(a), reach(b));
                let overlap = match (wa, wb) {
                    (false, false) => pa == pb,
                    (true, false) => pb.starts_with(&pa),
                    (false, true) => pa.starts_with(&pb),
                    (true, true) => pa.starts_with(&pb) || pb.starts_with(&pa),
                };
                assert!(!overlap, "{a} and {b} match a path in common");
            }
        }
    }

    #[test]
    fn the_tables_are_csv_and_their_package_json_on_a_site_with_data_only() {
        for path in tables::CSV_PATHS {
            assert_eq!(headers_for(path), &CSV_HEADERS, "{path}");
            assert!(headers_file(true).contains(&format!(
                "{path}\n  Content-Type: text/csv; charset=utf-8\n"
            )));
            assert!(!headers_file(false).contains(path));
            assert!(!netlify_toml().contains(path));
        }
        for path in tables::PARQUET_PATHS {
            assert_eq!(headers_for(path), &PARQUET_HEADERS, "{path}");
            assert!(headers_file(true).contains(&format!(
                "{path}\n  Content-Type: application/vnd.apache.parquet\n"
            )));
            assert!(!headers_file(false).contains(path));
        }
        assert_eq!(headers_for(tables::DATAPACKAGE_PATH), &JSON_HEADERS);
        for path in [
            "/api/v1/about",
            "/api/openapi.json",
            "/api/export",
            "/api/supply",
        ] {
            assert_eq!(headers_for(path), &JSON_HEADERS, "{path}");
        }
        assert_eq!(headers_for("/llms.txt"), &TEXT_HEADERS);
    }

    #[test]
    fn every_header_set_forbids_sniffing() {
        for (pattern, headers) in header_rules(true) {
            assert!(headers.contains(&NOSNIFF), "{pattern}");
        }
        assert!(headers_file(false).contains("  X-Content-Type-Options: nosniff\n"));
    }

    #[test]
    fn the_page_policy_allows_exactly_its_own_style() {
        let hash =
            crate::base::digest::sha256_base64(crate::answers::page::style_text().as_bytes());
        assert!(
            PAGE_CSP.contains(&format!("style-src 'sha256-{hash}';")),
            "the page's style is now 'sha256-{hash}': update PAGE_CSP and netlify.toml"
        );
        assert!(PAGE_CSP.starts_with("default-src 'none';"));
        assert!(!PAGE_CSP.contains("script") && !PAGE_CSP.contains("unsafe"));
        let docs = headers_for("/docs/");
        assert!(docs.contains(&("Content-Security-Policy", PAGE_CSP)));
        assert!(docs.contains(&("Referrer-Policy", "no-referrer")));
        // Only the page has a policy: JSON, text, CSV and SVG are never rendered as documents.
        for path in [
            "/api/v1/about",
            "/llms.txt",
            tables::CSV_PATHS[0],
            CHART_PATHS[0],
        ] {
            assert!(
                !headers_for(path)
                    .iter()
                    .any(|(n, _)| *n == "Content-Security-Policy"),
                "{path}"
            );
        }
    }

    #[test]
    fn committed_netlify_toml_matches_the_rules() {
        let committed = include_str!("../../netlify.toml");
        assert_eq!(
            committed,
            netlify_toml(),
            "run `model-demand netlify-toml > netlify.toml`"
        );
    }
}
