//! How arguments cross from JS: each one into the `#[napi(object)]` struct that also declares
//! its TypeScript shape, through serde, so a field's name, type and range are written once.
//!
//! Two routes, by what the argument is:
//! * options (and the small objects a caller hands back) are read as the JS values they are
//!   ([`read`], napi's serde deserializer): `NaN` is a number there, a function is refused;
//! * a conversation (`messages`, `tools`) is read as the JSON data `JSON.stringify` makes of it
//!   ([`read_json`]): `toJSON` is honoured, and a long list crosses in slices (see
//!   [`json_text`]).
//!
//! Either way a refusal is `E_INVALID_ARG` with a message that names the field by its path
//! (`hostTools.waitMs`), in the package's words ([`explain`]), never napi's or serde's.

use napi::bindgen_prelude::{FnArgs, FromNapiValue, Function, JsObjectValue, Object};
use napi::{De, Env, JsValue, Unknown, ValueType, JSON};
use serde::de::DeserializeOwned;

use super::error::{from_napi, invalid_arg, Result};
use crate::core::json;

/// Reads `value` as `T`; `what` names the argument when the value as a whole is refused.
pub fn read<T: DeserializeOwned>(env: &Env, value: Unknown<'_>, what: &str) -> Result<T> {
    // napi's deserializer takes its value as an `Object`, but reads the JS type of the handle
    // itself; a handle of any type is read correctly.
    let holder = Object::from_raw(env.raw(), value.raw());
    let mut deserializer = De::new(&holder);
    // On the caller's own stack: the engine refuses calls from any other. Values nested in
    // option objects (tool definitions) are bounded instead (`json::BoundedValue`).
    serde_path_to_error::deserialize(&mut deserializer)
        .map_err(|e| invalid_arg(explain(what, &e.path().to_string(), &e.inner().reason)))
}

/// Reads an argument that may be absent (`undefined`, `null`, or not passed).
pub fn read_optional<T: DeserializeOwned>(
    env: &Env,
    value: Option<Unknown<'_>>,
    what: &str,
) -> Result<Option<T>> {
    match value {
        Some(value) => read::<Option<T>>(env, value, what),
        None => Ok(None),
    }
}

/// A value read as JSON data, with the depth at which it must be used and dropped
/// ([`json::with_stack_for`]).
pub struct Deep<T> {
    pub value: T,
    pub depth: usize,
}

impl<T> Deep<T> {
    /// Runs `work` on the value, and drops it, on a stack deep enough for its nesting.
    pub fn use_with<R>(self, work: impl FnOnce(T) -> Result<R>) -> Result<R> {
        let Self { value, depth } = self;
        json::with_stack_for(depth, move || work(value))
    }
}

/// Reads `value` as JSON data into `T`: what `JSON.stringify` makes of it, nested up to
/// [`json::MAX_DEPTH`] levels.
pub fn read_json<T: DeserializeOwned>(
    env: &Env,
    value: Unknown<'_>,
    what: &str,
) -> Result<Deep<T>> {
    let (text, depth) = json_text(env, value, what)?;
    let value = json::with_stack_for(depth, || {
        let mut deserializer = serde_json::Deserializer::from_str(&text);
        deserializer.disable_recursion_limit();
        serde_path_to_error::deserialize(&mut deserializer).map_err(|e| {
            // serde_json ends its messages with where in the text it stopped, which means
            // nothing to the caller.
            let reason = e.inner().to_string();
            let reason = reason
                .rsplit_once(" at line ")
                .map_or(reason.as_str(), |(r, _)| r);
            invalid_arg(explain(what, &e.path().to_string(), reason))
        })
    })?;
    Ok(Deep { value, depth })
}

/// Elements of an array turned into one JSON text at a time.
const ELEMENTS_PER_SLICE: u32 = 16;

/// The JSON text of an argument, with its nesting depth. Each property of an object is
/// stringified on its own, and an array of more than a few elements in slices: a whole
/// conversation as one string is hundreds of kilobytes, which V8 keeps in its large-object
/// space until a full collection, and those collections were the slow tail of every call that
/// reads a request. Slices are small strings the young generation frees cheaply. The text is
/// the same: `JSON.stringify` of a slice is that of its elements.
fn json_text(env: &Env, value: Unknown<'_>, what: &str) -> Result<(String, usize)> {
    let stringify = Stringify::new(env)?;
    if value.get_type().map_err(from_napi)? != ValueType::Object
        || value.is_array().map_err(from_napi)?
    {
        return stringify.value(value, what);
    }
    let object = Object::from_unknown(value).map_err(from_napi)?;
    let names = object.get_property_names().map_err(from_napi)?;
    let (mut text, mut depth) = (String::from("{"), 1);
    for index in 0..names.get_array_length().map_err(from_napi)? {
        let key: String = names.get_element(index).map_err(from_napi)?;
        let field: Unknown<'_> = object
            .get_named_property_unchecked(&key)
            .map_err(from_napi)?;
        if matches!(
            field.get_type().map_err(from_napi)?,
            ValueType::Undefined | ValueType::Function | ValueType::Symbol
        ) {
            continue;
        }
        let (field_text, field_depth) = stringify.value(field, &format!("`{key}`"))?;
        if text.len() > 1 {
            text.push(',');
        }
        text.push_str(&serde_json::to_string(&key).map_err(|e| invalid_arg(e.to_string()))?);
        text.push(':');
        text.push_str(&field_text);
        depth = depth.max(field_depth + 1);
    }
    text.push('}');
    Ok((text, depth))
}

/// `JSON.stringify`, applied in slices to long arrays.
struct Stringify<'env> {
    json: JSON<'env>,
}

impl<'env> Stringify<'env> {
    fn new(env: &'env Env) -> Result<Self> {
        let json = env
            .get_global()
            .and_then(|global| global.get_named_property_unchecked("JSON"))
            .map_err(from_napi)?;
        Ok(Self { json })
    }

    /// The JSON text of `value` and its depth; `what` names it when it cannot be written or is
    /// nested past [`json::MAX_DEPTH`].
    fn value(&self, value: Unknown<'_>, what: &str) -> Result<(String, usize)> {
        let long_array = value.is_array().map_err(from_napi)? && {
            let array = Object::from_unknown(value).map_err(from_napi)?;
            array.get_array_length().map_err(from_napi)? > ELEMENTS_PER_SLICE
        };
        let text = if long_array {
            self.sliced(value, what)?
        } else {
            self.json.stringify(value).map_err(|e| {
                invalid_arg(format!("{what} cannot be read as JSON data: {}", e.reason))
            })?
        };
        let depth = json::depth_bound(&text);
        if depth > json::MAX_DEPTH {
            return Err(invalid_arg(format!(
                "{what} is nested more than {} levels deep",
                json::MAX_DEPTH
            )));
        }
        Ok((text, depth))
    }

    fn sliced(&self, value: Unknown<'_>, what: &str) -> Result<String> {
        let array = Object::from_unknown(value).map_err(from_napi)?;
        let length: u32 = array.get_array_length().map_err(from_napi)?;
        let slice: Function<'_, FnArgs<(u32, u32)>, Unknown<'_>> =
            array.get_named_property("slice").map_err(from_napi)?;
        let mut text = String::from("[");
        for start in (0..length).step_by(ELEMENTS_PER_SLICE as usize) {
            let end = start.saturating_add(ELEMENTS_PER_SLICE).min(length);
            let part = slice
                .apply(array, FnArgs::from((start, end)))
                .map_err(from_napi)?;
            let part = self.json.stringify(part).map_err(|e| {
                invalid_arg(format!("{what} cannot be read as JSON data: {}", e.reason))
            })?;
            // `[a,b]` of each slice, joined without its brackets.
            let inner = &part[1..part.len() - 1];
            if text.len() > 1 && !inner.is_empty() {
                text.push(',');
            }
            text.push_str(inner);
        }
        text.push(']');
        Ok(text)
    }
}

/// `E_INVALID_ARG` unless a class constructor runs under `new`. napi hands a constructor
/// whatever `this` the call had, so `StreamTransformer()` called on the module would otherwise
/// turn the module's exports into an instance. Under `new` (of the class or a subclass),
/// `this` inherits from a prototype whose `constructor` is the class.
pub fn require_new(this: &Unknown<'_>, class: &str) -> Result<()> {
    /// Prototype links followed before giving up: far more than any real subclass chain.
    const MAX_CHAIN: usize = 64;
    let refused = || invalid_arg(format!("{class} must be called with `new`"));
    let mut current = *this;
    for _ in 0..MAX_CHAIN {
        if current.get_type().map_err(from_napi)? != ValueType::Object {
            return Err(refused());
        }
        let object = Object::from_unknown(current).map_err(from_napi)?;
        let prototype = object.get_prototype().map_err(from_napi)?;
        if prototype.get_type().map_err(from_napi)? != ValueType::Object {
            return Err(refused());
        }
        let prototype_object = Object::from_unknown(prototype).map_err(from_napi)?;
        let constructor: Unknown<'_> = prototype_object
            .get_named_property_unchecked("constructor")
            .map_err(from_napi)?;
        if constructor.get_type().map_err(from_napi)? == ValueType::Function {
            let constructor = Object::from_unknown(constructor).map_err(from_napi)?;
            let name: Unknown<'_> = constructor
                .get_named_property_unchecked("name")
                .map_err(from_napi)?;
            // SAFETY: checked to be a JS string just before.
            let is_class = name.get_type().map_err(from_napi)? == ValueType::String
                && unsafe { name.cast::<String>() }.is_ok_and(|n| n == class);
            if is_class {
                return Ok(());
            }
        }
        current = prototype;
    }
    Err(refused())
}

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
fn explain(what: &str, path: &str, reason: &str) -> String {
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
