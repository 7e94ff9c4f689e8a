//! Delivering a run's output batches to its JS callback: one batch at a time, at most one per
//! turn of the event loop, and nothing more once the callback threw.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use napi::bindgen_prelude::{Env, FnArgs, Function, JsObjectValue, Status, ToNapiValue};
use napi::threadsafe_function::{
    ThreadsafeFunction, ThreadsafeFunctionCallMode, UnknownReturnValue,
};
use napi::{sys, JsValue, Unknown};

use super::output::outputs_to_js;
use super::run::RunStep;
use crate::core::agent::{OutputSink, Receipt, StepEnd};
use crate::core::stream::encode::Output;

/// One batch of outputs as a JS array: SSE frames as strings, V3 parts as objects.
pub struct OutputBatch(Vec<Output>);

impl ToNapiValue for OutputBatch {
    unsafe fn to_napi_value(env: sys::napi_env, mut batch: Self) -> napi::Result<sys::napi_value> {
        let env = Env::from_raw(env);
        let array = outputs_to_js(&env, &mut batch.0)
            .map_err(|e| napi::Error::new(Status::GenericFailure, e.reason.clone()))?;
        Ok(array.raw())
    }
}

/// Delivers batches to the JS callback, one at a time and at most one per turn of the event
/// loop: the next batch is handed over from a `setImmediate` scheduled when the callback
/// returns, so timers, I/O and the host's own immediates run between two calls however fast
/// the batches come. A batch's receipt is dropped when the callback returns; once it throws,
/// no further batch is delivered.
pub struct JsOutputSink {
    inner: Arc<SinkInner>,
}

struct SinkInner {
    on_output: OnOutput,
    queue: Mutex<SinkQueue>,
}

#[derive(Default)]
struct SinkQueue {
    /// A batch is with the callback, or its turn of the event loop has not yet passed.
    busy: bool,
    /// Batches waiting for their turn (at most the core's in-flight limit).
    waiting: VecDeque<Batch>,
    /// The callback threw: the consumer is gone.
    failed: bool,
}

/// A batch, the end of its step when it ends one, and its receipt.
type Batch = (Vec<Output>, Option<StepEnd>, Receipt);

/// `onOutput`'s arguments: the outputs, and how their step ended (or `null`).
type OnOutputArgs = FnArgs<(OutputBatch, Option<RunStep>)>;

/// The `onOutput` callback, called from any thread, never with an error first argument.
pub type OnOutput =
    ThreadsafeFunction<OnOutputArgs, UnknownReturnValue, OnOutputArgs, Status, false>;

impl SinkInner {
    fn queue(&self) -> std::sync::MutexGuard<'_, SinkQueue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Hands `batch` to the callback; false when the JS side is gone.
    fn send(self: &Arc<Self>, (batch, step, receipt): Batch) -> bool {
        let inner = Arc::clone(self);
        let status = self.on_output.call_with_return_value(
            FnArgs::from((OutputBatch(batch), step.map(RunStep::from))),
            ThreadsafeFunctionCallMode::NonBlocking,
            move |returned, env| {
                match returned {
                    Ok(_) => drop(receipt),
                    Err(thrown) => {
                        receipt.callback_failed(thrown.reason.clone());
                        let mut queue = inner.queue();
                        queue.failed = true;
                        queue.waiting.clear();
                    }
                }
                inner.after_turn(&env);
                Ok(())
            },
        );
        if status != Status::Ok {
            let mut queue = self.queue();
            queue.busy = false;
            queue.waiting.clear();
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
        let next = {
            let mut queue = self.queue();
            let next = queue.waiting.pop_front();
            queue.busy = next.is_some();
            next
        };
        if let Some(next) = next {
            self.send(next);
        }
    }
}

impl OutputSink for JsOutputSink {
    fn deliver(&self, batch: Vec<Output>, step: Option<StepEnd>, receipt: Receipt) -> bool {
        {
            let mut queue = self.inner.queue();
            if queue.failed {
                return true;
            }
            if queue.busy {
                queue.waiting.push_back((batch, step, receipt));
                return true;
            }
            queue.busy = true;
        }
        self.inner.send((batch, step, receipt))
    }
}

impl JsOutputSink {
    pub fn new(on_output: OnOutput) -> Self {
        Self {
            inner: Arc::new(SinkInner {
                on_output,
                queue: Mutex::default(),
            }),
        }
    }
}
