//! How arguments cross from JS: each one into the type that declares it (`core/api/`), through
//! serde, so a field's name, type and range are written once.
//!
//! Two routes, by what the argument is:
//! * options (and the small objects a caller hands back) are read as the JS values they are
//!   ([`read`], napi's serde deserializer): `NaN` is a number there, a function is refused;
//! * a conversation (`messages`, `tools`) is read as the JSON data `JSON.stringify` makes of it
//!   ([`read_json`]): `toJSON` is honoured, and a long list crosses in slices (see
//!   [`json_text`]).
//!
//! Either way a refusal is `E_INVALID_ARG` with a message that names the field by its path
//! (`hostTools.waitMs`), in the package's words (`core/refusal.rs`), never napi's or serde's.

use napi::bindgen_prelude::Object;
use napi::{De, Env, JsValue, Unknown, ValueType};
use serde::de::DeserializeOwned;

use super::engine;
use super::error::{from_napi, invalid_arg, to_js_error, Result};
use crate::core::json::{self, Deep};
use crate::core::refusal::explain;

/// Reads `value` as `T`; `what` names the argument when the value as a whole is refused.
pub fn read<T: DeserializeOwned>(env: &Env, value: Unknown<'_>, what: &str) -> Result<T> {
    // napi's deserializer takes its value as an `Object`, but reads the JS type of the handle
    // itself; a handle of any type is read correctly. It runs on the caller's own stack (the
    // engine refuses calls from any other): nesting in options is bounded instead
    // (`json::BoundedValue`).
    let holder = Object::from_raw(env.raw(), value.raw());
    serde_path_to_error::deserialize(&mut De::new(&holder))
        .map_err(|e| invalid_arg(explain(what, &e.path().to_string(), &e.inner().reason)))
}

/// Reads an argument that may be absent (`undefined`, `null`, or not passed).
pub fn read_optional<T: DeserializeOwned>(
    env: &Env,
    value: Option<Unknown<'_>>,
    what: &str,
) -> Result<Option<T>> {
    value.map_or(Ok(None), |value| read::<Option<T>>(env, value, what))
}

/// Reads `value` as JSON data into `T`: what `JSON.stringify` makes of it, nested up to
/// [`json::MAX_DEPTH`] levels.
pub fn read_json<T: DeserializeOwned>(
    env: &Env,
    value: Unknown<'_>,
    what: &str,
) -> Result<Deep<T>> {
    let (text, depth) = json_text(env, value, what)?;
    json::read_text(&text, depth, what).map_err(to_js_error)
}

/// The JSON text of an argument (`engine.js` `jsonText`: each property on its own, a long
/// array in slices), with its nesting depth; `what` names it, or the field, when it cannot be
/// written or is nested past [`json::MAX_DEPTH`].
fn json_text(env: &Env, value: Unknown<'_>, what: &str) -> Result<(String, usize)> {
    let written = engine::json_text(env, value).map_err(from_napi)?;
    if written.get_type().map_err(from_napi)? == ValueType::String {
        // SAFETY: checked to be a JS string just before.
        let text = unsafe { written.cast::<String>() }.map_err(from_napi)?;
        return deep_enough(text, what);
    }
    if let Ok(pieces) = read::<Vec<String>>(env, written, what) {
        let (mut fields, mut depth) = (Vec::new(), 1);
        for pair in pieces.chunks_exact(2) {
            let (text, field_depth) = deep_enough(pair[1].clone(), &format!("`{}`", pair[0]))?;
            fields.push(format!(
                "{}:{text}",
                serde_json::Value::from(pair[0].as_str())
            ));
            depth = depth.max(field_depth + 1);
        }
        return Ok((format!("{{{}}}", fields.join(",")), depth));
    }
    let refused: Option<Refused> = read(env, written, what).ok();
    let (field, reason) = refused.map_or((None, String::new()), |r| (r.field, r.reason));
    let what = field.map_or_else(|| what.to_owned(), |field| format!("`{field}`"));
    Err(invalid_arg(format!(
        "{what} cannot be read as JSON data: {reason}"
    )))
}

/// `text` with its depth; `E_INVALID_ARG` naming `what` past [`json::MAX_DEPTH`].
fn deep_enough(text: String, what: &str) -> Result<(String, usize)> {
    let depth = json::depth_bound(&text);
    if depth > json::MAX_DEPTH {
        return Err(invalid_arg(format!(
            "{what} is nested more than {} levels deep",
            json::MAX_DEPTH
        )));
    }
    Ok((text, depth))
}

/// Why `jsonText` could not write a value, and in which field.
#[derive(serde::Deserialize)]
struct Refused {
    field: Option<String>,
    reason: String,
}

/// `E_INVALID_ARG` unless a class constructor runs under `new` (`engine.js` `constructedAs`).
pub fn require_new(env: &Env, this: &Unknown<'_>, class: &str) -> Result<()> {
    match engine::constructed_as(env, *this, class) {
        Ok(true) => Ok(()),
        _ => Err(invalid_arg(format!("{class} must be called with `new`"))),
    }
}

/// The deepest nesting of arrays and objects the addon reads in a conversation (`messages`,
/// `tools`, a tool's result): a host that parses a request first refuses a deeper one before any
/// of it is walked.
#[napi_derive::napi]
pub const MAX_JSON_DEPTH: u32 = json::MAX_DEPTH as u32;
