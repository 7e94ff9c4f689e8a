//! Encoders over the neutral parts.
