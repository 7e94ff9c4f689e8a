//! The binding's work done inside the JS engine (`engine.js`): compiled once per environment,
//! its functions kept as the environment's instance data.

use napi::bindgen_prelude::{
    FnArgs, Function, FunctionRef, JsObjectValue, JsValuesTupleIntoVec, Object, Uint32Array,
    Unknown,
};
use napi::{Env, JsString};

use crate::core::stream::encode::batch::{PieceKind, WIDE};

/// `readOutputBatch`'s arguments: the narrow text, the wide text, the pieces.
pub type BatchArgs<'env> = FnArgs<(JsString<'env>, JsString<'env>, Uint32Array)>;
/// `constructedAs`'s arguments: `this`, the class's name.
type ClassArgs<'env> = FnArgs<(Unknown<'env>, &'env str)>;
type Kept<Args> = FunctionRef<Args, Unknown<'static>>;

/// What the addon keeps per JS environment.
struct Helpers {
    read_output_batch: Kept<BatchArgs<'static>>,
    json_text: Kept<Unknown<'static>>,
    constructed_as: Kept<ClassArgs<'static>>,
}

/// `env`'s helpers, compiled on first use and given the core's piece kinds.
fn helpers(env: &Env) -> napi::Result<&'static Helpers> {
    if let Some(kept) = env.get_instance_data::<Helpers>()? {
        return Ok(kept);
    }
    let make: Function<'_, Object<'_>, Object<'_>> = env.run_script(concat!(
        "(function (module) {'use strict';\n",
        include_str!("engine.js"),
        "\nreturn module.exports})({exports: {}})"
    ))?;
    let mut kinds = Object::new(env)?;
    kinds.set("frame", PieceKind::Frame as u32)?;
    kinds.set("json", PieceKind::Json as u32)?;
    kinds.set("text", PieceKind::TextDelta as u32)?;
    kinds.set("reasoning", PieceKind::ReasoningDelta as u32)?;
    kinds.set("blockId", PieceKind::BlockId as u32)?;
    kinds.set("wide", WIDE)?;
    let made = make.call(kinds)?;
    let helpers = Helpers {
        read_output_batch: kept(&made, "readOutputBatch")?,
        json_text: kept(&made, "jsonText")?,
        constructed_as: kept(&made, "constructedAs")?,
    };
    env.set_instance_data(helpers, (), |_| {})?;
    self::helpers(env)
}

/// The function `name` of the helpers, kept.
fn kept<Args: JsValuesTupleIntoVec>(made: &Object<'_>, name: &str) -> napi::Result<Kept<Args>> {
    made.get_named_property::<Function<'static, Args, Unknown<'static>>>(name)?
        .create_ref()
}

/// `readOutputBatch(narrow, wide, pieces)`: a batch's outputs as one JS array.
pub fn read_output_batch<'env>(
    env: &'env Env,
    args: BatchArgs<'env>,
) -> napi::Result<Unknown<'env>> {
    let read: Function<'env, BatchArgs<'env>, Unknown<'env>> =
        helpers(env)?.read_output_batch.borrow_back(env)?;
    read.call(args)
}

/// `jsonText(value)`: the JSON text of `value`, or `{field, reason}` when it cannot be written.
pub fn json_text<'env>(env: &'env Env, value: Unknown<'env>) -> napi::Result<Unknown<'env>> {
    let write: Function<'env, Unknown<'env>, Unknown<'env>> =
        helpers(env)?.json_text.borrow_back(env)?;
    write.call(value)
}

/// `constructedAs(this, class)`: whether a constructor of `class` runs under `new`.
pub fn constructed_as<'env>(
    env: &'env Env,
    this: Unknown<'env>,
    class: &'env str,
) -> napi::Result<bool> {
    let check: Function<'env, ClassArgs<'env>, Unknown<'env>> =
        helpers(env)?.constructed_as.borrow_back(env)?;
    let answer = check.call(FnArgs::from((this, class)))?;
    // SAFETY: `constructedAs` returns a boolean.
    unsafe { answer.cast::<bool>() }
}
