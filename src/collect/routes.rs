//! The new supply collection's routes: one endpoints request per route entry, each read entry by
//! entry, and a route that cannot be read failing alone (DESIGN §9).

use std::collections::{BTreeMap, BTreeSet};

use rayon::prelude::*;

use super::http::{Client, FetchError, RequestKind, Secret};
use super::openrouter::{self, CatalogJoin, EndpointTally, SupplyEndpoint};

/// One route of the new collection, as supply v1 writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectedRoute {
    /// Catalog ID.
    pub route_id: String,
    /// Demand model ID.
    pub model_id: String,
    /// Route type from the ID's suffix.
    pub route_type: crate::input::supply::RouteType,
    /// Endpoints in source order (none when the route failed).
    pub endpoints: Vec<SupplyEndpoint>,
    /// Why the route's endpoints could not be collected this run; the route is then written
    /// with `"status": "failed"`.
    pub failure: Option<RouteFailure>,
}

/// Why one route failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteFailure {
    /// The last HTTP status, when there was an answer.
    pub last_status: Option<u16>,
    /// What went wrong, for the run report.
    pub reason: String,
}

/// The routes of a collection with what reading their endpoints found unknown.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Routes {
    /// Every route, in (model, catalog) order.
    pub routes: Vec<CollectedRoute>,
    /// Unknown members over every endpoint read.
    pub tally: EndpointTally,
}

/// Requests every route's endpoints (a route serving two demand models is requested once and
/// kept for the first). A route whose request fails after its tries, or whose answer has no
/// endpoint list, is a failed route; the others are unaffected.
pub(super) fn fetch(
    client: &Client,
    base: &str,
    key: &Secret,
    joins: &BTreeMap<&str, CatalogJoin>,
) -> Routes {
    let mut seen = BTreeSet::new();
    let wanted: Vec<(&str, &str)> = joins
        .iter()
        .flat_map(|(model, join)| join.route_ids.iter().map(move |r| (*model, r.as_str())))
        .filter(|(_, route)| seen.insert(*route))
        .collect();
    let read: Vec<(CollectedRoute, EndpointTally)> = wanted
        .par_iter()
        .map(|(model, route)| {
            let (endpoints, tally, failure) = match endpoints_of(client, base, key, route) {
                Ok((endpoints, tally)) => (endpoints, tally, None),
                Err(failure) => (Vec::new(), EndpointTally::default(), Some(failure)),
            };
            let collected = CollectedRoute {
                route_id: route.to_string(),
                model_id: model.to_string(),
                route_type: openrouter::route_type(route),
                endpoints,
                failure,
            };
            (collected, tally)
        })
        .collect();
    let mut routes = Routes::default();
    for (route, tally) in read {
        routes.tally.merge(&tally);
        routes.routes.push(route);
    }
    routes
}

fn endpoints_of(
    client: &Client,
    base: &str,
    key: &Secret,
    route: &str,
) -> Result<(Vec<SupplyEndpoint>, EndpointTally), RouteFailure> {
    let url = format!("{base}/api/v1/models/{route}/endpoints");
    let answer = client
        .get(RequestKind::Endpoints, &url, Some(key), &[])
        .map_err(|e| RouteFailure {
            last_status: match &e {
                FetchError::Exhausted { status, .. } if *status > 0 => Some(*status),
                FetchError::OverBudget { last_status, .. } => *last_status,
                _ => None,
            },
            reason: e.to_string(),
        })?;
    if !answer.ok() {
        return Err(RouteFailure {
            last_status: Some(answer.status),
            reason: format!("answered {}", answer.status),
        });
    }
    openrouter::read_endpoints(&answer.body).map_err(|why| RouteFailure {
        last_status: Some(answer.status),
        reason: format!("answered {why}"),
    })
}
