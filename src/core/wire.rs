//! Types that cross into JS and back, declared once: [`wire_struct!`], [`wire_strings!`] and
//! [`wire_union!`] define the Rust type serde writes (or reads) and, for the tests, render its
//! TypeScript declaration, which a test compares with the hand-kept `header.d.ts` that JS
//! consumers read. Each field names its JSON key itself, so serde and the declaration cannot
//! spell it apart.

use serde::{Serialize, Serializer};
use serde_json::Value;

/// A value written into a part.
pub trait WireType {
    /// A field holding this value is left out of its object (an absent `Option`).
    fn is_absent(&self) -> bool {
        false
    }

    /// The TypeScript type of the value, for a field `indent` columns in (a multi-line object
    /// type indents its fields two columns further and closes at `indent`).
    #[cfg(test)]
    fn typescript(indent: usize) -> String;

    /// A field of this type may be left out (`name?: T`).
    #[cfg(test)]
    const OPTIONAL: bool = false;
}

/// The JSON literal `true`: a flag that is either set or left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct True;

impl Serialize for True {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bool(true)
    }
}

impl WireType for True {
    #[cfg(test)]
    fn typescript(_: usize) -> String {
        "true".into()
    }
}

impl WireType for str {
    #[cfg(test)]
    fn typescript(_: usize) -> String {
        "string".into()
    }
}

impl WireType for bool {
    #[cfg(test)]
    fn typescript(_: usize) -> String {
        "boolean".into()
    }
}

impl WireType for u64 {
    #[cfg(test)]
    fn typescript(_: usize) -> String {
        "number".into()
    }
}

impl WireType for Value {
    #[cfg(test)]
    fn typescript(_: usize) -> String {
        "JsonValue".into()
    }
}

impl<T: WireType + ?Sized> WireType for &T {
    #[cfg(test)]
    fn typescript(indent: usize) -> String {
        T::typescript(indent)
    }
}

impl<T: WireType> WireType for Option<T> {
    fn is_absent(&self) -> bool {
        self.is_none()
    }

    #[cfg(test)]
    fn typescript(indent: usize) -> String {
        T::typescript(indent)
    }

    #[cfg(test)]
    const OPTIONAL: bool = true;
}

impl<T: WireType> WireType for [T] {
    #[cfg(test)]
    fn typescript(indent: usize) -> String {
        format!("{}[]", T::typescript(indent))
    }
}

impl<T: WireType> WireType for Vec<T> {
    #[cfg(test)]
    fn typescript(indent: usize) -> String {
        format!("{}[]", T::typescript(indent))
    }
}

impl WireType for String {
    #[cfg(test)]
    fn typescript(_: usize) -> String {
        "string".into()
    }
}

/// Numbers JS holds exactly: counts, sizes, exit codes, epoch milliseconds.
macro_rules! wire_numbers {
    ($($ty:ty),*) => {$(
        impl WireType for $ty {
            #[cfg(test)]
            fn typescript(_: usize) -> String {
                "number".into()
            }
        }
    )*};
}
wire_numbers!(i32, i64, u32, f64);

impl<const MIN: i64, const MAX: i64> WireType for crate::core::whole_number::WholeNumber<MIN, MAX> {
    #[cfg(test)]
    fn typescript(_: usize) -> String {
        "number".into()
    }
}

impl WireType for std::collections::HashMap<String, String> {
    #[cfg(test)]
    fn typescript(_: usize) -> String {
        "Record<string, string>".into()
    }
}

/// A list of JSON objects (messages, tool definitions) kept as the JSON value it was read as.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(transparent)]
pub struct Objects(pub Value);

impl WireType for Objects {
    #[cfg(test)]
    fn typescript(_: usize) -> String {
        "Array<object>".into()
    }
}

/// A field that is always there, `null` when it holds nothing (unlike an `Option`, which is
/// left out).
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Nullable<T>(pub Option<T>);

impl<T: WireType> WireType for Nullable<T> {
    #[cfg(test)]
    fn typescript(indent: usize) -> String {
        format!("{} | null", T::typescript(indent))
    }
}

/// A struct whose fields are written or read under the JSON keys given beside them (the
/// attributes in parentheses after its shape say which: `derive(serde::Serialize)`,
/// `derive(serde::Deserialize)`, `serde(deny_unknown_fields)`); a field of an `Option` type is
/// left out when `None`.
/// `inline` structs are declared where they are used, `named` ones as an interface of their own
/// ([`typescript::interface`]).
macro_rules! wire_struct {
    (
        $(#[doc = $doc:literal])*
        pub struct $name:ident $(<$lt:lifetime>)? as $shape:ident ($($attr:meta),* $(,)?) {
            $(
                $(#[doc = $field_doc:literal])*
                $(#[serde($($field_serde:tt)*)])?
                $field:ident $key:literal : $ty:ty
            ),* $(,)?
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, PartialEq)]
        $(#[$attr])*
        pub struct $name $(<$lt>)? {
            $(
                $(#[doc = $field_doc])*
                #[serde(
                    rename = $key,
                    skip_serializing_if = "crate::core::wire::WireType::is_absent"
                )]
                $(#[serde($($field_serde)*)])?
                pub $field: $ty,
            )*
        }

        impl $(<$lt>)? $crate::core::wire::WireType for $name $(<$lt>)? {
            #[cfg(test)]
            fn typescript(indent: usize) -> String {
                $crate::core::wire::wire_struct!(@typescript $shape, $name, indent)
            }
        }

        #[cfg(test)]
        impl $(<$lt>)? $name $(<$lt>)? {
            /// The fields as the TypeScript declaration lists them.
            pub(crate) fn typescript_fields(
                indent: usize,
            ) -> Vec<$crate::core::wire::typescript::Field> {
                vec![$(
                    $crate::core::wire::typescript::Field {
                        docs: &[$($field_doc),*],
                        key: $key,
                        ty: <$ty as $crate::core::wire::WireType>::typescript(indent),
                        optional: <$ty as $crate::core::wire::WireType>::OPTIONAL,
                    }
                ),*]
            }

            /// The declaration's doc comment.
            #[allow(dead_code, reason = "only a `named` struct is declared with its docs")]
            pub(crate) const TYPESCRIPT_DOCS: &'static [&'static str] = &[$($doc),*];
        }
    };
    (@typescript inline, $name:ident, $indent:ident) => {
        $crate::core::wire::typescript::object(
            &[],
            &$name::typescript_fields($indent + 2),
            $indent,
        )
    };
    (@typescript named, $name:ident, $indent:ident) => {{
        let _ = $indent;
        stringify!($name).to_owned()
    }};
}
pub(crate) use wire_struct;

/// A unit-only enum written as one of the strings given beside its variants.
macro_rules! wire_strings {
    (
        $(#[doc = $doc:literal])*
        pub enum $name:ident {
            $($variant:ident = $text:literal),* $(,)?
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
        pub enum $name {
            $(
                #[serde(rename = $text)]
                $variant,
            )*
        }

        impl $crate::core::wire::WireType for $name {
            #[cfg(test)]
            fn typescript(_: usize) -> String {
                [$(concat!("'", $text, "'")),*].join(" | ")
            }
        }
    };
}
pub(crate) use wire_strings;

/// An enum of struct variants, each written as an object whose `type` is the string given
/// beside the variant, followed by its fields under their JSON keys; declared in TypeScript as
/// the union of those objects.
macro_rules! wire_union {
    (
        $(#[doc = $doc:literal])*
        pub enum $name:ident<$lt:lifetime> {
            $(
                $(#[doc = $variant_doc:literal])*
                $variant:ident = $tag:literal {
                    $(
                        $(#[doc = $field_doc:literal])*
                        $field:ident $key:literal : $ty:ty
                    ),* $(,)?
                }
            ),* $(,)?
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, PartialEq, serde::Serialize)]
        #[serde(tag = "type")]
        pub enum $name<$lt> {
            $(
                $(#[doc = $variant_doc])*
                #[serde(rename = $tag)]
                $variant {
                    $(
                        $(#[doc = $field_doc])*
                        #[serde(rename = $key, skip_serializing_if = "WireType::is_absent")]
                        $field: $ty,
                    )*
                },
            )*
        }

        #[cfg(test)]
        impl<$lt> $name<$lt> {
            /// `export type <name> = | {...} | ...`, with the docs of the type and its variants.
            pub(crate) fn typescript_declaration() -> String {
                use $crate::core::wire::{typescript, WireType};
                let variants = vec![$(
                    typescript::Variant {
                        docs: &[$($variant_doc),*],
                        tag: $tag,
                        fields: vec![$(
                            typescript::Field {
                                docs: &[$($field_doc),*],
                                key: $key,
                                ty: <$ty as WireType>::typescript(typescript::VARIANT_INDENT + 2),
                                optional: <$ty as WireType>::OPTIONAL,
                            }
                        ),*],
                    }
                ),*];
                typescript::union(&[$($doc),*], stringify!($name), &variants)
            }
        }
    };
}
pub(crate) use wire_union;

/// TypeScript rendering of the wire types, in the style of `header.d.ts`: two-space indents, no
/// semicolons between the fields of a multi-line object, `; ` between those of a one-line one.
#[cfg(test)]
pub mod typescript {
    /// One field of an object type.
    pub struct Field {
        pub docs: &'static [&'static str],
        pub key: &'static str,
        /// Its type, rendered for the field's column.
        pub ty: String,
        pub optional: bool,
    }

    /// One member of a union: an object whose `type` is `tag`.
    pub struct Variant {
        pub docs: &'static [&'static str],
        pub tag: &'static str,
        pub fields: Vec<Field>,
    }

    /// The column of a union member's `{` (`  | {`).
    pub const VARIANT_INDENT: usize = 4;

    /// A one-line object type longer than this is written one field a line.
    const LINE_WIDTH: usize = 100;

    /// A doc comment at `indent`: one line when it fits, else a block.
    pub fn docs(lines: &[&str], indent: usize) -> String {
        let pad = " ".repeat(indent);
        // `///` docs arrive with the space after the slashes.
        let lines: Vec<&str> = lines
            .iter()
            .map(|l| l.strip_prefix(' ').unwrap_or(l))
            .collect();
        match lines.as_slice() {
            [] => String::new(),
            [one] if indent + one.len() + 7 <= LINE_WIDTH => format!("{pad}/** {one} */\n"),
            many => {
                let mut out = format!("{pad}/**\n");
                for line in many {
                    let line = if line.is_empty() {
                        String::new()
                    } else {
                        format!(" {line}")
                    };
                    out.push_str(&format!("{pad} *{line}\n"));
                }
                out.push_str(&format!("{pad} */\n"));
                out
            }
        }
    }

    fn field_line(field: &Field) -> String {
        let optional = if field.optional { "?" } else { "" };
        format!("{}{optional}: {}", field.key, field.ty)
    }

    /// An object type whose `{` is at column `indent`: `head` lines first (a union member's
    /// `type`), then the fields; on one line when nothing is documented and it fits.
    pub fn object(head: &[String], fields: &[Field], indent: usize) -> String {
        let lines = object_lines(head, fields);
        let documented = fields.iter().any(|f| !f.docs.is_empty());
        let one_line = format!("{{ {} }}", lines.join("; "));
        if !documented && !one_line.contains('\n') && indent + one_line.len() <= LINE_WIDTH {
            return one_line;
        }
        block(head, fields, indent)
    }

    fn object_lines(head: &[String], fields: &[Field]) -> Vec<String> {
        head.iter()
            .cloned()
            .chain(fields.iter().map(field_line))
            .collect()
    }

    /// An object type one field a line.
    fn block(head: &[String], fields: &[Field], indent: usize) -> String {
        let pad = " ".repeat(indent + 2);
        let mut out = String::from("{\n");
        for line in head {
            out.push_str(&format!("{pad}{line}\n"));
        }
        for field in fields {
            out.push_str(&docs(field.docs, indent + 2));
            out.push_str(&format!("{pad}{}\n", field_line(field)));
        }
        out.push_str(&" ".repeat(indent));
        out.push('}');
        out
    }

    /// `export interface <name> {...}` with its docs, at the top level.
    pub fn interface(doc: &[&str], name: &str, fields: &[Field]) -> String {
        let mut out = docs(doc, 0);
        // One field a line, as napi declares interfaces.
        let body = block(&[], fields, 0);
        out.push_str(&format!("export interface {name} {body}\n"));
        out
    }

    /// Checks that `src/node/header.d.ts` holds `rendered` between the lines `from` and `end`;
    /// with `OCN_RENDER_DECLARATIONS` set, writes it there instead (then review the change).
    pub fn check_header_section(from: &str, end: &str, rendered: &str) {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/node/header.d.ts");
        let header = std::fs::read_to_string(path).expect("src/node/header.d.ts reads");
        let (before, body) = header
            .split_once(from)
            .unwrap_or_else(|| panic!("header.d.ts has the line {from:?}"));
        let (section, after) = body
            .split_once(end)
            .unwrap_or_else(|| panic!("header.d.ts has the line {end:?}"));
        if std::env::var_os("OCN_RENDER_DECLARATIONS").is_some() {
            let written = format!("{before}{from}{rendered}{end}{after}");
            std::fs::write(path, written).expect("src/node/header.d.ts is written");
            return;
        }
        assert!(
            section == rendered,
            "src/node/header.d.ts does not declare these types as their definitions say; run \
             `OCN_RENDER_DECLARATIONS=1 cargo test --no-default-features --lib -- --test-threads=1` to write them, \
             or make the section read:\n{rendered}"
        );
    }

    /// `export type <name> =` and one `| {...}` line (or block) per variant.
    pub fn union(doc: &[&str], name: &str, variants: &[Variant]) -> String {
        let mut out = docs(doc, 0);
        out.push_str(&format!("export type {name} =\n"));
        for variant in variants {
            out.push_str(&docs(variant.docs, 2));
            let tag = format!("type: '{}'", variant.tag);
            let body = object(&[tag], &variant.fields, VARIANT_INDENT);
            out.push_str(&format!("  | {body}\n"));
        }
        out
    }
}
