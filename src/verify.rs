//! `verify`: checks a built site before it is deployed. The tree must match its manifest
//! (every file present, sizes and SHA-256 equal, nothing extra), the CDN rules must be the ones
//! the code derives, and the flat tables and requests answered from the files must equal what
//! this program makes again from the site's own `/api/export` and `/api/supply`: a sample of
//! the answers on a `full` site, every list answer on an `edge` site (its pages exist only as
//! assembled parts). That is a consistency check of the site with its own feeds, by the same
//! code that built it: it finds damage and drift, not a derivation that is wrong in both places
//! (the tests' independent oracle, `tests/oracle/oracle.py`, is what checks the derivation).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use time::Duration;
use walkdir::WalkDir;

use crate::answers::render::Api;
use crate::base::error::{Error, Result};
use crate::preview::Site;
use crate::query::{percent_encode, Order, SortKey, LIMIT_MAX, LIMIT_MIN, OFFSET_MAX};
use crate::site::manifest::{BuiltFrom, Manifest, MANIFEST};
use crate::site::netlify;
use crate::site::sha256_hex;

/// What a successful verification covered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyReport {
    /// Files checked against the manifest.
    pub files: usize,
    /// Requests answered from the files and compared with the answers recomputed from the
    /// site's own feeds.
    pub requests: usize,
    /// True for an `edge` site, whose every list answer was compared (a sample otherwise).
    pub every_list_answer: bool,
}

/// What `verify` is asked besides the site itself.
#[derive(Debug, Clone, Default)]
pub struct VerifyOptions {
    /// An export the site must have been built from (its manifest's record says).
    pub export: Option<PathBuf>,
    /// A supply feed the site must have been built from.
    pub supply: Option<PathBuf>,
    /// Say on stderr, every 2 s, how far the check is (the binary asks it on a terminal only).
    pub progress: bool,
}

/// Verifies the site in `dir`; every difference is reported, not only the first.
pub fn verify(dir: &Path) -> Result<VerifyReport> {
    verify_with(dir, &VerifyOptions::default())
}

/// [`verify`], and that the site was built from the inputs `options` names, with progress
/// when asked.
pub fn verify_with(dir: &Path, options: &VerifyOptions) -> Result<VerifyReport> {
    let mut differences = Vec::new();
    let (manifest, _) = Manifest::read(dir)?;
    check_inputs(manifest.built_from.as_ref(), options, &mut differences)?;
    let progress = Progress {
        files: AtomicU64::new(0),
        of: manifest.files.len() as u64,
        answers: AtomicU64::new(0),
        answers_of: AtomicU64::new(0),
    };
    let (files, requests, every_list_answer) =
        progress.shown(options.progress, || -> Result<_> {
            let files = check_tree(dir, &manifest, &progress, &mut differences);
            let site = Site::open(dir)?;
            let requests = if site.routes().has_data {
                check_answers(dir, &site, &progress, &mut differences)?
            } else {
                check_unavailable(&site, &mut differences)
            };
            Ok((files, requests, site.routes().edge.is_some()))
        })?;
    if differences.is_empty() {
        Ok(VerifyReport {
            files,
            requests,
            every_list_answer,
        })
    } else {
        Err(Error::Verify(differences))
    }
}

/// How far a verification is, for its progress lines.
struct Progress {
    /// Files read and compared with the manifest.
    files: AtomicU64,
    /// Files the manifest lists.
    of: u64,
    /// Answers compared with the ones recomputed from the site's feeds.
    answers: AtomicU64,
    /// Answers to compare, once known (0 before).
    answers_of: AtomicU64,
}

impl Progress {
    /// Runs `work`, printing [`Progress::line`] on stderr every 2 s meanwhile when `enabled`.
    fn shown<T>(&self, enabled: bool, work: impl FnOnce() -> T) -> T {
        if !enabled {
            return work();
        }
        let started = Instant::now();
        let done = AtomicBool::new(false);
        std::thread::scope(|scope| {
            scope.spawn(|| {
                let mut last = Instant::now();
                while !done.load(Ordering::Relaxed) {
                    std::thread::sleep(std::time::Duration::from_millis(100));
                    if last.elapsed() >= std::time::Duration::from_secs(2) {
                        last = Instant::now();
                        eprintln!("{}", self.line(started.elapsed().as_secs()));
                    }
                }
            });
            let result = work();
            done.store(true, Ordering::Relaxed);
            result
        })
    }

    /// `  ... 12000 of 68471 files checked, 0 answers compared (4 s)`; once the answers to
    /// compare are known, `… 20739 of 70916 answers compared (…)`.
    fn line(&self, seconds: u64) -> String {
        let answers = match self.answers_of.load(Ordering::Relaxed) {
            0 => self.answers.load(Ordering::Relaxed).to_string(),
            of => format!("{} of {of}", self.answers.load(Ordering::Relaxed)),
        };
        format!(
            "  ... {} of {} files checked, {answers} answers compared ({seconds} s)",
            self.files.load(Ordering::Relaxed),
            self.of,
        )
    }
}

/// When `options` names inputs, a difference for each the site's record says it was not built
/// from (or for a site that records nothing).
fn check_inputs(
    record: Option<&BuiltFrom>,
    options: &VerifyOptions,
    differences: &mut Vec<String>,
) -> Result<()> {
    let given = [
        (
            "export",
            options.export.as_ref(),
            record.and_then(|r| r.export_sha256.as_ref()),
        ),
        (
            "supply feed",
            options.supply.as_ref(),
            record.and_then(|r| r.supply_sha256.as_ref()),
        ),
    ];
    for (what, path, recorded) in given {
        let Some(path) = path else { continue };
        if record.is_none() {
            differences.push(format!(
                "inputs: the manifest records no inputs (the site was built before they were \
                 recorded), so it cannot tell whether the site was built from {}",
                path.display()
            ));
            continue;
        }
        let bytes = std::fs::read(path).map_err(|e| Error::io("cannot read", path, e))?;
        let sha = sha256_hex(&bytes);
        if recorded != Some(&sha) {
            differences.push(format!(
                "inputs: the site was not built from {} (the {what} it records has SHA-256 {}, \
                 this file's is {sha})",
                path.display(),
                recorded.map_or("none", String::as_str)
            ));
        }
    }
    Ok(())
}

fn check_tree(
    dir: &Path,
    manifest: &Manifest,
    progress: &Progress,
    differences: &mut Vec<String>,
) -> usize {
    let listed: BTreeMap<&str, (u64, &str)> = manifest
        .files
        .iter()
        .map(|e| (e.path.as_str(), (e.bytes, e.sha256.as_str())))
        .collect();
    let mut seen = 0;
    for entry in WalkDir::new(dir).sort_by_file_name() {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                differences.push(format!("cannot walk the site: {e}"));
                continue;
            }
        };
        if !entry.file_type().is_file() {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(dir) else {
            continue;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        if rel == MANIFEST {
            continue;
        }
        let Some((bytes, sha)) = listed.get(rel.as_str()) else {
            differences.push(format!("{rel}: not in the manifest"));
            continue;
        };
        seen += 1;
        progress.files.fetch_add(1, Ordering::Relaxed);
        match std::fs::read(entry.path()) {
            Ok(content) if content.len() as u64 != *bytes => differences.push(format!(
                "{rel}: {} bytes, manifest says {bytes}",
                content.len()
            )),
            Ok(content) if sha256_hex(&content) != *sha => {
                differences.push(format!("{rel}: SHA-256 differs from the manifest"))
            }
            Ok(_) => {}
            Err(e) => differences.push(format!("{rel}: cannot read ({e})")),
        }
    }
    if seen < listed.len() {
        for path in listed.keys() {
            if !dir.join(path).is_file() {
                differences.push(format!("{path}: listed in the manifest but missing"));
            }
        }
    }
    seen
}

/// A `now` that reproduces the freshness the site published.
fn now_matching(
    export: &crate::input::export::Export,
    published_state: &str,
) -> time::OffsetDateTime {
    match (&export.fresh_until, published_state) {
        (Some(deadline), "fresh") => deadline.instant(),
        (Some(deadline), _) => deadline.instant() + Duration::seconds(1),
        (None, _) => export.generated_at.instant(),
    }
}

fn check_answers(
    dir: &Path,
    site: &Site,
    progress: &Progress,
    differences: &mut Vec<String>,
) -> Result<usize> {
    let supply_path = dir.join(crate::site::netlify::SUPPLY_FILE);
    let supply_is_feed = std::fs::read(&supply_path)
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .is_some_and(|v| v.get("supply_schema_version").is_some());
    let inputs = crate::input::load(
        &dir.join(crate::site::netlify::EXPORT_FILE),
        supply_is_feed.then_some(supply_path.as_path()),
    )?;
    // Freshness was judged at build time; read it back from any answer that is still intact.
    let candidates = std::iter::once("/api/v1/models".to_string()).chain(
        site.routes()
            .models
            .keys()
            .map(|id| format!("/api/v1/models?model_id={}", percent_encode(id))),
    );
    let published: serde_json::Value = candidates
        .filter_map(|target| {
            site.read_body(&site.resolve("GET", &target, None).body)
                .ok()
        })
        .find_map(|body| serde_json::from_slice(&body).ok())
        .unwrap_or_default();
    let state = published["freshness"]["state"].as_str().unwrap_or("stale");
    let catalog = inputs.served_models(now_matching(&inputs.export, state));
    let api = Api::new(&catalog);
    let ids: Vec<String> = catalog.records.iter().map(|r| r.model_id.clone()).collect();

    let edge_layout = site.routes().edge.is_some();
    let expected_redirects = if edge_layout {
        netlify::edge_redirects_file(&ids, &site.routes().redirects)
    } else {
        netlify::redirects_file(&ids, &site.routes().redirects)
    };
    compare_file(
        dir,
        "_redirects",
        expected_redirects.as_bytes(),
        differences,
    );
    compare_file(
        dir,
        "_headers",
        netlify::headers_file(true).as_bytes(),
        differences,
    );
    // The tables, made again from the site's own feeds by the code that wrote them.
    for (path, bytes) in crate::answers::tables::files(&inputs, &catalog) {
        match std::fs::read(dir.join(&path)) {
            Ok(actual) if actual == bytes => {}
            Ok(_) => differences.push(format!(
                "{path}: differs from the table made again from the site's own feeds"
            )),
            Err(e) => differences.push(format!("{path}: cannot read ({e})")),
        }
    }
    // The charts, drawn again from the same feeds.
    for (path, bytes) in crate::answers::charts::files(&inputs.export, &catalog) {
        match std::fs::read(dir.join(&path)) {
            Ok(actual) if actual == bytes => {}
            Ok(_) => differences.push(format!(
                "{path}: differs from the chart drawn again from the site's own feeds"
            )),
            Err(e) => differences.push(format!("{path}: cannot read ({e})")),
        }
    }

    let n = ids.len() as u64;
    let mut queries = vec![
        String::new(),
        "limit=2&limit=2".to_string(),
        "sort=bogus".to_string(),
        "model_id=no%2Fsuch-model".to_string(),
    ];
    // A `full` site's pages are files the manifest checks: a sample of them is compared. An
    // `edge` site's pages exist only as the assembly of its parts: every one is compared.
    let limits: Vec<u64> = if edge_layout {
        (LIMIT_MIN..=LIMIT_MAX).collect()
    } else {
        vec![1, 2, 25, 100]
    };
    for sort in SortKey::ALL {
        for order in Order::ALL {
            for &limit in &limits {
                let offsets: Vec<u64> = if edge_layout {
                    (0..=n + 1).chain([OFFSET_MAX]).collect()
                } else {
                    vec![0, 1, n / 2, n.saturating_sub(1), n, n + 1, OFFSET_MAX]
                };
                for offset in offsets {
                    queries.push(format!(
                        "sort={}&order={}&limit={limit}&offset={offset}",
                        sort.as_str(),
                        order.as_str()
                    ));
                }
            }
        }
    }
    for id in &ids {
        queries.push(format!("model_id={}", percent_encode(id)));
        queries.push(format!("model_id={id}"));
    }
    progress
        .answers_of
        .store(queries.len() as u64, Ordering::Relaxed);
    for q in &queries {
        progress.answers.fetch_add(1, Ordering::Relaxed);
        let expected = api.answer(q);
        let answer = site.resolve("GET", &format!("/api/v1/models?{q}"), None);
        let body = site.read_body(&answer.body).unwrap_or_default();
        if answer.status != expected.status {
            differences.push(format!(
                "?{q}: status {} where the site's own feeds give {}",
                answer.status, expected.status
            ));
        } else if body != expected.body {
            differences.push(format!(
                "?{q}: body differs from the answer recomputed from the site's own feeds"
            ));
        }
    }
    Ok(queries.len())
}

fn compare_file(dir: &Path, rel: &str, expected: &[u8], differences: &mut Vec<String>) {
    match std::fs::read(dir.join(rel)) {
        Ok(actual) if actual == expected => {}
        Ok(_) => differences.push(format!("{rel}: differs from the rules the code derives")),
        Err(e) => differences.push(format!("{rel}: cannot read ({e})")),
    }
}

fn check_unavailable(site: &Site, differences: &mut Vec<String>) -> usize {
    let targets = [
        "/api/v1/models",
        "/api/v1/models?limit=1",
        "/api/export",
        "/api/supply",
        crate::answers::tables::DATAPACKAGE_PATH,
        crate::answers::tables::CSV_PATHS[0],
        crate::answers::tables::CSV_PATHS[1],
        crate::answers::tables::CSV_PATHS[2],
        crate::answers::tables::CSV_PATHS[3],
        crate::answers::tables::PARQUET_PATHS[0],
        crate::answers::tables::PARQUET_PATHS[1],
        crate::answers::tables::PARQUET_PATHS[2],
        crate::answers::tables::PARQUET_PATHS[3],
        crate::answers::addresses::CHART_PATHS[0],
        crate::answers::addresses::CHART_PATHS[1],
    ];
    for target in targets {
        let status = site.resolve("GET", target, None).status;
        if status != 503 {
            differences.push(format!(
                "{target}: status {status} where a site without data says 503"
            ));
        }
    }
    for target in ["/api/v1/about", "/api/openapi.json"] {
        let status = site.resolve("GET", target, None).status;
        if status != 200 {
            differences.push(format!(
                "{target}: status {status} where the contract must be served"
            ));
        }
    }
    targets.len() + 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_progress_line_says_how_far_the_check_is() {
        let progress = Progress {
            files: AtomicU64::new(12_000),
            of: 68_471,
            answers: AtomicU64::new(0),
            answers_of: AtomicU64::new(0),
        };
        assert_eq!(
            progress.line(4),
            "  ... 12000 of 68471 files checked, 0 answers compared (4 s)"
        );
        progress.answers.store(20_739, Ordering::Relaxed);
        progress.answers_of.store(70_916, Ordering::Relaxed);
        assert_eq!(
            progress.line(6),
            "  ... 12000 of 68471 files checked, 20739 of 70916 answers compared (6 s)"
        );
        // Without progress asked, the work runs and nothing is printed.
        assert_eq!(progress.shown(false, || 7), 7);
    }
}
