//! `#[napi]` bindings: read an argument into the struct that declares it (`read.rs`), call the
//! core, map results and errors (`error.rs`). A few lines per item.

mod capture;
mod cursor_agent;
mod engine;
mod error;
mod init;
mod logging;
mod output;
mod private_file;
mod prompt;
mod read;
mod resume;
mod run;
mod sink;
mod switch_value;
mod transformer;
