//! What every stage uses and that uses no stage: the crate's one error type and the gate's
//! `Problem`, exact decimals, and the one SHA-256 helper. Nothing here imports another module
//! of the crate (`tests/it/house.rs`).

pub mod decimal;
pub(crate) mod digest;
pub mod error;
