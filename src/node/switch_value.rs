//! `parseSwitch`.

use napi::{Env, Unknown};
use napi_derive::napi;

use crate::core::switch_value;
use crate::node::error::{invalid_arg, Result};
use crate::node::read::read_optional;

/// The one boolean parser for switches: `1/true/on/yes` -> true, `0/false/off/no` -> false
/// (case-insensitive, surrounding spaces ignored); anything else, including empty, -> `defaultValue`.
#[napi(
    catch_unwind,
    ts_args_type = "value: string | undefined | null, defaultValue: boolean"
)]
pub fn parse_switch(
    env: Env,
    value: Option<Unknown>,
    default_value: Option<Unknown>,
) -> Result<bool> {
    let value: Option<String> = read_optional(&env, value, "the value")?;
    let default_value: bool = read_optional(&env, default_value, "the default value")?
        .ok_or_else(|| invalid_arg("the default value is required"))?;
    Ok(switch_value::parse_switch(value.as_deref(), default_value))
}
