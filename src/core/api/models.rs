//! Cursor's listed models as families with variants, what a picker shows; and the listed id a
//! model name and a reasoning effort run.

use crate::core::agent::{group_models, model_for, ModelFamily, ModelInfo};
use crate::core::wire::wire_struct;

wire_struct! {
    /// A model as `cursor-agent models` lists it; any other field is refused.
    pub struct CursorModelName as named (derive(serde::Deserialize), serde(deny_unknown_fields)) {
        /// What `--model` takes, e.g. `gpt-5.4-high`.
        id "id": String,
        /// Cursor's label, e.g. `GPT-5.4 1M High`.
        name "name": String,
    }
}

wire_struct! {
    /// One model of a picker: the ids Cursor lists for one effort, thinking and speed each,
    /// read by rule from the ids (`gpt-5.4-low`, `gpt-5.4-high-fast`, ...) as one family, or an
    /// id that fits no family, alone and unchanged. Every listed id is run by exactly one family
    /// and variant, the family's default by the family alone.
    pub struct CursorModelFamily as named (derive(serde::Serialize)) {
        /// The picker's id: the ids' common base, e.g. `gpt-5.4`; for an id alone, the id.
        id "id": String,
        /// The label of its default, e.g. `GPT-5.4 1M`.
        name "name": String,
        /// The id it runs without a variant: its own id when listed, else the one whose label
        /// names no effort, thinking or speed (`gpt-5.4-medium - GPT-5.4 1M`), else the middle
        /// rung.
        model "model": String,
        /// Each other id, by the name OpenCode users know the rung by: `low`, `high`, `xhigh`,
        /// `max`, `thinking-high`, `high-fast`, ...; where two would share a name, the tail of
        /// each id (`extra-high` beside `xhigh`). In the listing's order.
        variants "variants": Vec<CursorModelVariant>,
        /// The smallest window of its ids (as `CursorModel.contextWindow`), so that no variant
        /// runs past what a host's gauge shows.
        context_window "contextWindow": u32,
        /// The smallest output limit of its ids.
        max_output_tokens "maxOutputTokens": u32,
        /// Whether Cursor streams the thinking of any of its ids.
        reasoning "reasoning": bool,
        /// Whether every one of its ids sees pictures.
        pictures "pictures": bool,
    }
}

wire_struct! {
    /// A variant of a family and the id it runs.
    pub struct CursorModelVariant as named (derive(serde::Serialize)) {
        /// E.g. `high`, `thinking-max`, `high-fast`.
        name "name": String,
        /// What `--model` takes, e.g. `gpt-5.4-high`.
        model "model": String,
    }
}

impl From<&ModelFamily> for CursorModelFamily {
    fn from(family: &ModelFamily) -> Self {
        let default = family.default_member();
        let specs: Vec<_> = family
            .members
            .iter()
            .map(|member| ModelInfo::new(member.id.as_str(), member.name.as_str()).spec)
            .collect();
        Self {
            id: family.id.clone(),
            name: default.name.clone(),
            model: default.id.clone(),
            variants: family
                .members
                .iter()
                .filter_map(|member| {
                    member.variant.as_ref().map(|name| CursorModelVariant {
                        name: name.clone(),
                        model: member.id.clone(),
                    })
                })
                .collect(),
            context_window: specs.iter().map(|s| s.context_window).min().unwrap_or(0),
            max_output_tokens: specs.iter().map(|s| s.max_output_tokens).min().unwrap_or(0),
            reasoning: specs.iter().any(|s| s.reasoning),
            pictures: specs.iter().all(|s| s.pictures),
        }
    }
}

fn pairs(listing: Vec<CursorModelName>) -> Vec<(String, String)> {
    listing.into_iter().map(|m| (m.id, m.name)).collect()
}

/// The listing grouped, families in the order their first id is listed.
pub fn model_families(listing: Vec<CursorModelName>) -> Vec<CursorModelFamily> {
    group_models(&pairs(listing))
        .iter()
        .map(CursorModelFamily::from)
        .collect()
}

/// The listed id `model` runs with `effort` (see [`model_for`]).
pub fn model_to_run(listing: Vec<CursorModelName>, model: &str, effort: Option<&str>) -> String {
    model_for(&pairs(listing), model, effort)
}
