//! Cursor's listed ids grouped into families with variants, by rule ([`super::rung`]): one id
//! per effort, thinking and speed becomes one family whose variants name the rungs
//! (`gpt-5.4` with `low`, `high`, `high-fast`, ...). Every listed id is reached by exactly one
//! family and variant (the family's default by the family alone); an id that does not fit
//! stays a model of its own, unchanged.

use std::collections::{HashMap, HashSet};

use super::rung::{names_a_rung, split_rung, Effort, Rung};

/// One listed id in its family.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// What `--model` takes.
    pub id: String,
    /// Cursor's label.
    pub name: String,
    /// What its tail says; [`Rung::default`] for the base id, and for an id of its own.
    pub rung: Rung,
    /// The OpenCode variant that runs it; `None` for the family's default.
    pub variant: Option<String>,
}

/// A family: the model a picker shows, and the listed ids it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelFamily {
    /// The picker's id: the ids' common base (`gpt-5.4`), or an id of its own unchanged.
    pub id: String,
    /// Its members in the listing's order; exactly one has no variant (the default).
    pub members: Vec<Member>,
}

impl ModelFamily {
    /// The id the family runs without a variant.
    pub fn default_member(&self) -> &Member {
        self.members
            .iter()
            .find(|member| member.variant.is_none())
            .unwrap_or(&self.members[0])
    }

    /// The listed id of the rung with `effort`: the one with the default's thinking and speed,
    /// else the default's speed, else the first; `None` when Cursor lists no such rung.
    pub fn with_effort(&self, effort: Effort) -> Option<&Member> {
        let default = self.default_member().rung;
        let rungs: Vec<&Member> = self
            .members
            .iter()
            .filter(|member| member.rung.effort == Some(effort))
            .collect();
        let alike = |member: &&&Member| {
            member.rung.thinking == default.thinking && member.rung.fast == default.fast
        };
        let as_fast = |member: &&&Member| member.rung.fast == default.fast;
        rungs
            .iter()
            .find(alike)
            .or_else(|| rungs.iter().find(as_fast))
            .or_else(|| rungs.first())
            .copied()
    }
}

/// The base each id belongs under: its own id when another id's tail is read off it (a base
/// whose tail looks like a rung, `gpt-5.5-max` beside `gpt-5.5-max-high`), else the base the
/// grammar reads, else itself.
fn placements(ids: &[&str]) -> Vec<(String, Rung)> {
    let split: Vec<Option<(&str, Rung)>> = ids.iter().map(|id| split_rung(id)).collect();
    let bases: HashSet<&str> = split.iter().flatten().map(|(base, _)| *base).collect();
    ids.iter()
        .zip(&split)
        .map(|(id, split)| match split {
            Some((base, rung)) if !bases.contains(id) => ((*base).to_owned(), *rung),
            _ => ((*id).to_owned(), Rung::default()),
        })
        .collect()
}

/// The efforts in the order a family's default is preferred when Cursor's labels do not single
/// one out: the base (no effort), then the middle rung, then the ones beside it.
const DEFAULT_PREFERENCE: &[Option<Effort>] = &[
    None,
    Some(Effort::Medium),
    Some(Effort::High),
    Some(Effort::Low),
    Some(Effort::XHigh),
    Some(Effort::Max),
    Some(Effort::Minimal),
    Some(Effort::None),
];

/// How an id ranks as a default: without speed first, then without thinking, then by
/// [`DEFAULT_PREFERENCE`].
fn default_rank(rung: Rung) -> (bool, bool, usize) {
    let effort = DEFAULT_PREFERENCE
        .iter()
        .position(|effort| *effort == rung.effort)
        .unwrap_or(DEFAULT_PREFERENCE.len());
    (rung.fast, rung.thinking, effort)
}

/// Which member is the default: the base id when Cursor lists it (so that the family's name runs
/// what it always ran), else the only one whose label names no rung (`gpt-5.4-medium - GPT-5.4
/// 1M`), else the best ranked of those (or of all).
fn default_index(base: &str, members: &[Member]) -> usize {
    if let Some(index) = members.iter().position(|member| member.id == base) {
        return index;
    }
    let plain: Vec<usize> = (0..members.len())
        .filter(|&index| !names_a_rung(&members[index].name))
        .collect();
    let pool: Vec<usize> = if plain.is_empty() {
        (0..members.len()).collect()
    } else {
        plain
    };
    pool.into_iter()
        .min_by_key(|&index| (default_rank(members[index].rung), index))
        .unwrap_or(0)
}

/// Each other member's variant: its rung's name; where two would share a name, or a member has
/// no rung, the tail of its id after the base (`extra-high` beside `xhigh`); and failing that
/// the whole id, which no other member has.
fn name_variants(base: &str, members: &mut [Member], default: usize) {
    let proposed: Vec<String> = members.iter().map(|member| member.rung.name()).collect();
    let mut count: HashMap<&str, usize> = HashMap::new();
    for (index, name) in proposed.iter().enumerate() {
        if index != default {
            *count.entry(name.as_str()).or_default() += 1;
        }
    }
    let mut taken: HashSet<String> = HashSet::new();
    for index in (0..members.len()).filter(|&index| index != default) {
        let id = members[index].id.clone();
        let tail = id
            .strip_prefix(base)
            .and_then(|rest| rest.strip_prefix('-'))
            .unwrap_or(&id);
        let name = &proposed[index];
        let mut chosen = if name.is_empty() || count[name.as_str()] > 1 {
            tail.to_owned()
        } else {
            name.clone()
        };
        if chosen.is_empty() || taken.contains(&chosen) {
            chosen = id.clone();
        }
        taken.insert(chosen.clone());
        members[index].variant = Some(chosen);
    }
}

/// The listing `(id, label)` grouped: families in the order their first id is listed. A base
/// is a family only with siblings: an id alone under its base stays a model of its own.
pub fn group_models(listing: &[(String, String)]) -> Vec<ModelFamily> {
    let ids: Vec<&str> = listing.iter().map(|(id, _)| id.as_str()).collect();
    let mut families: Vec<ModelFamily> = Vec::new();
    let mut index_of: HashMap<String, usize> = HashMap::new();
    for ((id, name), (base, rung)) in listing.iter().zip(placements(&ids)) {
        let member = Member {
            id: id.clone(),
            name: name.clone(),
            rung,
            variant: None,
        };
        let at = *index_of.entry(base.clone()).or_insert_with(|| {
            families.push(ModelFamily {
                id: base,
                members: Vec::new(),
            });
            families.len() - 1
        });
        families[at].members.push(member);
    }
    families.into_iter().map(settled).collect()
}

/// A family with its default and variant names; one alone, the model it always was.
fn settled(mut family: ModelFamily) -> ModelFamily {
    if family.members.len() == 1 {
        let member = &mut family.members[0];
        member.rung = Rung::default();
        family.id = member.id.clone();
        return family;
    }
    let default = default_index(&family.id, &family.members);
    name_variants(&family.id, &mut family.members, default);
    family
}

/// The listed id a request runs: a family named with an effort Cursor lists for it runs that
/// rung, a family otherwise its default; any other name (every listed id among them) as it is.
pub fn model_for(listing: &[(String, String)], model: &str, effort: Option<&str>) -> String {
    let families = group_models(listing);
    let Some(family) = families.iter().find(|family| family.id == model) else {
        return model.to_owned();
    };
    effort
        .and_then(Effort::parse)
        .and_then(|effort| family.with_effort(effort))
        .unwrap_or_else(|| family.default_member())
        .id
        .clone()
}

#[cfg(test)]
mod tests;
