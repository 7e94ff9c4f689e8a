//! How outputs cross into JS.
//!
//! `StreamTransformer`'s outputs cross as a [`Batch`]: two strings (one byte a character, and
//! UTF-16), each made by a copy, and the kind and end of each piece, read by a small JS function
//! compiled once per environment (`readOutputBatch`). It slices the frames, builds each text or
//! thinking delta part from its piece, and parses the other parts' JSON. On the partial-delta
//! benchmark the engine makes the parts about twenty times faster that way than by one
//! `JSON.parse` of them all, and they are plain JS objects as before.
//!
//! `runCursorAgent`'s batches (a few records each) cross as an array of strings (SSE frames) or
//! one JSON text of the parts through a single `JSON.parse`, which measured about 1.5x faster
//! than napi's serde conversion (one napi call per property). That text is ASCII (`AsciiJson`):
//! it becomes a JS string by a copy, without decoding UTF-8, and the engine parses it on its
//! one-byte path.

use napi::bindgen_prelude::{
    Array, FnArgs, Function, FunctionRef, JsObjectValue, Object, Uint32Array, Unknown,
};
use napi::{Env, JsString, JsValue};

use crate::core::stream::encode::batch::{Batch, PieceKind, WIDE};
use crate::core::stream::encode::{write_ascii_json, Output};
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

/// A batch's outputs as one JS array, made by `readOutputBatch`.
pub fn batch_to_js(env: &Env, batch: Batch) -> Result<Unknown<'_>> {
    let (narrow, wide, pieces) = batch.into_parts();
    let narrow = env.create_string_latin1(narrow).map_err(from_napi)?;
    let wide = env.create_string_utf16(wide).map_err(from_napi)?;
    let read = batch_reader(env).map_err(from_napi)?;
    read.call(FnArgs::from((narrow, wide, Uint32Array::new(pieces))))
        .map_err(from_napi)
}

/// `readOutputBatch`'s arguments: the narrow text, the wide text, the pieces.
type BatchArgs<'env> = FnArgs<(JsString<'env>, JsString<'env>, Uint32Array)>;

/// `readOutputBatch`, as `env` compiled it.
type BatchReader<'env> = Function<'env, BatchArgs<'env>, Unknown<'env>>;

/// What the addon keeps per JS environment.
struct EnvironmentData {
    batch_reader: FunctionRef<BatchArgs<'static>, Unknown<'static>>,
}

/// `env`'s `readOutputBatch`, compiled on first use.
fn batch_reader(env: &Env) -> napi::Result<BatchReader<'_>> {
    if let Some(data) = env.get_instance_data::<EnvironmentData>()? {
        return data.batch_reader.borrow_back(env);
    }
    let reader: BatchReader<'_> = env.run_script(batch_reader_source())?;
    let batch_reader = reader.create_ref()?;
    env.set_instance_data(EnvironmentData { batch_reader }, (), |_| {})?;
    Ok(reader)
}

/// The source of `readOutputBatch`, with each piece kind's wire value. A delta part's
/// properties are those of the core's `StreamPart` (type, id, delta, in that order).
fn batch_reader_source() -> String {
    let case = |kind: PieceKind| kind as u32;
    format!(
        "(function () {{
  'use strict';
  const parse = JSON.parse;
  return function readOutputBatch(narrow, wide, pieces) {{
    const outputs = [];
    let narrowFrom = 0;
    let wideFrom = 0;
    let id = '';
    for (let i = 0; i < pieces.length; i += 2) {{
      const end = pieces[i + 1];
      let piece;
      if (pieces[i] & {wide}) {{
        piece = wide.slice(wideFrom, end);
        wideFrom = end;
      }} else {{
        piece = narrow.slice(narrowFrom, end);
        narrowFrom = end;
      }}
      switch (pieces[i] & {kind_mask}) {{
        case {frame}: outputs.push(piece); break;
        case {json}: outputs.push(parse(piece)); break;
        case {text}: outputs.push({{ type: 'text-delta', id, delta: piece }}); break;
        case {reasoning}: outputs.push({{ type: 'reasoning-delta', id, delta: piece }}); break;
        case {block_id}: id = piece; break;
      }}
    }}
    return outputs;
  }};
}})()",
        frame = case(PieceKind::Frame),
        json = case(PieceKind::Json),
        text = case(PieceKind::TextDelta),
        reasoning = case(PieceKind::ReasoningDelta),
        block_id = case(PieceKind::BlockId),
        wide = WIDE,
        kind_mask = WIDE - 1,
    )
}

/// A JS string of UTF-8 `text`; ASCII text is handed over as Latin-1, which JS takes as it is
/// (every ASCII byte is the same Latin-1 character), with no UTF-8 decoding.
fn js_string<'env>(env: &'env Env, text: &[u8]) -> napi::Result<JsString<'env>> {
    if text.is_ascii() {
        env.create_string_latin1(text)
    } else {
        // Callers pass text the core wrote, which is UTF-8.
        env.create_string(
            std::str::from_utf8(text)
                .map_err(|e| napi::Error::new(napi::Status::GenericFailure, e.to_string()))?,
        )
    }
}

/// `JSON.parse(text)` of UTF-8 `text`.
fn parse_json<'env>(env: &'env Env, text: &[u8]) -> napi::Result<Unknown<'env>> {
    let string = js_string(env, text)?;
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
