//! An observer of a [`StreamTransformer`](super::transformer::StreamTransformer): everything it
//! is fed, each with the outputs it produced, so that a recording (a capture) can be fed again
//! to a new transformer and its outputs compared.

use crate::core::error::CoreError;
use crate::core::stream::encode::Output;
use crate::core::stream::translate::{HandedCall, Outcome};

/// One input of a transformer.
#[derive(Debug, Clone, Copy)]
pub enum Fed<'a> {
    /// Stdout bytes, as read.
    Stdout(&'a [u8]),
    /// The step's calls handed to the host.
    HandOver(&'a [HandedCall<'a>]),
    /// A record without its line feed was dropped (the writer died in the middle of it).
    CutOff,
    /// The stream closed from the process outcome.
    Finish(&'a Outcome),
    /// The stream closed with a failure the caller determined.
    Fail(&'a CoreError),
}

/// Sees every input of the transformer it is set on, after the input was handled.
pub trait Tap: Send + Sync {
    /// `outputs`: what `fed` produced, in order (possibly none).
    fn fed(&mut self, fed: Fed<'_>, outputs: &[Output]);
}
