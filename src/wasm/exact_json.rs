//! Only JSON crosses into an approval: a JS value read as JSON data exactly, or refused with the path of
//! what JSON would change. `JSON.stringify` quietly turns `NaN` and `Infinity` into `null`, drops
//! `undefined` members and functions, writes a `Date` as text, a `Map` as `{}` and a class instance as its
//! own fields, and runs `toJSON`: what a person approved would then differ from what the caller meant.
//! Here each of those is a typed error naming the field.

use super::args::{is_plain_object, kind_of};
use crate::input::{InputError, MAX_INPUT_BYTES};
use js_sys::{Array, JsString, Object, Reflect};
use serde_json::{Map, Number, Value};
use wasm_bindgen::{JsCast, JsValue};

/// The deepest nesting read (a cycle is refused when it reaches it).
const MAX_DEPTH: usize = 64;

/// `value` as JSON data, exactly: null, booleans, finite numbers, well-formed strings, arrays without holes
/// and plain objects whose own properties are all enumerable data properties with string keys. At most 1 MiB
/// of text (strings and keys counted by their length) and 64 levels.
pub fn exact_json(path: &str, value: &JsValue) -> Result<Value, InputError> {
    let mut budget = Budget {
        root: path,
        left: MAX_INPUT_BYTES,
        undefined_is_absent: false,
        keep: true,
    };
    read(path, value, 0, &mut budget)
}

/// Checks that `value` (options, a record) is JSON data as [`exact_json`] reads it, without keeping a copy
/// (`JSON.stringify` then writes it unchanged), except that a member set to `undefined` is an option not
/// given (as TypeScript's optional members are written). Everything else JSON would change is refused
/// with its path (`NaN`, a `Date`, a hole, a getter, ...).
#[inline(never)]
pub fn check_json_data(path: &str, value: &JsValue) -> Result<(), InputError> {
    let mut budget = Budget {
        root: path,
        left: MAX_INPUT_BYTES,
        undefined_is_absent: true,
        keep: false,
    };
    read(path, value, 0, &mut budget).map(drop)
}

/// What may still be read, the path a value too large is reported at (the whole value's), and whether an
/// `undefined` member is absent or refused.
struct Budget<'a> {
    root: &'a str,
    left: usize,
    undefined_is_absent: bool,
    /// Whether the value read is built (or only checked).
    keep: bool,
}

fn refused(path: &str, why: impl Into<String>) -> InputError {
    InputError::invalid(path, why)
}

fn spend(budget: &mut Budget, amount: usize) -> Result<(), InputError> {
    budget.left = budget.left.checked_sub(amount).ok_or_else(|| {
        refused(
            budget.root,
            format!("is over {MAX_INPUT_BYTES} bytes of JSON: too large"),
        )
    })?;
    Ok(())
}

fn text(path: &str, string: &JsString, budget: &mut Budget) -> Result<String, InputError> {
    spend(budget, string.length() as usize + 2)?;
    if !string.is_valid_utf16() {
        return Err(refused(
            path,
            "holds a lone surrogate: JSON text must be well-formed",
        ));
    }
    Ok(String::from(string))
}

fn read(
    path: &str,
    value: &JsValue,
    depth: usize,
    budget: &mut Budget,
) -> Result<Value, InputError> {
    if depth > MAX_DEPTH {
        return Err(refused(
            path,
            format!("is nested more than {MAX_DEPTH} levels deep (or refers to itself)"),
        ));
    }
    if value.is_null() {
        spend(budget, 4)?;
        return Ok(Value::Null);
    }
    if let Some(flag) = value.as_bool() {
        spend(budget, 5)?;
        return Ok(Value::Bool(flag));
    }
    if let Some(number) = value.as_f64() {
        spend(budget, 24)?;
        return Number::from_f64(number).map(Value::Number).ok_or_else(|| {
            let name = if number.is_nan() {
                "NaN"
            } else if number > 0.0 {
                "Infinity"
            } else {
                "-Infinity"
            };
            refused(
                path,
                format!("is {name}: JSON has no such number (it would become null)"),
            )
        });
    }
    if let Some(string) = value.dyn_ref::<JsString>() {
        if !budget.keep {
            // Only checked: not copied into wasm memory.
            spend(budget, string.length() as usize + 2)?;
            if !string.is_valid_utf16() {
                return Err(refused(
                    path,
                    "holds a lone surrogate: JSON text must be well-formed",
                ));
            }
            return Ok(Value::Null);
        }
        return text(path, string, budget).map(Value::String);
    }
    if Array::is_array(value) {
        return array(path, value, depth, budget);
    }
    if value.is_object() && !value.is_function() {
        if !is_plain_object(value) {
            return Err(refused(
                path,
                format!(
                    "is {}: only plain objects are JSON data (JSON would keep its own fields or its text only)",
                    class_of(value)
                ),
            ));
        }
        return object(path, value, depth, budget);
    }
    Err(refused(
        path,
        format!(
            "is {}: not JSON data (JSON would drop it or fail)",
            kind_of(value)
        ),
    ))
}

/// What an object is, for a person: its constructor's name where it has one.
fn class_of(value: &JsValue) -> String {
    Reflect::get(value, &JsValue::from_str("constructor"))
        .ok()
        .and_then(|constructor| Reflect::get(&constructor, &JsValue::from_str("name")).ok())
        .and_then(|name| name.as_string())
        .filter(|name| !name.is_empty())
        .map_or_else(
            || "an instance of a class".to_owned(),
            |name| format!("a {name}"),
        )
}

fn thrown(path: &str, error: &JsValue) -> InputError {
    refused(
        path,
        format!(
            "could not be read: {}",
            super::errors::thrown_message(error)
        ),
    )
}

fn array(
    path: &str,
    value: &JsValue,
    depth: usize,
    budget: &mut Budget,
) -> Result<Value, InputError> {
    let length = Reflect::get(value, &JsValue::from_str("length"))
        .map_err(|error| thrown(path, error.as_ref()))?
        .as_f64()
        .unwrap_or_default();
    let length = length as u32;
    spend(budget, length as usize + 2)?;
    let mut items = Vec::new();
    for index in 0..length {
        let at = format!("{path}[{index}]");
        let key = JsValue::from(index);
        if !Reflect::has(value, &key).map_err(|error| thrown(&at, &error))? {
            return Err(refused(&at, "is a hole: JSON would write null"));
        }
        let item = Reflect::get(value, &key).map_err(|error| thrown(&at, &error))?;
        let item = read(&at, &item, depth + 1, budget)?;
        if budget.keep {
            items.push(item);
        }
    }
    Ok(Value::Array(items))
}

fn object(
    path: &str,
    value: &JsValue,
    depth: usize,
    budget: &mut Budget,
) -> Result<Value, InputError> {
    let keys = Reflect::own_keys(value).map_err(|error| thrown(path, &error))?;
    spend(budget, keys.length() as usize + 2)?;
    let target = value.unchecked_ref::<Object>();
    let mut members = Map::new();
    for key in keys.iter() {
        let Some(name) = key.dyn_ref::<JsString>() else {
            return Err(refused(
                path,
                "has a symbol key: JSON would drop that member",
            ));
        };
        let name = text(path, name, budget)?;
        let at = if path.is_empty() {
            name.clone()
        } else {
            format!("{path}.{name}")
        };
        let descriptor = Object::get_own_property_descriptor(target, &key);
        let flag = |field: &str| {
            Reflect::get(&descriptor, &JsValue::from_str(field)).map(|flag| flag.is_truthy())
        };
        let enumerable = flag("enumerable").map_err(|error| thrown(&at, &error))?;
        let accessor = Reflect::has(&descriptor, &JsValue::from_str("get"))
            .map_err(|error| thrown(&at, &error))?;
        if accessor {
            return Err(refused(
                &at,
                "is a getter: JSON data holds values, not code that computes them",
            ));
        }
        if !enumerable {
            return Err(refused(&at, "is not enumerable: JSON would drop it"));
        }
        let member = Reflect::get(&descriptor, &JsValue::from_str("value"))
            .map_err(|error| thrown(&at, &error))?;
        if member.is_undefined() {
            if budget.undefined_is_absent {
                continue;
            }
            return Err(refused(&at, "is undefined: JSON would drop the member"));
        }
        if name == "toJSON" {
            return Err(refused(
                &at,
                "is a toJSON member: JSON would write what it returns, not this object",
            ));
        }
        let member = read(&at, &member, depth + 1, budget)?;
        if budget.keep {
            members.insert(name, member);
        }
    }
    Ok(Value::Object(members))
}
