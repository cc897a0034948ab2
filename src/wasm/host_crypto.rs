//! The host's WebCrypto, asked to verify a signature the core prepared (`HostVerification`): Node, browsers
//! and workerd have `crypto.subtle`. Every failure (no WebCrypto, an algorithm it lacks, a key it refuses, a
//! rejected promise, an answer that is not `true`) is "not verified here", and the module's own verifier
//! decides instead: the host can only save time, never decide.

use crate::executor::host_verification::{HostAlgorithm, HostVerification};
use js_sys::{Array, Object, Promise, Reflect, Uint8Array};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen]
extern "C" {
    type SubtleCrypto;

    #[wasm_bindgen(method, catch, js_name = importKey)]
    fn import_key(
        this: &SubtleCrypto,
        format: &str,
        key_data: &Uint8Array,
        algorithm: &Object,
        extractable: bool,
        usages: &Array,
    ) -> Result<Promise, JsValue>;

    #[wasm_bindgen(method, catch)]
    fn verify(
        this: &SubtleCrypto,
        algorithm: &Object,
        key: &JsValue,
        signature: &Uint8Array,
        data: &Uint8Array,
    ) -> Result<Promise, JsValue>;
}

/// How many imported keys are kept: a guard trusts a handful of approvers' keys.
const IMPORTED_KEYS: usize = 16;

thread_local! {
    /// Public keys already imported into WebCrypto, by their raw bytes (importing costs about as much as
    /// verifying).
    static IMPORTED: RefCell<Vec<(Vec<u8>, JsValue)>> = const { RefCell::new(Vec::new()) };
}

/// A host verification under way.
pub struct HostAnswer(Option<Pending>);

enum Pending {
    /// The key was imported before: the verification itself is running.
    Verifying(Promise),
    /// The key is being imported; the verification starts once it is.
    Importing {
        import: Promise,
        public_key: Vec<u8>,
        signature: Uint8Array,
        signed: Uint8Array,
    },
}

/// Starts verifying `request` in the host now (synchronously, when the key was imported before), so the
/// rest of a check can run meanwhile.
pub fn start_host_verification(request: &HostVerification) -> HostAnswer {
    HostAnswer(start(request))
}

impl HostAnswer {
    /// Whether the host answered that the signature verifies (`false` for every failure).
    pub async fn verified(self) -> bool {
        let Some(pending) = self.0 else {
            return false;
        };
        let verification = match pending {
            Pending::Verifying(verification) => verification,
            Pending::Importing {
                import,
                public_key,
                signature,
                signed,
            } => {
                let Ok(key) = JsFuture::from(import).await else {
                    return false;
                };
                remember_key(&public_key, &key);
                match verify(&key, &signature, &signed) {
                    Some(verification) => verification,
                    None => return false,
                }
            }
        };
        JsFuture::from(verification)
            .await
            .ok()
            .and_then(|answer| answer.as_bool())
            == Some(true)
    }
}

fn start(request: &HostVerification) -> Option<Pending> {
    let HostAlgorithm::EcdsaP256Sha256 = request.algorithm;
    let signature = Uint8Array::from(request.signature.as_slice());
    let signed = Uint8Array::from(request.signed.as_slice());
    if let Some(key) = known_key(&request.public_key) {
        return verify(&key, &signature, &signed).map(Pending::Verifying);
    }
    let usages = Array::of1(&JsValue::from_str("verify"));
    let import = subtle()?
        .import_key(
            "raw",
            &Uint8Array::from(request.public_key.as_slice()),
            &algorithm(&[("name", "ECDSA"), ("namedCurve", "P-256")])?,
            false,
            &usages,
        )
        .ok()?;
    Some(Pending::Importing {
        import,
        public_key: request.public_key.clone(),
        signature,
        signed,
    })
}

fn verify(key: &JsValue, signature: &Uint8Array, signed: &Uint8Array) -> Option<Promise> {
    subtle()?
        .verify(
            &algorithm(&[("name", "ECDSA"), ("hash", "SHA-256")])?,
            key,
            signature,
            signed,
        )
        .ok()
}

fn known_key(public_key: &[u8]) -> Option<JsValue> {
    IMPORTED.with(|cell| {
        cell.try_borrow().ok().and_then(|keys| {
            keys.iter()
                .find(|(bytes, _)| bytes.as_slice() == public_key)
                .map(|(_, key)| key.clone())
        })
    })
}

fn remember_key(public_key: &[u8], key: &JsValue) {
    IMPORTED.with(|cell| {
        if let Ok(mut keys) = cell.try_borrow_mut() {
            if keys.len() >= IMPORTED_KEYS {
                keys.remove(0);
            }
            keys.push((public_key.to_vec(), key.clone()));
        }
    });
}

/// `globalThis.crypto.subtle`, when it is there with a `verify` function.
fn subtle() -> Option<SubtleCrypto> {
    let crypto = Reflect::get(&js_sys::global(), &JsValue::from_str("crypto")).ok()?;
    if !crypto.is_object() {
        return None;
    }
    let subtle = Reflect::get(&crypto, &JsValue::from_str("subtle")).ok()?;
    let verify = Reflect::get(&subtle, &JsValue::from_str("verify")).ok()?;
    verify.is_function().then(|| subtle.unchecked_into())
}

fn algorithm(fields: &[(&str, &str)]) -> Option<Object> {
    let object = Object::new();
    for (name, value) in fields {
        Reflect::set(&object, &JsValue::from_str(name), &JsValue::from_str(value)).ok()?;
    }
    Some(object)
}
