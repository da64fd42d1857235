//! Supply v1 (`model-demand.supply.v1`): the validated types and the gate that builds them from
//! the raw JSON tree, reporting every problem with its JSON path.

use std::collections::BTreeMap;

use rust_decimal::Decimal;

use crate::base::decimal::{
    parse_supply_decimal, DecimalError, SUPPLY_FRACTION_DIGITS, SUPPLY_INTEGER_DIGITS,
};
use crate::base::error::Problem;
use crate::input::json::{index_path, member_path, Problems, Raw};
use crate::input::validate::{self, Timestamp};

/// The schema tag a supply feed must carry.
pub const SUPPLY_SCHEMA_VERSION: &str = "model-demand.supply.v1";

/// Outcome of one collection run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CollectionStatus {
    /// The run listed every route.
    Complete,
    /// The run failed and listed nothing.
    Failed,
}

/// The kind of a route, as the supply source labels it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RouteType {
    /// A paid route.
    Paid,
    /// A free route.
    Free,
    /// A batch route.
    Batch,
    /// A thinking route.
    Thinking,
}

impl RouteType {
    /// Every route type, in contract order.
    pub const ALL: [RouteType; 4] = [
        RouteType::Paid,
        RouteType::Free,
        RouteType::Batch,
        RouteType::Thinking,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            RouteType::Paid => "paid",
            RouteType::Free => "free",
            RouteType::Batch => "batch",
            RouteType::Thinking => "thinking",
        }
    }
}

/// One provider endpoint of a route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// Provider name (non-empty).
    pub provider: String,
    /// Quantization name, when listed.
    pub quantization: Option<String>,
    /// Context length in tokens, when listed.
    pub context_length: Option<u64>,
    /// USD per million input tokens.
    pub input_price_per_million: Option<Decimal>,
    /// USD per million output tokens.
    pub output_price_per_million: Option<Decimal>,
    /// Latency in milliseconds.
    pub latency_ms: Option<Decimal>,
    /// Throughput in tokens per second.
    pub throughput_tokens_per_second: Option<Decimal>,
    /// Uptime percentage, 0 to 100.
    pub uptime_percent: Option<Decimal>,
}

/// One route of a collection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SupplyRoute {
    /// Exact public route ID (unique within its collection).
    pub route_id: String,
    /// The demand model the route serves.
    pub model_id: String,
    /// Route type.
    pub route_type: RouteType,
    /// True when the route's endpoints could not be collected in its collection
    /// (`"status": "failed"`; absent means collected).
    pub failed: bool,
    /// Listed endpoints (none for a failed route).
    pub endpoints: Vec<Endpoint>,
}

/// One collection run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Collection {
    /// Start of the run.
    pub started_at: Timestamp,
    /// End of the run (unique across collections).
    pub finished_at: Timestamp,
    /// Outcome.
    pub status: CollectionStatus,
    /// Routes (empty for a failed run).
    pub routes: Vec<SupplyRoute>,
}

/// An accepted supply feed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Supply {
    /// Collections, sorted by `finished_at`.
    pub collections: Vec<Collection>,
}

/// The decimal members of an endpoint, in document order.
const DECIMAL_MEMBERS: [&str; 5] = [
    "input_price_per_million",
    "output_price_per_million",
    "latency_ms",
    "throughput_tokens_per_second",
    "uptime_percent",
];

/// Validates a raw supply tree, returning the typed feed or every problem found.
pub fn validate(raw: &Raw) -> Result<Supply, Vec<Problem>> {
    let mut p = Problems::default();
    let supply = check_supply(&mut p, raw);
    match supply {
        Some(supply) if p.is_empty() => Ok(supply),
        _ => Err(p.into_vec()),
    }
}

fn check_supply(p: &mut Problems, raw: &Raw) -> Option<Supply> {
    let root = p.object("$", raw, &["supply_schema_version", "collections"])?;
    if let Some(v) = root.required(p, "supply_schema_version") {
        validate::constant(
            p,
            &root.at("supply_schema_version"),
            v,
            SUPPLY_SCHEMA_VERSION,
        );
    }
    let path = root.at("collections");
    let items = root
        .required(p, "collections")
        .and_then(|v| p.array(&path, v))?;
    let mut collections = Vec::with_capacity(items.len());
    let mut finished: BTreeMap<Timestamp, usize> = BTreeMap::new();
    let mut complete = true;
    for (i, item) in items.iter().enumerate() {
        let at = index_path(&path, i);
        match check_collection(p, &at, item) {
            Some(c) => {
                if let Some(first) = finished.insert(c.finished_at.clone(), i) {
                    p.add(
                        member_path(&at, "finished_at"),
                        format!(
                            "duplicate finished_at {}: already used at {}",
                            c.finished_at,
                            index_path(&path, first)
                        ),
                    );
                }
                collections.push(c);
            }
            None => complete = false,
        }
    }
    collections.sort_by(|a, b| a.finished_at.cmp(&b.finished_at));
    complete.then_some(Supply { collections })
}

fn check_collection(p: &mut Problems, path: &str, raw: &Raw) -> Option<Collection> {
    let o = p.object(
        path,
        raw,
        &["started_at", "finished_at", "status", "routes"],
    )?;
    let started_at = o
        .required(p, "started_at")
        .and_then(|v| validate::timestamp(p, &o.at("started_at"), v));
    let finished_at = o
        .required(p, "finished_at")
        .and_then(|v| validate::timestamp(p, &o.at("finished_at"), v));
    if let (Some(s), Some(f)) = (&started_at, &finished_at) {
        if f < s {
            p.add(
                o.at("finished_at"),
                format!(
                    "must not be before started_at ({s}), got {f:?}",
                    f = f.as_str()
                ),
            );
        }
    }
    let status = o.required(p, "status").and_then(|v| {
        let at = o.at("status");
        match p.string(&at, v)? {
            "complete" => Some(CollectionStatus::Complete),
            "failed" => Some(CollectionStatus::Failed),
            _ => {
                p.add(
                    at,
                    format!("must be one of complete, failed, got {}", v.describe()),
                );
                None
            }
        }
    });
    let routes_path = o.at("routes");
    let routes = o.required(p, "routes").and_then(|v| {
        let items = p.array(&routes_path, v)?;
        if status == Some(CollectionStatus::Failed) && !items.is_empty() {
            p.add(
                &routes_path,
                format!(
                    "must be empty for a failed collection, got {} route(s)",
                    items.len()
                ),
            );
        }
        let mut routes = Vec::with_capacity(items.len());
        let mut ids: BTreeMap<String, usize> = BTreeMap::new();
        let mut complete = true;
        for (j, item) in items.iter().enumerate() {
            let at = index_path(&routes_path, j);
            match check_route(p, &at, item) {
                Some(route) => {
                    if let Some(first) = ids.insert(route.route_id.clone(), j) {
                        p.add(
                            member_path(&at, "route_id"),
                            format!(
                                "duplicate route {:?} within the collection: already at {}",
                                route.route_id,
                                index_path(&routes_path, first)
                            ),
                        );
                    }
                    routes.push(route);
                }
                None => complete = false,
            }
        }
        complete.then_some(routes)
    });
    Some(Collection {
        started_at: started_at?,
        finished_at: finished_at?,
        status: status?,
        routes: routes?,
    })
}

fn check_route(p: &mut Problems, path: &str, raw: &Raw) -> Option<SupplyRoute> {
    let o = p.object(
        path,
        raw,
        &["route_id", "model_id", "route_type", "status", "endpoints"],
    )?;
    let route_id = o
        .required(p, "route_id")
        .and_then(|v| validate::model_id(p, &o.at("route_id"), v));
    let model_id = o
        .required(p, "model_id")
        .and_then(|v| validate::model_id(p, &o.at("model_id"), v));
    let route_type = o.required(p, "route_type").and_then(|v| {
        let at = o.at("route_type");
        let text = p.string(&at, v)?;
        let found = RouteType::ALL.into_iter().find(|t| t.as_str() == text);
        if found.is_none() {
            p.add(
                at,
                format!(
                    "must be one of paid, free, batch, thinking, got {}",
                    v.describe()
                ),
            );
        }
        found
    });
    // Optional: absent means collected; the one other value is `failed`.
    let failed = match o.get("status") {
        None => Some(false),
        Some(Raw::String(s)) if s == "failed" => Some(true),
        Some(v) => {
            p.add(
                o.at("status"),
                format!(
                    "must be \"failed\" when present (absent means collected), got {}",
                    v.describe()
                ),
            );
            None
        }
    };
    let endpoints_path = o.at("endpoints");
    let endpoints = o.required(p, "endpoints").and_then(|v| {
        let items = p.array(&endpoints_path, v)?;
        if failed == Some(true) && !items.is_empty() {
            p.add(
                &endpoints_path,
                format!(
                    "must be empty for a failed route, got {} endpoint(s)",
                    items.len()
                ),
            );
        }
        let checked: Vec<Option<Endpoint>> = items
            .iter()
            .enumerate()
            .map(|(k, item)| check_endpoint(p, &index_path(&endpoints_path, k), item))
            .collect();
        checked.into_iter().collect::<Option<Vec<_>>>()
    });
    Some(SupplyRoute {
        route_id: route_id?,
        model_id: model_id?,
        route_type: route_type?,
        failed: failed?,
        endpoints: endpoints?,
    })
}

fn check_endpoint(p: &mut Problems, path: &str, raw: &Raw) -> Option<Endpoint> {
    let mut allowed = vec!["provider", "quantization", "context_length"];
    allowed.extend(DECIMAL_MEMBERS);
    let o = p.object(path, raw, &allowed)?;
    let provider = o
        .required(p, "provider")
        .and_then(|v| p.non_empty_string(&o.at("provider"), v))
        .map(str::to_string);
    let quantization = match o.required(p, "quantization") {
        Some(Raw::Null) => Some(None),
        Some(v) => p
            .non_empty_string(&o.at("quantization"), v)
            .map(|s| Some(s.to_string())),
        None => None,
    };
    let context_length = match o.required(p, "context_length") {
        Some(Raw::Null) => Some(None),
        Some(Raw::Number(n)) if n.as_u64().is_some_and(|n| n > 0 && n <= i64::MAX as u64) => {
            Some(n.as_u64())
        }
        Some(v) => {
            p.add(
                o.at("context_length"),
                format!("must be a positive integer or null, got {}", v.describe()),
            );
            None
        }
        None => None,
    };
    let mut decimals = [None; 5];
    let mut ok = true;
    for (slot, name) in decimals.iter_mut().zip(DECIMAL_MEMBERS) {
        match o.required(p, name) {
            Some(Raw::Null) => {}
            Some(v) => match check_decimal(p, &o.at(name), v, name == "uptime_percent") {
                Some(d) => *slot = Some(d),
                None => ok = false,
            },
            None => ok = false,
        }
    }
    let [input, output, latency, throughput, uptime] = decimals;
    if !ok {
        return None;
    }
    Some(Endpoint {
        provider: provider?,
        quantization: quantization?,
        context_length: context_length?,
        input_price_per_million: input,
        output_price_per_million: output,
        latency_ms: latency,
        throughput_tokens_per_second: throughput,
        uptime_percent: uptime,
    })
}

fn check_decimal(p: &mut Problems, path: &str, raw: &Raw, percent: bool) -> Option<Decimal> {
    let Raw::String(text) = raw else {
        p.add(
            path,
            format!("must be a decimal string or null, got {}", raw.describe()),
        );
        return None;
    };
    match parse_supply_decimal(text) {
        Ok(d) if percent && d > Decimal::ONE_HUNDRED => {
            p.add(path, format!("must be at most 100, got {}", raw.describe()));
            None
        }
        Ok(d) => Some(d),
        Err(DecimalError::Form) => {
            p.add(path, format!("must be a non-negative decimal string such as \"0.25\" (no sign, exponent or leading zeros), got {}", raw.describe()));
            None
        }
        Err(DecimalError::TooManyDigits) => {
            p.add(
                path,
                format!("must have at most {SUPPLY_INTEGER_DIGITS} digits before the point and {SUPPLY_FRACTION_DIGITS} significant digits after it, got {}", raw.describe()),
            );
            None
        }
    }
}
