//! Export v1 (`model-demand.export.v1`): the validated types an accepted export is made of.
//! The gate that builds them from the raw JSON tree lives in `gate.rs`; [`validate`] is
//! its entry.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use time::Date;

use crate::input::validate::Timestamp;

mod gate;

pub use gate::validate;

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

/// The name of one of the twelve facts, in [`FACTS`] order (a name's [`FactName::index`] is
/// its place there). It serializes as the member name the export and every answer give it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FactName {
    /// `total_parameters`.
    TotalParameters,
    /// `active_parameters`.
    ActiveParameters,
    /// `architecture_type`.
    ArchitectureType,
    /// `base_checkpoint_bytes`.
    BaseCheckpointBytes,
    /// `bf16_weights_bytes`.
    Bf16WeightsBytes,
    /// `smallest_quant_checkpoint_bytes`.
    SmallestQuantCheckpointBytes,
    /// `smallest_quant_format`.
    SmallestQuantFormat,
    /// `smallest_quant_bit_width`.
    SmallestQuantBitWidth,
    /// `attention_bytes_per_token`.
    AttentionBytesPerToken,
    /// `full_sequence_attention_bytes`.
    FullSequenceAttentionBytes,
    /// `recurrent_state_bytes`.
    RecurrentStateBytes,
    /// `calculation_sequence_length`.
    CalculationSequenceLength,
}

impl FactName {
    /// The three facts of the smallest official quantization: all available or none. They may
    /// come from another repository (a quantized child) whose commits move independently of
    /// the base's.
    pub const QUANTIZATION: [FactName; 3] = [
        FactName::SmallestQuantCheckpointBytes,
        FactName::SmallestQuantFormat,
        FactName::SmallestQuantBitWidth,
    ];

    /// The member name under `facts`.
    pub fn as_str(self) -> &'static str {
        match self {
            FactName::TotalParameters => "total_parameters",
            FactName::ActiveParameters => "active_parameters",
            FactName::ArchitectureType => "architecture_type",
            FactName::BaseCheckpointBytes => "base_checkpoint_bytes",
            FactName::Bf16WeightsBytes => "bf16_weights_bytes",
            FactName::SmallestQuantCheckpointBytes => "smallest_quant_checkpoint_bytes",
            FactName::SmallestQuantFormat => "smallest_quant_format",
            FactName::SmallestQuantBitWidth => "smallest_quant_bit_width",
            FactName::AttentionBytesPerToken => "attention_bytes_per_token",
            FactName::FullSequenceAttentionBytes => "full_sequence_attention_bytes",
            FactName::RecurrentStateBytes => "recurrent_state_bytes",
            FactName::CalculationSequenceLength => "calculation_sequence_length",
        }
    }

    /// The fact's place in [`FACTS`] (and in every list of twelve facts).
    pub const fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for FactName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One of the twelve model facts: its name, published unit and value form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FactSpec {
    /// Member name under `facts`.
    pub name: FactName,
    /// The fixed `unit` member.
    pub unit: &'static str,
    /// How the value is written.
    pub kind: FactKind,
    /// What the fact is, for the contract document.
    pub description: &'static str,
}

/// The twelve facts of spec 2.5, in publication order.
pub const FACTS: [FactSpec; 12] = [
    FactSpec { name: FactName::TotalParameters, unit: "parameters", kind: FactKind::Positive, description: "Parameters of the official checkpoint: the sum of the element counts of the tensors in the safetensors headers of the checkpoint files (the root-level files of model.safetensors.index.json, or model.safetensors; original/, metal/, .bin and .gguf copies are not the checkpoint). Draft and multi-token-prediction (MTP) layers count: the fact describes the checkpoint. Every tensor is classified under the checkpoint's quantization format as its writers and loaders name it: a float parameter (one per element), a packed parameter (its logical values per stored element: 4-bit _blocks and U8 weight ×2, I32 qweight and weight_packed 32/bits, MLX U32 weight 32/bits), or quantization state (scales, zero points, group indices, KV-cache scales: not parameters); a tensor no rule classifies makes the figure unavailable with size_calculation_failed, never a guess. source_url pins the index file at its commit." },
    FactSpec { name: FactName::ActiveParameters, unit: "parameters", kind: FactKind::Positive, description: "Parameters active per token: total_parameters for a dense model; for a mixture of experts (E routed experts, k per token, from config.json) total − R × (E − k) / E, exact, where R is the parameters of routed-expert tensors (shared experts always active). Unavailable with size_calculation_failed when that does not divide exactly." },
    FactSpec { name: FactName::ArchitectureType, unit: "architecture", kind: FactKind::Name, description: "The model_type of the repository's config.json (for example llama, deepseek_v3, qwen3_moe), pinned at its commit." },
    FactSpec { name: FactName::BaseCheckpointBytes, unit: "bytes", kind: FactKind::Positive, description: "Size in bytes of the checkpoint files (see total_parameters) as the repository listing at the pinned commit gives them; source_url is that listing (tree)." },
    FactSpec { name: FactName::Bf16WeightsBytes, unit: "bytes", kind: FactKind::Positive, description: "Bytes of the weights at BF16, exactly 2 × total_parameters, whatever precision the checkpoint is stored in. When unavailable, reason is closed_weights, weights_access_unknown, open_checkpoint_unavailable, size_calculation_failed, or a legacy code passed through unchanged." },
    FactSpec { name: FactName::SmallestQuantCheckpointBytes, unit: "bytes", kind: FactKind::Positive, description: "Checkpoint bytes of the smallest official quantized checkpoint: the base checkpoint itself when its config has a quantization_config, and the same author's repositories tagged as quantizations of it (fp8, mxfp4, awq, gptq, compressed-tensors, bitsandbytes, modelopt, MLX, Quark), each read from its own tensors; ties by repository ID. Known only when every such repository with a safetensors checkpoint is recognised: one that is not makes the three smallest_quant facts not_found_under_policy with quantized_format_not_supported. GGUF files are out of policy. source_url is that repository's listing at its commit." },
    FactSpec { name: FactName::SmallestQuantFormat, unit: "format", kind: FactKind::Name, description: "The format of that smallest official quantized checkpoint: its quant_method (such as fp8, mxfp4, awq, quark), or for MLX mlx-affine, mlx-mxfp4, mlx-nvfp4 or mlx-mxfp8." },
    FactSpec { name: FactName::SmallestQuantBitWidth, unit: "bits", kind: FactKind::Positive, description: "Weight bit width of that checkpoint, as its tensors hold it (the width of most of its quantized parameters), with the config's claim checked against them: fp8 8, mxfp4 4, awq and gptq their bits, compressed-tensors the num_bits all weight groups share, bitsandbytes 4 or 8, MLX its bits." },
    FactSpec { name: FactName::AttentionBytesPerToken, unit: "bytes_per_token", kind: FactKind::NonNegative, description: "Cache bytes per token of context that a serving engine (vLLM) allocates for the layers whose cache grows with the sequence, from config.json: the 16-bit (2 bytes per element) K and V of each full-attention layer, key-value heads × (head dimension + value head dimension) × 2; for MLA (kv_lora_rank) the latent of every layer, (kv_lora_rank + qk_rope_head_dim) × 2; plus, for a sparse-attention indexer (index_topk), the indexer's keys as the model stores them on every layer: index_head_dim FP8 bytes and a 4-byte scale per 128 values. Reviewed 2026 families add their own layer kinds, each from the engine's code: compressed entries (one per r tokens) add their bytes / r, an index key cache its keys, per-kind geometry its own heads. Windowed layers (sliding, chunked) and fixed buffers of an attention layer (a window of entries, a compressor's state) keep a bounded cache and count in full_sequence_attention_bytes; draft/MTP layers are not in num_hidden_layers and do not count; 0 for attention-free models. A layout the rules do not model is not_found_under_policy with attention_layout_not_supported, never a figure." },
    FactSpec { name: FactName::FullSequenceAttentionBytes, unit: "bytes", kind: FactKind::NonNegative, description: "Cache bytes of one sequence of calculation_sequence_length tokens: attention_bytes_per_token × that length, plus the 16-bit K and V of each windowed layer for min(its window, length) tokens (sliding layers their sliding window, chunked layers their attention_chunk_size)." },
    FactSpec { name: FactName::RecurrentStateBytes, unit: "bytes", kind: FactKind::NonNegative, description: "Fixed per-sequence state of recurrent layers at 16-bit precision (Mamba2, Gated DeltaNet and Kimi Delta Attention, sized as vLLM sizes them), from config.json; 0 for models without recurrent layers. Like the two attention facts, attention_layout_not_supported when the layout is not one the rules model." },
    FactSpec { name: FactName::CalculationSequenceLength, unit: "tokens", kind: FactKind::Positive, description: "The sequence length full_sequence_attention_bytes is computed for: max_position_embeddings of config.json." },
];

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
            .and_then(crate::base::decimal::parse_canonical_uint)
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

/// The first date of the 30-day window that ends at `window_end`.
pub fn window_start(window_end: Date) -> Date {
    window_end - time::Duration::days(i64::from(WINDOW_DAYS) - 1)
}

/// Length of the demand window in days.
pub const WINDOW_DAYS: u32 = 30;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_fact_name_is_its_place_and_serializes_as_its_member_name() {
        for (i, spec) in FACTS.iter().enumerate() {
            assert_eq!(spec.name.index(), i);
            let json = serde_json::to_string(&spec.name).expect("a name serializes");
            assert_eq!(json, format!("\"{}\"", spec.name.as_str()));
        }
    }
}
