//! `#[napi]` bindings: convert, call core, map errors. A few lines per item.

mod agent;
mod init;
mod switch;
