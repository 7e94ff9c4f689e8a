use napi_derive::napi;

/// The one boolean parser for switches: `1/true/on/yes` -> true, `0/false/off/no` -> false
/// (case-insensitive, surrounding spaces ignored); anything else, including empty, -> `defaultValue`.
#[napi(catch_unwind)]
pub fn parse_switch(value: Option<String>, default_value: bool) -> bool {
    crate::core::switch::parse_switch(value.as_deref(), default_value)
}
