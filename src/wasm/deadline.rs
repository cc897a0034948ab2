//! Awaiting a host Promise for at most a bounded time, with the host's `setTimeout` (every host has one).
//! The timer is cleared as soon as the Promise settles, so it never keeps a Node process alive.

use super::errors::thrown_message;
use js_sys::{Array, Function, Promise, Reflect};
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// How a bounded wait ended.
pub enum Settled {
    Resolved(JsValue),
    Rejected(String),
    TimedOut,
}

/// Waits for `promise` at most `timeout_ms` milliseconds.
pub async fn within(promise: Promise, timeout_ms: u32) -> Settled {
    let timed_out = Rc::new(Cell::new(false));
    let mut handle: Option<JsValue> = None;
    let flag = Rc::clone(&timed_out);
    let mut timer_callback: Option<Closure<dyn FnMut()>> = None;
    let timer = Promise::new(&mut |resolve: Function, _reject: Function| {
        let flag = Rc::clone(&flag);
        let callback = Closure::<dyn FnMut()>::new(move || {
            flag.set(true);
            let _ = resolve.call0(&JsValue::NULL);
        });
        handle = set_timeout(callback.as_ref(), timeout_ms);
        timer_callback = Some(callback);
    });
    let raced = Promise::race(&Array::of2(&promise, &timer));
    let outcome = JsFuture::from(raced).await;
    if let Some(handle) = &handle {
        clear_timeout(handle);
    }
    drop(timer_callback);
    match outcome {
        Ok(_) if timed_out.get() => Settled::TimedOut,
        Ok(value) => Settled::Resolved(value),
        Err(rejected) => Settled::Rejected(thrown_message(&rejected)),
    }
}

fn global_function(name: &str) -> Option<Function> {
    Reflect::get(&js_sys::global(), &name.into())
        .ok()
        .and_then(|found| found.dyn_into::<Function>().ok())
}

fn set_timeout(callback: &JsValue, timeout_ms: u32) -> Option<JsValue> {
    global_function("setTimeout")?
        .call2(&js_sys::global(), callback, &JsValue::from(timeout_ms))
        .ok()
}

fn clear_timeout(handle: &JsValue) {
    if let Some(clear) = global_function("clearTimeout") {
        let _ = clear.call1(&js_sys::global(), handle);
    }
}
