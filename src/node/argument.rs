//! Reading JS arguments: a value of the wrong type is `E_INVALID_ARG`, never napi's own error.

use napi::bindgen_prelude::{FromNapiValue, JsObjectValue};
use napi::{Env, JsValue, Unknown, ValueType, JSON};
use serde_json::Value;

use super::error_code::{from_napi, invalid_arg, Result};

/// `E_INVALID_ARG` unless `value` is a JS object.
pub fn expect_object(value: &Unknown<'_>, what: &str) -> Result<()> {
    if value.get_type().map_err(from_napi)? != ValueType::Object {
        return Err(invalid_arg(format!("{what} must be an object")));
    }
    Ok(())
}

/// Reads an object argument as JSON: one `JSON.stringify` inside the engine and one parse cost
/// less than walking a large request property by property.
pub fn object_argument(env: &Env, value: Unknown<'_>, what: &str) -> Result<Value> {
    expect_object(&value, what)?;
    let json: JSON = env
        .get_global()
        .and_then(|global| global.get_named_property_unchecked("JSON"))
        .map_err(from_napi)?;
    let text = json.stringify(value).map_err(from_napi)?;
    serde_json::from_str(&text).map_err(|e| invalid_arg(format!("{what} is not JSON data: {e}")))
}

/// Converts an optional object argument into an options struct: `undefined` and `null` are
/// `None`, anything else but an object is `E_INVALID_ARG`.
pub fn optional_object<T: FromNapiValue>(
    value: Option<Unknown<'_>>,
    what: &str,
) -> Result<Option<T>> {
    let Some(value) = value else { return Ok(None) };
    let kind = value.get_type().map_err(from_napi)?;
    if matches!(kind, ValueType::Undefined | ValueType::Null) {
        return Ok(None);
    }
    expect_object(&value, what)?;
    convert(value, what).map(Some)
}

/// Converts a JS value, reporting a mismatch as `E_INVALID_ARG` rather than napi's `InvalidArg`.
pub fn convert<T: FromNapiValue>(value: Unknown<'_>, what: &str) -> Result<T> {
    // SAFETY: `value` is a live handle of the current call's env and scope.
    unsafe { T::from_napi_value(value.value().env, value.raw()) }
        .map_err(|e| invalid_arg(format!("invalid {what}: {}", e.reason)))
}
