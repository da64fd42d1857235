//! Coverage of the cache facts, measured (issue 47): over the models of OpenRouter's 2026
//! rankings with open weights that public captures establish (`benches/coverage_population.json`)
//! and every real configuration the project holds (`tests/fixtures/huggingface/*/`), for each
//! model its family, whether the engine's figure exists (the folder's `expected.json`, computed
//! from the engine's code by an `engine_figures_*.py` script), whether the project states its
//! cache facts (the crate's `config_cache_facts` under the shipped `data/policy.json`) and
//! whether they are right. Prints the coverage by count and by the tokens of the population's
//! day, and fails on any wrong figure.
//!
//! It reads the fixtures and the policy, never a list of what is stated: a rule or a fixture
//! that lands changes the figures by itself.
//!
//! Run: `cargo bench --bench coverage`.

use model_demand::base::decimal::grouped;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use model_demand::collect::cache_facts::{config_cache_facts, CacheFacts, Review};
use serde_json::Value;

/// What is known of one model.
struct Model {
    /// The repository (or the fixture folder's repository).
    name: String,
    family: String,
    /// The fixture folder that stands for it, when there is one.
    fixture: Option<String>,
    /// The engine's figures (bytes per token, full sequence, recurrent, T), when established.
    engine: Option<[String; 4]>,
    /// The engine's figures rest on a reconstructed configuration, not a verbatim one.
    reconstructed: bool,
    /// The project's cache facts, when a configuration is held.
    stated: Option<CacheFacts>,
    /// Tokens on the population's day (a partial capture: the head of the day).
    tokens: Option<u128>,
}

impl Model {
    fn is_stated(&self) -> bool {
        self.stated.as_ref().is_some_and(CacheFacts::stated)
    }

    /// Stated and equal to the engine's four figures.
    fn is_right(&self) -> bool {
        match (&self.stated, &self.engine) {
            (Some(s), Some(e)) if s.stated() => [
                &s.attention_bytes_per_token,
                &s.full_sequence_attention_bytes,
                &s.recurrent_state_bytes,
                &s.calculation_sequence_length,
            ]
            .iter()
            .zip(e)
            .all(|(got, want)| got.as_deref().ok() == Some(want.as_str())),
            _ => false,
        }
    }

    fn is_wrong(&self) -> bool {
        self.is_stated() && !self.is_right()
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn read_json(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A fixture folder as a model: its repository, family, the engine's figures and the
/// project's facts.
fn from_fixture(folder: &str, review: &Review) -> Option<Model> {
    let dir = root().join("tests/fixtures/huggingface").join(folder);
    let expected_path = dir.join("expected.json");
    if !expected_path.is_file() {
        return None;
    }
    let expected = read_json(&expected_path);
    let reconstructed = expected["evidence"] == "reconstructed";
    let config = dir.join(if reconstructed {
        "config.reconstructed.json"
    } else {
        "config.json"
    });
    let bytes = std::fs::read(&config).ok()?;
    let figure = |name: &str| {
        expected["engine_figures"][name]
            .as_str()
            .map(str::to_string)
    };
    let engine = match (
        expected["established"] == true,
        figure("attention_bytes_per_token"),
        figure("full_sequence_attention_bytes"),
        figure("recurrent_state_bytes"),
        figure("calculation_sequence_length"),
    ) {
        (true, Some(a), Some(b), Some(c), Some(d)) => Some([a, b, c, d]),
        _ => None,
    };
    let stated = config_cache_facts(&bytes, review).unwrap_or_else(|why| panic!("{folder}: {why}"));
    Some(Model {
        name: expected["repository"]
            .as_str()
            .unwrap_or(folder)
            .to_string(),
        family: expected["model_type"].as_str().unwrap_or("?").to_string(),
        fixture: Some(folder.to_string()),
        engine,
        reconstructed,
        stated: Some(stated),
        tokens: None,
    })
}

fn thousands(n: u128) -> String {
    grouped(&n.to_string())
}

fn percent(part: u128, whole: u128) -> String {
    if whole == 0 {
        "-".to_string()
    } else {
        format!("{:.1} %", part as f64 * 100.0 / whole as f64)
    }
}

fn main() -> ExitCode {
    let review = Review::load(&root().join("data/policy.json")).expect("data/policy.json");
    let population = read_json(&root().join("benches/coverage_population.json"));
    let day = population["source_day"].as_str().unwrap_or("?").to_string();
    let folders: BTreeSet<String> = std::fs::read_dir(root().join("tests/fixtures/huggingface"))
        .expect("fixtures")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("expected.json").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();

    let mut models: Vec<Model> = Vec::new();
    let mut used: BTreeSet<String> = BTreeSet::new();
    let mut closed = Vec::new();
    for row in population["models"].as_array().expect("models") {
        let id = row["openrouter_id"].as_str().unwrap_or("?");
        let Some(repo) = row["hf_repo"].as_str() else {
            closed.push(id.to_string());
            continue;
        };
        let folder = row["fixture"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| repo.replace('/', "__"));
        let tokens = row["tokens_on_day"].as_u64().map(u128::from);
        let mut model = match folders.contains(&folder) {
            true => {
                used.insert(folder.clone());
                from_fixture(&folder, &review).expect("a fixture with expected.json")
            }
            false => Model {
                name: repo.to_string(),
                family: row["model_type"].as_str().unwrap_or("?").to_string(),
                fixture: None,
                engine: None,
                reconstructed: false,
                stated: None,
                tokens: None,
            },
        };
        model.name = format!("{repo} ({id})");
        model.tokens = tokens;
        models.push(model);
    }
    for folder in folders.difference(&used) {
        if let Some(model) = from_fixture(folder, &review) {
            models.push(model);
        }
    }

    println!("coverage of the cache facts under data/policy.json (benches/coverage.rs)\n");
    println!(
        "{:<72} {:<18} {:>7} {:>7} {:>6} {:>18}",
        "model",
        "family",
        "engine",
        "stated",
        "right",
        format!("tokens {day}")
    );
    for m in &models {
        let engine = match (&m.engine, m.reconstructed, &m.fixture) {
            (Some(_), false, _) => "yes",
            (Some(_), true, _) => "recon.",
            (None, _, Some(_)) => "no",
            (None, _, None) => "no cfg",
        };
        println!(
            "{:<72} {:<18} {:>7} {:>7} {:>6} {:>18}",
            m.name,
            m.family,
            engine,
            if m.is_stated() { "yes" } else { "no" },
            if m.is_right() {
                "yes"
            } else if m.is_wrong() {
                "WRONG"
            } else {
                "-"
            },
            m.tokens.map_or(String::new(), thousands)
        );
    }

    // The denominators: models whose engine figure exists on a verbatim configuration.
    let verbatim: Vec<&Model> = models
        .iter()
        .filter(|m| m.engine.is_some() && !m.reconstructed)
        .collect();
    let right = verbatim.iter().filter(|m| m.is_right()).count();
    let wrong: Vec<&Model> = models.iter().filter(|m| m.is_wrong()).collect();
    let tokens =
        |set: &mut dyn Iterator<Item = &&Model>| -> u128 { set.filter_map(|m| m.tokens).sum() };
    let with_figure_tokens = tokens(&mut verbatim.iter());
    let right_tokens = tokens(&mut verbatim.iter().filter(|m| m.is_right()));
    let ranked: Vec<&Model> = models.iter().filter(|m| m.tokens.is_some()).collect();
    let day_tokens = tokens(&mut ranked.iter());
    let stated_day_tokens = tokens(&mut ranked.iter().filter(|m| m.is_right()));
    let mut by_family: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for m in &verbatim {
        let e = by_family.entry(m.family.as_str()).or_default();
        e.0 += 1;
        e.1 += usize::from(m.is_right());
    }
    let recon: Vec<&Model> = models.iter().filter(|m| m.reconstructed).collect();
    let no_config: Vec<&Model> = models.iter().filter(|m| m.fixture.is_none()).collect();

    println!();
    println!(
        "models whose engine figure exists (verbatim config.json + expected.json): {}",
        verbatim.len()
    );
    println!(
        "  stated and right: {right} of {} ({}); wrong: {}",
        verbatim.len(),
        percent(right as u128, verbatim.len() as u128),
        wrong.len()
    );
    println!(
        "  by the tokens of {day} (the ranked ones among them): {} of {} ({})",
        thousands(right_tokens),
        thousands(with_figure_tokens),
        percent(right_tokens, with_figure_tokens)
    );
    println!(
        "all ranked open-weight models with tokens on {day} ({} models, {} tokens, a partial capture): stated for {} ({})",
        ranked.len(),
        thousands(day_tokens),
        thousands(stated_day_tokens),
        percent(stated_day_tokens, day_tokens)
    );
    println!(
        "  of which no configuration is held here: {}",
        no_config
            .iter()
            .filter(|m| m.tokens.is_some())
            .map(|m| format!("{} [{}]", m.name, m.family))
            .collect::<Vec<_>>()
            .join("; ")
    );
    println!(
        "reconstructed configurations (not counted above): {}",
        recon
            .iter()
            .map(|m| format!(
                "{} [{}] stated {}",
                m.name,
                m.family,
                if m.is_right() {
                    "and right"
                } else if m.is_stated() {
                    "WRONG"
                } else {
                    "no"
                }
            ))
            .collect::<Vec<_>>()
            .join("; ")
    );
    println!(
        "ranked, open weights not established (outside): {}",
        closed.join(", ")
    );
    println!("\nby family (verbatim, engine figure exists): stated / held");
    for (family, (held, stated)) in &by_family {
        println!("  {family:<20} {stated} / {held}");
    }
    if wrong.is_empty() {
        ExitCode::SUCCESS
    } else {
        for m in wrong {
            eprintln!(
                "WRONG: {} states {:?}, the engine {:?}",
                m.name, m.stated, m.engine
            );
        }
        ExitCode::FAILURE
    }
}
