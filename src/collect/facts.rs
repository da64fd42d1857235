//! The twelve model facts of one release, from its pinned Hugging Face evidence (DESIGN §10):
//! which evidence each fact needs, and which state and reason it gets when there is none.

use crate::input::export::{Availability, Fact, FactName, FACTS};

use super::config::{self, Outcome, Unreviewed};
use super::formats;
use super::huggingface::{self, blob_url, tree_url, Hub, HubError, RepoInfo};
use super::outcome::RepositoryOutcome;
use super::parameters;
use super::policy::{FactsReview, Policy};
use super::safetensors::Tensor;

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
    /// Same-author repositories (the base or its quantized children) that kept the smallest
    /// quantization unknown, each named with what was not recognised or could not be read.
    pub(crate) unsupported_quantizations: Vec<String>,
    /// A quantized child whose requests failed after retries (5xx, timeout), and none was
    /// unrecognised, refused or gone: the previous export's three `smallest_quant_*` facts
    /// are carried when it has them.
    pub(crate) quantization_unread: bool,
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
        findings: Box<Findings>,
    },
    /// The repository refused (401/403/404) or answered what is not its format: all twelve
    /// facts `open_checkpoint_unavailable`. The outcome (`gated`, `missing`, `broken`) and
    /// why, for the run report.
    Refused(Vec<Fact>, RepositoryOutcome, String),
    /// A 5xx, timeout or spent rate-limit budget after retries (why): carry the previous
    /// export's facts when it has them.
    Unavailable(String),
}

/// The previous export's three `smallest_quant_*` facts laid over `facts` (a quantized child
/// whose requests failed: DESIGN §10, amended 2026-11-28).
pub(super) fn carry_smallest_quantization(facts: &mut [Fact], previous: &[Fact]) {
    for i in [QUANT_BYTES, QUANT_FORMAT, QUANT_BITS] {
        if let (Some(fact), Some(old)) = (facts.get_mut(i), previous.get(i)) {
            *fact = old.clone();
        }
    }
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
    let mut read = BaseCheckpoint::Unread("config.json is not JSON".to_string());
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
        match size_facts(
            hub,
            info,
            &config,
            experts,
            review,
            &mut findings,
            &mut read,
        ) {
            Ok(sizes) => {
                for (i, fact) in sizes {
                    facts[i] = fact;
                }
            }
            Err(e) => return failed(&e),
        }
    }
    let base = Base {
        info,
        config: &config,
        checkpoint: &read,
    };
    match smallest_quantization(hub, &base, review, &mut findings) {
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
        findings: Box::new(findings),
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
    read: &mut BaseCheckpoint,
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
            Err(HubError::Broken(why)) => {
                *read = BaseCheckpoint::Unread(why);
                return Ok(failed_sizes());
            }
            other => other?,
        };
    let Some((evidence, files)) = found else {
        *read = BaseCheckpoint::None;
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
                *read = BaseCheckpoint::Unread(format!("{file}: {why}"));
                return Ok(failed_sizes());
            }
            Err(e) => return Err(e),
        }
    }
    let format = formats::format_of(config);
    let counted = parameters::count_parameters(&tensors, &format, &review.buffer_tensor_names);
    // The base's tensors, read once: the smallest quantization classifies them too.
    *read = BaseCheckpoint::Read(files.clone(), tensors);
    let count = match counted {
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

/// The base repository as the smallest quantization sees it: its configuration, and its
/// checkpoint as the size facts read it.
struct Base<'a> {
    info: &'a RepoInfo,
    config: &'a serde_json::Value,
    checkpoint: &'a BaseCheckpoint,
}

/// The base's checkpoint as the size facts found it.
enum BaseCheckpoint {
    /// Its files and their tensors.
    Read(Vec<String>, Vec<Tensor>),
    /// No safetensors checkpoint: outside the set.
    None,
    /// An index or a header not of its format, or a config not JSON (why).
    Unread(String),
}

/// What one same-author repository is to the smallest quantization (DESIGN §10, amended
/// 2026-11-28: the smallest of a set is known only when the whole set is).
#[derive(Debug)]
enum Member {
    /// A recognised format: a candidate.
    Candidate(Candidate),
    /// No quantization declared and none in its tensors, or no safetensors checkpoint: outside
    /// the set.
    Outside,
    /// Not recognised: what was not.
    Unrecognised(String),
    /// Its requests failed (why): after retries (`transient`: a 5xx or a timeout, the previous
    /// export's facts are carried), or refused or gone (401, 403, 404: not carried, as for a
    /// base).
    Unread {
        /// What failed.
        why: String,
        /// A 5xx or timeout after retries.
        transient: bool,
    },
}

/// The smallest official quantization over the base (when it declares a quantization) and
/// every same-author child of the quantized-children search with a safetensors checkpoint
/// (DESIGN §10). A member not recognised makes the three facts `not_found_under_policy` /
/// `quantized_format_not_supported`; else a member whose requests failed makes them
/// `unavailable` / `open_checkpoint_unavailable` (the caller carries the previous export's
/// when it has them and every failure was a 5xx or timeout after retries); `findings` names
/// the repository either way.
fn smallest_quantization(
    hub: &Hub<'_>,
    base: &Base<'_>,
    review: &FactsReview,
    findings: &mut Findings,
) -> Result<Vec<(usize, Fact)>, HubError> {
    let mut members: Vec<(String, Member)> = Vec::new();
    if formats::has_quantization_config(base.config) {
        let member = match base.checkpoint {
            BaseCheckpoint::Read(files, tensors) => {
                classify(base.info, base.config, (files, tensors), review)
            }
            BaseCheckpoint::None => Member::Outside,
            BaseCheckpoint::Unread(why) => Member::Unrecognised(why.clone()),
        };
        members.push((base.info.id.clone(), member));
    }
    for child in hub.quantized_children(&base.info.id)? {
        let member = child_member(hub, &child, review);
        members.push((child, member));
    }
    let mut candidates: Vec<Candidate> = Vec::new();
    let mut unread = false;
    let mut carried = true;
    let mut unrecognised = false;
    for (repo, member) in members {
        match member {
            Member::Candidate(c) => candidates.push(c),
            Member::Outside => {}
            Member::Unrecognised(why) => {
                unrecognised = true;
                findings
                    .unsupported_quantizations
                    .push(format!("{repo}: not recognised: {why}"));
            }
            Member::Unread { why, transient } => {
                unread = true;
                carried &= transient;
                findings
                    .unsupported_quantizations
                    .push(format!("{repo}: not read: {why}"));
            }
        }
    }
    let missing_all = |state, reason| {
        [QUANT_BYTES, QUANT_FORMAT, QUANT_BITS]
            .iter()
            .map(|&i| (i, missing(state, reason)))
            .collect()
    };
    if unrecognised {
        return Ok(missing_all(
            Availability::NotFoundUnderPolicy,
            "quantized_format_not_supported",
        ));
    }
    if unread {
        findings.quantization_unread = carried;
        return Ok(missing_all(
            Availability::Unavailable,
            "open_checkpoint_unavailable",
        ));
    }
    candidates.sort();
    Ok(match candidates.first() {
        Some((bytes, _, format, bits, url)) => vec![
            (QUANT_BYTES, available(bytes.to_string(), url.clone())),
            (QUANT_FORMAT, available(format.clone(), url.clone())),
            (QUANT_BITS, available(bits.to_string(), url.clone())),
        ],
        None => missing_all(
            Availability::NotFoundUnderPolicy,
            "no_official_quantized_checkpoint",
        ),
    })
}

/// A quantized child as a member: its model info, then (when it has a safetensors checkpoint)
/// its configuration, index and headers. A request that fails is `Unread`; an answer that is
/// not of its format, or a safetensors checkpoint without `config.json`, is `Unrecognised`.
fn child_member(hub: &Hub<'_>, child: &str, review: &FactsReview) -> Member {
    let failed = |what: &str, e: HubError| match e {
        HubError::Broken(why) => Member::Unrecognised(format!("{what}: {why}")),
        HubError::Denied(404) if what == "config.json" => {
            Member::Unrecognised("a safetensors checkpoint without config.json".to_string())
        }
        HubError::Denied(status) => Member::Unread {
            why: format!("{what} answered {status}"),
            transient: false,
        },
        HubError::Unavailable(why) | HubError::Unresolved(why) => Member::Unread {
            why: format!("{what}: {why}"),
            transient: true,
        },
    };
    let info = match hub.info(child, None) {
        Ok(info) => info,
        Err(e) => return failed("model info", e),
    };
    let listed = |name: &str| info.siblings.iter().any(|s| s.rfilename == name);
    // GGUF-only and other repositories without a safetensors checkpoint are outside the set.
    if !listed(huggingface::INDEX_FILE) && !listed(huggingface::SINGLE_FILE) {
        return Member::Outside;
    }
    let config = match hub.file(&info, "config.json") {
        Ok(bytes) => match config::parse_config(&bytes) {
            Ok(config) => config,
            Err(e) => return Member::Unrecognised(format!("config.json: {e}")),
        },
        Err(e) => return failed("config.json", e),
    };
    let files =
        match huggingface::checkpoint_files(&info, || hub.file(&info, huggingface::INDEX_FILE)) {
            Ok(Some((_, files))) => files,
            Ok(None) => return Member::Outside,
            Err(e) => return failed(huggingface::INDEX_FILE, e),
        };
    let mut tensors = Vec::new();
    for file in &files {
        match hub.header(&info, file) {
            Ok(found) => tensors.extend(found),
            Err(e) => return failed(file, e),
        }
    }
    classify(&info, &config, (&files, &tensors), review)
}

/// A repository with its configuration and tensors: plain (outside the set), a candidate
/// (a format the table holds, every tensor classified, the bit width its tensors hold agreeing
/// with what the configuration claims, every checkpoint file's size listed), or not recognised.
fn classify(
    info: &RepoInfo,
    config: &serde_json::Value,
    (files, tensors): (&[String], &[Tensor]),
    review: &FactsReview,
) -> Member {
    let format = formats::format_of(config);
    let (_, widths) =
        match parameters::classify_checkpoint(tensors, &format, &review.buffer_tensor_names) {
            Ok(found) => found,
            Err(why) => return Member::Unrecognised(why.to_string()),
        };
    if format == formats::Format::Plain {
        return Member::Outside;
    }
    let Some((name, claim)) = config::claim(config) else {
        return Member::Unrecognised(format!("{format}"));
    };
    if !crate::input::validate::is_name_token(&name) {
        return Member::Unrecognised(format!("the format name {name:?}"));
    }
    let bits = match widths.checked(claim) {
        Ok(bits) => bits,
        Err(why) => return Member::Unrecognised(format!("{format}: {why}")),
    };
    match checkpoint_bytes(info, files) {
        Some(bytes) => Member::Candidate((bytes, info.id.clone(), name, bits, tree_url(info))),
        None => Member::Unrecognised("a checkpoint file without a listed size".to_string()),
    }
}
