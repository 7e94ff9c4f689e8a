//! Native bridge between Cursor's `cursor-agent` CLI and OpenCode.
//!
//! `core` is pure Rust and never names napi; `node` holds the `#[napi]` glue.

pub mod core;

#[cfg(feature = "node")]
#[cfg_attr(test, allow(dead_code, reason = "exports look unused in test builds"))]
mod node;
