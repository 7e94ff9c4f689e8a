use crate::core::error::RunError;
use crate::core::wire::typescript::{interface, Field};

const RENDERED_FROM: &str =
    "// Rendered from the definitions in src/core/api/ (a test compares).\n";
const RENDERED_END: &str = "// End of the rendered API declarations.\n";

/// Every interface of the native API's data, in the order `header.d.ts` declares them.
fn rendered() -> String {
    let interfaces: Vec<(&[&str], &str, Vec<Field>)> = vec![
        (
            super::run::RunCursorAgentOptions::TYPESCRIPT_DOCS,
            "RunCursorAgentOptions",
            super::run::RunCursorAgentOptions::typescript_fields(2),
        ),
        (
            super::run::HostToolsOptions::TYPESCRIPT_DOCS,
            "HostToolsOptions",
            super::run::HostToolsOptions::typescript_fields(2),
        ),
        (
            super::run::RunCaptureOptions::TYPESCRIPT_DOCS,
            "RunCaptureOptions",
            super::run::RunCaptureOptions::typescript_fields(2),
        ),
        (
            super::run::ToolAnswer::TYPESCRIPT_DOCS,
            "ToolAnswer",
            super::run::ToolAnswer::typescript_fields(2),
        ),
        (
            super::run::ToolAnswerImage::TYPESCRIPT_DOCS,
            "ToolAnswerImage",
            super::run::ToolAnswerImage::typescript_fields(2),
        ),
        (
            crate::core::agent::RunStep::TYPESCRIPT_DOCS,
            "RunStep",
            crate::core::agent::RunStep::typescript_fields(2),
        ),
        (
            crate::core::bridge::HostCall::TYPESCRIPT_DOCS,
            "HostCall",
            crate::core::bridge::HostCall::typescript_fields(2),
        ),
        (
            crate::core::agent::RunResult::TYPESCRIPT_DOCS,
            "RunResult",
            crate::core::agent::RunResult::typescript_fields(2),
        ),
        (
            RunError::TYPESCRIPT_DOCS,
            "RunError",
            RunError::typescript_fields(2),
        ),
        (
            crate::core::stream::usage::CursorUsage::TYPESCRIPT_DOCS,
            "CursorUsage",
            crate::core::stream::usage::CursorUsage::typescript_fields(2),
        ),
        (
            super::translation::StreamTransformerOptions::TYPESCRIPT_DOCS,
            "StreamTransformerOptions",
            super::translation::StreamTransformerOptions::typescript_fields(2),
        ),
        (
            super::translation::StreamOutcome::TYPESCRIPT_DOCS,
            "StreamOutcome",
            super::translation::StreamOutcome::typescript_fields(2),
        ),
        (
            super::resume::SessionResumeOptions::TYPESCRIPT_DOCS,
            "SessionResumeOptions",
            super::resume::SessionResumeOptions::typescript_fields(2),
        ),
        (
            super::resume::ResumeRequest::TYPESCRIPT_DOCS,
            "ResumeRequest",
            super::resume::ResumeRequest::typescript_fields(2),
        ),
        (
            super::resume::ResumePlan::TYPESCRIPT_DOCS,
            "ResumePlan",
            super::resume::ResumePlan::typescript_fields(2),
        ),
        (
            super::attachments::PlannedAttachments::TYPESCRIPT_DOCS,
            "PlannedAttachments",
            super::attachments::PlannedAttachments::typescript_fields(2),
        ),
        (
            super::attachments::PlannedAttachment::TYPESCRIPT_DOCS,
            "PlannedAttachment",
            super::attachments::PlannedAttachment::typescript_fields(2),
        ),
        (
            super::resume::ResumeFailure::TYPESCRIPT_DOCS,
            "ResumeFailure",
            super::resume::ResumeFailure::typescript_fields(2),
        ),
        (
            super::prompt::PromptRequest::TYPESCRIPT_DOCS,
            "PromptRequest",
            super::prompt::PromptRequest::typescript_fields(2),
        ),
        (
            super::agent::CursorAgentLookupOptions::TYPESCRIPT_DOCS,
            "CursorAgentLookupOptions",
            super::agent::CursorAgentLookupOptions::typescript_fields(2),
        ),
        (
            super::agent::CursorAgentResolution::TYPESCRIPT_DOCS,
            "CursorAgentResolution",
            super::agent::CursorAgentResolution::typescript_fields(2),
        ),
        (
            super::agent::CursorModel::TYPESCRIPT_DOCS,
            "CursorModel",
            super::agent::CursorModel::typescript_fields(2),
        ),
        (
            super::models::CursorModelName::TYPESCRIPT_DOCS,
            "CursorModelName",
            super::models::CursorModelName::typescript_fields(2),
        ),
        (
            super::models::CursorModelFamily::TYPESCRIPT_DOCS,
            "CursorModelFamily",
            super::models::CursorModelFamily::typescript_fields(2),
        ),
        (
            super::models::CursorModelVariant::TYPESCRIPT_DOCS,
            "CursorModelVariant",
            super::models::CursorModelVariant::typescript_fields(2),
        ),
        (
            super::agent::CursorAgentCommandOptions::TYPESCRIPT_DOCS,
            "CursorAgentCommandOptions",
            super::agent::CursorAgentCommandOptions::typescript_fields(2),
        ),
        (
            super::agent::CursorAgentCommandResult::TYPESCRIPT_DOCS,
            "CursorAgentCommandResult",
            super::agent::CursorAgentCommandResult::typescript_fields(2),
        ),
        (
            super::logging::LoggingOptions::TYPESCRIPT_DOCS,
            "LoggingOptions",
            super::logging::LoggingOptions::typescript_fields(2),
        ),
    ];
    interfaces
        .iter()
        .map(|(docs, name, fields)| interface(docs, name, fields))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn header_declares_the_api_exactly_as_it_is_read_and_written() {
    crate::core::wire::typescript::check_header_section(RENDERED_FROM, RENDERED_END, &rendered());
}

#[test]
fn a_plan_handed_back_is_read_without_its_attachments() {
    // `record` and `reportFailure` read the plan back; its files are skipped, whatever they hold.
    let plan: super::resume::ResumePlan = serde_json::from_value(serde_json::json!({
        "sessionKey": "k",
        "prompt": "p",
        "incremental": true,
        "attachments": {"folder": "/x", "files": [{"name": "a.png", "data": "AAAA"}], "warnings": []},
    }))
    .unwrap();
    assert_eq!(plan.session_key.0.as_deref(), Some("k"));
    assert_eq!(plan.attachments.0, None);
    let skipped: Result<super::resume::ResumePlan, _> =
        serde_json::from_value(serde_json::json!({"prompt": "p", "attachments": 42}));
    assert!(skipped.is_ok(), "not even read: {skipped:?}");
}
