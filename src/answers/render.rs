//! Records → response bytes. Each model record is rendered once; list pages are assembled from
//! those fragments behind a head rendered once, so a page costs little more than its bytes.
//! The body layout is written in one place ([`assemble_page`]), also for the page past the end
//! the preview server makes from the parts of the page at offset N ([`past_end_page`]).
//! [`Api`] answers any raw query from memory through [`query::route`]; the site writer and
//! `query` both use it.

use serde::{Deserialize, Serialize};

use crate::query::{
    self, exact_echo, list_echo, page_range, ListQuery, Order, Pagination, QueryEcho, Refusal,
    RouteTable, Routed, SortKey,
};
use crate::records::ServedModels;

/// Schema tag of every error body.
pub const ERROR_SCHEMA_VERSION: &str = "model-demand.agent-api-error.v1";

/// The error codes the API answers with, and their statuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// 400: unknown, repeated, out-of-range or incompatible query parameters.
    InvalidQuery,
    /// 404: the exact model ID is not served by the accepted export.
    ModelNotFound,
    /// 503: the site was built without accepted data.
    DataUnavailable,
    /// 404: no such address.
    NotFound,
    /// 405: only GET and HEAD are answered.
    MethodNotAllowed,
    /// 500: the server failed while answering.
    Internal,
}

impl ErrorCode {
    /// Every error code.
    pub const ALL: [ErrorCode; 6] = [
        ErrorCode::InvalidQuery,
        ErrorCode::ModelNotFound,
        ErrorCode::DataUnavailable,
        ErrorCode::NotFound,
        ErrorCode::MethodNotAllowed,
        ErrorCode::Internal,
    ];

    /// The `error` member.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidQuery => "invalid_query",
            ErrorCode::ModelNotFound => "model_not_found",
            ErrorCode::DataUnavailable => "data_unavailable",
            ErrorCode::NotFound => "not_found",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
            ErrorCode::Internal => "internal_error",
        }
    }

    /// The HTTP status.
    pub fn status(self) -> u16 {
        match self {
            ErrorCode::InvalidQuery => 400,
            ErrorCode::ModelNotFound | ErrorCode::NotFound => 404,
            ErrorCode::DataUnavailable => 503,
            ErrorCode::MethodNotAllowed => 405,
            ErrorCode::Internal => 500,
        }
    }

    /// The message of the precomputed error file, used where the CDN cannot say more.
    pub fn generic_message(self) -> &'static str {
        match self {
            ErrorCode::InvalidQuery => "The query is not valid: parameters are model_id, sort, order, limit and offset, each at most once; model_id cannot be combined with the others; see /api/v1/about for allowed values and bounds.",
            ErrorCode::ModelNotFound => "No model with this exact ID is served by the accepted export; list models with /api/v1/models.",
            ErrorCode::DataUnavailable => "No accepted public data is available right now; the contract at /api/v1/about is still served.",
            ErrorCode::NotFound => "No such address; the API lives under /api/v1 (see /api/v1/about).",
            ErrorCode::MethodNotAllowed => "Only GET and HEAD are answered.",
            ErrorCode::Internal => "The server failed while answering; try again.",
        }
    }
}

/// A status and a JSON body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// HTTP status.
    pub status: u16,
    /// Compact JSON body.
    pub body: Vec<u8>,
}

impl Response {
    /// An error response with its own message.
    pub fn error(code: ErrorCode, message: &str) -> Response {
        Response {
            status: code.status(),
            body: error_body(code, message),
        }
    }
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    schema_version: &'static str,
    error: &'static str,
    message: &'a str,
}

/// The JSON body of an error.
pub fn error_body(code: ErrorCode, message: &str) -> Vec<u8> {
    to_json(&ErrorBody {
        schema_version: ERROR_SCHEMA_VERSION,
        error: code.as_str(),
        message,
    })
}

/// Compact JSON of a value whose serialization cannot fail (plain structs, strings, numbers).
pub fn to_json<T: Serialize>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).expect("plain data always serializes")
}

/// The catalog rendered for answering: the head once, every record once, every list order once.
#[derive(Debug, Clone)]
pub struct Rendered {
    /// `{"schema_version":…,"source":{…}` without the closing brace.
    head_prefix: Vec<u8>,
    /// Compact JSON of each record, parallel to the catalog's records.
    fragments: Vec<Vec<u8>>,
    /// Record indices in list order for each (sort, order), in [`query::list_orders`] order.
    orders: Vec<Vec<usize>>,
    /// Model IDs, sorted, for exact lookups.
    ids: Vec<String>,
}

impl Rendered {
    /// Renders a catalog.
    pub fn new(catalog: &ServedModels) -> Rendered {
        let mut head_prefix = to_json(&catalog.head);
        head_prefix.pop(); // the closing brace; query, pagination and models follow
        let fragments = catalog.records.iter().map(to_json).collect();
        let orders = query::list_orders()
            .map(|(sort, order)| query::sorted_indices(catalog, sort, order))
            .collect();
        Rendered {
            head_prefix,
            fragments,
            orders,
            ids: catalog.records.iter().map(|r| r.model_id.clone()).collect(),
        }
    }

    /// The head every page opens with: `{"schema_version":…,"source":{…}` without its closing
    /// brace.
    pub fn head_prefix(&self) -> &[u8] {
        &self.head_prefix
    }

    /// The compact JSON of the record at `index`.
    pub fn fragment(&self, index: usize) -> &[u8] {
        &self.fragments[index]
    }

    /// Number of models served.
    pub fn total(&self) -> usize {
        self.fragments.len()
    }

    /// Record indices in the list order of `sort` and `order`.
    pub fn order(&self, sort: SortKey, order: Order) -> &[usize] {
        self.orders
            .get(query::list_order_index(sort, order))
            .map_or(&[], Vec::as_slice)
    }

    /// The index of a served model by exact ID.
    pub fn find(&self, model_id: &str) -> Option<usize> {
        self.ids
            .binary_search_by(|id| id.as_str().cmp(model_id))
            .ok()
    }

    /// Served model IDs, sorted.
    pub fn ids(&self) -> &[String] {
        &self.ids
    }

    /// Appends the body of a list page to `out`.
    pub fn list_page(&self, query: &ListQuery, out: &mut Vec<u8>) {
        let (echo, pagination) = list_echo(query, self.total());
        let order = self.order(query.sort, query.order);
        let page = &order[page_range(order.len(), query)];
        self.assemble(&echo, &pagination, page, out);
    }

    /// Appends the body of an exact lookup of the record at `index` to `out`.
    pub fn exact(&self, index: usize, out: &mut Vec<u8>) {
        let (echo, pagination) = exact_echo(&self.ids[index]);
        self.assemble(&echo, &pagination, &[index], out);
    }

    fn assemble(
        &self,
        echo: &QueryEcho<'_>,
        pagination: &Pagination,
        records: &[usize],
        out: &mut Vec<u8>,
    ) {
        let fragments = records.iter().map(|&i| self.fragments[i].as_slice());
        assemble_page(&self.head_prefix, echo, pagination, fragments, out);
    }
}

/// Appends a model response: the head prefix, the query echo, the pagination and the records.
/// The one place the body layout is written, for pages rendered at build time and pages the
/// preview server makes past the end of the list.
pub fn assemble_page<'a>(
    head_prefix: &[u8],
    echo: &QueryEcho<'_>,
    pagination: &Pagination,
    fragments: impl Iterator<Item = &'a [u8]>,
    out: &mut Vec<u8>,
) {
    out.extend_from_slice(head_prefix);
    out.extend_from_slice(b",\"query\":");
    serde_json::to_writer(&mut *out, echo).expect("plain data always serializes");
    out.extend_from_slice(b",\"pagination\":");
    serde_json::to_writer(&mut *out, pagination).expect("plain data always serializes");
    out.extend_from_slice(b",\"models\":[");
    for (i, fragment) in fragments.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(fragment);
    }
    out.extend_from_slice(b"]}");
}

/// A list page read back into its parts: the head members (in the order written, kept as they
/// are), then the three members every page ends with.
#[derive(Deserialize)]
struct PageParts {
    #[serde(flatten)]
    head: serde_json::Map<String, serde_json::Value>,
    // Read to be set aside: the page past the end has its own.
    #[serde(rename = "query")]
    _query: serde::de::IgnoredAny,
    #[serde(rename = "pagination")]
    _pagination: serde::de::IgnoredAny,
    #[serde(rename = "models")]
    _models: serde::de::IgnoredAny,
}

/// The empty page past the end of a list of `total` models, made from its parts: the head of
/// `page_at_total` (the written page at offset N of the same sort, order and limit), then this
/// query's echo and pagination and no models. `None` when that page is not a list page.
pub fn past_end_page(page_at_total: &[u8], list: &ListQuery, total: usize) -> Option<Vec<u8>> {
    let parts: PageParts = serde_json::from_slice(page_at_total).ok()?;
    let mut head_prefix = to_json(&parts.head);
    head_prefix.pop(); // the closing brace; query, pagination and models follow
    let (echo, pagination) = list_echo(list, total);
    let mut out = Vec::with_capacity(page_at_total.len() + 16);
    assemble_page(
        &head_prefix,
        &echo,
        &pagination,
        std::iter::empty(),
        &mut out,
    );
    Some(out)
}

/// The 404 answer of an exact lookup whose ID is not served.
pub fn model_not_found(model_id: &str) -> Response {
    let shown = query::quote_value(model_id, 200);
    Response::error(
        ErrorCode::ModelNotFound,
        &format!(
            "no model with ID {shown} is served by the accepted export (the window's top-50 models); list them with /api/v1/models"
        ),
    )
}

/// The 400 answer of a query the rules refuse.
pub fn invalid_query(error: &query::QueryError) -> Response {
    Response::error(ErrorCode::InvalidQuery, &error.0)
}

/// The 503 answer of a site without accepted data.
pub fn data_unavailable() -> Response {
    Response::error(
        ErrorCode::DataUnavailable,
        ErrorCode::DataUnavailable.generic_message(),
    )
}

/// The answer of a refused request of the models route (a 405 carries no `Allow` here: that
/// header is the transport's).
pub fn refusal(refusal: &Refusal) -> Response {
    match refusal {
        Refusal::MethodNotAllowed => Response::error(
            ErrorCode::MethodNotAllowed,
            ErrorCode::MethodNotAllowed.generic_message(),
        ),
        Refusal::DataUnavailable => data_unavailable(),
        Refusal::Invalid(error) => invalid_query(error),
        Refusal::UnknownModel(model_id) => model_not_found(model_id),
    }
}

/// Answers the models route from memory, with or without accepted data.
#[derive(Debug, Clone)]
pub enum Api {
    /// A build with an accepted export.
    Data(Box<Rendered>),
    /// A build without accepted data: every model request is 503.
    Unavailable,
}

impl Api {
    /// The API over a catalog.
    pub fn new(catalog: &ServedModels) -> Api {
        Api::Data(Box::new(Rendered::new(catalog)))
    }

    /// The rendered catalog; an empty one without data (which [`query::route`] never pages).
    fn rendered(&self) -> &Rendered {
        static EMPTY: Rendered = Rendered {
            head_prefix: Vec::new(),
            fragments: Vec::new(),
            orders: Vec::new(),
            ids: Vec::new(),
        };
        match self {
            Api::Data(rendered) => rendered,
            Api::Unavailable => &EMPTY,
        }
    }

    /// Answers `GET /api/v1/models?{raw_query}`.
    pub fn answer(&self, raw_query: &str) -> Response {
        let rendered = self.rendered();
        let mut body = Vec::new();
        match query::route("GET", raw_query, self) {
            Err(refused) => return refusal(&refused),
            Ok(Routed::Model(index)) => rendered.exact(index, &mut body),
            // Rendering clamps the page to the list, so the page past the end is the empty one.
            Ok(Routed::Page(list) | Routed::PastEnd(list)) => rendered.list_page(&list, &mut body),
        }
        Response { status: 200, body }
    }
}

impl RouteTable for Api {
    type Model<'a> = usize;

    fn has_data(&self) -> bool {
        matches!(self, Api::Data(_))
    }

    fn total(&self) -> u64 {
        self.rendered().total() as u64
    }

    fn model(&self, model_id: &str) -> Option<usize> {
        self.rendered().find(model_id)
    }
}
