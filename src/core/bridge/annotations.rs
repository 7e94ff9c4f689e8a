//! The MCP annotations the bridge declares on the tools it serves. Cursor's client (since
//! `@cursor/sdk` 1.0.32) sends them to Cursor's backend, where a team's MCP tool policy in
//! `reads` mode admits a tool by its `readOnlyHint` even where the team overrides the user's
//! allow rules. A hint is declared only where it holds for every call of the tool; a tool the
//! table does not know (another MCP server's, through OpenCode) gets none, which MCP reads as
//! "may change anything, may reach anywhere".

use rmcp::model::ToolAnnotations;

use super::parked::{MORE_TOOL, WAIT_TOOL};

/// What a tool does to its environment, as MCP's hints say it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hints {
    pub read_only: bool,
    /// Meaningful only when not read-only: it may overwrite or delete.
    pub destructive: bool,
    /// Meaningful only when not read-only: the same call again changes nothing more.
    pub idempotent: bool,
    /// It reaches beyond the machine (the web, other services).
    pub open_world: bool,
}

const READS_LOCALLY: Hints = Hints {
    read_only: true,
    destructive: false,
    idempotent: true,
    open_world: false,
};
const READS_THE_WEB: Hints = Hints {
    read_only: true,
    destructive: false,
    idempotent: true,
    open_world: true,
};
const EDITS_FILES: Hints = Hints {
    read_only: false,
    destructive: true,
    idempotent: false,
    open_world: false,
};
const RUNS_COMMANDS: Hints = Hints {
    read_only: false,
    destructive: true,
    idempotent: false,
    open_world: true,
};

/// OpenCode's built-in tools (1.18's and 2's names) and the bridge's own, with their hints.
/// `task`/`subagent` (another agent, which may do anything) and `todowrite` (the session's own
/// list) get none.
pub const TOOL_HINTS: &[(&str, Hints)] = &[
    ("read", READS_LOCALLY),
    ("glob", READS_LOCALLY),
    ("grep", READS_LOCALLY),
    ("list", READS_LOCALLY),
    ("lsp", READS_LOCALLY),
    ("todoread", READS_LOCALLY),
    ("skill", READS_LOCALLY),
    ("webfetch", READS_THE_WEB),
    ("websearch", READS_THE_WEB),
    ("codesearch", READS_THE_WEB),
    (
        "write",
        Hints {
            idempotent: true,
            ..EDITS_FILES
        },
    ),
    ("edit", EDITS_FILES),
    ("multiedit", EDITS_FILES),
    ("patch", EDITS_FILES),
    ("apply_patch", EDITS_FILES),
    ("bash", RUNS_COMMANDS),
    ("shell", RUNS_COMMANDS),
    // Waiting reads a result the bridge holds; a page, once given, is gone (not idempotent).
    (WAIT_TOOL, READS_LOCALLY),
    (
        MORE_TOOL,
        Hints {
            idempotent: false,
            ..READS_LOCALLY
        },
    ),
];

/// The annotations of tool `name`, when the table knows it.
pub fn annotations_of(name: &str) -> Option<ToolAnnotations> {
    let (_, hints) = TOOL_HINTS.iter().find(|(tool, _)| *tool == name)?;
    let annotations = ToolAnnotations::new()
        .read_only(hints.read_only)
        .open_world(hints.open_world);
    Some(if hints.read_only {
        annotations
    } else {
        annotations
            .destructive(hints.destructive)
            .idempotent(hints.idempotent)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tool and its hints as JSON sends them: readOnlyHint, destructiveHint, idempotentHint,
    /// openWorldHint (the two in the middle only on a tool that is not read-only).
    type Row = (&'static str, bool, Option<bool>, Option<bool>, bool);

    #[test]
    fn each_known_tool_gets_exactly_its_hints() {
        let table: &[Row] = &[
            ("read", true, None, None, false),
            ("grep", true, None, None, false),
            ("webfetch", true, None, None, true),
            ("write", false, Some(true), Some(true), false),
            ("edit", false, Some(true), Some(false), false),
            ("shell", false, Some(true), Some(false), true),
            ("bash", false, Some(true), Some(false), true),
            ("opencode_wait", true, None, None, false),
            ("opencode_more", true, None, None, false),
        ];
        for &(tool, read_only, destructive, idempotent, open_world) in table {
            let json = serde_json::to_value(annotations_of(tool).unwrap()).unwrap();
            assert_eq!(json["readOnlyHint"], read_only, "{tool}: {json}");
            assert_eq!(json["openWorldHint"], open_world, "{tool}: {json}");
            assert_eq!(
                json.get("destructiveHint").and_then(|v| v.as_bool()),
                destructive,
                "{tool}"
            );
            assert_eq!(
                json.get("idempotentHint").and_then(|v| v.as_bool()),
                idempotent,
                "{tool}"
            );
        }
    }

    #[test]
    fn tools_it_cannot_vouch_for_get_no_annotations() {
        for tool in ["task", "subagent", "todowrite", "github_create_issue", ""] {
            assert!(annotations_of(tool).is_none(), "{tool}");
        }
    }

    #[test]
    fn the_bridge_own_tools_are_in_the_table() {
        for own in [WAIT_TOOL, MORE_TOOL] {
            assert!(
                annotations_of(own).is_some_and(|a| a.read_only_hint == Some(true)),
                "{own}"
            );
        }
    }
}
