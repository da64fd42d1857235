//! `model-demand facts REPO` through the binary against the local stand-in for Hugging Face
//! (`tests/it/common/standin.rs`) serving repositories around real configurations: the twelve
//! facts as a table and as JSON, `--revision`, `--policy`, `--cache`, `HF_TOKEN`, and a clear
//! error (exit 1) for a repository that does not exist or is gated.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use common::hf::{self, FixtureRepo};
use common::standin::{Reply, StandIn};
use model_demand::input::export::FACTS;
use serde_json::Value;

/// `model-demand facts ARGS` against `standin`, without a token unless `token` is given.
fn facts(standin: &StandIn, args: &[&str], token: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_model-demand"));
    command
        .arg("facts")
        .args(args)
        .args(["--huggingface-url", &standin.base])
        .arg("--policy")
        .arg(common::crate_path("data/policy.json"))
        .env_remove("HF_TOKEN");
    if let Some(token) = token {
        command.env("HF_TOKEN", token);
    }
    command.output().expect("the binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The four repositories of 2026 served on a fresh stand-in.
fn serve_new() -> (StandIn, Vec<FixtureRepo>) {
    let standin = StandIn::start();
    let repos: Vec<FixtureRepo> = hf::CONFIG_REPOS
        .iter()
        .map(|f| hf::config_repo(f))
        .collect();
    for repo in &repos {
        hf::serve(&standin, repo, &[]);
    }
    (standin, repos)
}

#[test]
fn json_gives_the_twelve_facts_with_state_reason_unit_and_source() {
    let (standin, repos) = serve_new();
    for (repo, (folder, architecture, per_token, full, recurrent, t)) in
        repos.iter().zip(hf::SOURCE_FIGURES)
    {
        let output = facts(&standin, &[&repo.id, "--json"], None);
        assert!(output.status.success(), "{folder}: {}", stderr(&output));
        let answer: Value = serde_json::from_slice(&output.stdout).expect("JSON");
        assert_eq!(answer["repository"], repo.id.as_str());
        assert_eq!(answer["commit"], repo.sha.as_str());
        let facts = answer["facts"].as_object().expect("facts");
        let names: Vec<&str> = facts.keys().map(String::as_str).collect();
        let expected_names: Vec<&str> = FACTS.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, expected_names, "twelve facts, in the export's order");
        for spec in &FACTS {
            let fact = &facts[spec.name.as_str()];
            assert_eq!(fact["unit"], spec.unit, "{folder} {}", spec.name);
            let state = fact["state"].as_str().expect("state");
            // A value exactly when available; a reason exactly when not.
            assert_eq!(fact["value"].is_string(), state == "available");
            assert_eq!(fact["reason"].is_string(), state != "available");
            assert_eq!(fact["source_url"].is_string(), state == "available");
        }
        let config_url = format!(
            "https://huggingface.co/{}/blob/{}/config.json",
            repo.id, repo.sha
        );
        for (name, expected) in [
            ("architecture_type", architecture),
            ("attention_bytes_per_token", per_token),
            ("full_sequence_attention_bytes", full),
            ("recurrent_state_bytes", recurrent),
            ("calculation_sequence_length", t),
        ] {
            assert_eq!(facts[name]["value"], expected, "{folder} {name}");
            assert_eq!(facts[name]["source_url"], config_url.as_str());
        }
        // The fixture's stand-in checkpoint: one 8 × 8 BF16 tensor.
        assert_eq!(facts["total_parameters"]["value"], "64");
    }
}

#[test]
fn the_table_is_for_a_person() {
    let (standin, repos) = serve_new();
    let scout = &repos[1];
    let output = facts(&standin, &[&scout.id], None);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.starts_with(&format!("{} at commit {}\n", scout.id, scout.sha)),
        "{text}"
    );
    let row = |name: &str| -> Vec<String> {
        text.lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("a row for {name} in {text}"))
            .split_whitespace()
            .map(str::to_string)
            .collect()
    };
    assert_eq!(
        row("attention_bytes_per_token"),
        [
            "attention_bytes_per_token",
            "49152",
            "bytes_per_token",
            "available",
            "-"
        ]
    );
    assert_eq!(
        row("full_sequence_attention_bytes"),
        [
            "full_sequence_attention_bytes",
            "516604035072",
            "bytes",
            "available",
            "-"
        ]
    );
    // No quantization_config and no quantized children: a reason, not a value.
    assert_eq!(
        row("smallest_quant_format"),
        [
            "smallest_quant_format",
            "-",
            "format",
            "not_found_under_policy",
            "no_official_quantized_checkpoint"
        ]
    );
    assert!(text.contains(&format!(
        "  attention_bytes_per_token: https://huggingface.co/{}/blob/{}/config.json\n",
        scout.id, scout.sha
    )));
    // Same repository, same answer: the output is deterministic.
    assert_eq!(stdout(&facts(&standin, &[&scout.id], None)), text);
}

/// `model-demand facts REPO --json` under the policy file `policy`.
fn facts_json_under(standin: &StandIn, repo: &str, policy: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_model-demand"))
        .args(["facts", repo, "--json", "--huggingface-url", &standin.base])
        .arg("--policy")
        .arg(policy)
        .env_remove("HF_TOKEN")
        .output()
        .expect("runs")
}

#[test]
fn the_policy_given_is_the_one_applied() {
    // Without config_defaults, nothing says which of Llama 4's layers are chunked.
    let (standin, repos) = serve_new();
    let dir = common::tempdir().expect("temp dir");
    let policy = dir.path().join("policy.json");
    std::fs::write(
        &policy,
        r#"{"policy_schema_version":"model-demand.policy.v1","terms_checked_at":"2026-11-23T13:30:00Z",
            "fresh_for_hours":32,"closed_weights":[]}"#,
    )
    .expect("write");
    let output = facts_json_under(&standin, &repos[1].id, &policy);
    assert!(output.status.success(), "{}", stderr(&output));
    let answer: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let fact = &answer["facts"]["attention_bytes_per_token"];
    assert_eq!(fact["state"], "not_found_under_policy");
    // A policy that reviewed no cache layout states no cache fact, and says why.
    assert_eq!(fact["reason"], "attention_layout_not_supported");
    let unreviewed = &answer["kept_unknown"]["unreviewed_configuration"];
    assert_eq!(unreviewed["model_type"], "llama4_text");
    assert_eq!(unreviewed["type_reviewed"], false);

    // The shipped review without its config_defaults: the layout is reviewed, its interval
    // not given.
    let mut shipped: Value = serde_json::from_slice(
        &std::fs::read(common::crate_path("data/policy.json")).expect("read"),
    )
    .expect("JSON");
    shipped
        .as_object_mut()
        .expect("object")
        .remove("config_defaults");
    std::fs::write(&policy, serde_json::to_vec(&shipped).expect("json")).expect("write");
    let output = facts_json_under(&standin, &repos[1].id, &policy);
    let answer: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(
        answer["facts"]["attention_bytes_per_token"]["reason"],
        "config_key_missing"
    );
    assert_eq!(
        answer["kept_unknown"]["unreviewed_configuration"],
        Value::Null
    );

    // A policy named that is not there is an error naming it, never the embedded one.
    let absent = dir.path().join("no-such-policy.json");
    let output = facts_json_under(&standin, &repos[1].id, &absent);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("no-such-policy.json"),
        "{}",
        stderr(&output)
    );

    // A malformed policy is refused with its JSON path, as collect refuses it.
    std::fs::write(
        &policy,
        r#"{"policy_schema_version":"model-demand.policy.v1","terms_checked_at":"2026-11-23T13:30:00Z",
            "fresh_for_hours":32,"closed_weights":[],"config_defaults":[{"model_type":"llama4_text"}]}"#,
    )
    .expect("write");
    let output = Command::new(env!("CARGO_BIN_EXE_model-demand"))
        .args(["facts", &repos[1].id, "--huggingface-url", &standin.base])
        .arg("--policy")
        .arg(&policy)
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("$.config_defaults[0].key"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_revision_pins_that_commit_and_the_token_goes_only_to_hugging_face() {
    let (standin, repos) = serve_new();
    let repo = &repos[0];
    let token = "hf_not_a_real_token_for_tests";
    let short = &repo.sha[..12];
    // Hugging Face resolves an abbreviated commit to the full one.
    standin.route(
        &format!("/api/models/{}/revision/{short}?blobs=true", repo.id),
        vec![Reply::json(repo.info_json())],
    );
    let output = facts(
        &standin,
        &[&repo.id, "--revision", short, "--json"],
        Some(token),
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let answer: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(answer["commit"], repo.sha.as_str());
    assert_eq!(
        answer["facts"]["attention_bytes_per_token"]["value"],
        "78324"
    );
    let log = standin.log();
    assert!(log
        .iter()
        .any(|r| r.target == format!("/api/models/{}/revision/{short}?blobs=true", repo.id)));
    for request in &log {
        assert_eq!(
            request.authorization.as_deref(),
            Some(format!("Bearer {token}").as_str()),
            "{}",
            request.target
        );
    }
    assert!(!stdout(&output).contains(token) && !stderr(&output).contains(token));

    // A revision that is not a commit SHA is refused before any request.
    standin.clear_log();
    let output = facts(&standin, &[&repo.id, "--revision", "main"], None);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("--revision"),
        "{}",
        stderr(&output)
    );
    assert!(standin.log().is_empty());
}

#[test]
fn the_cache_of_collect_serves_a_second_look() {
    let (standin, repos) = serve_new();
    let dir = common::tempdir().expect("temp dir");
    let cache = dir.path().join("cache");
    let cache_arg = cache.to_str().expect("utf-8 path");
    let first = facts(&standin, &[&repos[2].id, "--cache", cache_arg], None);
    assert!(first.status.success(), "{}", stderr(&first));
    standin.clear_log();
    let second = facts(&standin, &[&repos[2].id, "--cache", cache_arg], None);
    assert_eq!(stdout(&second), stdout(&first));
    let files: Vec<String> = standin
        .log()
        .iter()
        .filter(|r| r.target.contains("/resolve/"))
        .map(|r| r.target.clone())
        .collect();
    assert!(files.is_empty(), "{files:?}");
    assert!(Path::new(&cache).is_dir());
}

#[test]
fn a_repository_that_does_not_exist_or_is_gated_is_a_clear_error() {
    let (standin, repos) = serve_new();
    standin.route(
        "/api/models/nobody/nothing?blobs=true",
        vec![Reply::error(404)],
    );
    let output = facts(&standin, &["nobody/nothing"], None);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).is_empty());
    assert!(
        stderr(&output).contains("nobody/nothing does not exist on Hugging Face"),
        "{}",
        stderr(&output)
    );

    // Hugging Face answers 401 for a repository it will not name to an anonymous caller.
    standin.route(
        "/api/models/nobody/private?blobs=true",
        vec![Reply::error(401)],
    );
    let output = facts(&standin, &["nobody/private"], None);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("gated or private"),
        "{}",
        stderr(&output)
    );

    // A gated repository: its info is public, its files answer 403 without accepted terms.
    let gated = &repos[3];
    standin.route(
        &format!("/{}/resolve/{}/config.json", gated.id, gated.sha),
        vec![Reply::error(403)],
    );
    let output = facts(&standin, &[&gated.id, "--json"], None);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).is_empty());
    let message = stderr(&output);
    assert!(message.contains(&gated.id), "{message}");
    assert!(message.contains("gated"), "{message}");
    assert!(message.contains("HF_TOKEN"), "{message}");

    // Not a repository name at all.
    let output = facts(&standin, &["../etc/passwd"], None);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("owner/name"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn what_the_rules_did_not_recognise_is_named() {
    // Llama 3.1 8B's configuration with a layout key nobody reviewed (a DeciLM-style
    // block_configs), and a checkpoint with an integer tensor no format names.
    let standin = StandIn::start();
    let mut repo = hf::config_repo("meta-llama__Meta-Llama-3.1-8B");
    let mut config: Value = serde_json::from_slice(&repo.files["config.json"]).expect("config");
    config["block_configs"] = serde_json::json!([{"attention": {"no_op": true}}]);
    let config = serde_json::to_vec(&config).expect("json");
    repo.sizes.insert("config.json".into(), config.len() as u64);
    repo.files.insert("config.json".into(), config);
    let tensor = |name: &str, dtype: &str, shape: &[u64]| {
        (name.to_string(), dtype.to_string(), shape.to_vec())
    };
    hf::with_checkpoint(
        &mut repo,
        &[
            tensor("model.embed_tokens.weight", "BF16", &[8, 8]),
            tensor("model.layers.0.mlp.up_proj.weight_packed", "I32", &[8, 1]),
        ],
    );
    // A same-author quantized child of a method the rules do not know: the smallest
    // quantization is unknown, and the child is named.
    let mut child = hf::config_repo("meta-llama__Meta-Llama-3.1-8B");
    child.id = "meta-llama/Llama-3.1-8B-HQQ".to_string();
    let mut config: Value = serde_json::from_slice(&child.files["config.json"]).expect("config");
    config["quantization_config"] = serde_json::json!({"quant_method": "hqq", "nbits": 4});
    let config = serde_json::to_vec(&config).expect("json");
    child
        .sizes
        .insert("config.json".into(), config.len() as u64);
    child.files.insert("config.json".into(), config);
    hf::serve(&standin, &child, &[]);
    hf::serve(&standin, &repo, &[&child.id]);
    let output = facts(&standin, &[&repo.id], None);
    assert!(output.status.success(), "{}", stderr(&output));
    let table = stdout(&output);
    for line in [
        "kept unknown, as the rules did not recognise:",
        "smallest quantization: meta-llama/Llama-3.1-8B-HQQ: not recognised: the checkpoint's quantization_config declares hqq",
        "cache facts: model_type `llama` carries keys neither its layout keys nor inert: `block_configs`",
        "size facts: tensor \"model.layers.0.mlp.up_proj.weight_packed\" (I32) is not a parameter, buffer or auxiliary tensor of the format plain (no quantization_config)",
    ] {
        assert!(table.contains(line), "{line} in\n{table}");
    }
    for fact in [
        "attention_bytes_per_token",
        "full_sequence_attention_bytes",
        "recurrent_state_bytes",
    ] {
        let row = table.lines().find(|l| l.starts_with(fact)).expect("row");
        assert!(row.contains("attention_layout_not_supported"), "{row}");
    }
    let row = table
        .lines()
        .find(|l| l.starts_with("total_parameters"))
        .expect("row");
    assert!(row.contains("size_calculation_failed"), "{row}");
    let row = table
        .lines()
        .find(|l| l.starts_with("smallest_quant_format"))
        .expect("row");
    assert!(row.contains("quantized_format_not_supported"), "{row}");
}

#[test]
fn each_key_not_reviewed_is_printed_with_its_value_cut_when_long() {
    // A review starts from the evidence: the keys that kept the cache facts unknown, each
    // with its value as config.json writes it; a long value (a per-layer list) is cut with its
    // whole length said.
    let standin = StandIn::start();
    let mut repo = hf::config_repo("meta-llama__Meta-Llama-3.1-8B");
    let mut config: Value = serde_json::from_slice(&repo.files["config.json"]).expect("config");
    let blocks: Vec<Value> = (0..32)
        .map(|i| serde_json::json!({"attention": {"no_op": i % 2 == 0}}))
        .collect();
    config["block_configs"] = Value::Array(blocks.clone());
    config["zz_window"] = serde_json::json!(4096);
    let config = serde_json::to_vec(&config).expect("json");
    repo.sizes.insert("config.json".into(), config.len() as u64);
    repo.files.insert("config.json".into(), config);
    hf::serve(&standin, &repo, &[]);

    let output = facts(&standin, &[&repo.id], None);
    assert!(output.status.success(), "{}", stderr(&output));
    let table = stdout(&output);
    let whole = Value::Array(blocks).to_string();
    let cut: String = whole.chars().take(160).collect();
    for line in [
        "cache facts: model_type `llama` carries keys neither its layout keys nor inert: `block_configs`, `zz_window`".to_string(),
        format!("    block_configs = {cut}… ({} characters)", whole.chars().count()),
        "    zz_window = 4096".to_string(),
    ] {
        assert!(table.contains(&line), "{line} in\n{table}");
    }

    let output = facts(&standin, &[&repo.id, "--json"], None);
    let answer: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let values = &answer["kept_unknown"]["unreviewed_configuration"]["values"];
    assert_eq!(values["zz_window"], "4096");
    assert_eq!(
        values["block_configs"],
        format!("{cut}… ({} characters)", whole.chars().count())
    );
}
