//! A passkey assertion made of arbitrary bytes (authenticator data, client data, signature) never verifies
//! against a registered passkey and never panics; its signature counter is read or refused with a reason.
#![no_main]

use agent_governor::executor::passkey::{PasskeyAssertion, assertion_sign_count};
use agent_governor::executor::public_key::encode_base64url;
use agent_governor::executor::{Confirmation, ConfirmedBy, KeyRing, KeySpec, ProposedChange};
use libfuzzer_sys::fuzz_target;
use std::collections::BTreeMap;

/// An uncompressed P-256 point (the generator), a valid public key nobody here holds the private key of.
const P256_GENERATOR: &str =
    "BGsX0fLhLEJH-Lzm5WOkQPJ3A32BLeszoPShOUXYmMKWT-NC4v4af5uO5-tKfA-eFivOM1drMV7Oy7ZAaDe_UfU";

fuzz_target!(|data: &[u8]| {
    let (lengths, rest) = data.split_at(data.len().min(2));
    let first = usize::from(*lengths.first().unwrap_or(&0)).min(rest.len());
    let (authenticator_data, rest) = rest.split_at(first);
    let second = usize::from(*lengths.get(1).unwrap_or(&0)).min(rest.len());
    let (client_data_json, signature) = rest.split_at(second);
    let assertion = PasskeyAssertion {
        authenticator_data: encode_base64url(authenticator_data),
        client_data_json: encode_base64url(client_data_json),
        signature: encode_base64url(signature),
    };
    let _ = assertion_sign_count(&assertion);
    let spec: KeySpec = serde_json::from_value(serde_json::json!({
        "type": "webauthn", "algorithm": -7, "public_key": P256_GENERATOR,
        "rp_id": "localhost", "origins": ["http://localhost:8080"]
    }))
    .expect("a webauthn key spec");
    let keys = KeyRing::from_specs(&BTreeMap::from([("passkey".to_owned(), spec)]))
        .expect("the P-256 generator is a valid public key");
    let confirmation = Confirmation {
        confirmation_id: "c-1".into(),
        node_id: "node-1".into(),
        proposed_change: ProposedChange { change_type: "status_change".into(), from: "todo".into(), to: "done".into() },
        intent: "i".into(),
        reason: "r".into(),
        confirmed_by: ConfirmedBy::Human,
        confirmed_at: "2026-11-23T00:00:00Z".into(),
        ui_action: "passkey".into(),
        key_id: Some("passkey".into()),
        signature: None,
        assertion: Some(assertion),
        mandate: None,
        consumed: false,
        consumed_at: None,
        cancelled: false,
        in_flight_at: None,
        invalidated_at: None,
        audience: None,
        action_id: None,
        seal: None,
    };
    assert!(keys.verify(&confirmation).is_err());
});
