//! The tool results that say a call was refused or never ran (as opposed to a call that ran
//! and failed): one table of Cursor's variants, with what each means when Cursor gives no
//! reason, and where a reason may be. Cursor 2026.09 and later adds `timeout`, `spawnError`
//! and `permissionDenied` to `rejected`; their fields were never captured, so the reason is
//! looked for wherever such a result could carry it.
//!
//! The table serves any reader of Cursor's tool results: the translator fills a refused call's
//! `reason` from it, and a reader of the results of the bridge's own MCP calls can tell the
//! same refusals apart with [`tool_refusal`].

use serde_json::Value;

/// One refusal variant of a tool result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolRefusal {
    /// The variant's key in Cursor's result (its `status` once read by `tool_result`).
    pub variant: &'static str,
    /// What the refusal means when Cursor gives no reason.
    pub unexplained: &'static str,
}

/// Every refusal variant of Cursor's tool results.
pub const TOOL_REFUSALS: &[ToolRefusal] = &[
    ToolRefusal {
        variant: "rejected",
        unexplained: super::REJECTED_REASON,
    },
    ToolRefusal {
        variant: "permissionDenied",
        unexplained: "Cursor did not run this tool: cursor-agent was denied permission to run \
it and gave no reason. An MCP tool needs its server approved (cursor-agent mcp enable) and the \
call allowed (an Mcp(server:tool) rule in .cursor/cli.json, or --force).",
    },
    ToolRefusal {
        variant: "timeout",
        unexplained: "The tool call timed out before it finished; cursor-agent gave no details.",
    },
    ToolRefusal {
        variant: "spawnError",
        unexplained: "Cursor could not start this tool's process; cursor-agent gave no details.",
    },
    ToolRefusal {
        variant: "needsApproval",
        unexplained: "Cursor did not run this tool: it needs an approval, which cursor-agent \
cannot ask for in print mode (a team's MCP tool controls can require one whatever the allow rules \
say).",
    },
];

/// Where a refusal's reason may be, in order: each a path of keys into the result (after its
/// variant's fields were lifted beside `status`). The variant's own key holding a string (a
/// variant whose value was a string) is tried last.
pub const REFUSAL_REASON_PATHS: &[&[&str]] = &[
    &["reason"],
    &["error"],
    &["error", "message"],
    &["error", "error"],
    &["message"],
    &["details"],
    &["description"],
];

/// A refused call: its variant and why (Cursor's words, or the variant's explanation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedCall {
    pub refusal: &'static ToolRefusal,
    pub reason: String,
}

/// The refusal a tool result (`{status, ...the variant's fields}`, as `tool_result` reads it)
/// stands for; `None` for a result that is not a refusal.
pub fn tool_refusal(result: &Value) -> Option<RefusedCall> {
    let status = result.get("status")?.as_str()?;
    let refusal = TOOL_REFUSALS.iter().find(|r| r.variant == status)?;
    let at = |path: &[&str]| {
        path.iter()
            .try_fold(result, |value, key| value.get(key))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|text| !text.is_empty())
    };
    let reason = REFUSAL_REASON_PATHS
        .iter()
        .find_map(|path| at(path))
        .or_else(|| at(&[status]))
        .unwrap_or(refusal.unexplained);
    Some(RefusedCall {
        refusal,
        reason: reason.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Every variant, with its reason in each place Cursor may put it, or nowhere.
    #[test]
    fn each_refusal_finds_its_reason_or_explains_itself() {
        let mut table = Vec::new();
        for refusal in TOOL_REFUSALS {
            let v = refusal.variant;
            table.extend([
                (json!({"status": v, "reason": "r1"}), Some("r1")),
                (json!({"status": v, "error": "r2"}), Some("r2")),
                (json!({"status": v, "error": {"message": "r3"}}), Some("r3")),
                (json!({"status": v, "error": {"error": "r4"}}), Some("r4")),
                (json!({"status": v, "message": "r5"}), Some("r5")),
                (json!({"status": v, (v): "r6"}), Some("r6")),
                (
                    json!({"status": v, "reason": " ", "error": "r7"}),
                    Some("r7"),
                ),
                (json!({"status": v}), None),
                (
                    json!({"status": v, "reason": "", "error": {"code": 3}}),
                    None,
                ),
            ]);
        }
        for (result, reason) in table {
            let refused = tool_refusal(&result).expect("a refusal");
            assert_eq!(refused.refusal.variant, result["status"], "{result}");
            let expected = reason.unwrap_or(refused.refusal.unexplained);
            assert_eq!(refused.reason, expected, "{result}");
        }
    }

    #[test]
    fn other_results_are_not_refusals() {
        for result in [
            json!({"status": "success"}),
            json!({"status": "failure", "reason": "x"}),
            json!({"status": "error", "error": "x"}),
            json!({"status": "interrupted"}),
            json!({"reason": "no status"}),
        ] {
            assert_eq!(tool_refusal(&result), None, "{result}");
        }
    }

    #[test]
    fn the_variants_are_told_apart_once_each() {
        let mut variants: Vec<&str> = TOOL_REFUSALS.iter().map(|r| r.variant).collect();
        variants.sort_unstable();
        variants.dedup();
        assert_eq!(variants.len(), TOOL_REFUSALS.len());
        assert!(TOOL_REFUSALS.iter().all(|r| !r.unexplained.is_empty()));
    }
}
