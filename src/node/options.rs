//! Reading JS arguments and option objects, field by field.
//!
//! napi's automatic conversion of a `#[napi(object)]` struct throws its own codes
//! (`NumberExpected`, `InvalidArg`) with messages such as "Expected ..." before any binding
//! code runs. Reading each field here instead makes every bad value `E_INVALID_ARG` with a
//! message that names the option. The `#[napi(object)]` option structs stay, as the
//! declarations of the TypeScript shapes in `index.d.ts`.

use std::collections::HashMap;
use std::ops::RangeInclusive;

use napi::bindgen_prelude::{FnArgs, FromNapiValue, Function, JsObjectValue, Object};
use napi::{Env, JsValue, Unknown, ValueType, JSON};
use serde_json::Value;

use super::error_code::{from_napi, invalid_arg, Result};
use crate::core::json;

/// The largest integer a JS number holds exactly (`Number.MAX_SAFE_INTEGER`).
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// The one rule for numeric options: a JS number that is a whole number within `range`
/// (which never reaches past [`MAX_SAFE_INTEGER`]); anything else is `E_INVALID_ARG` naming
/// the option and the range.
fn whole_number(value: f64, name: &str, range: RangeInclusive<i64>) -> Result<i64> {
    let (min, max) = (*range.start(), (*range.end()).min(MAX_SAFE_INTEGER));
    // Both bounds lie within 2^53 in size, where f64 holds every integer exactly, so the
    // comparisons and the conversion are exact.
    if value.fract() == 0.0 && value >= min as f64 && value <= max as f64 {
        return Ok(value as i64);
    }
    Err(invalid_arg(format!(
        "`{name}` must be a whole number from {min} to {max}, got {value}"
    )))
}

/// What a JS value is, for messages: `a string`, the number itself, `an object`, ...
fn described(value: &Unknown<'_>) -> String {
    match value.get_type() {
        Ok(ValueType::String) => "a string".into(),
        Ok(ValueType::Number) => {
            // SAFETY: the value is a live number of the current call's env.
            let number = unsafe { value.cast::<f64>() };
            number.map_or_else(|_| "a number".into(), |n| format!("{n}"))
        }
        Ok(ValueType::Boolean) => "a boolean".into(),
        Ok(ValueType::Object) if value.is_array().unwrap_or(false) => "an array".into(),
        Ok(ValueType::Object) => "an object".into(),
        Ok(ValueType::Function) => "a function".into(),
        Ok(ValueType::Symbol) => "a symbol".into(),
        Ok(ValueType::BigInt) => "a bigint".into(),
        Ok(ValueType::Undefined) => "undefined".into(),
        Ok(ValueType::Null) => "null".into(),
        _ => "another kind of value".into(),
    }
}

/// Converts a JS value whose type was checked; a failure is `E_INVALID_ARG` with `message`.
fn convert<T: FromNapiValue>(value: &Unknown<'_>, message: impl FnOnce() -> String) -> Result<T> {
    // SAFETY: `value` is a live handle of the current call's env and scope.
    unsafe { T::from_napi_value(value.value().env, value.raw()) }
        .map_err(|_| invalid_arg(message()))
}

/// `undefined` and `null` are absent.
fn is_nullish(value: &Unknown<'_>) -> Result<bool> {
    let kind = value.get_type().map_err(from_napi)?;
    Ok(matches!(kind, ValueType::Undefined | ValueType::Null))
}

/// `E_INVALID_ARG` unless `value` is a JS object (arrays count: callers that want one say so).
fn object_of<'env>(value: &Unknown<'env>, what: &str) -> Result<Object<'env>> {
    if value.get_type().map_err(from_napi)? != ValueType::Object {
        return Err(invalid_arg(format!(
            "{what} must be an object, got {}",
            described(value)
        )));
    }
    // SAFETY: `value` was just checked to be a JS object, which is what `Object` wraps.
    unsafe { value.cast::<Object<'env>>() }.map_err(from_napi)
}

/// Elements of an array field turned into one JSON text at a time (see [`Options::json_array`]).
const ELEMENTS_PER_SLICE: u32 = 16;

/// Reads an object argument as JSON data, with its nesting depth: one `JSON.stringify` inside
/// the engine and one parse cost less than walking a large message list property by property.
/// Nesting past [`json::MAX_DEPTH`], and whatever `JSON.stringify` refuses (a cycle, a BigInt,
/// nesting too deep for the engine), is `E_INVALID_ARG` naming `what`. A deep value must be
/// used and dropped inside [`json::with_stack_for`] its depth.
pub fn json_of(env: &Env, value: Unknown<'_>, what: &str) -> Result<(Value, usize)> {
    let json: JSON = env
        .get_global()
        .and_then(|global| global.get_named_property_unchecked("JSON"))
        .map_err(from_napi)?;
    let text = json
        .stringify(value)
        .map_err(|e| invalid_arg(format!("{what} cannot be read as JSON data: {}", e.reason)))?;
    let (value, depth) = json::parse_value(&text).map_err(|failure| match failure {
        json::ParseFailure::TooDeep => invalid_arg(format!(
            "{what} is nested more than {} levels deep",
            json::MAX_DEPTH
        )),
        json::ParseFailure::Invalid(e) => invalid_arg(format!("{what} is not JSON data: {e}")),
    })?;
    Ok((value, depth))
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
        // SAFETY: `current` was just checked to be a JS object, which is what `Object` wraps.
        let object = unsafe { current.cast::<Object<'_>>() }.map_err(from_napi)?;
        let prototype = object.get_prototype().map_err(from_napi)?;
        if prototype.get_type().map_err(from_napi)? != ValueType::Object {
            return Err(refused());
        }
        // SAFETY: checked to be a JS object just above.
        let prototype_object = unsafe { prototype.cast::<Object<'_>>() }.map_err(from_napi)?;
        let constructor: Unknown<'_> = prototype_object
            .get_named_property_unchecked("constructor")
            .map_err(from_napi)?;
        if constructor.get_type().map_err(from_napi)? == ValueType::Function {
            // SAFETY: a function is a JS object.
            let constructor = unsafe { constructor.cast::<Object<'_>>() }.map_err(from_napi)?;
            let name: Unknown<'_> = constructor
                .get_named_property_unchecked("name")
                .map_err(from_napi)?;
            let is_class = name.get_type().map_err(from_napi)? == ValueType::String
                && convert::<String>(&name, String::new).is_ok_and(|n| n == class);
            if is_class {
                return Ok(());
            }
        }
        current = prototype;
    }
    Err(refused())
}

/// A value of one JS type, converted; anything else is `E_INVALID_ARG`: "`subject` must be
/// `expected`, got ...".
fn read_as<T: FromNapiValue>(
    value: &Unknown<'_>,
    kind: ValueType,
    subject: &str,
    expected: &str,
) -> Result<T> {
    let message = || format!("{subject} must be {expected}, got {}", described(value));
    if value.get_type().map_err(from_napi)? != kind {
        return Err(invalid_arg(message()));
    }
    convert(value, message)
}

/// A positional argument (not an option field) of one JS type; `undefined` and `null` are
/// `None`.
pub fn argument<T: FromNapiValue>(
    value: Option<Unknown<'_>>,
    kind: ValueType,
    subject: &str,
    expected: &str,
) -> Result<Option<T>> {
    match value {
        Some(value) if !is_nullish(&value)? => read_as(&value, kind, subject, expected).map(Some),
        _ => Ok(None),
    }
}

/// One options object (or `undefined`/`null`, which reads as every field absent).
pub struct Options<'env> {
    object: Option<Object<'env>>,
}

impl<'env> Options<'env> {
    /// `what` names the argument in the message when it is neither an object nor absent.
    pub fn new(value: Option<Unknown<'env>>, what: &str) -> Result<Self> {
        let object = match value {
            Some(value) if !is_nullish(&value)? => Some(object_of(&value, what)?),
            _ => None,
        };
        Ok(Self { object })
    }

    /// A required object argument.
    pub fn required(value: Unknown<'env>, what: &str) -> Result<Self> {
        Ok(Self {
            object: Some(object_of(&value, what)?),
        })
    }

    /// The field's value; `undefined` and `null` are absent.
    fn field(&self, name: &str) -> Result<Option<Unknown<'env>>> {
        let Some(object) = &self.object else {
            return Ok(None);
        };
        let value: Unknown<'env> = object
            .get_named_property_unchecked(name)
            .map_err(from_napi)?;
        Ok((!is_nullish(&value)?).then_some(value))
    }

    /// A field of one JS type (see [`read_as`]).
    fn typed<T: FromNapiValue>(
        &self,
        name: &str,
        kind: ValueType,
        expected: &str,
    ) -> Result<Option<T>> {
        match self.field(name)? {
            Some(value) => read_as(&value, kind, &format!("`{name}`"), expected).map(Some),
            None => Ok(None),
        }
    }

    pub fn string(&self, name: &str) -> Result<Option<String>> {
        self.typed(name, ValueType::String, "a string")
    }

    pub fn boolean(&self, name: &str) -> Result<Option<bool>> {
        self.typed(name, ValueType::Boolean, "true or false")
    }

    /// A numeric option under the one [`whole_number`] rule.
    pub fn whole_number(&self, name: &str, range: RangeInclusive<i64>) -> Result<Option<i64>> {
        let (min, max) = (*range.start(), (*range.end()).min(MAX_SAFE_INTEGER));
        let expected = format!("a whole number from {min} to {max}");
        let Some(number) = self.typed::<f64>(name, ValueType::Number, &expected)? else {
            return Ok(None);
        };
        whole_number(number, name, range).map(Some)
    }

    /// A string that must be one of `choices`, each mapped to its typed value.
    pub fn choice<T: Copy>(&self, name: &str, choices: &[(&str, T)]) -> Result<Option<T>> {
        let listed = choices
            .iter()
            .map(|(text, _)| format!("'{text}'"))
            .collect::<Vec<_>>()
            .join(" or ");
        let Some(text) = self.typed::<String>(name, ValueType::String, &listed)? else {
            return Ok(None);
        };
        match choices.iter().find(|(choice, _)| *choice == text) {
            Some((_, value)) => Ok(Some(*value)),
            None => Err(invalid_arg(format!(
                "`{name}` must be {listed}, got '{text}'"
            ))),
        }
    }

    pub fn strings(&self, name: &str) -> Result<Option<Vec<String>>> {
        let Some(value) = self.field(name)? else {
            return Ok(None);
        };
        let message = || {
            format!(
                "`{name}` must be an array of strings, got {}",
                described(&value)
            )
        };
        if !value.is_array().map_err(from_napi)? {
            return Err(invalid_arg(message()));
        }
        convert(&value, message).map(Some)
    }

    /// An object whose every value is a string, such as an environment.
    pub fn string_map(&self, name: &str) -> Result<Option<HashMap<String, String>>> {
        let Some(value) = self.field(name)? else {
            return Ok(None);
        };
        let message = || format!("`{name}` must be an object whose values are all strings");
        if value.get_type().map_err(from_napi)? != ValueType::Object
            || value.is_array().map_err(from_napi)?
        {
            return Err(invalid_arg(message()));
        }
        convert(&value, message).map(Some)
    }

    /// A nested options object; absent when `undefined` or `null`.
    pub fn object(&self, name: &str) -> Result<Option<Options<'env>>> {
        match self.field(name)? {
            Some(value) => Ok(Some(Options {
                object: Some(object_of(&value, &format!("`{name}`"))?),
            })),
            None => Ok(None),
        }
    }

    /// An array field read as JSON data, with its depth (see [`json_of`]).
    pub fn json_array(&self, env: &Env, name: &str) -> Result<Option<(Value, usize)>> {
        let Some(value) = self.field(name)? else {
            return Ok(None);
        };
        if !value.is_array().map_err(from_napi)? {
            return Err(invalid_arg(format!(
                "`{name}` must be an array, got {}",
                described(&value)
            )));
        }
        // In slices of a few elements: a whole conversation is one string of hundreds of
        // kilobytes, which V8 keeps in its large-object space until a full collection, and
        // those collections were the slow tail of every call that reads a request. Slices
        // are small strings the young generation frees cheaply. The data read is the same:
        // `JSON.stringify` of a slice is that of its elements.
        let array: Object<'_> = Object::from_unknown(value).map_err(from_napi)?;
        let length: u32 = array.get_named_property("length").map_err(from_napi)?;
        if length <= ELEMENTS_PER_SLICE {
            return json_of(env, value, &format!("`{name}`")).map(Some);
        }
        let slice: Function<'_, FnArgs<(u32, u32)>, Unknown<'_>> =
            array.get_named_property("slice").map_err(from_napi)?;
        let mut items = Vec::with_capacity(length as usize);
        let mut depth = 0;
        for start in (0..length).step_by(ELEMENTS_PER_SLICE as usize) {
            let end = start.saturating_add(ELEMENTS_PER_SLICE).min(length);
            let part = slice
                .apply(array, FnArgs::from((start, end)))
                .map_err(from_napi)?;
            let (part, part_depth) = json_of(env, part, &format!("`{name}`"))?;
            depth = depth.max(part_depth);
            if let Value::Array(part) = part {
                items.extend(part);
            }
        }
        Ok(Some((Value::Array(items), depth)))
    }
}
