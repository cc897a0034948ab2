//! An in-memory ConfirmationStore for tests and demos.

use std::cell::RefCell;
use std::collections::BTreeMap;
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

    pub fn get(&self, key: &str) -> Option<String> {
        self.entries.borrow().get(key).cloned()
    }

    pub fn put(&self, key: String, value: String) {
        self.entries.borrow_mut().insert(key, value);
    }

    #[wasm_bindgen(js_name = compareAndSwap)]
    pub fn compare_and_swap(&self, key: String, expected: Option<String>, next: String) -> bool {
        let mut entries = self.entries.borrow_mut();
        if entries.get(&key) != expected.as_ref() {
            return false;
        }
        entries.insert(key, next);
        true
    }

    /// Every key, in order.
    pub fn keys(&self) -> Vec<String> {
        self.entries.borrow().keys().cloned().collect()
    }
}
