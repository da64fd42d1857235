//! Export v1 (`model-demand.export.v1`): the validated types and the gate that builds them
//! from the raw JSON tree, reporting every problem with its JSON path.

use std::collections::{BTreeMap, BTreeSet};

use time::Date;

use crate::json::{index_path, member_path, Obj, Problems, Raw};
use crate::sources::DEMAND_SOURCE;
use crate::validate::{
    self, format_date, is_https_url, is_name_token, is_reason_code, parse_date, Timestamp,
};

/// The schema tag an export must carry.
pub const EXPORT_SCHEMA_VERSION: &str = "model-demand.export.v1";
/// Most rows a day may have: the source publishes its top 50.
pub const MAX_ROWS_PER_DAY: usize = 50;
/// Largest `total_tokens` of one row.
pub const MAX_ROW_TOKENS: u128 = 1_000_000_000_000_000;
/// Largest `other_tokens` of one day.
pub const MAX_OTHER_TOKENS: u128 = 100_000_000_000_000_000;
/// Largest integer fact: 2^63 − 1.
pub const MAX_INTEGER_FACT: u128 = i64::MAX as u128;

/// The five availability states of a value object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Availability {
    /// The field has a checked public value.
    Available,
    /// No checked public value; unknown, not zero.
    Unavailable,
    /// The model fact has no public evidence cleared for this export.
    NotPubliclyCleared,
    /// The checked public model source does not supply this fact.
    NotAvailable,
    /// The selected public checkpoint policy did not find this fact.
    NotFoundUnderPolicy,
}

impl Availability {
    /// Every state, in contract order.
    pub const ALL: [Availability; 5] = [
        Availability::Available,
        Availability::Unavailable,
        Availability::NotPubliclyCleared,
        Availability::NotAvailable,
        Availability::NotFoundUnderPolicy,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Availability::Available => "available",
            Availability::Unavailable => "unavailable",
            Availability::NotPubliclyCleared => "not_publicly_cleared",
            Availability::NotAvailable => "not_available",
            Availability::NotFoundUnderPolicy => "not_found_under_policy",
        }
    }

    /// What the state means, as the contract document states it.
    pub fn meaning(self) -> &'static str {
        match self {
            Availability::Available => "The field has a checked public value.",
            Availability::Unavailable => {
                "No checked public value; treat as unknown, not zero. The reason member says why."
            }
            Availability::NotPubliclyCleared => {
                "The model fact has no public evidence cleared for this export."
            }
            Availability::NotAvailable => {
                "The checked public model source does not supply this fact."
            }
            Availability::NotFoundUnderPolicy => {
                "The selected public checkpoint policy did not find this fact."
            }
        }
    }

    fn parse(text: &str) -> Option<Availability> {
        Availability::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

/// How a fact's value is written and bounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FactKind {
    /// A positive integer string.
    Positive,
    /// A non-negative integer string (`"0"` is a real value).
    NonNegative,
    /// A lower-case name token (`^[a-z0-9][a-z0-9_.-]*$`).
    Name,
}

/// One of the twelve model facts: its name, published unit and value form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FactSpec {
    /// Member name under `facts`.
    pub name: &'static str,
    /// The fixed `unit` member.
    pub unit: &'static str,
    /// How the value is written.
    pub kind: FactKind,
    /// What the fact is, for the contract document.
    pub description: &'static str,
}

/// The twelve facts of spec 2.5, in publication order.
pub const FACTS: [FactSpec; 12] = [
    FactSpec { name: "total_parameters", unit: "parameters", kind: FactKind::Positive, description: "Parameters of the official checkpoint: the sum of the element counts of the tensors in the safetensors headers of the checkpoint files (the root-level files of model.safetensors.index.json, or model.safetensors; original/, metal/, .bin and .gguf copies are not the checkpoint). Draft and multi-token-prediction (MTP) layers count: the fact describes the checkpoint. Scale tensors (scale, scales, scale_inv, zero_point, qzeros, g_idx) are not parameters; packed 4-bit _blocks bytes count twice; I32 qweight counts 32/bits per element; other integer and BOOL tensors are buffers. source_url pins the index file at its commit." },
    FactSpec { name: "active_parameters", unit: "parameters", kind: FactKind::Positive, description: "Parameters active per token: total_parameters for a dense model; for a mixture of experts (E routed experts, k per token, from config.json) total − R × (E − k) / E, exact, where R is the parameters of routed-expert tensors (shared experts always active). Unavailable with size_calculation_failed when that does not divide exactly." },
    FactSpec { name: "architecture_type", unit: "architecture", kind: FactKind::Name, description: "The model_type of the repository's config.json (for example llama, deepseek_v3, qwen3_moe), pinned at its commit." },
    FactSpec { name: "base_checkpoint_bytes", unit: "bytes", kind: FactKind::Positive, description: "Size in bytes of the checkpoint files (see total_parameters) as the repository listing at the pinned commit gives them; source_url is that listing (tree)." },
    FactSpec { name: "bf16_weights_bytes", unit: "bytes", kind: FactKind::Positive, description: "Bytes of the weights at BF16, exactly 2 × total_parameters, whatever precision the checkpoint is stored in. When unavailable, reason is closed_weights, weights_access_unknown, open_checkpoint_unavailable, size_calculation_failed, or a legacy code passed through unchanged." },
    FactSpec { name: "smallest_quant_checkpoint_bytes", unit: "bytes", kind: FactKind::Positive, description: "Checkpoint bytes of the smallest official quantized checkpoint: the base checkpoint itself when its config has a quantization_config, and the same author's repositories tagged as quantizations of it (fp8, mxfp4, awq, gptq, compressed-tensors, bitsandbytes); ties by repository ID. GGUF files are out of policy. source_url is that repository's listing at its commit." },
    FactSpec { name: "smallest_quant_format", unit: "format", kind: FactKind::Name, description: "The quant_method of that smallest official quantized checkpoint, such as fp8 or mxfp4." },
    FactSpec { name: "smallest_quant_bit_width", unit: "bits", kind: FactKind::Positive, description: "Weight bit width of that checkpoint: fp8 8, mxfp4 4, awq and gptq their bits, compressed-tensors the num_bits all weight groups share, bitsandbytes 4 or 8." },
    FactSpec { name: "attention_bytes_per_token", unit: "bytes_per_token", kind: FactKind::NonNegative, description: "KV-cache bytes per token of context at 16-bit precision (2 bytes per element), from config.json: 2 (K and V) × full-attention layers × key-value heads × head dimension × 2; for MLA (kv_lora_rank) layers × (kv_lora_rank + qk_rope_head_dim) × 2. Sliding-window layers are not per-token (see full_sequence_attention_bytes); 0 for attention-free models. Draft/MTP layers are not in num_hidden_layers and do not count." },
    FactSpec { name: "full_sequence_attention_bytes", unit: "bytes", kind: FactKind::NonNegative, description: "16-bit KV-cache bytes of one sequence of calculation_sequence_length tokens: attention_bytes_per_token × that length, plus each sliding-window layer's cache of min(sliding_window, length) tokens." },
    FactSpec { name: "recurrent_state_bytes", unit: "bytes", kind: FactKind::NonNegative, description: "Fixed per-sequence state of recurrent layers at 16-bit precision (Mamba2 and Gated DeltaNet linear attention, sized as vLLM sizes them), from config.json; 0 for models without recurrent layers." },
    FactSpec { name: "calculation_sequence_length", unit: "tokens", kind: FactKind::Positive, description: "The sequence length full_sequence_attention_bytes is computed for: max_position_embeddings of config.json." },
];

/// Index of a fact in [`FACTS`] by name.
pub fn fact_index(name: &str) -> Option<usize> {
    FACTS.iter().position(|f| f.name == name)
}

/// One checked fact as the export states it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fact {
    /// The value (present exactly when the state is `available`).
    pub value: Option<String>,
    /// Availability state.
    pub state: Availability,
    /// Reason code when not available.
    pub reason: Option<String>,
    /// Pinned evidence URL when available.
    pub source_url: Option<String>,
}

impl Fact {
    /// The value as an integer, when available and integral.
    pub fn integer(&self) -> Option<u128> {
        self.value
            .as_deref()
            .and_then(crate::decimal::parse_canonical_uint)
    }
}

/// A model entry of `models[]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelEntry {
    /// Stable public model ID.
    pub model_id: String,
    /// Stable public release ID.
    pub model_release_id: String,
    /// The twelve facts in [`FACTS`] order.
    pub facts: Vec<Fact>,
}

/// One ranking row of a day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The model.
    pub model_id: String,
    /// Its tokens that day (positive).
    pub total_tokens: u128,
}

/// One delivered source day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Day {
    /// The UTC date.
    pub date: Date,
    /// The aggregated remainder of the market, when known.
    pub other_tokens: Option<u128>,
    /// The day's rows (at most 50, unique models), in export order.
    pub rows: Vec<Row>,
}

/// The demand source block as the export states it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DemandSource {
    /// Source name.
    pub name: String,
    /// Public data URL.
    pub url: String,
    /// Terms URL.
    pub terms_url: String,
    /// When the terms were checked.
    pub checked_at: Timestamp,
    /// License name.
    pub license: String,
    /// Attribution text required by the license.
    pub attribution: String,
}

/// An accepted export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Export {
    /// When the export was generated.
    pub generated_at: Timestamp,
    /// Latest evidence time included.
    pub evaluation_cutoff: Timestamp,
    /// Freshness deadline, when the collector gave one.
    pub fresh_until: Option<Timestamp>,
    /// Demand source and attribution.
    pub demand_source: DemandSource,
    /// Delivered days, sorted by date.
    pub days: Vec<Day>,
    /// Model entries by ID.
    pub models: BTreeMap<String, ModelEntry>,
}

impl Export {
    /// The last completed day: the UTC date of the evaluation cutoff minus one day.
    pub fn window_end(&self) -> Option<Date> {
        self.evaluation_cutoff.date().previous_day()
    }
}

/// Validates a raw export tree, returning the typed export or every problem found.
pub fn validate(raw: &Raw) -> Result<Export, Vec<crate::error::Problem>> {
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
    let names: Vec<&str> = FACTS.iter().map(|f| f.name).collect();
    let o = p.object(path, raw, &names)?;
    let mut facts = Vec::with_capacity(FACTS.len());
    for spec in &FACTS {
        let fact = o
            .required(p, spec.name)
            .and_then(|v| check_fact(p, &o.at(spec.name), v, spec));
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
    let int = |name: &str| fact_index(name).and_then(|i| facts[i].integer());
    if let (Some(active), Some(total)) = (int("active_parameters"), int("total_parameters")) {
        if active > total {
            p.add(
                facts_obj.at("active_parameters"),
                format!("value {active} must not exceed total_parameters {total}"),
            );
        }
    }
    if let (Some(bf16), Some(total)) = (int("bf16_weights_bytes"), int("total_parameters")) {
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
        int("full_sequence_attention_bytes"),
        int("attention_bytes_per_token"),
        int("calculation_sequence_length"),
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
    let quant = [
        "smallest_quant_checkpoint_bytes",
        "smallest_quant_format",
        "smallest_quant_bit_width",
    ];
    let available: Vec<bool> = quant
        .iter()
        .filter_map(|name| fact_index(name))
        .map(|i| facts[i].state == Availability::Available)
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

/// The first date of the 30-day window that ends at `window_end`.
pub fn window_start(window_end: Date) -> Date {
    window_end - time::Duration::days(i64::from(WINDOW_DAYS) - 1)
}

/// Length of the demand window in days.
pub const WINDOW_DAYS: u32 = 30;
