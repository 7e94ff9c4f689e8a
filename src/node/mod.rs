//! `#[napi]` bindings: convert, call core, map errors. A few lines per item.

mod capture;
mod command;
mod error_code;
mod init;
mod logging;
mod lookup;
mod options;
mod output;
mod prompt;
mod resume;
mod run;
mod switch;
mod transformer;
