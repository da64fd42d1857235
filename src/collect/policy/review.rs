//! The policy's review of model files (DESIGN §10): the reference defaults of `config.json`, the
//! reviewed cache layouts per `model_type` and the keys reviewed as inert (the closed world of
//! the cache facts), and the reviewed buffer tensor names. Each is checked with its JSON path;
//! the lists must agree with each other (a key is either a layout key or inert, never both; a
//! buffer name is never one a checkpoint format names).

use std::collections::{BTreeMap, BTreeSet};

use crate::input::json::{index_path, Obj, Problems, Raw};
use crate::input::validate;

use super::super::formats;

/// The facts' part of the policy: what a person reviewed about model files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FactsReview {
    /// Keys a model family leaves out of `config.json` and takes from its reference
    /// configuration class (DESIGN §10, "Reference defaults").
    pub config_defaults: Vec<ConfigDefault>,
    /// The reviewed cache layouts, by `model_type`: the cache facts are stated only for these.
    pub cache_layouts: BTreeMap<String, CacheLayout>,
    /// Keys reviewed once as having no effect on any cache.
    pub inert_config_keys: BTreeSet<String>,
    /// Tensor names reviewed as buffers (neither parameters nor a format's tensors), matched
    /// against a tensor name's trailing components.
    pub buffer_tensor_names: BTreeSet<String>,
}

/// One reference default: the value a key takes in a `config.json` key set of `model_type`
/// that lacks it (absent or null), as the family's reference configuration class sets it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigDefault {
    /// The `model_type` of the key set read (for a wrapper, `text_config.model_type`).
    pub model_type: String,
    /// The key it supplies.
    pub key: String,
    /// The value: a non-negative integer (every key the rules default is a count or a length).
    pub value: u64,
    /// The reference class's file pinned at a commit (a path segment of 40 hex digits).
    pub source_url: String,
}

/// One reviewed `model_type`: the keys of its key set that can change what an engine caches
/// and that the rules read, and the engine's code the review was made against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheLayout {
    /// The `model_type` of the key set read.
    pub model_type: String,
    /// Its layout keys.
    pub layout_keys: BTreeSet<String>,
    /// Layout keys the review holds only when present (non-null): where the engine reads
    /// another key in their absence than the rules do (Laguna's per-layer head count gives the
    /// head size when `head_dim` is absent), a key set lacking one is not reviewed. Optional;
    /// each must be a layout key.
    pub required_keys: BTreeSet<String>,
    /// The engine's model code for it, pinned at a commit.
    pub source_url: String,
    /// What was reviewed, in one line.
    pub note: String,
}

/// Checks the review members of the policy object (all optional: a policy without one reviews
/// nothing of that kind, so the facts that need it are unknown).
pub(super) fn check(problems: &mut Problems, obj: &Obj<'_>) -> FactsReview {
    let config_defaults = match obj.get("config_defaults") {
        None => Vec::new(),
        Some(v) => check_config_defaults(problems, &obj.at("config_defaults"), v),
    };
    let inert = match obj.get("inert_config_keys") {
        None => Vec::new(),
        Some(v) => names(
            problems,
            &obj.at("inert_config_keys"),
            v,
            is_config_key,
            "key",
        ),
    };
    let inert_at: BTreeMap<String, String> = inert.iter().cloned().collect();
    let cache_layouts = match obj.get("cache_layouts") {
        None => BTreeMap::new(),
        Some(v) => check_cache_layouts(problems, &obj.at("cache_layouts"), v, &inert_at),
    };
    let buffers = match obj.get("buffer_tensor_names") {
        None => Vec::new(),
        Some(v) => names(
            problems,
            &obj.at("buffer_tensor_names"),
            v,
            is_tensor_name,
            "tensor name",
        ),
    };
    for (name, at) in &buffers {
        if let Some(format) = formats::format_naming(name) {
            problems.add(
                at.clone(),
                format!(
                    "{name:?} is a tensor the {format} format names; a buffer name must not be"
                ),
            );
        }
    }
    FactsReview {
        config_defaults,
        cache_layouts,
        inert_config_keys: inert.into_iter().map(|(name, _)| name).collect(),
        buffer_tensor_names: buffers.into_iter().map(|(name, _)| name).collect(),
    }
}

/// True for a `model_type` or a configuration key as the rules name them: `^[a-z][a-z0-9_]*$`.
fn is_config_name(text: &str) -> bool {
    let b = text.as_bytes();
    b.first().is_some_and(u8::is_ascii_lowercase)
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'_')
}

/// True for a key or `model_type` as real configurations spell them (`_name_or_path`,
/// `nemotron-nas`): ASCII letters, digits, `_` and `-`, at most 100 characters.
fn is_config_key(text: &str) -> bool {
    (1..=100).contains(&text.len())
        && text
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
}

/// True for a tensor name or its trailing components: dot-separated non-empty parts of ASCII
/// letters, digits and `_`.
fn is_tensor_name(text: &str) -> bool {
    text.len() <= 200
        && text.split('.').all(|part| {
            !part.is_empty() && part.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
        })
}

/// True for an https URL with a path segment of exactly 40 hex digits: a file at a commit.
fn pins_a_commit(url: &str) -> bool {
    validate::is_https_url(url)
        && url
            .split(['/', '?', '#'])
            .any(|part| part.len() == 40 && part.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// A list of unique names, each passing `valid`: the names with their paths.
fn names(
    problems: &mut Problems,
    path: &str,
    raw: &Raw,
    valid: fn(&str) -> bool,
    what: &str,
) -> Vec<(String, String)> {
    let Some(list) = problems.array(path, raw) else {
        return Vec::new();
    };
    let mut out: Vec<(String, String)> = Vec::new();
    for (i, item) in list.iter().enumerate() {
        let at = index_path(path, i);
        let Some(name) = problems.string(&at, item) else {
            continue;
        };
        if !valid(name) {
            problems.add(at, format!("must be a {what}, got {}", item.describe()));
        } else if let Some((_, first)) = out.iter().find(|(n, _)| n == name) {
            problems.add(at, format!("duplicate {name:?}: already at {first}"));
        } else {
            out.push((name.to_string(), at));
        }
    }
    out
}

/// A required https URL that pins a file at a commit.
fn pinned_url(problems: &mut Problems, entry: &Obj<'_>, what: &str) -> Option<String> {
    let url = entry
        .required(problems, "source_url")
        .and_then(|v| problems.string(&entry.at("source_url"), v))?;
    if pins_a_commit(url) {
        Some(url.to_string())
    } else {
        problems.add(
            entry.at("source_url"),
            format!(
                "must be an https URL of {what} at a commit (a 40-hex path segment), got {url:?}"
            ),
        );
        None
    }
}

/// The `cache_layouts` list: one entry per `model_type`, its layout keys unique and none of
/// them inert, the engine's code pinned, a note.
fn check_cache_layouts(
    problems: &mut Problems,
    path: &str,
    raw: &Raw,
    inert: &BTreeMap<String, String>,
) -> BTreeMap<String, CacheLayout> {
    let Some(list) = problems.array(path, raw) else {
        return BTreeMap::new();
    };
    let mut layouts = BTreeMap::new();
    let mut first_at: BTreeMap<String, String> = BTreeMap::new();
    for (i, item) in list.iter().enumerate() {
        let at = index_path(path, i);
        let members = [
            "model_type",
            "layout_keys",
            "required_keys",
            "source_url",
            "note",
        ];
        let Some(entry) = problems.object(&at, item, &members) else {
            continue;
        };
        let model_type = entry
            .required(problems, "model_type")
            .and_then(|v| problems.string(&entry.at("model_type"), v))
            .and_then(|text| {
                if is_config_key(text) {
                    Some(text.to_string())
                } else {
                    problems.add(
                        entry.at("model_type"),
                        format!("must be a model_type as config.json spells it, got {text:?}"),
                    );
                    None
                }
            });
        let raw_keys = entry.required(problems, "layout_keys");
        if matches!(raw_keys, Some(Raw::Array(list)) if list.is_empty()) {
            problems.add(entry.at("layout_keys"), "must name at least one key");
        }
        let keys =
            raw_keys.map(|v| names(problems, &entry.at("layout_keys"), v, is_config_key, "key"));
        if let Some(keys) = &keys {
            for (key, key_at) in keys {
                if let Some(inert_at) = inert.get(key) {
                    problems.add(
                        key_at.clone(),
                        format!("{key:?} is also inert (at {inert_at}): a key is one or the other"),
                    );
                }
            }
        }
        let required = match entry.get("required_keys") {
            None => Vec::new(),
            Some(v) => names(
                problems,
                &entry.at("required_keys"),
                v,
                is_config_key,
                "key",
            ),
        };
        if let Some(keys) = &keys {
            for (key, key_at) in &required {
                if !keys.iter().any(|(k, _)| k == key) {
                    problems.add(
                        key_at.clone(),
                        format!("{key:?} is not one of this entry's layout_keys"),
                    );
                }
            }
        }
        let source_url = pinned_url(problems, &entry, "the engine's model code");
        let note = entry
            .required(problems, "note")
            .and_then(|v| problems.non_empty_string(&entry.at("note"), v))
            .map(str::to_string);
        if let Some(model_type) = &model_type {
            if let Some(first) = first_at.get(model_type) {
                problems.add(
                    entry.at("model_type"),
                    format!("duplicate model_type {model_type:?}: already at {first}"),
                );
                continue;
            }
            first_at.insert(model_type.clone(), at.clone());
        }
        if let (Some(model_type), Some(keys), Some(source_url), Some(note)) =
            (model_type, keys, source_url, note)
        {
            let layout = CacheLayout {
                model_type: model_type.clone(),
                layout_keys: keys.into_iter().map(|(k, _)| k).collect(),
                required_keys: required.into_iter().map(|(k, _)| k).collect(),
                source_url,
                note,
            };
            layouts.insert(model_type, layout);
        }
    }
    layouts
}
/// The `config_defaults` list: each entry a `model_type`, a key, a non-negative integer value
/// and the pinned reference class; one entry per (`model_type`, key).
fn check_config_defaults(problems: &mut Problems, path: &str, raw: &Raw) -> Vec<ConfigDefault> {
    let Some(list) = problems.array(path, raw) else {
        return Vec::new();
    };
    let mut defaults: Vec<ConfigDefault> = Vec::new();
    let mut first_at: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (i, item) in list.iter().enumerate() {
        let at = index_path(path, i);
        let Some(entry) = problems.object(&at, item, &["model_type", "key", "value", "source_url"])
        else {
            continue;
        };
        let mut name = |member: &str| {
            let text = entry
                .required(problems, member)
                .and_then(|v| problems.string(&entry.at(member), v))?;
            if is_config_name(text) {
                Some(text.to_string())
            } else {
                problems.add(
                    entry.at(member),
                    format!("must be a name of lowercase letters, digits and _, got {text:?}"),
                );
                None
            }
        };
        let model_type = name("model_type");
        let key = name("key");
        let value = entry.required(problems, "value").and_then(|v| match v {
            Raw::Number(n) if n.as_u64().is_some() => n.as_u64(),
            other => {
                problems.add(
                    entry.at("value"),
                    format!("must be a non-negative integer, got {}", other.describe()),
                );
                None
            }
        });
        let source_url = pinned_url(problems, &entry, "the reference class's file");
        if let (Some(model_type), Some(key)) = (&model_type, &key) {
            let pair = (model_type.clone(), key.clone());
            if let Some(first) = first_at.get(&pair) {
                problems.add(
                    entry.at("key"),
                    format!(
                        "duplicate default of {key:?} for {model_type:?}: already at {}",
                        index_path(path, *first)
                    ),
                );
            } else {
                first_at.insert(pair, i);
            }
        }
        if let (Some(model_type), Some(key), Some(value), Some(source_url)) =
            (model_type, key, value, source_url)
        {
            defaults.push(ConfigDefault {
                model_type,
                key,
                value,
                source_url,
            });
        }
    }
    defaults
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::validate_policy;

    const BASE: &str = r#""policy_schema_version":"model-demand.policy.v1","terms_checked_at":"2026-11-23T10:00:00Z","fresh_for_hours":32,"closed_weights":[]"#;
    const VLLM: &str = "https://github.com/vllm-project/vllm/blob/0123456789abcdef0123456789abcdef01234567/vllm/model_executor/models/llama.py";

    fn problems(members: &str) -> Vec<String> {
        let text = format!("{{{BASE},{members}}}");
        let raw =
            crate::input::json::parse(text.as_bytes(), Path::new("policy.json")).expect("JSON");
        match validate_policy(&raw) {
            Ok(_) => Vec::new(),
            Err(ps) => ps.iter().map(|p| p.to_string()).collect(),
        }
    }

    fn paths(problems: &[String]) -> Vec<&str> {
        problems
            .iter()
            .map(|p| p.split(':').next().unwrap_or(""))
            .collect()
    }

    #[test]
    fn a_reviewed_layout_with_its_keys_is_accepted() {
        let text = format!(
            r#"{{{BASE},"cache_layouts":[{{"model_type":"llama","layout_keys":["num_hidden_layers","num_key_value_heads"],
                "source_url":"{VLLM}","note":"full attention on every layer"}}],
                "inert_config_keys":["vocab_size","_name_or_path"],"buffer_tensor_names":["position_ids","rotary_emb.inv_freq"]}}"#
        );
        let raw = crate::input::json::parse(text.as_bytes(), Path::new("p")).expect("JSON");
        let policy = validate_policy(&raw).expect("accepted");
        let layout = &policy.review.cache_layouts["llama"];
        assert!(layout.layout_keys.contains("num_key_value_heads"));
        assert!(policy.review.inert_config_keys.contains("_name_or_path"));
        assert!(policy
            .review
            .buffer_tensor_names
            .contains("rotary_emb.inv_freq"));
    }

    #[test]
    fn every_problem_of_the_review_is_refused_with_its_path() {
        let found = problems(&format!(
            r#""cache_layouts":[
                {{"model_type":"llama","layout_keys":["num_hidden_layers","vocab_size","num_hidden_layers"],"source_url":"{VLLM}","note":"n"}},
                {{"model_type":"llama","layout_keys":["head_dim"],"source_url":"{VLLM}","note":"again"}},
                {{"model_type":"qwen3","layout_keys":["head_dim"],"note":"no source"}},
                {{"model_type":"qwen3_moe","layout_keys":[],"source_url":"https://github.com/vllm-project/vllm/blob/main/x.py","note":""}},
                {{"model_type":"bad type!","layout_keys":["a b"],"source_url":"{VLLM}","note":"n","extra":1}}],
               "inert_config_keys":["vocab_size","rope_theta","rope_theta",7],
               "buffer_tensor_names":["position_ids","weight_scale","qweight","a..b"]"#
        ));
        let at = paths(&found);
        for expected in [
            "$.cache_layouts[0].layout_keys[1]",
            "$.cache_layouts[0].layout_keys[2]",
            "$.cache_layouts[1].model_type",
            "$.cache_layouts[2].source_url",
            "$.cache_layouts[3].layout_keys",
            "$.cache_layouts[3].source_url",
            "$.cache_layouts[3].note",
            "$.cache_layouts[4].model_type",
            "$.cache_layouts[4].layout_keys[0]",
            "$.cache_layouts[4].extra",
            "$.inert_config_keys[2]",
            "$.inert_config_keys[3]",
            "$.buffer_tensor_names[1]",
            "$.buffer_tensor_names[2]",
            "$.buffer_tensor_names[3]",
        ] {
            assert!(at.contains(&expected), "{expected} in {found:#?}");
        }
        assert_eq!(at.len(), 15, "{found:#?}");
        // The messages say what is wrong, naming where the other half is.
        let text = found.join("\n");
        assert!(
            text.contains("\"vocab_size\" is also inert (at $.inert_config_keys[0])"),
            "{text}"
        );
        assert!(
            text.contains("duplicate model_type \"llama\": already at $.cache_layouts[0]"),
            "{text}"
        );
        assert!(
            text.contains("\"weight_scale\" is a tensor the compressed-tensors format names"),
            "{text}"
        );
    }

    #[test]
    fn a_required_key_is_one_of_the_entrys_layout_keys() {
        let accepted = format!(
            r#"{{{BASE},"cache_layouts":[{{"model_type":"laguna","layout_keys":["head_dim","num_hidden_layers"],
                "required_keys":["head_dim"],"source_url":"{VLLM}","note":"n"}}]}}"#
        );
        let raw = crate::input::json::parse(accepted.as_bytes(), Path::new("p")).expect("JSON");
        let policy = validate_policy(&raw).expect("accepted");
        assert!(policy.review.cache_layouts["laguna"]
            .required_keys
            .contains("head_dim"));
        let found = problems(&format!(
            r#""cache_layouts":[{{"model_type":"laguna","layout_keys":["num_hidden_layers"],
                "required_keys":["head_dim","head_dim",3],"source_url":"{VLLM}","note":"n"}}]"#
        ));
        let mut at = paths(&found);
        at.sort_unstable();
        assert_eq!(
            at,
            [
                "$.cache_layouts[0].required_keys[0]",
                "$.cache_layouts[0].required_keys[1]",
                "$.cache_layouts[0].required_keys[2]",
            ],
            "{found:#?}"
        );
        assert!(
            found
                .join("\n")
                .contains("\"head_dim\" is not one of this entry's layout_keys"),
            "{found:#?}"
        );
    }

    #[test]
    fn the_review_members_are_optional_and_typed() {
        assert!(problems(r#""cache_layouts":[]"#).is_empty());
        let found =
            problems(r#""cache_layouts":{},"inert_config_keys":"x","buffer_tensor_names":null"#);
        let mut at = paths(&found);
        at.sort_unstable();
        assert_eq!(
            at,
            [
                "$.buffer_tensor_names",
                "$.cache_layouts",
                "$.inert_config_keys"
            ]
        );
    }
}
