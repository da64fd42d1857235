//! Every answer's bytes, from the records and the query rules: the API's bodies ([`render`]),
//! the demand histories and who serves each model, the field table and the contract built from it (`/api/v1/about`,
//! `/api/openapi.json`), the agents' tool catalogue, `/llms.txt`, the flat tables, the charts
//! and the docs page, with the site's addresses they are published at ([`addresses`]) and the
//! human formats the page and the charts share ([`human`]). Nothing here writes a file: the
//! [`crate::site`] stage does.

pub mod addresses;
pub mod catalogue;
pub mod charts;
pub mod contract;
pub(crate) mod fields;
pub mod history;
pub mod human;
pub mod llms;
pub mod page;
pub mod providers;
pub mod render;
pub mod tables;
