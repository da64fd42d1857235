//! Where the MCP server's answers come from: a built site read through the preview server's
//! router ([`Site::resolve`], the one decision the CDN mirrors), or a published site asked over
//! HTTP(S) with ureq. Either way an answer is the status and the body's bytes the site sends.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::base::error::{Error, Result};
use crate::site::Site;

/// The longest a request to a published site may take, connecting included. One attempt only:
/// an agent waiting on a tool is better told at once than kept waiting through retries.
pub(crate) const FETCH_TIMEOUT: Duration = Duration::from_secs(15);
/// The longest connection set-up to a published site.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// The largest body read from a published site (the largest page is a few hundred kB).
const MAX_BODY_BYTES: u64 = 16 * 1024 * 1024;

/// One answer of the site: its status and its body, byte for byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reply {
    /// HTTP status.
    pub status: u16,
    /// The body as the site sent it.
    pub body: Vec<u8>,
}

/// A published site: its base address and the one HTTP client that asks it.
pub(crate) struct Remote {
    base: String,
    agent: ureq::Agent,
}

/// Where answers come from.
pub(crate) enum Source {
    /// A built site on disk, answered by the preview server's router.
    Dir(Arc<Site>),
    /// A published site, asked over the network.
    Remote(Remote),
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

impl Source {
    /// A built site: `dir` must hold a site this program wrote (its manifest and routing table).
    pub(crate) fn dir(dir: &Path) -> Result<Source> {
        Site::open(dir)
            .map(|site| Source::Dir(Arc::new(site)))
            .map_err(|why| Error::NoSite {
                dir: dir.to_path_buf(),
                why: Box::new(why),
            })
    }

    /// A published site at `base_url`: `https://` anywhere, `http://` only on this machine (the
    /// preview server), with no query or fragment.
    pub(crate) fn remote(base_url: &str) -> Result<Source> {
        let base = base_url.trim_end_matches('/');
        let refuse = |why: &str| Error::Usage(format!("--base-url {base_url:?}: {why}"));
        let rest = match base.split_once("://") {
            Some((scheme, rest)) if scheme.eq_ignore_ascii_case("https") => rest,
            Some((scheme, rest)) if scheme.eq_ignore_ascii_case("http") => {
                if !is_loopback(host_of(rest)) {
                    return Err(refuse("plain http is allowed only for this machine (localhost, 127.0.0.1, [::1]); use https"));
                }
                rest
            }
            _ => return Err(refuse("must start with https://")),
        };
        if host_of(rest).is_empty() || rest.contains(['?', '#', ' ']) {
            return Err(refuse("must be a site address such as https://model-demand.netlify.app, without query or fragment"));
        }
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(FETCH_TIMEOUT))
            .timeout_connect(Some(CONNECT_TIMEOUT))
            .http_status_as_error(false)
            // The site's API paths never redirect; a redirect would lead away from the one host.
            .max_redirects(0)
            .user_agent(format!("model-demand-mcp/{}", env!("CARGO_PKG_VERSION")))
            .build();
        Ok(Source::Remote(Remote {
            base: base.to_string(),
            agent: config.into(),
        }))
    }

    /// What the server reads, for its log.
    pub(crate) fn describe(&self) -> String {
        match self {
            Source::Dir(_) => "a built site on disk".to_string(),
            Source::Remote(remote) => remote.base.clone(),
        }
    }

    /// The answer to `GET target` (an origin-form target, `/path?query`), or why there is none.
    pub(crate) fn get(&self, target: &str) -> std::result::Result<Reply, String> {
        match self {
            Source::Dir(site) => {
                let answer = site.resolve("GET", target, None);
                let body = site
                    .read_body(&answer.body)
                    .map_err(|e| format!("the built site cannot be read: {e}"))?;
                Ok(Reply {
                    status: answer.status,
                    body,
                })
            }
            Source::Remote(remote) => remote.get(target),
        }
    }
}

impl Remote {
    fn get(&self, target: &str) -> std::result::Result<Reply, String> {
        let url = format!("{}{target}", self.base);
        let unreachable = |e: ureq::Error| {
            // Bounded, whatever the error quotes (a refusal never echoes unbounded input).
            let why: String = e.to_string().chars().take(300).collect();
            format!(
                "the site {} cannot be reached ({why}); one attempt was made, nothing was retried",
                self.base
            )
        };
        let mut response = self.agent.get(&url).call().map_err(unreachable)?;
        let status = response.status().as_u16();
        let body = response
            .body_mut()
            .with_config()
            .limit(MAX_BODY_BYTES)
            .read_to_vec()
            .map_err(unreachable)?;
        Ok(Reply { status, body })
    }
}

/// The host of `authority/path` (without port or user).
fn host_of(rest: &str) -> &str {
    let authority = rest.split('/').next().unwrap_or("");
    let host_port = authority.rsplit('@').next().unwrap_or("");
    if let Some(bracketed) = host_port.strip_prefix('[') {
        return bracketed.split(']').next().unwrap_or("");
    }
    host_port.split(':').next().unwrap_or("")
}

fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls_are_https_or_loopback_http() {
        for good in [
            "https://model-demand.netlify.app",
            "https://x.test/",
            "http://127.0.0.1:8080",
            "http://localhost:1",
            "http://[::1]:9",
        ] {
            assert!(Source::remote(good).is_ok(), "{good}");
        }
        for bad in [
            "http://example.com",
            "http://10.0.0.1",
            "ftp://x.test",
            "x.test",
            "https://",
            "https://x.test/?q=1",
            "http://127.0.0.1.example.com",
        ] {
            assert!(Source::remote(bad).is_err(), "{bad}");
        }
    }
}
