//! The one decision of what a request of the models route is answered with: a served model, a
//! page, the page past the end, or a refusal, over a routing table. The in-memory API and the
//! preview server call it; the edge function mirrors it (`route` in `lib/query.mjs`).

use super::{parse, ListQuery, QueryError, Request};

/// What [`route()`] needs to know of a built site: whether it has data, how many models it
/// serves (N), and how each served model is answered. The routing table a build writes is one;
/// the in-memory API is another.
pub trait RouteTable {
    /// How the table answers a served model (a site file, a record index).
    type Model<'a>
    where
        Self: 'a;
    /// False for a site built without accepted data.
    fn has_data(&self) -> bool;
    /// Models served (N); list pages exist for offsets 0 to N.
    fn total(&self) -> u64;
    /// The answer of a served model, by exact ID; `None` when it is not served.
    fn model(&self, model_id: &str) -> Option<Self::Model<'_>>;
}

/// A request of the models route that has an answer (status 200).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Routed<M> {
    /// One served model, as the table answers it.
    Model(M),
    /// A list page that exists: offset at most N.
    Page(ListQuery),
    /// A list page past the end (offset above N): the empty page, made from the parts of the
    /// page at offset N with this query echoed.
    PastEnd(ListQuery),
}

/// A request of the models route that is refused, with what the error says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// 405: only GET and HEAD are answered.
    MethodNotAllowed,
    /// 503: the site was built without accepted data.
    DataUnavailable,
    /// 400: the query rules refuse the query string.
    Invalid(QueryError),
    /// 404: no served model has this exact ID.
    UnknownModel(String),
}

/// The one decision of `{method} /api/v1/models?{raw_query}` (DESIGN §5), in this order:
/// the method, the data, the query rules, then the answer.
pub fn route<'t, T: RouteTable>(
    method: &str,
    raw_query: &str,
    table: &'t T,
) -> Result<Routed<T::Model<'t>>, Refusal> {
    if method != "GET" && method != "HEAD" {
        return Err(Refusal::MethodNotAllowed);
    }
    if !table.has_data() {
        return Err(Refusal::DataUnavailable);
    }
    match parse(raw_query).map_err(Refusal::Invalid)? {
        Request::Exact(model_id) => match table.model(&model_id) {
            Some(model) => Ok(Routed::Model(model)),
            None => Err(Refusal::UnknownModel(model_id)),
        },
        Request::List(list) if list.offset > table.total() => Ok(Routed::PastEnd(list)),
        Request::List(list) => Ok(Routed::Page(list)),
    }
}
