//! Reading fields of the caller's JSON objects, with `InvalidArg` errors that name the field.

use serde_json::{Map, Value};

use crate::core::error::CoreError;

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
