//! The site's addresses: where the answers are published, defined once here and used by the
//! site writer, the CDN's rules, the contract, the tool catalogue, the page and the charts
//! (none of them borrows an address from another).

/// The address the site is published at unless `--base-url` says otherwise.
pub const DEFAULT_BASE_URL: &str = "https://model-demand.netlify.app";
/// The public path of the models endpoint (a list page, or one model with `?id=`).
pub const MODELS_PATH: &str = "/api/v1/models";
/// Site-relative path of the docs page.
pub const DOCS_PAGE: &str = "docs/index.html";
/// The site directory of the charts.
pub const CHARTS_DIR: &str = "charts";
/// The share chart's public address.
pub const SHARE_PATH: &str = "/charts/share.svg";
/// The trend chart's public address.
pub const TREND_PATH: &str = "/charts/trend.svg";
/// Every chart's public address; each is the file `charts/NAME.svg`.
pub const CHART_PATHS: [&str; 2] = [SHARE_PATH, TREND_PATH];
