//! Checking a call's arguments against the tool's JSON schema before the host sees it: a call
//! that fails is answered at once with the reasons, so the model can correct itself.

use jsonschema::Validator;
use serde_json::{Map, Value};

/// How many schema violations a refusal lists.
const REASONS_SHOWN: usize = 5;

/// A tool's compiled argument check.
#[derive(Debug)]
pub struct ArgumentCheck {
    validator: Option<Validator>,
}

impl ArgumentCheck {
    /// A schema that does not compile is not held against the model: OpenCode checks the
    /// arguments again before it runs the tool.
    pub fn new(schema: &Map<String, Value>) -> Self {
        let schema = Value::Object(schema.clone());
        let validator = match jsonschema::options()
            .should_validate_formats(false)
            .build(&schema)
        {
            Ok(validator) => Some(validator),
            Err(error) => {
                tracing::warn!(%error, "a tool's schema could not be compiled; its arguments are not checked");
                None
            }
        };
        Self { validator }
    }

    /// `Err` with the reasons, one per line, when `arguments` do not match.
    pub fn check(&self, arguments: &Value) -> Result<(), String> {
        let Some(validator) = &self.validator else {
            return Ok(());
        };
        let reasons: Vec<String> = validator
            .iter_errors(arguments)
            .take(REASONS_SHOWN)
            .map(|error| {
                let at = error.instance_path().to_string();
                if at.is_empty() {
                    error.to_string()
                } else {
                    format!("{at}: {error}")
                }
            })
            .collect();
        if reasons.is_empty() {
            Ok(())
        } else {
            Err(reasons.join("\n"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read_schema() -> Map<String, Value> {
        json!({
            "type": "object",
            "properties": {
                "filePath": {"type": "string"},
                "offset": {"type": "number"},
                "limit": {"type": "number"}
            },
            "required": ["filePath"],
            "additionalProperties": false
        })
        .as_object()
        .unwrap()
        .clone()
    }

    #[test]
    fn arguments_table() {
        let check = ArgumentCheck::new(&read_schema());
        let table = [
            (json!({"filePath": "/a"}), None),
            (json!({"filePath": "/a", "offset": 3}), None),
            (json!({}), Some("filePath")),
            (json!({"filePath": 7}), Some("/filePath")),
            (json!({"filePath": "/a", "other": true}), Some("other")),
            (json!("text"), Some("object")),
        ];
        for (arguments, reason) in table {
            match (check.check(&arguments), reason) {
                (Ok(()), None) => {}
                (Err(why), Some(word)) => assert!(why.contains(word), "{arguments}: {why}"),
                (got, want) => panic!("{arguments}: got {got:?}, wanted {want:?}"),
            }
        }
    }

    #[test]
    fn a_schema_that_does_not_compile_checks_nothing() {
        let broken = json!({"type": 12}).as_object().unwrap().clone();
        assert_eq!(ArgumentCheck::new(&broken).check(&json!({"x": 1})), Ok(()));
    }
}
