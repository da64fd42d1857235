//! `serve` of a directory that holds no site: the inputs' compact (`edge`) layout is written to
//! a temporary directory and answered at once, while the full site is written into the
//! directory; then every request is answered from the directory, and the temporary one is
//! removed. The two layouts answer every request with the same bytes (the `edge_vectors`
//! suite), so a newcomer's first answer waits for a few megabytes, not for the bundled
//! sample's 5.7 GB.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::base::error::Result;
use crate::preview::{self, Running, ServeOptions};
use crate::site::edge::Layout;
use crate::site::manifest::Manifest;
use crate::site::{self, BuildOptions, BuildReport, SiteData};

/// What the preview's own sites record as their writer ([`crate::site::manifest::BuiltFrom`]): the
/// sites `serve` may write again when the sample changes.
pub const WRITTEN_BY: &str = "serve";

/// Answers `data` from its compact layout in a temporary directory at once, calls `started`
/// with the running server and that directory, then writes the full site into `dir` (with
/// progress when `progress`) and answers from `dir`. Returns the server, now answering from
/// `dir`, and the full build's report; the temporary directory is removed by then (and on
/// every error). `dir` must be replaceable as `build` requires: a directory holding anything
/// but a site is refused untouched, before anything is written.
pub fn serve_while_building(
    data: &SiteData<'_>,
    dir: &Path,
    bind: SocketAddr,
    options: ServeOptions,
    progress: bool,
    started: impl FnOnce(&Running, &Path),
) -> Result<(Running, BuildReport)> {
    let base_url = crate::site::DEFAULT_BASE_URL;
    serve_while_building_for(data, dir, base_url, bind, options, progress, started)
}

/// The base address of the preview's own site served on `bind`: `http://localhost:PORT`, so
/// that its docs page and `/llms.txt` name the local `/mcp` (which answers requests addressed
/// to `localhost`, `127.0.0.1` or `[::1]`, whatever the bind). Port 0 names no port before the
/// server is bound: the public address is kept then.
pub fn local_base_url(bind: SocketAddr) -> String {
    match bind.port() {
        0 => crate::site::DEFAULT_BASE_URL.to_string(),
        port => format!("http://localhost:{port}"),
    }
}

/// [`serve_while_building`] of a site whose links name `base_url`.
pub fn serve_while_building_for(
    data: &SiteData<'_>,
    dir: &Path,
    base_url: &str,
    bind: SocketAddr,
    options: ServeOptions,
    progress: bool,
    started: impl FnOnce(&Running, &Path),
) -> Result<(Running, BuildReport)> {
    site::check_replaceable(dir)?;
    // One name per process and call: two previews of one process never share it.
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let interim = Interim(std::env::temp_dir().join(format!(
        "model-demand-preview-{}-{}",
        std::process::id(),
        CALLS.fetch_add(1, Ordering::Relaxed)
    )));
    let compact = BuildOptions {
        layout: Layout::Edge,
        written_by: WRITTEN_BY,
        base_url: base_url.to_string(),
        ..BuildOptions::new(&interim.0)
    };
    site::build(data, &compact)?;
    let running = preview::start(&interim.0, bind, options)?;
    started(&running, &interim.0);
    let full = BuildOptions {
        progress,
        written_by: WRITTEN_BY,
        base_url: base_url.to_string(),
        ..BuildOptions::new(dir)
    };
    let report = site::build(data, &full)?;
    running.switch_to(dir)?;
    drop(interim);
    Ok((running, report))
}

/// The temporary compact site, removed when dropped: only when it holds a manifest, that is
/// only when it is a site this program wrote there.
struct Interim(PathBuf);

impl Drop for Interim {
    fn drop(&mut self) {
        if Manifest::is_present(&self.0) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}
