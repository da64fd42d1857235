//! The cache facts of one `config.json` under a policy file, as `collect` and `facts REPO`
//! compute them (DESIGN §10: the rules in the closed world of the policy's review), for the
//! programs that measure them without the network: `benches/coverage.rs` runs it over every
//! real configuration the project holds.

use std::path::Path;

use crate::base::error::Result;

use super::config::{self, Outcome};
use super::policy::{self, FactsReview};

/// The review of a policy file: what the cache facts are computed under.
#[derive(Debug, Clone)]
pub struct Review(FactsReview);

impl Review {
    /// The review of the policy file at `path`, checked as `collect` checks it.
    pub fn load(path: &Path) -> Result<Review> {
        Ok(Review(policy::load(Some(path))?.review))
    }
}

/// The three cache facts and the sequence length of one configuration: each the value as the
/// export writes it, or the reason code when there is none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheFacts {
    /// `attention_bytes_per_token`.
    pub attention_bytes_per_token: std::result::Result<String, String>,
    /// `full_sequence_attention_bytes`.
    pub full_sequence_attention_bytes: std::result::Result<String, String>,
    /// `recurrent_state_bytes`.
    pub recurrent_state_bytes: std::result::Result<String, String>,
    /// `calculation_sequence_length`.
    pub calculation_sequence_length: std::result::Result<String, String>,
    /// What the policy has not reviewed of it, in one line (as `facts REPO` says it).
    pub unreviewed: Option<String>,
}

impl CacheFacts {
    /// True when all three cache facts are stated.
    pub fn stated(&self) -> bool {
        self.attention_bytes_per_token.is_ok()
            && self.full_sequence_attention_bytes.is_ok()
            && self.recurrent_state_bytes.is_ok()
    }
}

/// The cache facts of the configuration `config` (the bytes of a `config.json`) under a
/// policy's `review` (its `config_defaults`, `cache_layouts` and `inert_config_keys`); why
/// not, when the bytes are not a JSON object.
pub fn config_cache_facts(
    config: &[u8],
    review: &Review,
) -> std::result::Result<CacheFacts, String> {
    let value = config::parse_config(config)?;
    let (facts, unreviewed) = config::reviewed_config_facts(&value, &review.0);
    let shown = |o: Outcome| match o {
        Outcome::Value(v) => Ok(v),
        Outcome::NotFound(reason) => Err(reason.to_string()),
    };
    Ok(CacheFacts {
        attention_bytes_per_token: shown(facts.attention_bytes_per_token),
        full_sequence_attention_bytes: shown(facts.full_sequence_attention_bytes),
        recurrent_state_bytes: shown(facts.recurrent_state_bytes),
        calculation_sequence_length: shown(facts.calculation_sequence_length),
        unreviewed: unreviewed.map(|u| u.describe()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shipped() -> Review {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(policy::DEFAULT_POLICY);
        Review::load(&path).expect("the shipped policy")
    }

    #[test]
    fn a_reviewed_configuration_is_stated_and_an_unreviewed_one_says_why() {
        let review = shipped();
        let laguna = include_bytes!(
            "../../tests/fixtures/huggingface/poolside__Laguna-XS.2-FP8/config.json"
        );
        let facts = config_cache_facts(laguna, &review).expect("a config");
        assert!(facts.stated());
        assert_eq!(facts.attention_bytes_per_token.as_deref(), Ok("40960"));
        assert_eq!(facts.unreviewed, None);
        // Llama-Nemotron NAS: per-layer block_configs, a layout no rule models.
        let nas = include_bytes!(
            "../../tests/fixtures/huggingface/nvidia__Llama-3_3-Nemotron-Super-49B-v1/config.json"
        );
        let facts = config_cache_facts(nas, &review).expect("a config");
        assert!(!facts.stated());
        assert_eq!(
            facts.attention_bytes_per_token,
            Err("attention_layout_not_supported".to_string())
        );
        assert!(facts.unreviewed.is_some_and(|u| u.contains("nemotron-nas")));
        assert!(config_cache_facts(b"[1, 2]", &review).is_err());
    }
}
