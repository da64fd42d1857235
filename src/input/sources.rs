//! The two public sources, as static text of the program: the contract document publishes
//! them and the gate refuses an export whose demand source is labelled differently.

/// A public data source named by the contract document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SourceInfo {
    /// Display name.
    pub name: &'static str,
    /// Public URL of the data.
    pub url: &'static str,
    /// URL of the terms that govern reuse.
    pub terms_url: &'static str,
    /// Data license, when the source states one.
    pub license: Option<&'static str>,
    /// What a consumer must know about the source's limits.
    pub limit_note: &'static str,
}

/// The demand source: OpenRouter's public daily rankings.
pub(crate) const DEMAND_SOURCE: SourceInfo = SourceInfo {
    name: "OpenRouter",
    url: "https://openrouter.ai/rankings",
    terms_url: "https://openrouter.ai/terms",
    license: Some("CC BY 4.0"),
    limit_note: "Daily token counts of the top 50 models only; models outside the top 50 on a \
day have no row for that day, so their totals over a period that includes such a day are \
unavailable, never partial. Token counts are as reported by the source and tokenizers differ \
between models and providers, so token volumes compare demand, not text length. The remainder \
of the market is one aggregated number that may be unknown. Reuse requires the attribution \
given in source.attribution (CC BY 4.0).",
};

/// The model-repository source: Hugging Face model repositories, pinned by commit.
pub(crate) const MODEL_SOURCE: SourceInfo = SourceInfo {
    name: "Hugging Face",
    url: "https://huggingface.co",
    terms_url: "https://huggingface.co/terms-of-service",
    license: None,
    limit_note: "Model facts come only from exact official repository files pinned by commit \
(each fact carries its source_url). Closed models and models without an exact public \
checkpoint have no sizes; a fact that was not checked or not found is unavailable with a \
reason, never zero. Repository licenses vary per model and are not restated here.",
};

/// The licence [`DEMAND_SOURCE`] names (`CC BY 4.0`), as a data package states a licence: its
/// SPDX identifier and the licence's own page.
pub(crate) const DEMAND_LICENSE: LicenseInfo = LicenseInfo {
    id: "CC-BY-4.0",
    url: "https://creativecommons.org/licenses/by/4.0/",
};

/// A licence by identifier and address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LicenseInfo {
    /// SPDX identifier.
    pub id: &'static str,
    /// The licence's text.
    pub url: &'static str,
}

/// The supply source: OpenRouter's catalog and its routes' endpoints, as `collect` reads them.
/// Not one of the contract's two sources (supply is outside the v1 records' sources): the
/// tables' data package names it for the supply columns it describes.
pub(crate) const SUPPLY_SOURCE: SourceInfo = SourceInfo {
    name: "OpenRouter",
    url: "https://openrouter.ai/models",
    terms_url: "https://openrouter.ai/terms",
    license: None,
    limit_note: "Provider listings of OpenRouter's model catalog and each route's endpoints \
(providers, prices, latency, throughput, uptime, context length, quantization) as collected, \
one collection a night. No licence is stated for them: they fall under OpenRouter's terms.",
};
