//! `#[napi]` bindings: convert, call core, map errors. A few lines per item.

mod agent;
mod argument;
mod error_code;
mod init;
mod logging;
mod output;
mod prompt;
mod resume;
mod switch;
mod transformer;
