//! The export gate: raw JSON tree → [`Export`], every problem reported with its JSON path.

use std::collections::{BTreeMap, BTreeSet};

use time::Date;

use crate::input::json::{index_path, member_path, Obj, Problems, Raw};
use crate::input::sources::DEMAND_SOURCE;
use crate::input::validate::{
    self, format_date, is_https_url, is_name_token, is_reason_code, parse_date,
};

use super::{
    window_start, Availability, Day, DemandSource, Export, Fact, FactKind, FactName, FactSpec,
    ModelEntry, Row, EXPORT_SCHEMA_VERSION, FACTS, MAX_INTEGER_FACT, MAX_OTHER_TOKENS,
    MAX_ROWS_PER_DAY, MAX_ROW_TOKENS,
};

/// Validates a raw export tree, returning the typed export or every problem found.
pub fn validate(raw: &Raw) -> Result<Export, Vec<crate::base::error::Problem>> {
    let mut p = Problems::default();
    let export = check_export(&mut p, raw);
    match export {
        Some(export) if p.is_empty() => Ok(export),
        _ => Err(p.into_vec()),
    }
}

fn check_export(p: &mut Problems, raw: &Raw) -> Option<Export> {
    let root = p.object(
        "$",
        raw,
        &[
            "export_schema_version",
            "generated_at",
            "evaluation_cutoff",
            "fresh_until",
            "demand_source",
            "days",
            "models",
        ],
    )?;
    if let Some(v) = root.required(p, "export_schema_version") {
        validate::constant(
            p,
            &root.at("export_schema_version"),
            v,
            EXPORT_SCHEMA_VERSION,
        );
    }
    let generated_at = root
        .required(p, "generated_at")
        .and_then(|v| validate::timestamp(p, &root.at("generated_at"), v));
    let evaluation_cutoff = root
        .required(p, "evaluation_cutoff")
        .and_then(|v| validate::timestamp(p, &root.at("evaluation_cutoff"), v));
    let fresh_until = match root.required(p, "fresh_until") {
        Some(Raw::Null) => Some(None),
        Some(v) => validate::timestamp(p, &root.at("fresh_until"), v).map(Some),
        None => None,
    };
    if let (Some(g), Some(c)) = (&generated_at, &evaluation_cutoff) {
        if g < c {
            p.add(
                root.at("generated_at"),
                format!(
                    "must not be before evaluation_cutoff ({c}), got {g:?}",
                    g = g.as_str()
                ),
            );
        }
    }
    let demand_source = root
        .required(p, "demand_source")
        .and_then(|v| check_demand_source(p, &root.at("demand_source"), v));
    let window_end = evaluation_cutoff
        .as_ref()
        .and_then(|c| c.date().previous_day());
    let days = root
        .required(p, "days")
        .and_then(|v| check_days(p, &root.at("days"), v, window_end));
    let models = root
        .required(p, "models")
        .and_then(|v| check_models(p, &root.at("models"), v));
    if let (Some(days), Some(models), Some(end)) = (&days, &models, window_end) {
        check_window_models_have_entries(p, &root.at("days"), days, models, end);
    }
    Some(Export {
        generated_at: generated_at?,
        evaluation_cutoff: evaluation_cutoff?,
        fresh_until: fresh_until?,
        demand_source: demand_source?,
        days: days?.into_iter().map(|(_, day)| day).collect(),
        models: models?,
    })
}

fn check_demand_source(p: &mut Problems, path: &str, raw: &Raw) -> Option<DemandSource> {
    let o = p.object(
        path,
        raw,
        &[
            "name",
            "url",
            "terms_url",
            "checked_at",
            "license",
            "attribution",
        ],
    )?;
    let expected = [
        ("name", DEMAND_SOURCE.name),
        ("url", DEMAND_SOURCE.url),
        ("terms_url", DEMAND_SOURCE.terms_url),
        ("license", DEMAND_SOURCE.license.unwrap_or_default()),
    ];
    let mut fixed = Vec::new();
    for (name, want) in expected {
        if let Some(v) = o.required(p, name) {
            let at = o.at(name);
            if let Some(text) = p.string(&at, v) {
                if text != want {
                    p.add(
                        at,
                        format!(
                            "must be {want:?}: the contract publishes this source, so a differently labelled export is refused; got {}",
                            v.describe()
                        ),
                    );
                }
                fixed.push(text.to_string());
            }
        }
    }
    let checked_at = o
        .required(p, "checked_at")
        .and_then(|v| validate::timestamp(p, &o.at("checked_at"), v));
    let attribution = o
        .required(p, "attribution")
        .and_then(|v| p.non_empty_string(&o.at("attribution"), v))
        .map(str::to_string);
    let [name, url, terms_url, license]: [String; 4] = fixed.try_into().ok()?;
    Some(DemandSource {
        name,
        url,
        terms_url,
        checked_at: checked_at?,
        license,
        attribution: attribution?,
    })
}

/// Checks `days`, returning each day with its index (for paths in later checks), sorted by date.
fn check_days(
    p: &mut Problems,
    path: &str,
    raw: &Raw,
    window_end: Option<Date>,
) -> Option<Vec<(usize, Day)>> {
    let items = p.array(path, raw)?;
    let mut days = Vec::new();
    let mut seen: BTreeMap<Date, usize> = BTreeMap::new();
    let mut complete = true;
    for (i, item) in items.iter().enumerate() {
        let at = index_path(path, i);
        match check_day(p, &at, item) {
            Some(day) => {
                if let Some(first) = seen.insert(day.date, i) {
                    p.add(
                        member_path(&at, "date"),
                        format!(
                            "duplicate date {}: already listed at {}",
                            format_date(day.date),
                            index_path(path, first)
                        ),
                    );
                }
                if let Some(end) = window_end {
                    if day.date > end {
                        p.add(
                            member_path(&at, "date"),
                            format!(
                                "must not be later than the window end {} (the day before evaluation_cutoff), got {:?}",
                                format_date(end),
                                format_date(day.date)
                            ),
                        );
                    }
                }
                days.push((i, day));
            }
            None => complete = false,
        }
    }
    days.sort_by_key(|(_, day)| day.date);
    complete.then_some(days)
}

fn check_day(p: &mut Problems, path: &str, raw: &Raw) -> Option<Day> {
    let o = p.object(path, raw, &["date", "other_tokens", "rows"])?;
    let date = o.required(p, "date").and_then(|v| {
        let at = o.at("date");
        let text = p.string(&at, v)?;
        let date = parse_date(text);
        if date.is_none() {
            p.add(
                at,
                format!(
                    "must be a calendar date written YYYY-MM-DD, got {}",
                    v.describe()
                ),
            );
        }
        date
    });
    let other_tokens = match o.required(p, "other_tokens") {
        Some(Raw::Null) => Some(None),
        Some(v) => {
            validate::integer_string(p, &o.at("other_tokens"), v, 0, MAX_OTHER_TOKENS).map(Some)
        }
        None => None,
    };
    let rows = o.required(p, "rows").and_then(|v| {
        let at = o.at("rows");
        let items = p.array(&at, v)?;
        if items.len() > MAX_ROWS_PER_DAY {
            p.add(
                &at,
                format!(
                    "must have at most {MAX_ROWS_PER_DAY} rows (the source's top 50), got {}",
                    items.len()
                ),
            );
        }
        let mut rows = Vec::with_capacity(items.len());
        let mut ids: BTreeMap<String, usize> = BTreeMap::new();
        let mut complete = true;
        for (j, item) in items.iter().enumerate() {
            let row_at = index_path(&at, j);
            match check_row(p, &row_at, item) {
                Some(row) => {
                    if let Some(first) = ids.insert(row.model_id.clone(), j) {
                        p.add(
                            member_path(&row_at, "model_id"),
                            format!(
                                "duplicate model {:?} within the day: already at {}",
                                row.model_id,
                                index_path(&at, first)
                            ),
                        );
                    }
                    rows.push(row);
                }
                None => complete = false,
            }
        }
        complete.then_some(rows)
    });
    Some(Day {
        date: date?,
        other_tokens: other_tokens?,
        rows: rows?,
    })
}

fn check_row(p: &mut Problems, path: &str, raw: &Raw) -> Option<Row> {
    let o = p.object(path, raw, &["model_id", "total_tokens"])?;
    let model_id = o
        .required(p, "model_id")
        .and_then(|v| validate::model_id(p, &o.at("model_id"), v));
    let total_tokens = o
        .required(p, "total_tokens")
        .and_then(|v| validate::integer_string(p, &o.at("total_tokens"), v, 1, MAX_ROW_TOKENS));
    Some(Row {
        model_id: model_id?,
        total_tokens: total_tokens?,
    })
}

fn check_models(p: &mut Problems, path: &str, raw: &Raw) -> Option<BTreeMap<String, ModelEntry>> {
    let items = p.array(path, raw)?;
    let mut models = BTreeMap::new();
    let mut first_at: BTreeMap<String, usize> = BTreeMap::new();
    let mut complete = true;
    for (i, item) in items.iter().enumerate() {
        let at = index_path(path, i);
        match check_model(p, &at, item) {
            Some(entry) => {
                if let Some(first) = first_at.insert(entry.model_id.clone(), i) {
                    p.add(
                        member_path(&at, "model_id"),
                        format!(
                            "duplicate model {:?}: already listed at {}",
                            entry.model_id,
                            index_path(path, first)
                        ),
                    );
                }
                models.insert(entry.model_id.clone(), entry);
            }
            None => complete = false,
        }
    }
    complete.then_some(models)
}

fn check_model(p: &mut Problems, path: &str, raw: &Raw) -> Option<ModelEntry> {
    let o = p.object(path, raw, &["model_id", "model_release_id", "facts"])?;
    let model_id = o
        .required(p, "model_id")
        .and_then(|v| validate::model_id(p, &o.at("model_id"), v));
    let model_release_id = o
        .required(p, "model_release_id")
        .and_then(|v| validate::model_id(p, &o.at("model_release_id"), v));
    let facts = o
        .required(p, "facts")
        .and_then(|v| check_facts(p, &o.at("facts"), v));
    Some(ModelEntry {
        model_id: model_id?,
        model_release_id: model_release_id?,
        facts: facts?,
    })
}

fn check_facts(p: &mut Problems, path: &str, raw: &Raw) -> Option<Vec<Fact>> {
    let names: Vec<&str> = FACTS.iter().map(|f| f.name.as_str()).collect();
    let o = p.object(path, raw, &names)?;
    let mut facts = Vec::with_capacity(FACTS.len());
    for spec in &FACTS {
        let fact = o
            .required(p, spec.name.as_str())
            .and_then(|v| check_fact(p, &o.at(spec.name.as_str()), v, spec));
        facts.push(fact);
    }
    let facts: Vec<Fact> = facts.into_iter().collect::<Option<_>>()?;
    check_fact_consistency(p, &o, &facts);
    Some(facts)
}

fn check_fact(p: &mut Problems, path: &str, raw: &Raw, spec: &FactSpec) -> Option<Fact> {
    let o = p.object(path, raw, &["value", "state", "reason", "source_url"])?;
    let (value, state, reason, source_url) = (
        o.required(p, "value"),
        o.required(p, "state"),
        o.required(p, "reason"),
        o.required(p, "source_url"),
    );
    let state = state.and_then(|v| {
        let at = o.at("state");
        let text = p.string(&at, v)?;
        let state = Availability::parse(text);
        if state.is_none() {
            let allowed: Vec<&str> = Availability::ALL.iter().map(|s| s.as_str()).collect();
            p.add(
                at,
                format!(
                    "must be one of {}, got {}",
                    allowed.join(", "),
                    v.describe()
                ),
            );
        }
        state
    })?;
    let (value, reason, source_url) = (value?, reason?, source_url?);
    if state == Availability::Available {
        let value = check_fact_value(p, &o.at("value"), value, spec);
        if !matches!(reason, Raw::Null) {
            p.add(
                o.at("reason"),
                format!(
                    "must be null when state is available, got {}",
                    reason.describe()
                ),
            );
        }
        let url = match source_url {
            Raw::String(url) if is_https_url(url) => Some(url.clone()),
            other => {
                p.add(
                    o.at("source_url"),
                    format!(
                        "must be an absolute https URL when state is available, got {}",
                        other.describe()
                    ),
                );
                None
            }
        };
        Some(Fact {
            value: Some(value?),
            state,
            reason: None,
            source_url: Some(url?),
        })
    } else {
        let mut ok = true;
        if !matches!(value, Raw::Null) {
            p.add(
                o.at("value"),
                format!(
                    "must be null when state is {}, got {}",
                    state.as_str(),
                    value.describe()
                ),
            );
            ok = false;
        }
        if !matches!(source_url, Raw::Null) {
            p.add(
                o.at("source_url"),
                format!(
                    "must be null when state is {}, got {}",
                    state.as_str(),
                    source_url.describe()
                ),
            );
            ok = false;
        }
        let reason = match reason {
            Raw::String(code) if is_reason_code(code) => Some(code.clone()),
            other => {
                p.add(
                    o.at("reason"),
                    format!(
                        "must be a reason code matching ^[a-z][a-z0-9_]*$ when state is {}, got {}",
                        state.as_str(),
                        other.describe()
                    ),
                );
                None
            }
        };
        let reason = reason?;
        ok.then_some(Fact {
            value: None,
            state,
            reason: Some(reason),
            source_url: None,
        })
    }
}

fn check_fact_value(p: &mut Problems, path: &str, raw: &Raw, spec: &FactSpec) -> Option<String> {
    match spec.kind {
        FactKind::Positive => {
            validate::integer_string(p, path, raw, 1, MAX_INTEGER_FACT).map(|n| n.to_string())
        }
        FactKind::NonNegative => {
            validate::integer_string(p, path, raw, 0, MAX_INTEGER_FACT).map(|n| n.to_string())
        }
        FactKind::Name => {
            let text = p.string(path, raw)?;
            if is_name_token(text) {
                Some(text.to_string())
            } else {
                p.add(
                    path,
                    format!("must match ^[a-z0-9][a-z0-9_.-]*$, got {}", raw.describe()),
                );
                None
            }
        }
    }
}

fn check_fact_consistency(p: &mut Problems, facts_obj: &Obj<'_>, facts: &[Fact]) {
    let int = |name: FactName| facts[name.index()].integer();
    let (total, active) = (FactName::TotalParameters, FactName::ActiveParameters);
    if let (Some(active), Some(total)) = (int(active), int(total)) {
        if active > total {
            p.add(
                facts_obj.at("active_parameters"),
                format!("value {active} must not exceed total_parameters {total}"),
            );
        }
    }
    if let (Some(bf16), Some(total)) = (int(FactName::Bf16WeightsBytes), int(total)) {
        if bf16 != 2 * total {
            p.add(
                facts_obj.at("bf16_weights_bytes"),
                format!(
                    "value {bf16} must equal 2 × total_parameters = {}",
                    2 * total
                ),
            );
        }
    }
    if let (Some(full), Some(per_token), Some(len)) = (
        int(FactName::FullSequenceAttentionBytes),
        int(FactName::AttentionBytesPerToken),
        int(FactName::CalculationSequenceLength),
    ) {
        if full < per_token * len {
            p.add(
                facts_obj.at("full_sequence_attention_bytes"),
                format!(
                    "value {full} must be at least attention_bytes_per_token × calculation_sequence_length = {}",
                    per_token * len
                ),
            );
        }
    }
    let available: Vec<bool> = FactName::QUANTIZATION
        .iter()
        .map(|name| facts[name.index()].state == Availability::Available)
        .collect();
    if available.iter().any(|a| *a) && !available.iter().all(|a| *a) {
        p.add(
            facts_obj.path(),
            "smallest_quant_checkpoint_bytes, smallest_quant_format and smallest_quant_bit_width must be all available or none available",
        );
    }
}

fn check_window_models_have_entries(
    p: &mut Problems,
    days_path: &str,
    days: &[(usize, Day)],
    models: &BTreeMap<String, ModelEntry>,
    window_end: Date,
) {
    let window_start = window_start(window_end);
    let mut reported = BTreeSet::new();
    for (i, day) in days {
        if day.date < window_start || day.date > window_end {
            continue;
        }
        for (j, row) in day.rows.iter().enumerate() {
            if !models.contains_key(&row.model_id) && reported.insert(row.model_id.clone()) {
                p.add(
                    format!("{days_path}[{i}].rows[{j}].model_id"),
                    format!(
                        "model {:?} has rows in the window but no entry in $.models",
                        row.model_id
                    ),
                );
            }
        }
    }
}
