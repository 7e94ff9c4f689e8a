//! How outputs cross into JS, shared by `StreamTransformer` and `runCursorAgent`: SSE frames as an
//! array of strings; V3 parts as one JSON text through a single `JSON.parse`, which measured
//! about 1.5x faster end to end than napi's serde conversion (one napi call per property) and
//! keeps the parts plain JS objects. The parts' text is ASCII (`AsciiJson`): it becomes a JS
//! string by a copy, without decoding UTF-8, and the engine parses it on its one-byte path; the
//! two together raised the `ai-sdk` format's throughput on the partial-delta benchmark by about 6%.

use napi::bindgen_prelude::{Array, Function, JsObjectValue, Object, Unknown};
use napi::{Env, JsString, JsValue};

use crate::core::stream::encode::{write_ascii_json, Output};
use crate::core::stream::transformer::Written;
use crate::node::error::{from_napi, invalid_arg, Result};

/// Hands a batch of outputs to JS as one array, draining `outputs`.
pub fn outputs_to_js<'env>(env: &'env Env, outputs: &mut Vec<Output>) -> Result<Unknown<'env>> {
    if outputs.iter().all(|o| matches!(o, Output::Frame(_))) {
        let frames: Vec<String> = outputs.drain(..).filter_map(Output::into_frame).collect();
        let array = Array::from_vec(env, frames).map_err(from_napi)?;
        return Ok(array.to_unknown());
    }
    let mut json = Vec::new();
    write_ascii_json(&mut json, &std::mem::take(outputs))
        .map_err(|e| invalid_arg(format!("output not serialisable: {e}")))?;
    parse_json(env, &json).map_err(from_napi)
}

/// Outputs as the core wrote them, as one JS array.
pub fn written_to_js(env: &Env, written: Written) -> Result<Unknown<'_>> {
    match written {
        Written::Outputs(mut outputs) => outputs_to_js(env, &mut outputs),
        Written::Json(json) => json_array_to_js(env, json),
    }
}

/// Parses outputs each followed by a comma (as the core's `*_json` methods append them) into a
/// JS array.
fn json_array_to_js(env: &Env, json: String) -> Result<Unknown<'_>> {
    let mut array = Vec::with_capacity(json.len() + 2);
    array.push(b'[');
    array.extend_from_slice(json.strip_suffix(',').unwrap_or(&json).as_bytes());
    array.push(b']');
    parse_json(env, &array).map_err(from_napi)
}

/// `JSON.parse(text)` of UTF-8 `text`; ASCII text is handed over as Latin-1, which JS takes as
/// it is (every ASCII byte is the same Latin-1 character), with no UTF-8 decoding.
fn parse_json<'env>(env: &'env Env, text: &[u8]) -> napi::Result<Unknown<'env>> {
    let string = if text.is_ascii() {
        env.create_string_latin1(text)?
    } else {
        // Callers pass text serde_json wrote, which is UTF-8.
        env.create_string(
            std::str::from_utf8(text)
                .map_err(|e| napi::Error::new(napi::Status::GenericFailure, e.to_string()))?,
        )?
    };
    let parser: Object = env.get_global()?.get_named_property("JSON")?;
    let parse: Function<JsString, Unknown> = parser.get_named_property("parse")?;
    parse.call(string)
}

/// A value that crosses into JS as the JSON data serde writes of it, parsed by the engine: plain
/// objects, and numbers that stay numbers (napi's own serde writer makes large ones BigInts).
pub struct Json<T>(pub T);

impl<T: serde::Serialize> napi::bindgen_prelude::ToNapiValue for Json<T> {
    unsafe fn to_napi_value(
        env: napi::sys::napi_env,
        value: Self,
    ) -> napi::Result<napi::sys::napi_value> {
        let mut text = Vec::new();
        write_ascii_json(&mut text, &value.0)
            .map_err(|e| napi::Error::new(napi::Status::GenericFailure, e.to_string()))?;
        Ok(parse_json(&Env::from_raw(env), &text)?.raw())
    }
}
