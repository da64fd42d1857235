//! Following a redirect by hand (`http::Client`): which statuses redirect, where a `Location`
//! points from the URL that answered it, and the origin a credential is bound to.
//!
//! Only `http` and `https` URLs are followed; anything else (a `file:` or `ftp:` Location, a
//! URL with white space or control characters) is an unusable answer, never a request.

/// True for the statuses that redirect a GET: 301, 302, 303, 307 and 308.
pub(super) fn is_redirect(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

/// `scheme://authority` of an absolute http(s) URL, lower-cased, with the scheme's default
/// port made explicit, so `https://Hub.example` and `https://hub.example:443` are one origin.
/// `None` for anything else.
pub(super) fn origin(url: &str) -> Option<String> {
    let (scheme, rest) = split_scheme(url)?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    // Userinfo is never part of the origin compared (and never sent here).
    let host_port = authority.rsplit('@').next().unwrap_or_default();
    if host_port.is_empty() {
        return None;
    }
    let host_port = host_port.to_ascii_lowercase();
    let has_port = match host_port.rfind(':') {
        // An IPv6 literal's colons sit inside brackets.
        Some(i) => !host_port[i..].contains(']'),
        None => false,
    };
    let default = if scheme == "https" { 443 } else { 80 };
    Some(if has_port {
        format!("{scheme}://{host_port}")
    } else {
        format!("{scheme}://{host_port}:{default}")
    })
}

/// The absolute URL a `Location` names, read against `base` (the URL that answered it):
/// absolute, scheme-relative (`//host/p`), absolute-path (`/p`) or relative (`p`, `?q`). Its
/// fragment is dropped. `None` when the result is not an http(s) URL.
pub(super) fn resolve(base: &str, location: &str) -> Option<String> {
    let location = location.trim();
    if location.is_empty() || location.bytes().any(|b| b.is_ascii_control() || b == b' ') {
        return None;
    }
    let location = location.split('#').next().unwrap_or_default();
    let (scheme, rest) = split_scheme(base)?;
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    let path = rest[authority_end..]
        .split(['?', '#'])
        .next()
        .unwrap_or_default();
    let first_segment = location.split(['/', '?']).next().unwrap_or_default();
    let resolved = if split_scheme(location).is_some() {
        location.to_string()
    } else if first_segment.contains(':') {
        // Another scheme (`file:`, `ftp:`, `javascript:`): never followed.
        return None;
    } else if let Some(rest) = location.strip_prefix("//") {
        format!("{scheme}://{rest}")
    } else if location.starts_with('/') {
        format!("{scheme}://{authority}{location}")
    } else if location.starts_with('?') {
        format!("{scheme}://{authority}{path}{location}")
    } else {
        let dir = path.rfind('/').map_or("/", |i| &path[..=i]);
        format!("{scheme}://{authority}{dir}{location}")
    };
    origin(&resolved).map(|_| resolved)
}

/// The lower-cased scheme (`http` or `https`) and what follows `://`.
fn split_scheme(url: &str) -> Option<(&'static str, &str)> {
    let (scheme, rest) = url.split_once("://")?;
    let scheme = if scheme.eq_ignore_ascii_case("https") {
        "https"
    } else if scheme.eq_ignore_ascii_case("http") {
        "http"
    } else {
        return None;
    };
    Some((scheme, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_compare_scheme_host_and_port() {
        assert_eq!(
            origin("https://Huggingface.co/a/resolve/x").as_deref(),
            Some("https://huggingface.co:443")
        );
        assert_eq!(
            origin("https://huggingface.co:443/"),
            origin("https://huggingface.co")
        );
        assert_ne!(
            origin("http://huggingface.co/"),
            origin("https://huggingface.co/")
        );
        assert_ne!(
            origin("http://127.0.0.1:8001/"),
            origin("http://127.0.0.1:8002/")
        );
        assert_eq!(
            origin("http://[::1]/x").as_deref(),
            Some("http://[::1]:80"),
            "an IPv6 literal's colons are not a port"
        );
        assert_eq!(
            origin("https://user@evil.example@hub.example/").as_deref(),
            Some("https://hub.example:443")
        );
        assert_eq!(origin("ftp://x/"), None);
        assert_eq!(origin("https:///path"), None);
    }

    #[test]
    fn locations_resolve_against_the_url_that_answered() {
        let base = "https://huggingface.co/org/m/resolve/abc/model.safetensors?x=1";
        let cases = [
            (
                "https://cdn-lfs.example/repos/ab/cd?sig=1#frag",
                Some("https://cdn-lfs.example/repos/ab/cd?sig=1"),
            ),
            ("//cas.example/f", Some("https://cas.example/f")),
            (
                "/api/models/org/m2",
                Some("https://huggingface.co/api/models/org/m2"),
            ),
            (
                "other.json",
                Some("https://huggingface.co/org/m/resolve/abc/other.json"),
            ),
            (
                "?y=2",
                Some("https://huggingface.co/org/m/resolve/abc/model.safetensors?y=2"),
            ),
            ("HTTP://Upper.example/x", Some("HTTP://Upper.example/x")),
            ("file:///etc/passwd", None),
            ("javascript:alert(1)", None),
            ("", None),
            ("https://a.example/has space", None),
            ("https://a.example/\r\nX-Injected: 1", None),
            ("https://", None),
        ];
        for (location, expected) in cases {
            assert_eq!(resolve(base, location).as_deref(), expected, "{location:?}");
        }
        assert!(is_redirect(302) && is_redirect(307) && is_redirect(308));
        assert!(!is_redirect(304) && !is_redirect(300) && !is_redirect(200));
    }
}
