//! Reading fields of the caller's JSON objects, with `InvalidArg` errors that name the field.

use serde_json::{Map, Value};

use crate::core::error::CoreError;

/// Parses each item of the request array `name`; a failure names the item, `name[index]: ...`.
pub(super) fn parse_each<'a, T>(
    name: &str,
    items: &'a [Value],
    parse: impl Fn(&'a Value) -> Result<T, CoreError>,
) -> Result<Vec<T>, CoreError> {
    items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            parse(item)
                .map_err(|e| CoreError::invalid_arg(format!("{name}[{index}]: {}", e.message())))
        })
        .collect()
}

/// `item` as an object; `what` names it in the error ("a message", "a tool").
pub(super) fn as_object<'a>(
    item: &'a Value,
    what: &str,
) -> Result<&'a Map<String, Value>, CoreError> {
    item.as_object()
        .ok_or_else(|| CoreError::invalid_arg(format!("{what} must be an object")))
}

pub(super) fn str_field<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    object.get(key).and_then(Value::as_str)
}

pub(super) fn required_str<'a>(
    object: &'a Map<String, Value>,
    key: &str,
    what: &str,
) -> Result<&'a str, CoreError> {
    str_field(object, key)
        .ok_or_else(|| CoreError::invalid_arg(format!("{what} needs a string `{key}`")))
}
