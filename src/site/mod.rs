//! The output tree: every answer the API allows written as files, plus the CDN rules, the
//! routing table and a manifest; written into a staging sibling and swapped in only when
//! complete, so a failed build never touches the published site.

pub(crate) mod cache;
pub mod edge;
pub mod leftovers;
pub mod manifest;
pub mod netlify;
pub(crate) mod ownership;
pub mod range;
pub(crate) mod router;

pub use router::{Answer, Body, Conditions, Site};

use std::collections::BTreeMap;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::Serialize;

use crate::answers::render::{error_body, to_json, ErrorCode, Rendered};
pub use crate::base::digest::sha256_hex;
use crate::base::error::{Error, Result};
use crate::query::{self, list_file, model_file, ListQuery, Order, RouteTable, SortKey};
use crate::records::ServedModels;
use crate::site::edge::{EdgeParts, Layout};
use crate::site::leftovers::Mark;
use crate::site::manifest::{BuiltFrom, ManifestEntry, ManifestWriter, MANIFEST};
use crate::site::netlify::error_file;
pub use crate::site::ownership::{check_replaceable, Replaceable};
use crate::{answers::contract, input::Inputs};

pub use crate::answers::addresses::DEFAULT_BASE_URL;
/// Site-relative path of the routing table.
pub const ROUTES: &str = "_api/routes.json";
use crate::answers::addresses::DOCS_PAGE;
/// Netlify's limit on files in one directory.
pub const MAX_FILES_PER_DIR: usize = 54_000;

/// What a build publishes.
pub enum SiteData<'a> {
    /// An accepted export, its catalog, and the inputs' bytes for the feeds.
    Data {
        /// The accepted inputs.
        inputs: &'a Inputs,
        /// Their catalog.
        catalog: &'a ServedModels,
    },
    /// No accepted export: contract only, 503 elsewhere.
    Unavailable,
}

/// Where and how a site is written.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// The output directory, replaced as a whole.
    pub out: PathBuf,
    /// The public base address used in links.
    pub base_url: String,
    /// A separate documentation host the contract links to, instead of the site's `/docs/`.
    pub docs_url: Option<String>,
    /// Print progress on stderr when the build runs long.
    pub progress: bool,
    /// How list answers are kept: every page a file, or parts the edge assembles.
    pub layout: Layout,
    /// The command writing the site, recorded in the manifest's `built_from`: `build`, or
    /// `serve` for the preview's own site (the one `serve` may rebuild when its inputs change).
    pub written_by: &'static str,
    /// Testing aid: fail with an I/O error after this many files, to prove a failed build
    /// leaves the previous site untouched.
    #[doc(hidden)]
    pub fail_after_files: Option<u64>,
}

impl BuildOptions {
    /// Options writing to `out` with the default base URL.
    pub fn new(out: impl Into<PathBuf>) -> BuildOptions {
        BuildOptions {
            out: out.into(),
            base_url: DEFAULT_BASE_URL.to_string(),
            docs_url: None,
            progress: false,
            layout: Layout::Full,
            written_by: "build",
            fail_after_files: None,
        }
    }
}

/// What a finished build reports.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildReport {
    /// Files written, manifest included.
    pub files: u64,
    /// Bytes written, manifest included.
    pub bytes: u64,
    /// Models served (0 without data).
    pub models: usize,
    /// Wall time.
    pub elapsed: Duration,
}

impl BuildReport {
    /// The one-line summary printed at the end of a build.
    pub fn summary(&self, out: &Path) -> String {
        let seconds = self.elapsed.as_secs_f64();
        format!(
            "built {}: {} files, {:.1} MB, {} model(s) served, in {:.2} s ({:.0} MB/s)",
            out.display(),
            self.files,
            self.bytes as f64 / 1e6,
            self.models,
            seconds,
            self.bytes as f64 / 1e6 / seconds.max(1e-9)
        )
    }
}

/// Counts what has been written, for progress and the testing failure.
struct Counter {
    files: AtomicU64,
    bytes: AtomicU64,
    fail_after: Option<u64>,
}

/// Writes files under a root and records their manifest entries.
struct Writer<'a> {
    root: &'a Path,
    counter: &'a Counter,
}

impl Writer<'_> {
    fn write(&self, rel: &str, bytes: &[u8]) -> Result<ManifestEntry> {
        let path = self.root.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::io("cannot create", parent, e))?;
        }
        let written = self.counter.files.fetch_add(1, Ordering::Relaxed) + 1;
        if self.counter.fail_after.is_some_and(|limit| written > limit) {
            let injected = std::io::Error::other("injected failure (testing aid)");
            return Err(Error::io("cannot write", &path, injected));
        }
        std::fs::write(&path, bytes).map_err(|e| Error::io("cannot write", &path, e))?;
        self.counter
            .bytes
            .fetch_add(bytes.len() as u64, Ordering::Relaxed);
        Ok(ManifestEntry {
            path: rel.to_string(),
            bytes: bytes.len() as u64,
            sha256: sha256_hex(bytes),
        })
    }
}

/// Builds the whole site into `options.out`, atomically. `out` is replaced only when it does
/// not exist, is empty, or is a site this program wrote (see [`check_replaceable`]); anything
/// else is refused before anything is written.
pub fn build(data: &SiteData<'_>, options: &BuildOptions) -> Result<BuildReport> {
    let started = Instant::now();
    let out = &options.out;
    let name = out
        .file_name()
        .ok_or_else(|| Error::Usage(format!("--out {} must name a directory", out.display())))?
        .to_string_lossy()
        .into_owned();
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    check_replaceable(out)?;
    let staging = fresh_sibling(&parent, &name, "staging", true)?;
    // Marked first, so that a run stopped from here on leaves a tree the next one removes.
    let mark = match Mark::new(&staging) {
        Ok(mark) => mark,
        Err(err) => {
            let _ = std::fs::remove_dir_all(&staging);
            return Err(err);
        }
    };
    let counter = Counter {
        files: AtomicU64::new(0),
        bytes: AtomicU64::new(0),
        fail_after: options.fail_after_files,
    };
    let writer = Writer {
        root: &staging,
        counter: &counter,
    };
    let result = with_progress(options.progress, &counter, started, || {
        write_all(data, options, &writer)
    })
    .and_then(|done| mark.remove_file().map(|()| done))
    .and_then(|done| swap_in(&staging, out, &parent, &name).map(|()| done));
    drop(mark);
    let (files, bytes) = match result {
        Ok(done) => done,
        Err(err) => {
            // The published site was never touched; drop the partial staging tree, which this
            // build created under a name no one else had.
            let _ = std::fs::remove_dir_all(&staging);
            return Err(err);
        }
    };
    Ok(BuildReport {
        files,
        bytes,
        models: match data {
            SiteData::Data { catalog, .. } => catalog.records.len(),
            SiteData::Unavailable => 0,
        },
        elapsed: started.elapsed(),
    })
}

/// A sibling path `.{name}.{role}-{pid}-{n}` that did not exist; created as a directory when
/// `create` is set. Never reuses, and so never deletes, something already there.
fn fresh_sibling(parent: &Path, name: &str, role: &'static str, create: bool) -> Result<PathBuf> {
    for n in 0..1000 {
        let path = parent.join(format!(".{name}.{role}-{}-{n}", std::process::id()));
        if create {
            match std::fs::create_dir(&path) {
                Ok(()) => return Ok(path),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(Error::io("cannot create", &path, e)),
            }
        } else if std::fs::symlink_metadata(&path).is_err() {
            return Ok(path);
        }
    }
    Err(Error::NoTemporaryName {
        parent: parent.to_path_buf(),
        name: name.to_string(),
        role,
    })
}

/// Replaces `out` with `staging`: the old tree is moved aside, the new one renamed in, and the
/// old one removed. Both renames are within one directory, so each is atomic. `out` is checked
/// again first, since the build may have run for a while.
fn swap_in(staging: &Path, out: &Path, parent: &Path, name: &str) -> Result<()> {
    let had_old = check_replaceable(out)? != Replaceable::Absent;
    let retired = fresh_sibling(parent, name, "old", false)?;
    if had_old {
        std::fs::rename(out, &retired).map_err(|e| Error::io("cannot move aside", out, e))?;
    }
    // The old tree is marked as soon as it is aside: a run stopped while removing it (a
    // 5.7 GB tree takes seconds) leaves it for the next one to remove.
    let retired_mark = if had_old {
        Mark::new(&retired).ok()
    } else {
        None
    };
    if let Err(e) = std::fs::rename(staging, out) {
        if had_old {
            if let Some(mark) = &retired_mark {
                let _ = mark.remove_file();
            }
            let _ = std::fs::rename(&retired, out);
        }
        return Err(Error::io("cannot move into place", out, e));
    }
    if had_old {
        std::fs::remove_dir_all(&retired).map_err(|e| Error::io("cannot remove", &retired, e))?;
    }
    Ok(())
}

fn with_progress<T>(
    enabled: bool,
    counter: &Counter,
    started: Instant,
    work: impl FnOnce() -> T + Send,
) -> T
where
    T: Send,
{
    if !enabled {
        return work();
    }
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let mut last = Instant::now();
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                if last.elapsed() >= Duration::from_secs(2) {
                    last = Instant::now();
                    eprintln!(
                        "  ... {} files, {:.0} MB written ({:.0} s)",
                        counter.files.load(Ordering::Relaxed),
                        counter.bytes.load(Ordering::Relaxed) as f64 / 1e6,
                        started.elapsed().as_secs_f64()
                    );
                }
            }
        });
        let result = work();
        done.store(true, Ordering::Relaxed);
        result
    })
}

/// Writes every file, then the manifest; returns the file and byte counts.
fn write_all(
    data: &SiteData<'_>,
    options: &BuildOptions,
    writer: &Writer<'_>,
) -> Result<(u64, u64)> {
    // Every file but the list pages: a few dozen plus one per served model, held until the
    // manifest is written. The list pages (1,200 per offset) are streamed into it instead.
    let mut entries = Vec::new();
    let launch_enabled = matches!(data, SiteData::Data { catalog, .. } if catalog.supply_enabled);
    // The contract and the OpenAPI document are built once: the MCP catalogue is read from them.
    let about = contract::about(
        &options.base_url,
        options.docs_url.as_deref(),
        launch_enabled,
    );
    let openapi = contract::openapi(&options.base_url, options.docs_url.as_deref());
    let sample = matches!(data, SiteData::Data { catalog, .. } if catalog.sample);
    entries.push(writer.write(netlify::ABOUT_FILE, &to_json(&about))?);
    entries.push(writer.write("api/openapi.json", &to_json(&openapi))?);
    entries.push(writer.write(
        crate::answers::catalogue::CATALOGUE_FILE,
        &crate::answers::catalogue::Catalogue::new(&openapi, &about, sample).to_json(),
    )?);
    entries.push(
        writer.write(
            crate::answers::llms::LLMS_FILE,
            crate::answers::llms::llms_txt(&options.base_url, options.docs_url.as_deref(), sample)
                .as_bytes(),
        )?,
    );
    for code in ErrorCode::ALL {
        entries.push(writer.write(&error_file(code), &error_body(code, code.generic_message()))?);
    }
    let page_data = match data {
        SiteData::Data { inputs, catalog } => Some((*inputs, *catalog)),
        SiteData::Unavailable => None,
    };
    if options.docs_url.is_none() {
        let page = crate::answers::page::page(page_data, &options.base_url);
        entries.push(writer.write(DOCS_PAGE, page.as_bytes())?);
    }
    let redirects = netlify::redirect_rules(options.docs_url.as_deref());
    let rendered = match data {
        SiteData::Unavailable => {
            entries.push(writer.write(
                "_redirects",
                netlify::unavailable_redirects_file(&redirects).as_bytes(),
            )?);
            entries.push(writer.write(ROUTES, &to_json(&RoutingTable::unavailable(&redirects)))?);
            None
        }
        SiteData::Data { inputs, catalog } => {
            let rendered = Rendered::new(catalog);
            entries.push(writer.write(netlify::EXPORT_FILE, &inputs.export_bytes)?);
            let supply = match &inputs.supply_bytes {
                Some(bytes) => bytes.clone(),
                None => to_json(&SupplyNotCollected::new()),
            };
            entries.push(writer.write(netlify::SUPPLY_FILE, &supply)?);
            // The flat tables, beside the feeds, in both layouts.
            for (path, bytes) in crate::answers::tables::files(inputs, catalog) {
                entries.push(writer.write(&path, &bytes)?);
            }
            // The charts, in both layouts.
            for (path, bytes) in crate::answers::charts::files(&inputs.export, catalog) {
                entries.push(writer.write(&path, &bytes)?);
            }
            entries.extend(write_exact_answers(&rendered, writer)?);
            entries.extend(write_histories(inputs, catalog, writer)?);
            entries.extend(write_providers(inputs, catalog, writer)?);
            let mut table = RoutingTable::with_data(&rendered, &redirects);
            let rules = match options.layout {
                Layout::Full => netlify::redirects_file(rendered.ids(), &redirects),
                Layout::Edge => {
                    table.edge = Some(write_edge_parts(&rendered, writer, &mut entries)?);
                    netlify::edge_redirects_file(rendered.ids(), &redirects)
                }
            };
            entries.push(writer.write("_redirects", rules.as_bytes())?);
            entries.push(writer.write(ROUTES, &to_json(&table))?);
            (options.layout == Layout::Full).then_some(rendered)
        }
    };
    let has_data = matches!(data, SiteData::Data { .. });
    entries.push(writer.write("_headers", netlify::headers_file(has_data).as_bytes())?);
    entries.sort_by(|a, b| a.path.cmp(&b.path));

    let path = writer.root.join(MANIFEST);
    let failed = |e: std::io::Error| Error::io("cannot write", &path, e);
    let file = std::fs::File::create(&path).map_err(failed)?;
    let built_from = match data {
        SiteData::Data { inputs, .. } => BuiltFrom::new(
            options.written_by,
            &options.base_url,
            Some(&inputs.export_bytes),
            inputs.supply_bytes.as_deref(),
        ),
        SiteData::Unavailable => BuiltFrom::new(options.written_by, &options.base_url, None, None),
    };
    let mut manifest =
        ManifestWriter::new(BufWriter::new(file), Some(&built_from)).map_err(failed)?;
    // The list pages all sit under one directory, so in path order they are one block: every
    // other entry sorts wholly before it or wholly after it.
    let block = query::list_dir_prefix();
    let (before, after) = entries.split_at(entries.partition_point(|e| e.path < block));
    for entry in before {
        manifest.push(entry).map_err(failed)?;
    }
    if let Some(rendered) = &rendered {
        write_list_pages(rendered, writer, &mut |entry| {
            manifest.push(entry).map_err(failed)
        })?;
    }
    for entry in after {
        manifest.push(entry).map_err(failed)?;
    }
    let (files, bytes, _) = manifest.finish().map_err(failed)?;
    Ok((files, bytes))
}

/// The `edge` layout's parts (DESIGN §8.1) instead of the list pages; a part that could not be
/// assembled is a build error naming its file ([`edge::parts`]), never a wrong page at the edge.
fn write_edge_parts(
    rendered: &Rendered,
    writer: &Writer<'_>,
    entries: &mut Vec<ManifestEntry>,
) -> Result<EdgeParts> {
    let (parts, files) = edge::parts(rendered).map_err(|why| Error::EdgeLayout { why })?;
    for (path, bytes) in &files {
        entries.push(writer.write(path, bytes)?);
    }
    Ok(parts)
}

/// Every model's exact answer, in parallel.
fn write_exact_answers(rendered: &Rendered, writer: &Writer<'_>) -> Result<Vec<ManifestEntry>> {
    (0..rendered.total())
        .into_par_iter()
        .map(|index| {
            let mut buffer = Vec::new();
            rendered.exact(index, &mut buffer);
            writer.write(&model_file(&rendered.ids()[index]), &buffer)
        })
        .collect()
}

/// Every served model's demand and supply history (`get_demand_history`), in parallel.
fn write_histories(
    inputs: &Inputs,
    catalog: &ServedModels,
    writer: &Writer<'_>,
) -> Result<Vec<ManifestEntry>> {
    let histories = crate::answers::history::Histories::new(
        &inputs.export,
        inputs.supply.as_ref(),
        &catalog.head,
    );
    catalog
        .records
        .par_iter()
        .map(|record| {
            writer.write(
                &crate::answers::history::history_file(&record.model_id),
                &histories.body(&record.model_id),
            )
        })
        .collect()
}

/// Every served model's providers (`get_providers`), in parallel.
fn write_providers(
    inputs: &Inputs,
    catalog: &ServedModels,
    writer: &Writer<'_>,
) -> Result<Vec<ManifestEntry>> {
    use crate::answers::providers;
    catalog
        .records
        .par_iter()
        .map(|record| {
            writer.write(
                &providers::providers_file(&record.model_id),
                &providers::body(inputs.supply.as_ref(), &catalog.head, &record.model_id),
            )
        })
        .collect()
}

/// Writes every list page and hands each one's manifest entry to `record`, in path order.
/// One task per (sort, order, limit) directory (N + 1 files each, well under Netlify's limit);
/// directories are taken a batch at a time, in path order, so what is held between writing a
/// page and recording it is one batch's entries, whatever the number of models.
fn write_list_pages(
    rendered: &Rendered,
    writer: &Writer<'_>,
    record: &mut dyn FnMut(&ManifestEntry) -> Result<()>,
) -> Result<()> {
    let total = rendered.total();
    assert!(
        total < MAX_FILES_PER_DIR,
        "more served models than a directory may hold"
    );
    let mut directories: Vec<(String, ListQuery)> = query::list_directories()
        .map(|first| (query::list_dir(&first), first))
        .collect();
    // With its trailing `/`, a directory's name orders all its files against all of another's.
    directories.sort_by(|a, b| a.0.cmp(&b.0));
    let batch = rayon::current_num_threads() * 8;
    for directories in directories.chunks(batch) {
        let pages: Vec<Vec<ManifestEntry>> = directories
            .par_iter()
            .map(|(_, first)| {
                let mut buffer = Vec::new();
                let mut entries = (0..=total as u64)
                    .map(|offset| {
                        let query = ListQuery { offset, ..*first };
                        buffer.clear();
                        rendered.list_page(&query, &mut buffer);
                        writer.write(&list_file(&query), &buffer)
                    })
                    .collect::<Result<Vec<_>>>()?;
                entries.sort_by(|a, b| a.path.cmp(&b.path));
                Ok(entries)
            })
            .collect::<Result<_>>()?;
        for entry in pages.iter().flatten() {
            record(entry)?;
        }
    }
    Ok(())
}

/// `/api/supply` when no supply feed was given.
#[derive(Debug, Serialize)]
struct SupplyNotCollected {
    schema_version: &'static str,
    state: &'static str,
    reason: &'static str,
    message: &'static str,
}

impl SupplyNotCollected {
    fn new() -> SupplyNotCollected {
        SupplyNotCollected {
            schema_version: "model-demand.supply-feed.v1",
            state: "not_collected",
            reason: crate::records::reason::SUPPLY_NOT_COLLECTED,
            message: "This build was given no supply feed; supply has not been collected.",
        }
    }
}

/// The routing table (`_api/routes.json`): everything a router needs to answer the models
/// route from the written files — the preview server and the edge function both read it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct RoutingTable {
    /// Always `model-demand.routes.v1`.
    pub schema_version: String,
    /// False for a site built without accepted data.
    pub has_data: bool,
    /// Allowed parameter names.
    pub parameters: Vec<String>,
    /// Allowed sort values; the first is the default.
    pub sorts: Vec<String>,
    /// Allowed order values.
    pub orders: Vec<String>,
    /// Default sort.
    pub default_sort: String,
    /// Default order.
    pub default_order: String,
    /// Smallest limit.
    pub limit_min: u64,
    /// Largest limit.
    pub limit_max: u64,
    /// Default limit.
    pub limit_default: u64,
    /// Largest offset.
    pub offset_max: u64,
    /// Models served (N); list files exist for offsets 0 to N.
    pub total: u64,
    /// Path pattern of list files, with `{sort}`, `{order}`, `{limit}`, `{offset}`.
    pub list_file: String,
    /// Exact-lookup file of every served model, by ID.
    pub models: BTreeMap<String, String>,
    /// Error body files, by error code.
    pub errors: BTreeMap<String, String>,
    /// Permanent (301) redirects: moved addresses and, with `--docs-url`, the docs page.
    pub redirects: Vec<netlify::Redirect>,
    /// The `edge` layout's parts: list answers are assembled from them, and `list_file` names
    /// no file. Absent in the `full` layout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edge: Option<EdgeParts>,
}

impl RoutingTable {
    fn base(has_data: bool, redirects: &[netlify::Redirect]) -> RoutingTable {
        RoutingTable {
            schema_version: "model-demand.routes.v1".to_string(),
            has_data,
            parameters: query::PARAMETERS.iter().map(|p| p.to_string()).collect(),
            sorts: SortKey::names().into_iter().map(String::from).collect(),
            orders: Order::names().into_iter().map(String::from).collect(),
            default_sort: SortKey::DEFAULT.as_str().to_string(),
            default_order: Order::DEFAULT.as_str().to_string(),
            limit_min: query::LIMIT_MIN,
            limit_max: query::LIMIT_MAX,
            limit_default: query::LIMIT_DEFAULT,
            offset_max: query::OFFSET_MAX,
            total: 0,
            list_file: format!(
                "{}/list/{{sort}}/{{order}}/{{limit}}/{{offset}}.json",
                query::ANSWERS_DIR
            ),
            models: BTreeMap::new(),
            errors: ErrorCode::ALL
                .iter()
                .map(|c| (c.as_str().to_string(), error_file(*c)))
                .collect(),
            redirects: redirects.to_vec(),
            edge: None,
        }
    }

    fn unavailable(redirects: &[netlify::Redirect]) -> RoutingTable {
        RoutingTable::base(false, redirects)
    }

    fn with_data(rendered: &Rendered, redirects: &[netlify::Redirect]) -> RoutingTable {
        RoutingTable {
            total: rendered.total() as u64,
            models: rendered
                .ids()
                .iter()
                .map(|id| (id.clone(), model_file(id)))
                .collect(),
            ..RoutingTable::base(true, redirects)
        }
    }
}

/// The routing table answers a served model with its file (site-relative).
impl RouteTable for RoutingTable {
    type Model<'a> = &'a str;

    fn has_data(&self) -> bool {
        self.has_data
    }

    fn total(&self) -> u64 {
        self.total
    }

    fn model(&self, model_id: &str) -> Option<&str> {
        self.models.get(model_id).map(String::as_str)
    }
}
