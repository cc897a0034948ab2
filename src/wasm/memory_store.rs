//! An in-memory ConfirmationStore for tests and demos.

use super::args;
use super::errors::invalid;
use std::cell::RefCell;
use std::collections::BTreeMap;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

/// In-memory key-value store with compare-and-swap. State lives as long as the object.
#[wasm_bindgen]
#[derive(Default)]
pub struct MemoryStore {
    entries: RefCell<BTreeMap<String, String>>,
}

#[wasm_bindgen]
impl MemoryStore {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Self {
        Self::default()
    }

    /// The value under `key`, or `null`.
    #[wasm_bindgen(unchecked_return_type = "string | null")]
    pub fn get(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] key: JsValue,
    ) -> Result<JsValue, JsValue> {
        let key = args::text("key", &key).map_err(invalid)?;
        Ok(self
            .entries
            .borrow()
            .get(&key)
            .map_or(JsValue::NULL, |value| JsValue::from(value.as_str())))
    }

    pub fn put(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] key: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] value: JsValue,
    ) -> Result<(), JsValue> {
        let key = args::text("key", &key).map_err(invalid)?;
        let value = args::text("value", &value).map_err(invalid)?;
        self.entries.borrow_mut().insert(key, value);
        Ok(())
    }

    /// Writes `next` only when the current value is `expected` (`null`: no value yet); true when written.
    #[wasm_bindgen(js_name = compareAndSwap)]
    pub fn compare_and_swap(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] key: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string | null")] expected: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] next: JsValue,
    ) -> Result<bool, JsValue> {
        let key = args::text("key", &key).map_err(invalid)?;
        let expected = args::optional_text("expected", &expected).map_err(invalid)?;
        let next = args::text("next", &next).map_err(invalid)?;
        let mut entries = self.entries.borrow_mut();
        if entries.get(&key) != expected.as_ref() {
            return Ok(false);
        }
        entries.insert(key, next);
        Ok(true)
    }

    /// Every key, in order.
    pub fn keys(&self) -> Vec<String> {
        self.entries.borrow().keys().cloned().collect()
    }
}
