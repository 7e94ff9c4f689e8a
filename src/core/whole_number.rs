//! The one rule for numeric options: a whole number within the option's range, which never
//! reaches past what a JS number holds exactly. The range is part of the type, so an option's
//! declaration states it once and reading the option enforces it.

use std::fmt;

use serde::de::{Error, Unexpected, Visitor};
use serde::{Deserialize, Deserializer};

/// The largest integer a JS number holds exactly (`Number.MAX_SAFE_INTEGER`).
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// A whole number from `MIN` to `MAX` (inclusive; `MAX` is at most [`MAX_SAFE_INTEGER`]).
/// Anything else is refused when read: a fraction, a number out of range, `NaN`, infinities, or
/// a value of another type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WholeNumber<const MIN: i64, const MAX: i64>(i64);

/// A duration or size in milliseconds or bytes that may be 0.
pub type NonNegative = WholeNumber<0, MAX_SAFE_INTEGER>;
/// A duration or size that must be at least 1.
pub type Positive = WholeNumber<1, MAX_SAFE_INTEGER>;

impl<const MIN: i64, const MAX: i64> WholeNumber<MIN, MAX> {
    /// The number, within `MIN..=MAX`.
    pub fn get(self) -> i64 {
        self.0
    }

    /// The number as an unsigned value (0 for a negative one, which only a negative `MIN` lets
    /// through).
    pub fn unsigned(self) -> u64 {
        u64::try_from(self.0).unwrap_or(0)
    }

    fn upper() -> i64 {
        MAX.min(MAX_SAFE_INTEGER)
    }

    fn checked<E: Error>(value: f64) -> Result<Self, E> {
        // Both bounds lie within 2^53 in size, where f64 holds every integer exactly, so the
        // comparisons and the conversion are exact.
        if value.fract() == 0.0 && value >= MIN as f64 && value <= Self::upper() as f64 {
            return Ok(Self(value as i64));
        }
        Err(E::custom(format!(
            "must be a whole number from {MIN} to {}, got {value}",
            Self::upper()
        )))
    }
}

impl<'de, const MIN: i64, const MAX: i64> Deserialize<'de> for WholeNumber<MIN, MAX> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Rule<const MIN: i64, const MAX: i64>;

        impl<const MIN: i64, const MAX: i64> Visitor<'_> for Rule<MIN, MAX> {
            type Value = WholeNumber<MIN, MAX>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let upper = WholeNumber::<MIN, MAX>::upper();
                write!(f, "a whole number from {MIN} to {upper}")
            }

            fn visit_i64<E: Error>(self, value: i64) -> Result<Self::Value, E> {
                if (MIN..=WholeNumber::<MIN, MAX>::upper()).contains(&value) {
                    return Ok(WholeNumber(value));
                }
                Err(E::invalid_value(Unexpected::Signed(value), &self))
            }

            fn visit_u64<E: Error>(self, value: u64) -> Result<Self::Value, E> {
                match i64::try_from(value) {
                    Ok(value) => self.visit_i64(value),
                    Err(_) => Err(E::invalid_value(Unexpected::Unsigned(value), &self)),
                }
            }

            fn visit_f64<E: Error>(self, value: f64) -> Result<Self::Value, E> {
                WholeNumber::checked(value)
            }
        }

        deserializer.deserialize_any(Rule::<MIN, MAX>)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;

    type Small = WholeNumber<-2, 60_000>;

    fn read<T: for<'de> Deserialize<'de>>(value: Value) -> Result<T, String> {
        T::deserialize(value).map_err(|e| e.to_string())
    }

    #[test]
    fn the_rule_as_a_table() {
        let accepted: &[(Value, i64)] = &[
            (json!(0), 0),
            (json!(-2), -2),
            (json!(60_000), 60_000),
            (json!(5.0), 5),
        ];
        for (value, expected) in accepted {
            assert_eq!(read::<Small>(value.clone()).map(Small::get), Ok(*expected));
        }
        for value in [
            json!(-3),
            json!(60_001),
            json!(1.5),
            json!("5"),
            json!(true),
        ] {
            let message = read::<Small>(value.clone()).expect_err(&value.to_string());
            assert!(
                message.contains("a whole number from -2 to 60000"),
                "{message}"
            );
        }
    }

    #[test]
    fn the_upper_bound_is_what_a_js_number_holds_exactly() {
        let max = MAX_SAFE_INTEGER;
        assert_eq!(read::<Positive>(json!(max)).map(Positive::get), Ok(max));
        assert!(read::<Positive>(json!(max + 1)).is_err());
        assert!(read::<NonNegative>(json!(u64::MAX)).is_err());
        assert!(read::<NonNegative>(json!(9.007_199_254_740_992e15)).is_err());
        let unbounded = read::<WholeNumber<0, { i64::MAX }>>(json!(max + 1));
        assert!(unbounded.is_err(), "MAX past 2^53 - 1 is capped");
    }

    #[test]
    fn unsigned_never_wraps() {
        assert_eq!(read::<Small>(json!(-1)).map(Small::unsigned), Ok(0));
        assert_eq!(read::<Positive>(json!(7)).map(Positive::unsigned), Ok(7));
    }
}
