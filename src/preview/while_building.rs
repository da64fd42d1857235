//! `serve` of a directory that holds no site: the inputs' compact (`edge`) layout is written to
//! a temporary directory and answered at once, while the full site is written into the
//! directory; then every request is answered from the directory, and the temporary one is
//! removed. The two layouts answer every request with the same bytes (the `edge_vectors`
//! suite), so a newcomer's first answer waits for a few megabytes, not for the bundled
//! sample's 5.7 GB.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::base::error::{Error, Result};
use crate::preview::{self, Running, ServeOptions};
use crate::site::edge::Layout;
use crate::site::leftovers::{Mark, PREVIEW_PREFIX};
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
    let interim = Interim::new()?;
    let compact = BuildOptions {
        layout: Layout::Edge,
        written_by: WRITTEN_BY,
        base_url: base_url.to_string(),
        ..BuildOptions::new(interim.site())
    };
    site::build(data, &compact)?;
    let running = preview::start(&interim.site(), bind, options)?;
    started(&running, &interim.site());
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

/// The temporary compact site: a directory `model-demand-preview-PID-N` of the temporary
/// directory, created and marked ([`Mark`]) by this process, holding the site (`site/`) and
/// its build's staging tree; removed when dropped, and by the next start when a stop left it
/// ([`crate::site::leftovers::sweep_previews`]).
struct Interim {
    dir: PathBuf,
    mark: Option<Mark>,
}

impl Interim {
    /// A new marked directory under a name no one had.
    fn new() -> Result<Interim> {
        // One name per process and call: two previews of one process never share it.
        static CALLS: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "{PREVIEW_PREFIX}{}-{}",
            std::process::id(),
            CALLS.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir(&dir).map_err(|e| Error::io("cannot create", &dir, e))?;
        match Mark::new(&dir) {
            Ok(mark) => Ok(Interim {
                dir,
                mark: Some(mark),
            }),
            Err(err) => {
                let _ = std::fs::remove_dir(&dir);
                Err(err)
            }
        }
    }

    /// Where the compact site is.
    fn site(&self) -> PathBuf {
        self.dir.join("site")
    }
}

impl Drop for Interim {
    fn drop(&mut self) {
        // The directory was created and marked by this process: all of it is its own.
        let _ = std::fs::remove_dir_all(&self.dir);
        drop(self.mark.take());
    }
}
