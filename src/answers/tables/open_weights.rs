//! `models.csv`'s `open_weights` columns and the state vocabulary the data package explains
//! once. `open_weights` is not a member of the record (the API's bytes do not move): the
//! tables derive it from the record's own facts, with the evidence it rests on
//! (docs/decisions.md, "Tables analysts load typed"):
//!
//! - `false` when a fact's reason is `closed_weights`: the facts policy lists the model's ID
//!   prefix with the vendor's official page saying the weights are not public;
//! - `true` when `total_parameters` or `base_checkpoint_bytes` is `available`: the model's
//!   official Hugging Face repository holds its checkpoint at a pinned commit, which the fact's
//!   `source_url` names (`open_weights_source_url`);
//! - empty (unknown) otherwise, the evidence column saying why: no repository was known
//!   (`weights_access_unknown`), the repository refused or failed (`open_checkpoint_unavailable`),
//!   or no checkpoint fact is known (`no_checkpoint_evidence`).

use serde_json::{json, Value};

use super::schema::{Column, ColumnType};
use crate::input::export::Availability;
use crate::records::SUPPLY_STATES;

/// The values of `open_weights_evidence`, in the order of the rules above.
pub(crate) const EVIDENCE: [&str; 5] = [
    "closed_weights",
    "checkpoint_pinned",
    "weights_access_unknown",
    "open_checkpoint_unavailable",
    "no_checkpoint_evidence",
];

/// The facts whose `available` state shows the checkpoint in a public repository, in the order
/// their `source_url` is taken.
const CHECKPOINT_FACTS: [&str; 2] = ["total_parameters", "base_checkpoint_bytes"];

/// The three columns, after the record's.
pub(crate) fn columns() -> [Column; 3] {
    let mut evidence = Column::new(
        "open_weights_evidence",
        ColumnType::String,
        true,
        "What open_weights rests on: checkpoint_pinned (true: total_parameters or \
base_checkpoint_bytes is available, read from the model's official Hugging Face repository at a \
pinned commit), closed_weights (false: a fact's reason is closed_weights, the facts policy \
naming the vendor's page that says the weights are not public), or why it is unknown: \
weights_access_unknown (no repository known, no page saying the weights are closed), \
open_checkpoint_unavailable (the repository refused or failed), no_checkpoint_evidence (the \
repository was read but no checkpoint fact is known).",
    );
    evidence.allowed = Some(EVIDENCE.to_vec());
    [
        Column::new(
            "open_weights",
            ColumnType::Boolean,
            false,
            "Whether the model's weights are published: true when its official Hugging Face \
repository holds the checkpoint at a pinned commit, false when the facts say closed_weights, \
empty when neither is known (open_weights_evidence says why). Derived by the tables from the \
record's facts, not a member of the API's record. Published weights are not a licence: each \
repository's terms apply.",
        ),
        evidence,
        Column::new(
            "open_weights_source_url",
            ColumnType::String,
            false,
            "The pinned evidence of open_weights true: the source_url of total_parameters (else \
of base_checkpoint_bytes). Empty otherwise.",
        ),
    ]
}

/// The three cells of a record (its JSON, as the API writes it): `open_weights`, its evidence
/// and its source URL.
pub(crate) fn cells(record: &Value) -> [Option<String>; 3] {
    fn reason_of(fact: &Value) -> Option<&str> {
        fact.get("reason").and_then(Value::as_str)
    }
    let facts = record.get("facts").and_then(Value::as_object);
    let facts = facts.into_iter().flat_map(|f| f.iter());
    let mut reasons = facts.clone().filter_map(|(_, fact)| reason_of(fact));
    if reasons.any(|r| r == "closed_weights") {
        return [Some("false".into()), Some("closed_weights".into()), None];
    }
    for name in CHECKPOINT_FACTS {
        let fact = record.get("facts").and_then(|f| f.get(name));
        let available = fact.and_then(|f| f.get("state")).and_then(Value::as_str)
            == Some(Availability::Available.as_str());
        let url = fact
            .and_then(|f| f.get("source_url"))
            .and_then(Value::as_str);
        if let (true, Some(url)) = (available, url) {
            return [
                Some("true".into()),
                Some("checkpoint_pinned".into()),
                Some(url.to_string()),
            ];
        }
    }
    let why = ["weights_access_unknown", "open_checkpoint_unavailable"]
        .into_iter()
        .find(|code| facts.clone().any(|(_, fact)| reason_of(fact) == Some(code)))
        .unwrap_or("no_checkpoint_evidence");
    [None, Some(why.to_string()), None]
}

/// The state vocabulary, explained once for every table (the data package's `states`): what
/// each availability state of a `_state` column means and how to filter on it, and the supply
/// states of `supply_state`.
pub(crate) fn states() -> Value {
    let availability: Vec<Value> = Availability::ALL
        .iter()
        .map(|state| json!({"state": state.as_str(), "meaning": state_meaning(*state)}))
        .collect();
    json!({
        "availability": availability,
        "availability_columns": "Every _state column of models.csv beside a value (latest_rank_state, tokens_30d_state, a fact's total_parameters_state, a supply summary's median_output_price_per_million_state). A value is non-empty exactly when its state is available; the four other states are all unknown, never zero, and differ only in why: to keep what is known, filter on the value being non-empty (or the state being available); to tell a value that may come later from one the sources do not hold, unavailable from not_available and not_found_under_policy. The _reason column gives the specific code.",
        "supply": SUPPLY_STATES,
        "supply_columns": "supply_state of models.csv: available (the summary columns, route_id to quantizations, hold the model's current route in the latest supply collection), not_collected (no supply feed), temporarily_unavailable (the latest collection failed, or this model's route could not be collected in it), current_route_not_found, current_route_ambiguous; supply_reason says which. The summary columns are empty unless it is available.",
    })
}

/// What an availability state means for someone filtering a table.
fn state_meaning(state: Availability) -> &'static str {
    match state {
        Availability::Available => {
            "A checked public value: the cell beside the state holds it. The only state with a value."
        }
        Availability::Unavailable => {
            "No value this time: a source or a derivation could not give one (a day of the window not delivered: source_day_missing; a market total unknown: market_total_unavailable; a repository that refused or failed: open_checkpoint_unavailable; a size that did not compute exactly: size_calculation_failed). Unknown, not zero; a later export may know it."
        }
        Availability::NotPubliclyCleared => {
            "Evidence may exist, but none is cleared for publication in this export (reason not_checked). Unknown."
        }
        Availability::NotAvailable => {
            "The checked public source does not hold this value (a fact of a model without a public repository: closed_weights, weights_access_unknown, evidence_missing). Unknown, and not expected without a new source."
        }
        Availability::NotFoundUnderPolicy => {
            "The source was read, but the facts policy's rules found no value in it (no official quantized checkpoint, a cache layout the rules do not model). Unknown, never a guess."
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(facts: Value) -> Value {
        json!({"model_id": "a/b", "facts": facts})
    }

    #[test]
    fn closed_pinned_and_unknown() {
        let closed = record(json!({
            "total_parameters": {"value": null, "state": "not_available", "reason": "evidence_missing"},
            "bf16_weights_bytes": {"value": null, "state": "unavailable", "reason": "closed_weights"},
        }));
        assert_eq!(
            cells(&closed),
            [Some("false".into()), Some("closed_weights".into()), None]
        );
        let open = record(json!({
            "total_parameters": {"value": null, "state": "unavailable", "reason": "size_calculation_failed"},
            "base_checkpoint_bytes": {"value": "10", "state": "available", "reason": null, "source_url": "https://h/x/tree/c"},
        }));
        assert_eq!(
            cells(&open),
            [
                Some("true".into()),
                Some("checkpoint_pinned".into()),
                Some("https://h/x/tree/c".into())
            ]
        );
        let refused = record(json!({
            "total_parameters": {"value": null, "state": "unavailable", "reason": "open_checkpoint_unavailable"},
        }));
        assert_eq!(
            cells(&refused)[1].as_deref(),
            Some("open_checkpoint_unavailable")
        );
        assert_eq!(cells(&refused)[0], None);
        let nothing = record(json!({
            "total_parameters": {"value": null, "state": "not_found_under_policy", "reason": "no_safetensors_checkpoint"},
        }));
        assert_eq!(
            cells(&nothing)[1].as_deref(),
            Some("no_checkpoint_evidence")
        );
        for evidence in [&closed, &open, &refused, &nothing].map(|r| cells(r)[1].clone()) {
            assert!(EVIDENCE.contains(&evidence.as_deref().expect("always said")));
        }
    }
}
