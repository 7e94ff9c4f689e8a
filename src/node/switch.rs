//! `parseSwitch`.

use napi::{Unknown, ValueType};
use napi_derive::napi;

use crate::node::error_code::{invalid_arg, Result};
use crate::node::options::argument;

/// The one boolean parser for switches: `1/true/on/yes` -> true, `0/false/off/no` -> false
/// (case-insensitive, surrounding spaces ignored); anything else, including empty, -> `defaultValue`.
#[napi(
    catch_unwind,
    ts_args_type = "value: string | undefined | null, defaultValue: boolean"
)]
pub fn parse_switch(value: Option<Unknown>, default_value: Option<Unknown>) -> Result<bool> {
    let value: Option<String> = argument(value, ValueType::String, "the value", "a string")?;
    let default_value = argument(
        default_value,
        ValueType::Boolean,
        "the default value",
        "true or false",
    )?
    .ok_or_else(|| invalid_arg("the default value is required"))?;
    Ok(crate::core::switch::parse_switch(
        value.as_deref(),
        default_value,
    ))
}
