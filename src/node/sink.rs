//! Delivering a run's output batches to its JS callback: one batch at a time
//! (`core/agent/one_at_a_time.rs`), at most one per turn of the event loop, none once the
//! callback threw.

use std::sync::Arc;

use napi::bindgen_prelude::{Env, FnArgs, Function, JsObjectValue, Status, ToNapiValue};
use napi::threadsafe_function::{
    ThreadsafeFunction, ThreadsafeFunctionCallMode, UnknownReturnValue,
};
use napi::{sys, JsValue, Unknown};

use super::output::{batch_to_js, Json};
use crate::core::agent::one_at_a_time::OneAtATime;
use crate::core::agent::{OutputSink, Receipt, RunStep};
use crate::core::stream::encode::batch::Batch as Pieces;
use crate::core::stream::encode::Output;

/// One batch of outputs as a JS array: SSE frames as strings, V3 parts as objects.
pub struct OutputBatch(Vec<Output>);

impl ToNapiValue for OutputBatch {
    unsafe fn to_napi_value(env: sys::napi_env, batch: Self) -> napi::Result<sys::napi_value> {
        let env = Env::from_raw(env);
        let array = batch_to_js(&env, Pieces::of_outputs(&batch.0))
            .map_err(|e| napi::Error::new(Status::GenericFailure, e.reason.clone()))?;
        Ok(array.raw())
    }
}

/// `onOutput`'s arguments: the outputs, and how their step ended (or `null`).
type OnOutputArgs = FnArgs<(OutputBatch, Json<Option<RunStep>>)>;

/// The `onOutput` callback, called from any thread, never with an error first argument.
pub type OnOutput =
    ThreadsafeFunction<OnOutputArgs, UnknownReturnValue, OnOutputArgs, Status, false>;

/// A batch, the end of its step when it ends one, and its receipt.
type Batch = (Vec<Output>, Option<RunStep>, Receipt);

/// Hands batches to the JS callback. The next batch goes from a `setImmediate` scheduled when
/// the callback returns, so timers, I/O and the host's own immediates run between two calls
/// however fast the batches come. A batch's receipt is dropped when the callback returns.
pub struct JsOutputSink {
    inner: Arc<SinkInner>,
}

struct SinkInner {
    on_output: OnOutput,
    queue: OneAtATime<Batch>,
}

impl JsOutputSink {
    pub fn new(on_output: OnOutput) -> Self {
        Self {
            inner: Arc::new(SinkInner {
                on_output,
                queue: OneAtATime::default(),
            }),
        }
    }
}

impl OutputSink for JsOutputSink {
    fn deliver(&self, batch: Vec<Output>, step: Option<RunStep>, receipt: Receipt) -> bool {
        match self.inner.queue.offer((batch, step, receipt)) {
            Some(now) => self.inner.send(now),
            None => true,
        }
    }
}

impl SinkInner {
    /// Hands a batch to the callback; false when the JS side is gone.
    fn send(self: &Arc<Self>, (batch, step, receipt): Batch) -> bool {
        let inner = Arc::clone(self);
        let status = self.on_output.call_with_return_value(
            FnArgs::from((OutputBatch(batch), Json(step))),
            ThreadsafeFunctionCallMode::NonBlocking,
            move |returned, env| {
                match returned {
                    Ok(_) => drop(receipt),
                    Err(thrown) => {
                        receipt.callback_failed(thrown.reason.clone());
                        inner.queue.fail();
                    }
                }
                inner.after_turn(&env);
                Ok(())
            },
        );
        if status != Status::Ok {
            self.queue.gone();
        }
        status == Status::Ok
    }

    /// Sends the next waiting batch once the event loop has gone round (from `setImmediate`).
    /// The scheduled function holds the sink weakly: JS frees it only when the garbage
    /// collector runs, and a strong hold would keep `onOutput`, and with it the event loop,
    /// alive after the run (a script that ran cursor-agent would never exit). Once the core has
    /// let go of the sink, every batch was delivered, so there is nothing left to send.
    fn after_turn(self: &Arc<Self>, env: &Env) {
        let inner = Arc::downgrade(self);
        let scheduled = env
            .create_function_from_closure::<(), (), _>("nextOutputBatch", move |_| {
                if let Some(inner) = inner.upgrade() {
                    inner.send_next();
                }
                Ok(())
            })
            .and_then(|next| {
                let global = env.get_global()?;
                let set_immediate: Function<Unknown, Unknown> =
                    global.get_named_property("setImmediate")?;
                set_immediate.call(next.to_unknown())
            });
        if scheduled.is_err() {
            // No event loop to wait for (the environment is going away): go on at once.
            self.send_next();
        }
    }

    fn send_next(self: &Arc<Self>) {
        if let Some(next) = self.queue.next() {
            self.send(next);
        }
    }
}
