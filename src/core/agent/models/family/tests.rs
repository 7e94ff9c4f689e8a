use std::collections::HashSet;

use super::*;

/// A listing written from the grammar of Cursor's ids, one shape per family: effort before and
/// after `-thinking`, `extra-high` beside `xhigh`, ids with no rung, bases whose tails look like
/// efforts, families whose rungs differ, defaults marked by a label without an effort word.
const LISTING: &str = "\
auto - Auto
composer-2.5 - Composer 2.5
composer-2.5-fast - Composer 2.5 Fast
gpt-5.4-low - GPT-5.4 1M Low
gpt-5.4-medium - GPT-5.4 1M
gpt-5.4-medium-fast - GPT-5.4 1M Fast
gpt-5.4-high - GPT-5.4 1M High
gpt-5.4-high-fast - GPT-5.4 1M High Fast
gpt-5.4-xhigh - GPT-5.4 1M Extra High
gpt-5.5-medium - GPT-5.5
gpt-5.5-high - GPT-5.5 High
gpt-5.5-extra-high - GPT-5.5 Extra High
gpt-5.6-luna-low - GPT-5.6 Luna 272K Low
gpt-5.6-luna-medium - GPT-5.6 Luna 272K
gpt-5.6-luna-high-fast - GPT-5.6 Luna 272K High Fast
gpt-5.6-luna-xhigh - GPT-5.6 Luna 272K Extra High
gpt-5.7-medium - GPT-5.7
gpt-5.7-xhigh - GPT-5.7 XHigh
gpt-5.7-extra-high - GPT-5.7 Extra High
gpt-5.3-codex - GPT-5.3 Codex
gpt-5.2 - GPT-5.2
gpt-5.1-codex-high - GPT-5.1 Codex High
gpt-5.1-codex-max - GPT-5.1 Codex Max
gpt-5.1-codex-max-low - GPT-5.1 Codex Max Low
gpt-5.1-codex-max-high - GPT-5.1 Codex Max High
claude-opus-4-8 - Claude Opus 4.8
claude-opus-4-8-thinking-low - Claude Opus 4.8 Thinking Low
claude-opus-4-8-thinking-high - Claude Opus 4.8 Thinking High
claude-opus-4-8-thinking-max - Claude Opus 4.8 Thinking Max
claude-opus-4-8-thinking-max-fast - Claude Opus 4.8 Thinking Max Fast
claude-4.6-opus-high - Claude 4.6 Opus High
claude-4.6-opus-max - Claude 4.6 Opus
claude-4.6-opus-high-thinking - Claude 4.6 Opus High Thinking
claude-4.6-opus-max-thinking - Claude 4.6 Opus Max Thinking
claude-opus-4-7-low - Claude Opus 4.7 1M Low
claude-opus-4-7-high - Claude Opus 4.7 1M High
claude-opus-4-7-xhigh - Claude Opus 4.7 1M
claude-opus-4-7-max - Claude Opus 4.7 1M Max
sonnet-4.6 - Claude 4.6 Sonnet
sonnet-4.6-thinking - Claude 4.6 Sonnet (Thinking)
kimi-k3-max - Kimi K3
kimi-k3-high - Kimi K3 High
grok-4-fast - Grok 4 Fast
o4-mini-high - o4 mini High
grok-code-fast-1 - Grok Code
claude-opus-4-8[context=1m,effort=high] - Claude Opus 4.8 1M High
";

fn listing(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| line.split_once(" - "))
        .map(|(id, name)| (id.to_owned(), name.to_owned()))
        .collect()
}

fn family<'a>(families: &'a [ModelFamily], id: &str) -> &'a ModelFamily {
    families
        .iter()
        .find(|family| family.id == id)
        .unwrap_or_else(|| panic!("no family {id}"))
}

/// The family's default id and `variant -> id`, in the listing's order.
fn shape(family: &ModelFamily) -> (&str, Vec<(&str, &str)>) {
    let variants = family
        .members
        .iter()
        .filter_map(|m| m.variant.as_deref().map(|v| (v, m.id.as_str())))
        .collect();
    (family.default_member().id.as_str(), variants)
}

#[test]
fn families_and_their_variants_table() {
    let families = group_models(&listing(LISTING));
    for (id, default, variants) in [
        ("auto", "auto", vec![]),
        (
            "composer-2.5",
            "composer-2.5",
            vec![("fast", "composer-2.5-fast")],
        ),
        (
            "gpt-5.4",
            "gpt-5.4-medium",
            vec![
                ("low", "gpt-5.4-low"),
                ("medium-fast", "gpt-5.4-medium-fast"),
                ("high", "gpt-5.4-high"),
                ("high-fast", "gpt-5.4-high-fast"),
                ("xhigh", "gpt-5.4-xhigh"),
            ],
        ),
        (
            "gpt-5.5",
            "gpt-5.5-medium",
            vec![("high", "gpt-5.5-high"), ("xhigh", "gpt-5.5-extra-high")],
        ),
        // No `-high`, but `-high-fast`.
        (
            "gpt-5.6-luna",
            "gpt-5.6-luna-medium",
            vec![
                ("low", "gpt-5.6-luna-low"),
                ("high-fast", "gpt-5.6-luna-high-fast"),
                ("xhigh", "gpt-5.6-luna-xhigh"),
            ],
        ),
        // Both spellings of one effort: each keeps its own tail.
        (
            "gpt-5.7",
            "gpt-5.7-medium",
            vec![
                ("xhigh", "gpt-5.7-xhigh"),
                ("extra-high", "gpt-5.7-extra-high"),
            ],
        ),
        ("gpt-5.3-codex", "gpt-5.3-codex", vec![]),
        ("gpt-5.2", "gpt-5.2", vec![]),
        // Alone under its base `gpt-5.1-codex`: a model of its own.
        ("gpt-5.1-codex-high", "gpt-5.1-codex-high", vec![]),
        // A base whose tail looks like an effort, since other ids are read off it.
        (
            "gpt-5.1-codex-max",
            "gpt-5.1-codex-max",
            vec![
                ("low", "gpt-5.1-codex-max-low"),
                ("high", "gpt-5.1-codex-max-high"),
            ],
        ),
        (
            "claude-opus-4-8",
            "claude-opus-4-8",
            vec![
                ("thinking-low", "claude-opus-4-8-thinking-low"),
                ("thinking-high", "claude-opus-4-8-thinking-high"),
                ("thinking-max", "claude-opus-4-8-thinking-max"),
                ("thinking-max-fast", "claude-opus-4-8-thinking-max-fast"),
            ],
        ),
        // The effort after `-thinking`, and a default whose id ends in `max`.
        (
            "claude-4.6-opus",
            "claude-4.6-opus-max",
            vec![
                ("high", "claude-4.6-opus-high"),
                ("thinking-high", "claude-4.6-opus-high-thinking"),
                ("thinking-max", "claude-4.6-opus-max-thinking"),
            ],
        ),
        (
            "claude-opus-4-7",
            "claude-opus-4-7-xhigh",
            vec![
                ("low", "claude-opus-4-7-low"),
                ("high", "claude-opus-4-7-high"),
                ("max", "claude-opus-4-7-max"),
            ],
        ),
        (
            "sonnet-4.6",
            "sonnet-4.6",
            vec![("thinking", "sonnet-4.6-thinking")],
        ),
        ("kimi-k3", "kimi-k3-max", vec![("high", "kimi-k3-high")]),
        ("grok-4-fast", "grok-4-fast", vec![]),
        ("o4-mini-high", "o4-mini-high", vec![]),
        ("grok-code-fast-1", "grok-code-fast-1", vec![]),
        (
            "claude-opus-4-8[context=1m,effort=high]",
            "claude-opus-4-8[context=1m,effort=high]",
            vec![],
        ),
    ] {
        assert_eq!(shape(family(&families, id)), (default, variants), "{id}");
    }
    assert_eq!(families.len(), 19, "every family is in the table above");
}

#[test]
fn every_listed_id_is_reached_by_exactly_one_family_and_variant() {
    let listed = listing(LISTING);
    let families = group_models(&listed);
    let mut addresses: Vec<(&str, Option<&str>, &str)> = Vec::new();
    for family in &families {
        let defaults = family.members.iter().filter(|m| m.variant.is_none());
        assert_eq!(defaults.count(), 1, "{}: one default", family.id);
        for member in &family.members {
            addresses.push((&family.id, member.variant.as_deref(), &member.id));
        }
    }
    let ids: Vec<&str> = addresses.iter().map(|(_, _, id)| *id).collect();
    let listed_ids: Vec<&str> = listed.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids.len(), listed_ids.len());
    assert_eq!(
        ids.iter().collect::<HashSet<_>>(),
        listed_ids.iter().collect::<HashSet<_>>()
    );
    let keys: HashSet<(&str, Option<&str>)> = addresses.iter().map(|(f, v, _)| (*f, *v)).collect();
    assert_eq!(keys.len(), addresses.len(), "no two ids share an address");
    let family_ids: HashSet<&str> = families.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(family_ids.len(), families.len(), "family ids are unique");
    for family in &families {
        // A family's id is never another family's listed id.
        let elsewhere = families
            .iter()
            .filter(|other| other.id != family.id)
            .flat_map(|other| &other.members)
            .any(|member| member.id == family.id);
        assert!(!elsewhere, "{}", family.id);
    }
}

#[test]
fn a_family_appears_where_its_first_id_is_listed() {
    let families = group_models(&listing(LISTING));
    let order: Vec<&str> = families.iter().take(4).map(|f| f.id.as_str()).collect();
    assert_eq!(order, ["auto", "composer-2.5", "gpt-5.4", "gpt-5.5"]);
}

#[test]
fn without_a_plain_label_the_default_is_the_base_or_the_middle_rung() {
    for (text, default) in [
        // No label without a rung word: the base id.
        ("x-1 - X One Max\nx-1-high - X One High\n", "x-1"),
        // The base id listed, whatever the labels: its name keeps running it.
        ("v-5 - V Five Max\nv-5-medium - V Five\nv-5-high - V Five High\n", "v-5"),
        // Neither: medium before high before low; thinking, then fast, last.
        ("y-2-low - Y Low\ny-2-high - Y High\ny-2-medium-fast - Y Medium Fast\ny-2-medium - Y Medium\n", "y-2-medium"),
        ("z-3-thinking-high - Z Thinking High\nz-3-high-fast - Z High Fast\n", "z-3-thinking-high"),
        // Two plain labels: the better ranked of them.
        ("w-4-low - W\nw-4-high - W\n", "w-4-high"),
    ] {
        let families = group_models(&listing(text));
        assert_eq!(families.len(), 1, "{text}");
        assert_eq!(families[0].default_member().id, default, "{text}");
    }
}

#[test]
fn an_effort_runs_the_rung_cursor_lists() {
    let listed = listing(LISTING);
    for (model, effort, runs) in [
        ("gpt-5.4", None, "gpt-5.4-medium"),
        ("gpt-5.4", Some("high"), "gpt-5.4-high"),
        ("gpt-5.4", Some("medium"), "gpt-5.4-medium"),
        ("gpt-5.4", Some("xhigh"), "gpt-5.4-xhigh"),
        ("gpt-5.4", Some("extra-high"), "gpt-5.4-xhigh"),
        ("gpt-5.5", Some("xhigh"), "gpt-5.5-extra-high"),
        // Only `-high-fast` is listed at high.
        ("gpt-5.6-luna", Some("high"), "gpt-5.6-luna-high-fast"),
        // Not listed: the default.
        ("gpt-5.4", Some("max"), "gpt-5.4-medium"),
        ("gpt-5.4", Some("ultra"), "gpt-5.4-medium"),
        ("gpt-5.3-codex", Some("high"), "gpt-5.3-codex"),
        // The default's thinking and speed first.
        ("claude-4.6-opus", Some("high"), "claude-4.6-opus-high"),
        (
            "claude-opus-4-8",
            Some("max"),
            "claude-opus-4-8-thinking-max",
        ),
        ("claude-opus-4-7", Some("low"), "claude-opus-4-7-low"),
        ("claude-opus-4-7", None, "claude-opus-4-7-xhigh"),
        // A listed id runs as it is, an effort or not.
        ("gpt-5.4-high", Some("low"), "gpt-5.4-high"),
        ("gpt-5.4-xhigh", None, "gpt-5.4-xhigh"),
        ("kimi-k3-max", None, "kimi-k3-max"),
        // Anything else goes to Cursor as named (which refuses an id it does not list).
        ("no-such-model", Some("high"), "no-such-model"),
    ] {
        assert_eq!(
            model_for(&listed, model, effort),
            runs,
            "{model} {effort:?}"
        );
    }
}

#[test]
fn every_listed_id_runs_itself_when_named() {
    // The second: a listed base whose label names a rung, beside a plain-labelled sibling.
    for text in [LISTING, "v-5 - V Five Max\nv-5-medium - V Five\n"] {
        let listed = listing(text);
        for (id, _) in &listed {
            assert_eq!(&model_for(&listed, id, None), id, "{id}");
        }
    }
}
