//! The twelve model facts of one release, from its pinned Hugging Face evidence (DESIGN §10):
//! which evidence each fact needs, and which state and reason it gets when there is none.

use crate::input::export::{Availability, Fact, FactName, FACTS};

use super::config::{self, Outcome, Unreviewed};
use super::formats;
use super::huggingface::{self, blob_url, tree_url, Hub, HubError, RepoInfo};
use super::outcome::RepositoryOutcome;
use super::parameters;
use super::policy::{FactsReview, Policy};

/// Indices into [`FACTS`], in its order.
const TOTAL: usize = FactName::TotalParameters.index();
const ACTIVE: usize = FactName::ActiveParameters.index();
const ARCHITECTURE: usize = FactName::ArchitectureType.index();
const BASE_BYTES: usize = FactName::BaseCheckpointBytes.index();
const BF16_BYTES: usize = FactName::Bf16WeightsBytes.index();
const QUANT_BYTES: usize = FactName::SmallestQuantCheckpointBytes.index();
const QUANT_FORMAT: usize = FactName::SmallestQuantFormat.index();
const QUANT_BITS: usize = FactName::SmallestQuantBitWidth.index();
const ATTENTION_PER_TOKEN: usize = FactName::AttentionBytesPerToken.index();
const FULL_SEQUENCE: usize = FactName::FullSequenceAttentionBytes.index();
const RECURRENT: usize = FactName::RecurrentStateBytes.index();
const SEQUENCE_LENGTH: usize = FactName::CalculationSequenceLength.index();
/// The size facts.
const SIZE_FACTS: [usize; 4] = [TOTAL, ACTIVE, BASE_BYTES, BF16_BYTES];

/// The same state and reason on all twelve facts.
pub(super) fn all(state: Availability, reason: &str) -> Vec<Fact> {
    (0..FACTS.len()).map(|_| missing(state, reason)).collect()
}

fn missing(state: Availability, reason: &str) -> Fact {
    Fact {
        value: None,
        state,
        reason: Some(reason.to_string()),
        source_url: None,
    }
}

fn available(value: String, source_url: String) -> Fact {
    Fact {
        value: Some(value),
        state: Availability::Available,
        reason: None,
        source_url: Some(source_url),
    }
}

/// What the closed world met in a repository's files and kept unknown (DESIGN §10): the run
/// report and `facts REPO` name it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Findings {
    /// The configuration's `model_type` or keys the policy has not reviewed.
    pub(crate) unreviewed: Option<Unreviewed>,
    /// Why the parameters could not be counted: the tensor, its dtype and the format read.
    pub(crate) size_failure: Option<String>,
    /// Quantization methods of the base or its children that are not candidates.
    pub(crate) unsupported_quantizations: Vec<String>,
}

/// What the facts of a release came to: computed, refused, or evidence that could not be had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Evidence {
    /// The twelve facts, from the repository's files.
    Facts {
        /// The facts, in [`FACTS`] order.
        facts: Vec<Fact>,
        /// The repository as the source names it (after a rename's redirect).
        repository: String,
        /// The commit the facts are pinned to.
        commit: String,
        /// What the rules did not recognise, and so kept unknown.
        findings: Findings,
    },
    /// The repository refused (401/403/404) or answered what is not its format: all twelve
    /// facts `open_checkpoint_unavailable`. The outcome (`gated`, `missing`, `broken`) and
    /// why, for the run report.
    Refused(Vec<Fact>, RepositoryOutcome, String),
    /// A 5xx, timeout or spent rate-limit budget after retries (why): carry the previous
    /// export's facts when it has them.
    Unavailable(String),
}

/// Facts of a model without a Hugging Face repository: closed when the policy says so.
pub(super) fn without_repository(model_id: &str, policy: &Policy) -> Vec<Fact> {
    if policy.closed(model_id).is_some() {
        all(Availability::NotAvailable, "closed_weights")
    } else {
        all(Availability::NotAvailable, "weights_access_unknown")
    }
}

/// Turns a hub failure into facts: denied is `open_checkpoint_unavailable` on all twelve, an
/// unavailable source is carried over by the caller.
fn failed(error: &HubError) -> Evidence {
    let refused = |outcome, why: String| {
        Evidence::Refused(
            all(Availability::Unavailable, "open_checkpoint_unavailable"),
            outcome,
            why,
        )
    };
    match error {
        HubError::Denied(status @ (401 | 403)) => {
            refused(RepositoryOutcome::Gated, format!("answered {status}"))
        }
        HubError::Denied(status) => {
            refused(RepositoryOutcome::Missing, format!("answered {status}"))
        }
        HubError::Broken(why) => refused(RepositoryOutcome::Broken, why.clone()),
        HubError::Unavailable(why) | HubError::Unresolved(why) => {
            Evidence::Unavailable(why.clone())
        }
    }
}

/// Computes the twelve facts of the repository `repo` at its current commit, under the
/// policy's `review`.
pub(super) fn from_repository(hub: &Hub<'_>, repo: &str, review: &FactsReview) -> Evidence {
    match hub.info(repo, None) {
        Ok(info) => from_info(hub, &info, review),
        Err(e) => failed(&e),
    }
}

/// Computes the twelve facts of a repository pinned to a commit (its model info).
pub(super) fn from_info(hub: &Hub<'_>, info: &RepoInfo, review: &FactsReview) -> Evidence {
    let mut findings = Findings::default();
    let config_bytes = match hub.file(info, "config.json") {
        Ok(bytes) => bytes,
        Err(e) => return failed(&e),
    };
    let mut facts = all(Availability::Unavailable, "size_calculation_failed");
    let config = match config::parse_config(&config_bytes) {
        Ok(config) => config,
        Err(_) => {
            // A config that is not JSON gives no config facts; sizes may still be counted.
            for i in [
                ARCHITECTURE,
                ATTENTION_PER_TOKEN,
                FULL_SEQUENCE,
                RECURRENT,
                SEQUENCE_LENGTH,
            ] {
                facts[i] = missing(Availability::Unavailable, "config_not_json");
            }
            serde_json::Value::Null
        }
    };
    if config.is_object() {
        let (computed, unreviewed) = config::reviewed_config_facts(&config, review);
        findings.unreviewed = unreviewed;
        let config_url = blob_url(info, "config.json");
        for (i, outcome) in [
            (ARCHITECTURE, &computed.architecture_type),
            (ATTENTION_PER_TOKEN, &computed.attention_bytes_per_token),
            (FULL_SEQUENCE, &computed.full_sequence_attention_bytes),
            (RECURRENT, &computed.recurrent_state_bytes),
            (SEQUENCE_LENGTH, &computed.calculation_sequence_length),
        ] {
            facts[i] = match outcome {
                Outcome::Value(v) => available(v.clone(), config_url.clone()),
                Outcome::NotFound(reason) => missing(Availability::NotFoundUnderPolicy, reason),
            };
        }
        let experts = (computed.experts, computed.experts_per_token);
        match size_facts(hub, info, &config, experts, review, &mut findings) {
            Ok(sizes) => {
                for (i, fact) in sizes {
                    facts[i] = fact;
                }
            }
            Err(e) => return failed(&e),
        }
    }
    match smallest_quantization(hub, info, &config, &mut findings) {
        Ok(quant) => {
            for (i, fact) in quant {
                facts[i] = fact;
            }
        }
        Err(HubError::Unavailable(_) | HubError::Unresolved(_)) => {
            for i in [QUANT_BYTES, QUANT_FORMAT, QUANT_BITS] {
                facts[i] = missing(Availability::Unavailable, "quantized_search_failed");
            }
        }
        Err(e) => return failed(&e),
    }
    Evidence::Facts {
        facts,
        repository: info.id.clone(),
        commit: info.sha.clone(),
        findings,
    }
}

/// The four size facts; a header that cannot be read at all is an error for the caller, a
/// header that is not of the format, or a tensor no rule classifies, is
/// `size_calculation_failed` (the tensor named in `findings`).
fn size_facts(
    hub: &Hub<'_>,
    info: &RepoInfo,
    config: &serde_json::Value,
    (experts, experts_per_token): (Option<u64>, Option<u64>),
    review: &FactsReview,
    findings: &mut Findings,
) -> Result<Vec<(usize, Fact)>, HubError> {
    let failed_sizes = || {
        SIZE_FACTS
            .iter()
            .map(|&i| {
                (
                    i,
                    missing(Availability::Unavailable, "size_calculation_failed"),
                )
            })
            .collect::<Vec<_>>()
    };
    let found =
        match huggingface::checkpoint_files(info, || hub.file(info, huggingface::INDEX_FILE)) {
            // An index that is not of its format supports no size.
            Err(HubError::Broken(_)) => return Ok(failed_sizes()),
            other => other?,
        };
    let Some((evidence, files)) = found else {
        return Ok(SIZE_FACTS
            .iter()
            .map(|&i| {
                (
                    i,
                    missing(
                        Availability::NotFoundUnderPolicy,
                        "no_safetensors_checkpoint",
                    ),
                )
            })
            .collect());
    };
    let mut tensors = Vec::new();
    for file in &files {
        match hub.header(info, file) {
            Ok(found) => tensors.extend(found),
            Err(HubError::Broken(why)) => {
                findings.size_failure = Some(format!("{file}: {why}"));
                return Ok(failed_sizes());
            }
            Err(e) => return Err(e),
        }
    }
    let format = formats::format_of(config);
    let count = match parameters::count_parameters(&tensors, &format, &review.buffer_tensor_names) {
        Ok(count) if count.total > 0 => count,
        Ok(_) => {
            findings.size_failure = Some("the checkpoint holds no parameters".to_string());
            return Ok(failed_sizes());
        }
        Err(why) => {
            findings.size_failure = Some(why.to_string());
            return Ok(failed_sizes());
        }
    };
    let index_url = blob_url(info, &evidence);
    let mut out = vec![
        (TOTAL, available(count.total.to_string(), index_url.clone())),
        (
            BF16_BYTES,
            available((count.total * 2).to_string(), index_url.clone()),
        ),
    ];
    out.push((
        ACTIVE,
        match parameters::active_parameters(count, experts, experts_per_token) {
            Some(active) => available(active.to_string(), index_url),
            None => missing(Availability::Unavailable, "size_calculation_failed"),
        },
    ));
    out.push((
        BASE_BYTES,
        match checkpoint_bytes(info, &files) {
            Some(bytes) => available(bytes.to_string(), tree_url(info)),
            None => missing(Availability::Unavailable, "size_calculation_failed"),
        },
    ));
    Ok(out)
}

/// The sum of the listed sizes of the checkpoint's files; `None` when one is not listed.
fn checkpoint_bytes(info: &RepoInfo, files: &[String]) -> Option<u128> {
    files.iter().try_fold(0u128, |sum, file| {
        let size = info
            .siblings
            .iter()
            .find(|s| &s.rfilename == file)?
            .bytes()?;
        Some(sum + u128::from(size))
    })
}

/// One quantized candidate: (checkpoint bytes, repository ID, format, bits, tree URL).
type Candidate = (u128, String, String, u32, String);

/// The smallest official quantization: the base checkpoint itself when it is quantized, and
/// each same-author child whose config has a `quantization_config` (DESIGN §10). When none is
/// a candidate but one carried a quantization that is not, the reason says so
/// (`quantized_format_not_supported`), and `findings` names it.
fn smallest_quantization(
    hub: &Hub<'_>,
    info: &RepoInfo,
    config: &serde_json::Value,
    findings: &mut Findings,
) -> Result<Vec<(usize, Fact)>, HubError> {
    let mut candidates: Vec<Candidate> = Vec::new();
    let mut consider =
        |repo: &RepoInfo, config: &serde_json::Value| match candidate(hub, repo, config) {
            Some(candidate) => candidates.push(candidate),
            None if formats::has_quantization_config(config) => {
                findings.unsupported_quantizations.push(format!(
                    "{}: {}",
                    repo.id,
                    formats::format_of(config)
                ));
            }
            None => {}
        };
    consider(info, config);
    for child in hub.quantized_children(&info.id)? {
        // A child whose requests fail is skipped, as DESIGN says.
        let Ok(child_info) = hub.info(&child, None) else {
            continue;
        };
        let Ok(bytes) = hub.file(&child_info, "config.json") else {
            continue;
        };
        let Ok(child_config) = config::parse_config(&bytes) else {
            continue;
        };
        consider(&child_info, &child_config);
    }
    candidates.sort();
    let none_reason = if findings.unsupported_quantizations.is_empty() {
        "no_official_quantized_checkpoint"
    } else {
        "quantized_format_not_supported"
    };
    let facts = match candidates.first() {
        Some((bytes, _, format, bits, url)) => vec![
            (QUANT_BYTES, available(bytes.to_string(), url.clone())),
            (QUANT_FORMAT, available(format.clone(), url.clone())),
            (QUANT_BITS, available(bits.to_string(), url.clone())),
        ],
        None => [QUANT_BYTES, QUANT_FORMAT, QUANT_BITS]
            .iter()
            .map(|&i| (i, missing(Availability::NotFoundUnderPolicy, none_reason)))
            .collect(),
    };
    Ok(facts)
}

/// A repository as a quantized candidate: quantized by a known method, with a safetensors
/// checkpoint whose files all have listed sizes.
fn candidate(hub: &Hub<'_>, info: &RepoInfo, config: &serde_json::Value) -> Option<Candidate> {
    let (format, bits) = config::quantization(config)?;
    if !crate::input::validate::is_name_token(&format) {
        return None;
    }
    let (_, files) =
        huggingface::checkpoint_files(info, || hub.file(info, huggingface::INDEX_FILE)).ok()??;
    let bytes = checkpoint_bytes(info, &files)?;
    Some((bytes, info.id.clone(), format, bits, tree_url(info)))
}
