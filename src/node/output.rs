//! How outputs cross into JS: every batch of outputs, a run's and a `StreamTransformer`'s, as a
//! [`Batch`]: two strings (one byte a character, and UTF-16), each made by a copy, and the kind
//! and end of each piece, read by `readOutputBatch` (`engine.js`). It slices the frames, builds
//! each text or thinking delta part from its piece, and parses the other parts' JSON. On the partial-delta benchmark the engine makes the parts about
//! twenty times faster that way than by one `JSON.parse` of them all.
//!
//! Other values cross the same way, as a batch of one JSON piece ([`Json`]): one `JSON.parse`,
//! which measured about 1.5x faster than napi's serde conversion (one napi call per property).
//! That text is ASCII (`AsciiJson`): it becomes a JS string by a copy, without decoding UTF-8.

use napi::bindgen_prelude::{FnArgs, JsObjectValue, Object, ToNapiValue, Uint32Array, Unknown};
use napi::{sys, Env, JsValue};

use super::engine::read_output_batch;
use crate::core::stream::encode::batch::Batch;
use crate::node::error::{from_napi, Result};

/// A batch's outputs as one JS array, made by `readOutputBatch` (`engine.js`).
pub fn batch_to_js(env: &Env, batch: Batch) -> Result<Unknown<'_>> {
    let (narrow, wide, pieces) = batch.into_parts();
    let narrow = env.create_string_latin1(narrow).map_err(from_napi)?;
    let wide = env.create_string_utf16(wide).map_err(from_napi)?;
    let pieces = Uint32Array::new(pieces);
    read_output_batch(env, FnArgs::from((narrow, wide, pieces))).map_err(from_napi)
}

/// A value that crosses into JS as the JSON data serde writes of it, a batch of one JSON piece:
/// plain objects, and numbers that stay numbers (napi's own serde writer makes large ones
/// BigInts).
pub struct Json<T>(pub T);

impl<T: serde::Serialize> ToNapiValue for Json<T> {
    unsafe fn to_napi_value(env: sys::napi_env, value: Self) -> napi::Result<sys::napi_value> {
        let env = Env::from_raw(env);
        let mut batch = Batch::new();
        batch.json(&value.0);
        let outputs = batch_to_js(&env, batch).map_err(|e| napi::Error::from_reason(e.reason))?;
        let outputs = Object::from_raw(env.raw(), outputs.raw());
        Ok(outputs.get_element::<Unknown>(0)?.raw())
    }
}
