//! Bounds on the lists in a model answer. Each one is named by the option that sets it, sent to the model
//! as the schema's `maxItems`, and enforced at parse with an error that names the option, so an answer
//! that is too long says which setting to raise.

use serde_json::Value;

/// At most `max` items in the top-level list `field`, set by the host option `option` (added to `base`, a
/// count the input fixes, when there is one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListBound {
    /// The answer's top-level field that holds the list (`checklist`, `issues`).
    pub field: &'static str,
    /// The option that sets the bound, as a host writes it (`maxChecklistItems`).
    pub option: &'static str,
    pub max: u32,
    /// The part of `max` the input fixes (one tag per used bullet), with what it counts; `None` when the
    /// option alone sets `max`.
    pub base: Option<(u32, &'static str)>,
}

/// The highest bound an option may set: an answer is read whole into memory, so a list is never unbounded.
pub const MAX_LIST_BOUND: u32 = 10_000;

impl ListBound {
    pub const fn new(field: &'static str, option: &'static str, max: u32) -> Self {
        Self {
            field,
            option,
            max,
            base: None,
        }
    }

    /// At most `count` (what the input fixes, e.g. one per used bullet) plus `extra`, set by `option`.
    pub fn above(
        field: &'static str,
        option: &'static str,
        count: u32,
        counted: &'static str,
        extra: u32,
    ) -> Self {
        Self {
            field,
            option,
            max: count.saturating_add(extra),
            base: Some((count, counted)),
        }
    }

    /// Why a list of `count` items is too long, naming the option to raise.
    pub fn too_long(&self, count: usize) -> String {
        match self.base {
            None => format!(
                "{count} items; the option `{}` allows at most {} (raise it to accept longer lists)",
                self.option, self.max
            ),
            Some((fixed, counted)) => format!(
                "{count} items; at most {}: {fixed} {counted} plus the option `{}` ({})",
                self.max,
                self.option,
                self.max.saturating_sub(fixed)
            ),
        }
    }

    /// The bound as an option value: 1 to [`MAX_LIST_BOUND`] (0 to it for an option added to a base).
    pub fn checked(&self) -> Result<(), crate::input::InputError> {
        let least = u32::from(self.base.is_none());
        let extra = self
            .max
            .saturating_sub(self.base.map_or(0, |(fixed, _)| fixed));
        if !(least..=MAX_LIST_BOUND).contains(&extra) {
            return Err(crate::input::InputError::invalid(
                self.option,
                format!("must be a whole number from {least} to {MAX_LIST_BOUND}"),
            ));
        }
        Ok(())
    }
}

/// Writes each bound into `schema` as the `maxItems` of its field.
pub fn apply(schema: &mut Value, bounds: &[ListBound]) {
    for bound in bounds {
        if let Some(Value::Object(field)) = schema
            .get_mut("properties")
            .and_then(|properties| properties.get_mut(bound.field))
        {
            field.insert("maxItems".to_owned(), Value::from(bound.max));
        }
    }
}

/// The bound on the list at `path`, when an option sets it.
pub fn named<'a>(bounds: &'a [ListBound], path: &str) -> Option<&'a ListBound> {
    bounds.iter().find(|bound| bound.field == path)
}
