//! The one definition of the query space of `GET /api/v1/models`: parsing raw query strings
//! (DESIGN §5), sort keys and orders, sorting with the unavailable tail, paging, the echo of the
//! effective query, the file names of every precomputed answer, and [`route()`]: the one
//! decision of what a request of the models route is answered with (`query/route.rs`). The site
//! writer, the CDN rules, the OpenAPI document, the in-memory API and the preview server all use
//! this module; the edge function mirrors [`parse`] and [`route()`] in
//! `netlify/edge-functions/lib/query.mjs`.

use std::fmt::Write;

use serde::Serialize;

use crate::base::digest::sha256_hex;
use crate::records::{ServedModels, SortKeys};

mod encoding;
pub mod projection;
mod route;

use encoding::quoted;
pub use encoding::{percent_decode, percent_decode_path, percent_encode, quote_value};
pub use route::{route, Refusal, RouteTable, Routed};

/// Smallest `limit`.
pub const LIMIT_MIN: u64 = 1;
/// Largest `limit`.
pub const LIMIT_MAX: u64 = 100;
/// `limit` when none is given.
pub const LIMIT_DEFAULT: u64 = 25;
/// Largest `offset`: 2^53 − 1, the largest integer every JSON client holds exactly.
pub const OFFSET_MAX: u64 = 9_007_199_254_740_991;
/// The query parameter names, in contract order.
pub const PARAMETERS: [&str; 5] = ["model_id", "sort", "order", "limit", "offset"];

/// A list sort field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SortKey {
    /// 30-day tokens (the default).
    Tokens30d,
    /// Rank on the window's last day.
    LatestRank,
    /// Total parameters.
    TotalParameters,
    /// Active parameters.
    ActiveParameters,
    /// Smallest quantized checkpoint bytes.
    SmallestQuantCheckpointBytes,
    /// Full-sequence attention bytes.
    FullSequenceAttentionBytes,
}

impl SortKey {
    /// Every sort field, in contract order.
    pub const ALL: [SortKey; 6] = [
        SortKey::Tokens30d,
        SortKey::LatestRank,
        SortKey::TotalParameters,
        SortKey::ActiveParameters,
        SortKey::SmallestQuantCheckpointBytes,
        SortKey::FullSequenceAttentionBytes,
    ];
    /// The sort used when none is given.
    pub const DEFAULT: SortKey = SortKey::Tokens30d;

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            SortKey::Tokens30d => "tokens_30d",
            SortKey::LatestRank => "latest_rank",
            SortKey::TotalParameters => "total_parameters",
            SortKey::ActiveParameters => "active_parameters",
            SortKey::SmallestQuantCheckpointBytes => "smallest_quant_checkpoint_bytes",
            SortKey::FullSequenceAttentionBytes => "full_sequence_attention_bytes",
        }
    }

    /// Parses a wire name.
    pub fn parse(text: &str) -> Option<SortKey> {
        SortKey::ALL.into_iter().find(|k| k.as_str() == text)
    }

    /// Every wire name, in contract order.
    pub fn names() -> Vec<&'static str> {
        SortKey::ALL.iter().map(|k| k.as_str()).collect()
    }

    /// This key of a record.
    pub fn of(self, keys: &SortKeys) -> Option<u128> {
        match self {
            SortKey::Tokens30d => keys.tokens_30d,
            SortKey::LatestRank => keys.latest_rank,
            SortKey::TotalParameters => keys.total_parameters,
            SortKey::ActiveParameters => keys.active_parameters,
            SortKey::SmallestQuantCheckpointBytes => keys.smallest_quant_checkpoint_bytes,
            SortKey::FullSequenceAttentionBytes => keys.full_sequence_attention_bytes,
        }
    }
}

/// A list sort order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Order {
    /// Smallest first.
    Asc,
    /// Largest first (the default).
    Desc,
}

impl Order {
    /// Both orders, in contract order.
    pub const ALL: [Order; 2] = [Order::Asc, Order::Desc];
    /// The order used when none is given.
    pub const DEFAULT: Order = Order::Desc;

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Order::Asc => "asc",
            Order::Desc => "desc",
        }
    }

    /// Parses a wire name.
    pub fn parse(text: &str) -> Option<Order> {
        Order::ALL.into_iter().find(|o| o.as_str() == text)
    }

    /// Every wire name, in contract order.
    pub fn names() -> Vec<&'static str> {
        Order::ALL.iter().map(|o| o.as_str()).collect()
    }
}

/// Every list order of the site, `(sort, order)` in contract order (each sort with both orders):
/// the one enumeration behind the pre-sorted orders, the list directories and the checks.
pub fn list_orders() -> impl Iterator<Item = (SortKey, Order)> {
    SortKey::ALL
        .into_iter()
        .flat_map(|sort| Order::ALL.into_iter().map(move |order| (sort, order)))
}

/// The position of `(sort, order)` in [`list_orders`].
pub fn list_order_index(sort: SortKey, order: Order) -> usize {
    list_orders()
        .position(|pair| pair == (sort, order))
        .expect("every sort and order is listed")
}

/// A list request with every default applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ListQuery {
    /// Sort field.
    pub sort: SortKey,
    /// Sort order.
    pub order: Order,
    /// Page size, 1 to 100.
    pub limit: u64,
    /// Models skipped, 0 to 2^53 − 1.
    pub offset: u64,
}

impl Default for ListQuery {
    fn default() -> ListQuery {
        ListQuery {
            sort: SortKey::DEFAULT,
            order: Order::DEFAULT,
            limit: LIMIT_DEFAULT,
            offset: 0,
        }
    }
}

/// A valid request of the models route.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Request {
    /// A page of the ranked list.
    List(ListQuery),
    /// One model by exact ID.
    Exact(String),
}

/// A request the query rules refuse (`400 invalid_query`); the message says what was wrong and
/// what is allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryError(pub String);

/// Parses a raw query string (without the `?`) by the rules of DESIGN §5.
pub fn parse(raw: &str) -> Result<Request, QueryError> {
    let mut seen: [Option<String>; 5] = Default::default();
    for segment in raw.split('&').filter(|s| !s.is_empty()) {
        let (raw_name, raw_value) = segment.split_once('=').unwrap_or((segment, ""));
        let name =
            percent_decode(raw_name).map_err(|why| QueryError(format!("parameter name {why}")))?;
        let value = percent_decode(raw_value)
            .map_err(|why| QueryError(format!("value of parameter {} {why}", quoted(&name))))?;
        let Some(slot) = PARAMETERS.iter().position(|p| *p == name) else {
            return Err(QueryError(format!(
                "unknown parameter {}; allowed parameters are {}",
                quoted(&name),
                PARAMETERS.join(", ")
            )));
        };
        if seen[slot].is_some() {
            return Err(QueryError(format!(
                "parameter {name} is given more than once; each parameter may appear at most once"
            )));
        }
        if value.is_empty() {
            return Err(QueryError(format!("parameter {name} has an empty value")));
        }
        seen[slot] = Some(value);
    }
    let [model_id, sort, order, limit, offset] = seen;
    if let Some(model_id) = model_id {
        if sort.is_some() || order.is_some() || limit.is_some() || offset.is_some() {
            return Err(QueryError(
                "model_id selects one model and cannot be combined with sort, order, limit or offset".to_string(),
            ));
        }
        return Ok(Request::Exact(model_id));
    }
    let mut query = ListQuery::default();
    if let Some(sort) = sort {
        query.sort = SortKey::parse(&sort).ok_or_else(|| {
            QueryError(format!(
                "sort {} is not allowed; allowed values are {}",
                quoted(&sort),
                SortKey::names().join(", ")
            ))
        })?;
    }
    if let Some(order) = order {
        query.order = Order::parse(&order).ok_or_else(|| {
            QueryError(format!(
                "order {} is not allowed; allowed values are {}",
                quoted(&order),
                Order::names().join(", ")
            ))
        })?;
    }
    if let Some(limit) = limit {
        query.limit = bounded_integer("limit", &limit, LIMIT_MIN, LIMIT_MAX)?;
    }
    if let Some(offset) = offset {
        query.offset = bounded_integer("offset", &offset, 0, OFFSET_MAX)?;
    }
    Ok(Request::List(query))
}

/// A canonical decimal integer (digits only, no sign, no leading zero unless 0) within bounds.
fn bounded_integer(name: &str, text: &str, min: u64, max: u64) -> Result<u64, QueryError> {
    let refuse = || {
        QueryError(format!(
            "{name} must be a whole number from {min} to {max} written in plain digits, got {}",
            quoted(text)
        ))
    };
    let canonical = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    if !canonical {
        return Err(refuse());
    }
    match text.parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(refuse()),
    }
}

/// Indices of the catalog's records in list order: available keys first (ascending or
/// descending), ties and the unavailable tail by model ID ascending, byte order.
pub fn sorted_indices(catalog: &ServedModels, sort: SortKey, order: Order) -> Vec<usize> {
    let mut indices: Vec<usize> = (0..catalog.records.len()).collect();
    indices.sort_by(|&a, &b| {
        let (ka, kb) = (sort.of(&catalog.keys[a]), sort.of(&catalog.keys[b]));
        let by_key = match (ka, kb) {
            (Some(x), Some(y)) => match order {
                Order::Asc => x.cmp(&y),
                Order::Desc => y.cmp(&x),
            },
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        };
        by_key.then_with(|| {
            catalog.records[a]
                .model_id
                .as_bytes()
                .cmp(catalog.records[b].model_id.as_bytes())
        })
    });
    indices
}

/// The page `offset .. offset + limit` of a list of `total` models, clamped to the list.
pub fn page_range(total: usize, query: &ListQuery) -> std::ops::Range<usize> {
    let start = usize::try_from(query.offset)
        .unwrap_or(usize::MAX)
        .min(total);
    let end = start.saturating_add(query.limit as usize).min(total);
    start..end
}

/// The `query` member of a response: the normalized effective query.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QueryEcho<'a> {
    /// `list` or `exact_model`.
    pub mode: &'static str,
    /// The exact ID, in exact mode.
    pub model_id: Option<&'a str>,
    /// Effective sort, in list mode.
    pub sort: Option<&'static str>,
    /// Effective order, in list mode.
    pub order: Option<&'static str>,
    /// Effective limit (1 in exact mode).
    pub limit: u64,
    /// Effective offset (0 in exact mode).
    pub offset: u64,
}

/// The `pagination` member of a response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Pagination {
    /// Models matching the query.
    pub total_matching_models: u64,
    /// Page offset.
    pub offset: u64,
    /// Page limit.
    pub limit: u64,
    /// Models in this response.
    pub returned_count: u64,
    /// True when another page exists.
    pub has_next_page: bool,
}

/// The echo and pagination of a list page over `total` models.
pub fn list_echo(query: &ListQuery, total: usize) -> (QueryEcho<'static>, Pagination) {
    let returned = page_range(total, query).len() as u64;
    (
        QueryEcho {
            mode: "list",
            model_id: None,
            sort: Some(query.sort.as_str()),
            order: Some(query.order.as_str()),
            limit: query.limit,
            offset: query.offset,
        },
        Pagination {
            total_matching_models: total as u64,
            offset: query.offset,
            limit: query.limit,
            returned_count: returned,
            has_next_page: query.offset.saturating_add(returned) < total as u64,
        },
    )
}

/// The echo and pagination of an exact lookup that found its model.
pub fn exact_echo(model_id: &str) -> (QueryEcho<'_>, Pagination) {
    (
        QueryEcho {
            mode: "exact_model",
            model_id: Some(model_id),
            sort: None,
            order: None,
            limit: 1,
            offset: 0,
        },
        Pagination {
            total_matching_models: 1,
            offset: 0,
            limit: 1,
            returned_count: 1,
            has_next_page: false,
        },
    )
}

/// Root of the precomputed model answers inside the site (not a public address).
pub const ANSWERS_DIR: &str = "_api/models";

/// Site-relative path of the precomputed list page (one directory per sort, order and limit,
/// so no directory holds more than N + 1 files).
pub fn list_file(query: &ListQuery) -> String {
    // Asked once a request by the preview server: one allocation, not three.
    let mut path = String::with_capacity(64);
    push_list_dir(&mut path, query);
    let _ = write!(path, "{}.json", query.offset);
    path
}

/// The directory of a list page, with its trailing `/`: one per sort, order and limit.
pub fn list_dir(query: &ListQuery) -> String {
    let mut dir = String::with_capacity(48);
    push_list_dir(&mut dir, query);
    dir
}

/// Appends [`list_dir`] of `query` to `out`.
fn push_list_dir(out: &mut String, query: &ListQuery) {
    let _ = write!(
        out,
        "{ANSWERS_DIR}/{LIST_DIR}/{}/{}/{}/",
        query.sort.as_str(),
        query.order.as_str(),
        query.limit
    );
}

/// The directory every list page is under, with its trailing `/`.
pub fn list_dir_prefix() -> String {
    format!("{ANSWERS_DIR}/{LIST_DIR}/")
}

/// The directory of the list pages under [`ANSWERS_DIR`].
const LIST_DIR: &str = "list";

/// The file-name stem of a model: the hex SHA-256 of its ID, so no request byte ever
/// becomes part of a path.
pub fn model_key(model_id: &str) -> String {
    sha256_hex(model_id.as_bytes())
}

/// Site-relative path of a model's exact-lookup answer.
pub fn model_file(model_id: &str) -> String {
    format!("{ANSWERS_DIR}/id/{}.json", model_key(model_id))
}

/// Every list query the site precomputes for `total` served models: each sort, order and
/// limit, with offsets 0 to `total` (the page at `total` is the empty one past the end).
pub fn all_list_queries(total: usize) -> impl Iterator<Item = ListQuery> {
    list_directories()
        .flat_map(move |first| (0..=total as u64).map(move |offset| ListQuery { offset, ..first }))
}

/// The first page (offset 0) of every list directory: each sort, order and limit.
pub fn list_directories() -> impl Iterator<Item = ListQuery> {
    list_orders().flat_map(|(sort, order)| {
        (LIMIT_MIN..=LIMIT_MAX).map(move |limit| ListQuery {
            sort,
            order,
            limit,
            offset: 0,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(raw: &str) -> ListQuery {
        match parse(raw) {
            Ok(Request::List(q)) => q,
            other => panic!("{raw:?} gave {other:?}"),
        }
    }

    #[test]
    fn defaults_apply() {
        assert_eq!(list(""), ListQuery::default());
        assert_eq!(list("&&"), ListQuery::default());
        let q = list("order=asc&sort=latest_rank&limit=3");
        assert_eq!(
            (q.sort, q.order, q.limit, q.offset),
            (SortKey::LatestRank, Order::Asc, 3, 0)
        );
        assert_eq!(list("offset=9007199254740991").offset, OFFSET_MAX);
    }

    #[test]
    fn exact_ids_are_decoded() {
        assert_eq!(
            parse("model_id=acme%2Falpha-70b%3Afree"),
            Ok(Request::Exact("acme/alpha-70b:free".to_string()))
        );
        assert_eq!(
            parse("model_id=acme/alpha-70b:free"),
            Ok(Request::Exact("acme/alpha-70b:free".to_string()))
        );
        assert_eq!(parse("model_id=a+b"), Ok(Request::Exact("a b".to_string())));
        assert_eq!(parse("mod%65l_id=x"), Ok(Request::Exact("x".to_string())));
    }

    #[test]
    fn refusals() {
        for raw in [
            "limit=2&limit=2",
            "limit=2&li%6dit=3",
            "foo=1",
            "Sort=tokens_30d",
            "sort=",
            "sort",
            "model_id",
            "model_id=x&limit=1",
            "model_id=x&sort=tokens_30d",
            "sort=TOKENS_30D",
            "order=up",
            "limit=0",
            "limit=101",
            "limit=007",
            "limit=+5",
            "limit=-1",
            "limit=1.0",
            "limit=%31%30%30%30",
            "offset=9007199254740992",
            "offset=00",
            "offset=99999999999999999999999",
            "model_id=%ZZ",
            "model_id=%E2%82",
            "model_id=%",
            "%ZZ=1",
        ] {
            assert!(parse(raw).is_err(), "{raw:?} should be refused");
        }
    }

    #[test]
    fn messages_name_the_problem_and_the_allowed_values() {
        let QueryError(m) = parse("colour=red").expect_err("unknown");
        assert!(
            m.contains("\"colour\"") && m.contains("model_id, sort, order, limit, offset"),
            "{m}"
        );
        let QueryError(m) = parse("sort=x").expect_err("bad sort");
        assert!(
            m.contains("tokens_30d") && m.contains("full_sequence_attention_bytes"),
            "{m}"
        );
    }

    #[test]
    fn file_names_never_contain_the_id() {
        let path = model_file("../../etc/passwd");
        assert!(path.starts_with("_api/models/id/") && !path.contains(".."));
        assert_eq!(model_key("a").len(), 64);
    }

    #[test]
    fn page_ranges_clamp() {
        let q = |limit, offset| ListQuery {
            limit,
            offset,
            ..ListQuery::default()
        };
        assert_eq!(page_range(6, &q(25, 0)), 0..6);
        assert_eq!(page_range(6, &q(2, 2)), 2..4);
        assert_eq!(page_range(6, &q(25, 1000)), 6..6);
        assert_eq!(page_range(6, &q(100, OFFSET_MAX)), 6..6);
    }
}
