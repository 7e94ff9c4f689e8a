//! `#[napi]` bindings: convert, call core, map errors. A few lines per item.

/// The addon's allocator. A request crosses into Rust as thousands of small strings and maps
/// (a 200-message conversation is about 180 KB of JSON); mimalloc's thread-local free lists keep
/// that allocation off the system allocator's locks, which is most of the tail of `plan()`.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
