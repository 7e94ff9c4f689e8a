//! How outputs cross into JS, shared by `StreamTransformer` and `runCursorAgent`: SSE frames as an
//! array of strings; V3 parts as one JSON text through a single `JSON.parse`, which measured
//! about 1.5x faster end to end than napi's serde conversion (one napi call per property) and
//! keeps the parts plain JS objects.

use napi::bindgen_prelude::{Array, Function, JsObjectValue, Object, Unknown};
use napi::{Env, JsValue};

use crate::core::stream::encode::Output;
use crate::core::stream::transformer::Written;
use crate::node::error::{from_napi, invalid_arg, Result};

/// Hands a batch of outputs to JS as one array, draining `outputs`.
pub fn outputs_to_js<'env>(env: &'env Env, outputs: &mut Vec<Output>) -> Result<Unknown<'env>> {
    if outputs.iter().all(|o| matches!(o, Output::Frame(_))) {
        let frames: Vec<String> = outputs.drain(..).filter_map(Output::into_frame).collect();
        let array = Array::from_vec(env, frames).map_err(from_napi)?;
        return Ok(array.to_unknown());
    }
    let json = serde_json::to_string(&std::mem::take(outputs))
        .map_err(|e| invalid_arg(format!("output not serialisable: {e}")))?;
    parse_json(env, json).map_err(from_napi)
}

/// Outputs as the core wrote them, as one JS array.
pub fn written_to_js(env: &Env, written: Written) -> Result<Unknown<'_>> {
    match written {
        Written::Outputs(mut outputs) => outputs_to_js(env, &mut outputs),
        Written::Json(json) => json_array_to_js(env, &json),
    }
}

/// Parses outputs each followed by a comma (as the core's `*_json` methods append them) into a
/// JS array.
fn json_array_to_js<'env>(env: &'env Env, json: &str) -> Result<Unknown<'env>> {
    let items = json.strip_suffix(',').unwrap_or(json);
    parse_json(env, format!("[{items}]")).map_err(from_napi)
}

/// `JSON.parse(text)`.
fn parse_json(env: &Env, text: String) -> napi::Result<Unknown<'_>> {
    let parser: Object = env.get_global()?.get_named_property("JSON")?;
    let parse: Function<String, Unknown> = parser.get_named_property("parse")?;
    parse.call(text)
}

/// A value that crosses into JS as the JSON data serde writes of it, parsed by the engine: plain
/// objects, and numbers that stay numbers (napi's own serde writer makes large ones BigInts).
pub struct Json<T>(pub T);

impl<T: serde::Serialize> napi::bindgen_prelude::ToNapiValue for Json<T> {
    unsafe fn to_napi_value(
        env: napi::sys::napi_env,
        value: Self,
    ) -> napi::Result<napi::sys::napi_value> {
        let text = serde_json::to_string(&value.0)
            .map_err(|e| napi::Error::new(napi::Status::GenericFailure, e.to_string()))?;
        Ok(parse_json(&Env::from_raw(env), text)?.raw())
    }
}
