//! The integration tests, one binary (as rust-analyzer keeps them): a module per suite, and the
//! shared helpers in `common` compiled once. Each suite's own `//!` says what it guards
//! (docs/testing.md lists them with what each installs). One binary links the crate and its
//! dependencies once instead of 30 times.

mod common;

mod agents;
mod agents_sdk;
mod binary;
mod browser;
mod charts;
mod collect;
mod collect_facts;
mod collect_pacing;
mod collect_sources;
mod contract;
mod doc_links;
mod docs;
mod edge_vectors;
mod expected;
mod facts_command;
mod gate_rules;
mod hf_fixtures;
mod house;
mod llms;
mod mcp;
mod mcp_alike;
mod mcp_http;
mod mcp_protocol;
mod netlify_dev;
mod netlify_rules;
mod nightly;
mod nothing_lost;
mod openapi_tools;
mod oracle;
mod paging;
mod serve;
mod site;
mod tables;
mod tables_tools;
mod verify;
mod workflows;
