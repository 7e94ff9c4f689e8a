//! `#[napi]` bindings: convert, call core, map errors. A few lines per item.

mod error_code;
mod logging;
mod prompt;
mod resume;
mod switch;
mod transformer;
