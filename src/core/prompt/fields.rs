//! Reading fields of the caller's JSON objects, with `InvalidArg` errors that name the field by
//! its path from the request (`` `messages[2].content[0].text` must be a string ``): a reader
//! names the field of its own object, and each enclosing list puts its item's place before it.

use serde_json::{Map, Value};

use crate::core::error::CoreError;

/// Parses each item of the array `name`; a failure names the item's place before its field,
/// `` `name[index].field` ``.
pub(super) fn parse_each<'a, T>(
    name: &str,
    items: &'a [Value],
    parse: impl Fn(&'a Value) -> Result<T, CoreError>,
) -> Result<Vec<T>, CoreError> {
    items
        .iter()
        .enumerate()
        .map(|(index, item)| parse(item).map_err(|e| within(&format!("{name}[{index}]"), &e)))
        .collect()
}

/// `error` of a field of `place`, named from `place`: `` `place.field` ... ``, or `` `place` ... ``
/// when it names no field of its own.
pub(super) fn within(place: &str, error: &CoreError) -> CoreError {
    let message = error.message();
    CoreError::invalid_arg(match message.strip_prefix('`') {
        Some(field) => format!("`{place}.{field}"),
        None => format!("`{place}` {message}"),
    })
}

/// `item` as an object; `what` names the kind in the error ("a message", "a tool").
pub(super) fn as_object<'a>(
    item: &'a Value,
    what: &str,
) -> Result<&'a Map<String, Value>, CoreError> {
    item.as_object()
        .ok_or_else(|| CoreError::invalid_arg(format!("must be {what} object")))
}

pub(super) fn str_field<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    object.get(key).and_then(Value::as_str)
}

pub(super) fn required_str<'a>(
    object: &'a Map<String, Value>,
    key: &str,
) -> Result<&'a str, CoreError> {
    str_field(object, key)
        .ok_or_else(|| CoreError::invalid_arg(format!("`{key}` must be a string")))
}
