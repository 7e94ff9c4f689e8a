//! The binding's work done inside the JS engine (`engine.js`): compiled once per environment and
//! global object, its functions kept as the environment's instance data.

use napi::bindgen_prelude::{
    FnArgs, Function, FunctionRef, JsObjectValue, JsValuesTupleIntoVec, Object, Uint32Array,
    Unknown,
};
use std::cell::RefCell;

use napi::bindgen_prelude::ObjectRef;
use napi::{Env, JsString, JsValue};

use crate::core::stream::encode::batch::{PieceKind, WIDE};

/// `readOutputBatch`'s arguments: the narrow text, the wide text, the pieces.
pub type BatchArgs<'env> = FnArgs<(JsString<'env>, JsString<'env>, Uint32Array)>;
/// `constructedAs`'s arguments: `this`, the class's name.
type ClassArgs<'env> = FnArgs<(Unknown<'env>, &'env str)>;
type Kept<Args> = FunctionRef<Args, Unknown<'static>>;

/// What the addon keeps per JS environment: the helpers of the global object it last ran in.
struct Engine(RefCell<Option<Helpers>>);

struct Helpers {
    /// The global object they were compiled in. A host may run one environment in a fresh
    /// global at a time (Bun's `--isolate`: one per test file) and clear the last one's
    /// builtins; helpers of another global would make values of that realm with them, so they
    /// are compiled again for each global.
    global: ObjectRef<false>,
    read_output_batch: Kept<BatchArgs<'static>>,
    json_text: Kept<Unknown<'static>>,
    constructed_as: Kept<ClassArgs<'static>>,
}

/// The helper `pick` chooses, of `env`'s current global: compiled on first use there.
fn helper<'env, Args: JsValuesTupleIntoVec>(
    env: &'env Env,
    pick: impl Fn(&Helpers) -> &Kept<Args>,
) -> napi::Result<Function<'env, Args, Unknown<'env>>> {
    let engine = match env.get_instance_data::<Engine>()? {
        Some(engine) => engine,
        None => {
            env.set_instance_data(Engine(RefCell::new(None)), (), |_| {})?;
            env.get_instance_data::<Engine>()?.ok_or_else(|| {
                napi::Error::from_reason("the engine's instance data was not kept")
            })?
        }
    };
    let global = env.get_global()?.coerce_to_object()?;
    let current = match engine.0.borrow().as_ref() {
        Some(kept) => env.strict_equals(kept.global.get_value(env)?, global)?,
        None => false,
    };
    if !current {
        let compiled = compile(env, global)?;
        if let Some(old) = engine.0.replace(Some(compiled)) {
            old.global.unref(env)?;
        }
    }
    let slot = engine.0.borrow();
    let kept = slot
        .as_ref()
        .ok_or_else(|| napi::Error::from_reason("the engine's helpers were not kept"))?;
    pick(kept).borrow_back(env)
}

/// `engine.js` compiled in `global`'s realm and given the core's piece kinds.
fn compile(env: &Env, global: Object<'_>) -> napi::Result<Helpers> {
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
    Ok(Helpers {
        global: global.create_ref()?,
        read_output_batch: kept(&made, "readOutputBatch")?,
        json_text: kept(&made, "jsonText")?,
        constructed_as: kept(&made, "constructedAs")?,
    })
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
        helper(env, |helpers| &helpers.read_output_batch)?;
    read.call(args)
}

/// `jsonText(value)`: the JSON text of `value`, or `{field, reason}` when it cannot be written.
pub fn json_text<'env>(env: &'env Env, value: Unknown<'env>) -> napi::Result<Unknown<'env>> {
    let write: Function<'env, Unknown<'env>, Unknown<'env>> =
        helper(env, |helpers| &helpers.json_text)?;
    write.call(value)
}

/// `constructedAs(this, class)`: whether a constructor of `class` runs under `new`.
pub fn constructed_as<'env>(
    env: &'env Env,
    this: Unknown<'env>,
    class: &'env str,
) -> napi::Result<bool> {
    let check: Function<'env, ClassArgs<'env>, Unknown<'env>> =
        helper(env, |helpers| &helpers.constructed_as)?;
    let answer = check.call(FnArgs::from((this, class)))?;
    // SAFETY: `constructedAs` returns a boolean.
    unsafe { answer.cast::<bool>() }
}
