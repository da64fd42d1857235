//! Records → response bytes. Each model record is rendered once; list pages are assembled from
//! those fragments behind a head rendered once, so a page costs little more than its bytes.
//! [`Api`] answers any raw query from memory; the site writer and `query` both use it.

use serde::Serialize;

use crate::query::{
    self, exact_echo, list_echo, page_range, ListQuery, Order, Pagination, QueryEcho, Request,
    SortKey,
};
use crate::records::Catalog;

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
    /// Record indices in list order for each (sort, order), in `SortKey::ALL × Order::ALL` order.
    orders: Vec<Vec<usize>>,
    /// Model IDs, sorted, for exact lookups.
    ids: Vec<String>,
}

impl Rendered {
    /// Renders a catalog.
    pub fn new(catalog: &Catalog) -> Rendered {
        let mut head_prefix = to_json(&catalog.head);
        head_prefix.pop(); // the closing brace; query, pagination and models follow
        let fragments = catalog.records.iter().map(to_json).collect();
        let orders = SortKey::ALL
            .iter()
            .flat_map(|&sort| Order::ALL.iter().map(move |&order| (sort, order)))
            .map(|(sort, order)| query::sorted_indices(catalog, sort, order))
            .collect();
        Rendered {
            head_prefix,
            fragments,
            orders,
            ids: catalog.records.iter().map(|r| r.model_id.clone()).collect(),
        }
    }

    /// Number of models served.
    pub fn total(&self) -> usize {
        self.fragments.len()
    }

    /// Record indices in the list order of `sort` and `order`.
    pub fn order(&self, sort: SortKey, order: Order) -> &[usize] {
        let s = SortKey::ALL.iter().position(|k| *k == sort).unwrap_or(0);
        let o = Order::ALL.iter().position(|k| *k == order).unwrap_or(0);
        &self.orders[s * Order::ALL.len() + o]
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

/// Where the `query` member starts in a rendered list page: everything before it is the head
/// prefix shared by every page of a build.
pub const QUERY_MARKER: &[u8] = b",\"query\":{\"mode\":\"list\"";

/// Appends a model response: the head prefix, the query echo, the pagination and the records.
/// The one place the body layout is written, for pages rendered at build time and pages the
/// preview server assembles past the end of the list.
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
    pub fn new(catalog: &Catalog) -> Api {
        Api::Data(Box::new(Rendered::new(catalog)))
    }

    /// Answers `GET /api/v1/models?{raw_query}`.
    pub fn answer(&self, raw_query: &str) -> Response {
        let Api::Data(rendered) = self else {
            return data_unavailable();
        };
        match query::parse(raw_query) {
            Err(error) => invalid_query(&error),
            Ok(request) => answer_request(rendered, &request),
        }
    }
}

/// Answers a parsed request.
pub fn answer_request(rendered: &Rendered, request: &Request) -> Response {
    let mut body = Vec::new();
    match request {
        Request::List(query) => rendered.list_page(query, &mut body),
        Request::Exact(model_id) => match rendered.find(model_id) {
            Some(index) => rendered.exact(index, &mut body),
            None => return model_not_found(model_id),
        },
    }
    Response { status: 200, body }
}
