//! `#[napi]` bindings: convert, call core, map errors. A few lines per item.

mod prompt;
mod resume;
mod switch;
