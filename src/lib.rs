//! `model-demand` builds a static, read-only JSON API of AI model demand joined with checked
//! model facts and supply, and serves it for preview.
//!
//! Data flows one way: export (+ supply) → [`load`] (the gate) → [`records`] → [`render`] →
//! site → CDN rules; the preview server reads the written site.

pub mod decimal;
pub mod error;
pub mod export;
pub mod json;
pub mod sources;
pub mod supply;
pub mod validate;
