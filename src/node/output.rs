//! How outputs cross into JS: every batch of outputs, a run's and a `StreamTransformer`'s, as a
//! [`Batch`]: two strings (one byte a character, and UTF-16), each made by a copy, and the kind
//! and end of each piece, read by `readOutputBatch` (`read-output-batch.js`), compiled once per
//! environment. It slices the frames, builds each text or thinking delta part from its piece, and
//! parses the other parts' JSON. On the partial-delta benchmark the engine makes the parts about
//! twenty times faster that way than by one `JSON.parse` of them all.
//!
//! Other values cross as the JSON text serde writes of them ([`Json`]), through one `JSON.parse`,
//! which measured about 1.5x faster than napi's serde conversion (one napi call per property).
//! That text is ASCII (`AsciiJson`): it becomes a JS string by a copy, without decoding UTF-8.

use napi::bindgen_prelude::{
    FnArgs, Function, FunctionRef, JsObjectValue, Object, Uint32Array, Unknown,
};
use napi::{Env, JsString, JsValue};

use crate::core::stream::encode::batch::{Batch, PieceKind, WIDE};
use crate::core::stream::encode::write_ascii_json;
use crate::node::error::{from_napi, Result};

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

/// `env`'s `readOutputBatch`, made on first use from the script and the core's piece kinds.
fn batch_reader(env: &Env) -> napi::Result<BatchReader<'_>> {
    if let Some(data) = env.get_instance_data::<EnvironmentData>()? {
        return data.batch_reader.borrow_back(env);
    }
    let make: Function<'_, Object<'_>, BatchReader<'_>> = env.run_script(concat!(
        "(function (module) {'use strict';\n",
        include_str!("read-output-batch.js"),
        "\nreturn module.exports})({exports: {}})"
    ))?;
    let mut kinds = Object::new(env)?;
    let wire = |kind: PieceKind| kind as u32;
    kinds.set("frame", wire(PieceKind::Frame))?;
    kinds.set("json", wire(PieceKind::Json))?;
    kinds.set("text", wire(PieceKind::TextDelta))?;
    kinds.set("reasoning", wire(PieceKind::ReasoningDelta))?;
    kinds.set("blockId", wire(PieceKind::BlockId))?;
    kinds.set("wide", WIDE)?;
    let reader = make.call(kinds)?;
    let batch_reader = reader.create_ref()?;
    env.set_instance_data(EnvironmentData { batch_reader }, (), |_| {})?;
    Ok(reader)
}

/// `JSON.parse(text)` of ASCII `text`, handed over as Latin-1, which JS takes as it is.
fn parse_ascii_json<'env>(env: &'env Env, text: &[u8]) -> napi::Result<Unknown<'env>> {
    let string = env.create_string_latin1(text)?;
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
        Ok(parse_ascii_json(&Env::from_raw(env), &text)?.raw())
    }
}
