//! Running cursor-agent.
