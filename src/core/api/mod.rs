//! The native API's data: what JS hands in (options, requests, answers), read with serde, and
//! what it gets back (results, reports), written with serde, each type declared once with
//! [`crate::core::wire`]'s macros. Their TypeScript declarations are rendered from the same
//! definitions into `src/node/header.d.ts`, which a test compares; the Node binding only reads,
//! calls and writes.

pub mod agent;
pub mod attachments;
pub mod logging;
pub mod models;
pub mod prompt;
pub mod resume;
pub mod run;
pub mod translation;

#[cfg(test)]
mod tests;
