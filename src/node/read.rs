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
use crate::core::refusal::explain;

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
