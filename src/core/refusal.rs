//! How the package words an argument it refuses: serde's messages ("invalid type: integer `5`,
//! expected a string") in the package's own words, naming the field by its path
//! ("`hostTools.waitMs` must be a whole number from 1 to 9007199254740991, got 1.5"). The words
//! are JS words, for JS callers: "an array", "an object", "undefined or null".

/// Words of serde's messages and the package's words for them. serde words a type mismatch
/// "invalid type: <what came>, expected <what was wanted>", naming Rust types; a caller wants
/// JS ones.
const WANTED_WORDS: &[(&str, &str)] = &[
    ("a string", "a string"),
    ("a boolean", "true or false"),
    ("a sequence", "an array"),
    ("a map", "an object"),
    ("i32", "a whole number from -2147483648 to 2147483647"),
    ("i64", "a whole number"),
    ("f64", "a number"),
];

/// What came, as serde describes it (by its first word), in the package's words.
const GIVEN_WORDS: &[(&str, &str)] = &[
    ("unit value", "undefined or null"),
    ("string", "a string"),
    ("map", "an object"),
    ("sequence", "an array"),
    ("byte array", "a Buffer"),
    ("floating point", ""),
    ("integer", ""),
    ("boolean", ""),
];

/// A conversion failure in the package's words: "`path` must be <wanted>, got <given>". `what`
/// names the argument when the failure is about the argument as a whole (an empty `path`).
pub fn explain(what: &str, path: &str, reason: &str) -> String {
    /// Enough of a path to find the field; a deep one is cut short.
    const SHOWN_PATH: usize = 80;
    let subject = match path {
        "" | "." => what.to_owned(),
        path if path.len() > SHOWN_PATH => {
            let end = (0..=SHOWN_PATH)
                .rev()
                .find(|&i| path.is_char_boundary(i))
                .unwrap_or(0);
            format!("`{}...`", &path[..end])
        }
        path => format!("`{path}`"),
    };

    if let Some(field) = between(reason, "missing field `", "`") {
        let full = if subject == what {
            field.to_owned()
        } else {
            format!("{}.{field}", &subject[1..subject.len() - 1])
        };
        return format!("`{full}` is required");
    }
    if let Some(field) = between(reason, "unknown field `", "`") {
        // Deserializers differ in whether the path already ends with the unknown field (napi's
        // names it twice): the field goes after its parent's path once.
        let mut parent = path;
        while let Some(rest) = parent.strip_suffix(field) {
            parent = rest.strip_suffix('.').unwrap_or(rest);
        }
        let subject = match parent {
            "" | "." => format!("`{field}`"),
            parent => format!("`{parent}.{field}`"),
        };
        let known = reason
            .split_once(", expected ")
            .map(|(_, known)| {
                let known = known.trim_start_matches("one of ").replace(" or ", ", ");
                format!("; the fields are {known}")
            })
            .unwrap_or_default();
        return format!("{subject} is not a field of {what}{known}");
    }
    if let Some(variant) = between(reason, "unknown variant `", "`") {
        let choices = reason
            .split_once(", expected ")
            .map_or("", |(_, choices)| choices.trim_start_matches("one of "))
            .replace('`', "'");
        return format!("{subject} must be {choices}, got '{variant}'");
    }
    if let Some(rest) = reason
        .strip_prefix("invalid type: ")
        .or_else(|| reason.strip_prefix("invalid value: "))
    {
        if let Some((given, wanted)) = rest.split_once(", expected ") {
            return format!(
                "{subject} must be {}, got {}",
                wanted_words(wanted),
                given_words(given)
            );
        }
    }
    if let Some(kind) = between(reason, "typeof ", " value could not be deserialized") {
        return format!("{subject} cannot be a {}", kind.to_lowercase());
    }
    if reason.starts_with("must be ") || reason.starts_with("is ") {
        return format!("{subject} {reason}");
    }
    format!("{subject}: {reason}")
}

fn between<'t>(text: &'t str, start: &str, end: &str) -> Option<&'t str> {
    let rest = &text[text.find(start)? + start.len()..];
    Some(&rest[..rest.find(end)?])
}

fn wanted_words(wanted: &str) -> String {
    if wanted.starts_with("struct ") {
        return "an object".to_owned();
    }
    WANTED_WORDS
        .iter()
        .find(|(serde, _)| *serde == wanted)
        .map_or(wanted, |(_, ours)| ours)
        .to_owned()
}

fn given_words(given: &str) -> String {
    for (serde, ours) in GIVEN_WORDS {
        if let Some(rest) = given.strip_prefix(serde) {
            // A scalar is shown as itself (`1.5`, `true`), any other value by its kind.
            return match rest
                .trim()
                .strip_prefix('`')
                .and_then(|r| r.strip_suffix('`'))
            {
                Some(shown) if ours.is_empty() => shown.to_owned(),
                _ if ours.is_empty() => rest.trim().to_owned(),
                _ => (*ours).to_owned(),
            };
        }
    }
    given.to_owned()
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::explain;

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    #[allow(dead_code, reason = "read only to see how its refusals are worded")]
    struct Outer {
        name: String,
        inner: Option<Inner>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    #[allow(dead_code, reason = "read only to see how its refusals are worded")]
    struct Inner {
        folder: String,
        wait_ms: Option<crate::core::whole_number::Positive>,
    }

    /// What a refusal of serde's reads as, through the path serde_path_to_error reports.
    fn refusal(value: serde_json::Value) -> String {
        let error = serde_path_to_error::deserialize::<_, Outer>(value).expect_err("refused");
        explain(
            "the options",
            &error.path().to_string(),
            &error.inner().to_string(),
        )
    }

    #[test]
    fn each_refusal_names_its_field_by_its_path() {
        use serde_json::json;
        let table = [
            (json!({"name": 5}), "`name` must be a string, got 5"),
            (
                json!({"nmae": "x"}),
                "`nmae` is not a field of the options; the fields are `name`, `inner`",
            ),
            (
                json!({"name": "x", "inner": {}}),
                "`inner.folder` is required",
            ),
            (json!({}), "`name` is required"),
            (
                json!({"name": "x", "inner": {"folder": "/", "waitMs": 0}}),
                "`inner.waitMs` must be a whole number from 1 to 9007199254740991, got 0",
            ),
            (
                json!({"name": "x", "inner": {"folder": "/", "waitMs": 1.5}}),
                "`inner.waitMs` must be a whole number from 1 to 9007199254740991, got 1.5",
            ),
            (
                json!({"name": "x", "inner": {"folder": "/", "extra": 1}}),
                "`inner.extra` is not a field of the options; the fields are `folder`, `waitMs`",
            ),
            (json!(7), "the options must be an object, got 7"),
        ];
        for (value, expected) in table {
            assert_eq!(refusal(value.clone()), expected, "{value}");
        }
    }

    #[test]
    fn serde_wording_becomes_the_packages() {
        let table: &[(&str, &str, &str)] = &[
            ("idleTimeoutMs", "invalid type: string \"5\", expected a whole number from 0 to 9", "`idleTimeoutMs` must be a whole number from 0 to 9, got a string"),
            ("created", "must be a whole number from 0 to 9, got 1.5", "`created` must be a whole number from 0 to 9, got 1.5"),
            ("force", "invalid type: string \"true\", expected a boolean", "`force` must be true or false, got a string"),
            ("extraArgs", "invalid type: string \"--x\", expected a sequence", "`extraArgs` must be an array, got a string"),
            ("extraArgs[0]", "invalid type: integer `1`, expected a string", "`extraArgs[0]` must be a string, got 1"),
            ("env", "invalid type: sequence, expected a map", "`env` must be an object, got an array"),
            ("exitCode", "invalid value: integer `1099511627776`, expected i32", "`exitCode` must be a whole number from -2147483648 to 2147483647, got 1099511627776"),
            ("format", "unknown variant `sse`, expected `openai-sse` or `ai-sdk`", "`format` must be 'openai-sse' or 'ai-sdk', got 'sse'"),
            ("", "invalid type: integer `5`, expected struct StreamTransformerOptions", "the options must be an object, got 5"),
            ("", "invalid type: unit value, expected struct RunCursorAgentOptions", "the options must be an object, got undefined or null"),
            ("", "missing field `model`", "`model` is required"),
            ("hostTools", "missing field `folder`", "`hostTools.folder` is required"),
            ("modle", "unknown field `modle`, expected one of `prompt`, `model`", "`modle` is not a field of the options; the fields are `prompt`, `model`"),
            ("modle.modle", "unknown field `modle`, expected `prompt`", "`modle` is not a field of the options; the fields are `prompt`"),
            ("hostTools.wait.wait", "unknown field `wait`, expected `waitMs`", "`hostTools.wait` is not a field of the options; the fields are `waitMs`"),
            ("prompt", "typeof Function value could not be deserialized", "`prompt` cannot be a function"),
            ("tools[0]", "is nested more than 10000 levels deep", "`tools[0]` is nested more than 10000 levels deep"),
            ("plan", "something else", "`plan`: something else"),
        ];
        for (path, reason, expected) in table {
            assert_eq!(explain("the options", path, reason), *expected, "{reason}");
            assert!(!expected.to_lowercase().contains("expected"), "{expected}");
        }
    }
}
