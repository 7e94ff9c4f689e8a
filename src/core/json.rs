//! JSON nested deeper than serde_json's default limit of 128 levels.
//!
//! Requests and Cursor's records may nest far deeper than that (a tool result holding a deep
//! document), and refusing them would end a conversation for good. Up to [`MAX_DEPTH`] levels
//! are read; parsing, printing and dropping such a value recurse once per level, so that work
//! runs on a stack grown to fit ([`with_stack_for`]). Deeper input is refused before anything
//! recursive touches it.

use serde::Deserialize;

/// The deepest nesting accepted; Node's own `JSON.stringify` gives up at about this depth.
pub const MAX_DEPTH: usize = 10_000;

/// Up to this depth the caller's stack is always enough (serde_json's own limit).
pub const SHALLOW_DEPTH: usize = 128;

/// Stack reserved per level: an unoptimised build takes about 2 KiB a level to parse, print
/// and drop a `serde_json::Value`; twice that leaves room for the code around it.
const STACK_PER_LEVEL: usize = 4 * 1024;

/// Stack for the work around the nesting itself.
const STACK_BASE: usize = 1024 * 1024;

/// The deepest nesting of arrays and objects in `text`, read without recursion; brackets
/// inside strings do not count. Malformed JSON still gets a depth (parsing then fails).
pub fn nesting_depth(text: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for byte in text.bytes() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// The nesting depth of `text`, or at least that: text with few brackets in all (the common
/// case, counted in one fast pass) is given their count without an exact scan.
pub fn depth_bound(text: &str) -> usize {
    // memchr's vectorised search, stopped once the count passes the bound: a plain filtered
    // count compiled to two bytes a step and took a tenth of the snapshot benchmark.
    let brackets = memchr::memchr2_iter(b'[', b'{', text.as_bytes())
        .take(SHALLOW_DEPTH + 1)
        .count();
    if brackets <= SHALLOW_DEPTH {
        brackets
    } else {
        nesting_depth(text)
    }
}

/// The nesting depth of `value` (a scalar is 0, `[]` is 1), measured without recursion.
pub fn value_depth(value: &serde_json::Value) -> usize {
    use serde_json::Value;
    let mut deepest = 0;
    let mut pending = vec![(value, 1)];
    while let Some((value, depth)) = pending.pop() {
        match value {
            Value::Array(items) => pending.extend(items.iter().map(|item| (item, depth + 1))),
            Value::Object(fields) => {
                pending.extend(fields.values().map(|field| (field, depth + 1)))
            }
            _ => continue,
        }
        deepest = deepest.max(depth);
    }
    deepest
}

/// Parses `text` with no depth limit of serde_json's own: callers check
/// [`nesting_depth`] against [`MAX_DEPTH`] first and run inside [`with_stack_for`].
pub fn from_str<'a, T: Deserialize<'a>>(text: &'a str) -> serde_json::Result<T> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    deserializer.disable_recursion_limit();
    let value = T::deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(value)
}

/// Runs `work` on a stack deep enough for values nested `depth` levels (at most
/// [`MAX_DEPTH`]): the current one when it has room, else a fresh one for this call only.
pub fn with_stack_for<R>(depth: usize, work: impl FnOnce() -> R) -> R {
    if depth <= SHALLOW_DEPTH {
        return work();
    }
    let needed = depth.min(MAX_DEPTH) * STACK_PER_LEVEL + STACK_BASE;
    stacker::maybe_grow(needed, needed, work)
}

/// A value read from JSON text, with the depth at which it must be used and dropped
/// ([`with_stack_for`]).
pub struct Deep<T> {
    pub value: T,
    pub depth: usize,
}

impl<T> Deep<T> {
    /// Runs `work` on the value, and drops it, on a stack deep enough for its nesting.
    pub fn use_with<R>(self, work: impl FnOnce(T) -> R) -> R {
        let Self { value, depth } = self;
        with_stack_for(depth, move || work(value))
    }
}

/// `T` read from `text`, which nests `depth` levels (at most [`MAX_DEPTH`]); a refusal is
/// `E_INVALID_ARG` naming the field by its path ([`crate::core::refusal`]), `what` the text as
/// a whole.
pub fn read_text<T: serde::de::DeserializeOwned>(
    text: &str,
    depth: usize,
    what: &str,
) -> Result<Deep<T>, crate::core::error::CoreError> {
    let value = with_stack_for(depth, || {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        deserializer.disable_recursion_limit();
        serde_path_to_error::deserialize(&mut deserializer).map_err(|e| {
            // serde_json ends its messages with where in the text it stopped, which means
            // nothing to the caller.
            let reason = e.inner().to_string();
            let reason = reason
                .rsplit_once(" at line ")
                .map_or(reason.as_str(), |(r, _)| r);
            let path = e.path().to_string();
            crate::core::error::CoreError::invalid_arg(crate::core::refusal::explain(
                what, &path, reason,
            ))
        })
    })?;
    Ok(Deep { value, depth })
}

/// The deepest nesting of a [`BoundedValue`]: it is read recursively, on whatever stack the
/// caller has (a JS engine calls in on its own, which cannot be grown), so the bound is far
/// below [`MAX_DEPTH`]; tool definitions, its use, nest a few levels.
pub const BOUNDED_DEPTH: usize = 256;

/// A JSON value read from any serde data (a JS value among them), refused past
/// [`BOUNDED_DEPTH`] levels instead of recursing without end. A number that is no JSON number
/// (`NaN`, an infinity) reads as `null`, as `JSON.stringify` writes it.
#[derive(Debug, Clone, PartialEq)]
pub struct BoundedValue(pub serde_json::Value);

impl<'de> Deserialize<'de> for BoundedValue {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::DeserializeSeed;
        Level(0).deserialize(deserializer).map(BoundedValue)
    }
}

impl crate::core::wire::WireType for BoundedValue {
    #[cfg(test)]
    fn typescript(_: usize) -> String {
        "object".into()
    }
}

/// Reads one value `0` levels below the top.
struct Level(usize);

impl<'de> serde::de::DeserializeSeed<'de> for Level {
    type Value = serde_json::Value;

    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Level {
    fn deeper<E: serde::de::Error>(&self) -> Result<Self, E> {
        if self.0 >= BOUNDED_DEPTH {
            return Err(E::custom(format!(
                "is nested more than {BOUNDED_DEPTH} levels deep"
            )));
        }
        Ok(Self(self.0 + 1))
    }
}

impl<'de> serde::de::Visitor<'de> for Level {
    type Value = serde_json::Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("JSON data")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Self::Value, E> {
        Ok(value.into())
    }

    fn visit_i64<E>(self, value: i64) -> Result<Self::Value, E> {
        Ok(value.into())
    }

    fn visit_u64<E>(self, value: u64) -> Result<Self::Value, E> {
        Ok(value.into())
    }

    fn visit_f64<E>(self, value: f64) -> Result<Self::Value, E> {
        Ok(serde_json::Number::from_f64(value).map_or(serde_json::Value::Null, Into::into))
    }

    fn visit_str<E>(self, value: &str) -> Result<Self::Value, E> {
        Ok(value.into())
    }

    fn visit_string<E>(self, value: String) -> Result<Self::Value, E> {
        Ok(value.into())
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }

    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }

    fn visit_some<D: serde::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self.deeper()?)? {
            items.push(item);
        }
        Ok(serde_json::Value::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut object = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            object.insert(key, map.next_value_seed(self.deeper()?)?);
        }
        Ok(serde_json::Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn nested(depth: usize) -> String {
        format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
    }

    #[test]
    fn depth_counts_brackets_outside_strings_only() {
        let cases: &[(&str, usize)] = &[
            ("1", 0),
            ("[]", 1),
            (r#"{"a":[{"b":[]}]}"#, 4),
            (r#"["[[[", "\"[[", {"x": "}}}"}]"#, 2),
            ("]]][[", 2),
        ];
        for (text, depth) in cases {
            assert_eq!(nesting_depth(text), *depth, "{text}");
        }
    }

    #[test]
    fn the_deepest_accepted_value_parses_prints_and_drops_on_a_small_thread() {
        let text = nested(MAX_DEPTH);
        assert_eq!(nesting_depth(&text), MAX_DEPTH);
        // A 256 KiB thread: the growth, not the thread's own stack, must carry the work.
        let printed = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || {
                with_stack_for(MAX_DEPTH, || {
                    let value: Value = from_str(&text).expect("parses");
                    value.to_string()
                })
            })
            .expect("spawns")
            .join()
            .expect("no overflow");
        assert_eq!(printed, nested(MAX_DEPTH));
    }

    #[test]
    fn the_bound_is_never_below_the_depth() {
        for text in [
            nested(3),
            nested(200),
            format!("[{}]", "[],".repeat(300) + "[]"),
        ] {
            assert!(depth_bound(&text) >= nesting_depth(&text), "{text}");
        }
        assert_eq!(depth_bound(&nested(200)), 200);
    }

    #[test]
    fn a_bounded_value_reads_up_to_the_limit_and_refuses_deeper() {
        let read = |levels: usize| {
            let value: Value = from_str(&nested(levels)).expect("parses");
            BoundedValue::deserialize(value)
                .map(|v| v.0.is_array())
                .map_err(|e| e.to_string())
        };
        assert_eq!(read(BOUNDED_DEPTH), Ok(true));
        let refused = read(BOUNDED_DEPTH + 1).expect_err("too deep");
        assert!(refused.contains("nested more than 256 levels"), "{refused}");
        let plain =
            BoundedValue::deserialize(serde_json::json!({"a": [1, 2.5, null, "x"]})).unwrap();
        assert_eq!(plain.0, serde_json::json!({"a": [1, 2.5, null, "x"]}));
    }

    #[test]
    fn value_depth_counts_levels_without_recursion() {
        for (text, depth) in [
            ("1", 0),
            ("[]", 1),
            (r#"{"a":[{"b":[]}]}"#, 4),
            (r#"{"a":"[[[","b":{}}"#, 2),
        ] {
            assert_eq!(value_depth(&from_str(text).unwrap()), depth, "{text}");
        }
        let text = nested(MAX_DEPTH);
        let measured = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || {
                let value: Value = with_stack_for(MAX_DEPTH, || from_str(&text).expect("parses"));
                // Measured on the thread's own small stack; only the drop needs the growth.
                let depth = value_depth(&value);
                with_stack_for(MAX_DEPTH, move || drop(value));
                depth
            })
            .expect("spawns")
            .join()
            .expect("no overflow");
        assert_eq!(measured, MAX_DEPTH);
    }

    #[test]
    fn trailing_text_is_refused() {
        assert!(from_str::<Value>("[1] x").is_err());
    }
}
