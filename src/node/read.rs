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

use napi::bindgen_prelude::{FnArgs, FromNapiValue, Function, JsObjectValue, Object};
use napi::{De, Env, JsValue, Unknown, ValueType, JSON};
use serde::de::DeserializeOwned;

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

/// Elements of an array turned into one JSON text at a time.
const ELEMENTS_PER_SLICE: u32 = 16;

/// The JSON text of an argument, with its nesting depth. Each property of an object is
/// stringified on its own, and an array of more than a few elements in slices: a whole
/// conversation as one string is hundreds of kilobytes, which V8 keeps in its large-object
/// space until a full collection, and those collections were the slow tail of every call that
/// reads a request. Slices are small strings the young generation frees cheaply. The text is
/// the same: `JSON.stringify` of a slice is that of its elements.
fn json_text(env: &Env, value: Unknown<'_>, what: &str) -> Result<(String, usize)> {
    let json: JSON = env
        .get_global()
        .and_then(|global| global.get_named_property_unchecked("JSON"))
        .map_err(from_napi)?;
    if value.get_type().map_err(from_napi)? != ValueType::Object
        || value.is_array().map_err(from_napi)?
    {
        return json_of(&json, value, what);
    }
    let object = Object::from_unknown(value).map_err(from_napi)?;
    let names = object.get_property_names().map_err(from_napi)?;
    let (mut fields, mut depth) = (Vec::new(), 1);
    for index in 0..names.get_array_length().map_err(from_napi)? {
        let key: String = names.get_element(index).map_err(from_napi)?;
        let field: Unknown<'_> = object
            .get_named_property_unchecked(&key)
            .map_err(from_napi)?;
        let kind = field.get_type().map_err(from_napi)?;
        if !matches!(
            kind,
            ValueType::Undefined | ValueType::Function | ValueType::Symbol
        ) {
            let (text, field_depth) = json_of(&json, field, &format!("`{key}`"))?;
            fields.push(format!("{}:{text}", serde_json::Value::from(key)));
            depth = depth.max(field_depth + 1);
        }
    }
    Ok((format!("{{{}}}", fields.join(",")), depth))
}

/// The JSON text of `value` (a long array in slices) and its depth; `what` names it when it
/// cannot be written or is nested past [`json::MAX_DEPTH`].
fn json_of(json: &JSON<'_>, value: Unknown<'_>, what: &str) -> Result<(String, usize)> {
    let stringify = |value| {
        json.stringify(value)
            .map_err(|e| invalid_arg(format!("{what} cannot be read as JSON data: {}", e.reason)))
    };
    let array = Object::from_unknown(value)
        .ok()
        .filter(|_| value.is_array().unwrap_or(false));
    let length = array
        .map_or(Ok(0), |array| array.get_array_length())
        .map_err(from_napi)?;
    let text = match array.filter(|_| length > ELEMENTS_PER_SLICE) {
        Some(array) => {
            let slice: Function<'_, FnArgs<(u32, u32)>, Unknown<'_>> =
                array.get_named_property("slice").map_err(from_napi)?;
            let mut parts = Vec::new();
            for start in (0..length).step_by(ELEMENTS_PER_SLICE as usize) {
                let end = start.saturating_add(ELEMENTS_PER_SLICE).min(length);
                let part = stringify(
                    slice
                        .apply(array, FnArgs::from((start, end)))
                        .map_err(from_napi)?,
                )?;
                // `[a,b]` of each slice, joined without its brackets.
                parts.push(part[1..part.len() - 1].to_owned());
            }
            format!(
                "[{}]",
                parts
                    .into_iter()
                    .filter(|p| !p.is_empty())
                    .collect::<Vec<_>>()
                    .join(",")
            )
        }
        None => stringify(value)?,
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

/// `E_INVALID_ARG` unless a class constructor runs under `new`. napi hands a constructor
/// whatever `this` the call had, so `StreamTransformer()` called on the module would otherwise
/// turn the module's exports into an instance. Under `new` (of the class or a subclass),
/// `this` inherits from a prototype whose `constructor` is the class.
pub fn require_new(this: &Unknown<'_>, class: &str) -> Result<()> {
    /// Prototype links followed before giving up: far more than any real subclass chain.
    const MAX_CHAIN: usize = 64;
    let object_of = |value: Unknown<'_>| match value.get_type() {
        Ok(ValueType::Object | ValueType::Function) => Object::from_unknown(value).ok(),
        _ => None,
    };
    let mut current = object_of(*this);
    for _ in 0..MAX_CHAIN {
        let Some(prototype) = current
            .and_then(|o| o.get_prototype().ok())
            .and_then(object_of)
        else {
            break;
        };
        let name = prototype
            .get_named_property_unchecked::<Unknown<'_>>("constructor")
            .ok()
            .and_then(object_of)
            .and_then(|constructor| {
                constructor
                    .get_named_property_unchecked::<Unknown<'_>>("name")
                    .ok()
            })
            .filter(|name| name.get_type().is_ok_and(|kind| kind == ValueType::String))
            // SAFETY: checked to be a JS string just before.
            .and_then(|name| unsafe { name.cast::<String>() }.ok());
        if name.as_deref() == Some(class) {
            return Ok(());
        }
        current = Some(prototype);
    }
    Err(invalid_arg(format!("{class} must be called with `new`")))
}

/// The deepest nesting of arrays and objects the addon reads in a conversation (`messages`,
/// `tools`, a tool's result): a host that parses a request first refuses a deeper one before any
/// of it is walked.
#[napi_derive::napi]
pub const MAX_JSON_DEPTH: u32 = json::MAX_DEPTH as u32;
