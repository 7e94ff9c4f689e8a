//! Prompt building.
