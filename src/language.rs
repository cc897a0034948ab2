//! The language of every text the library writes for a human: rejection reasons, reconfirm messages,
//! the Watcher's declaration and issues, the Closer's reasons. `ja` uses the seeds' own wording.

use serde::{Deserialize, Serialize};
use tsify::Tsify;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "snake_case")]
pub enum Language {
    #[default]
    En,
    Ja,
}

impl Language {
    /// The English or the Japanese text, built only for the language chosen.
    pub fn pick(self, en: impl FnOnce() -> String, ja: impl FnOnce() -> String) -> String {
        match self {
            Self::En => en(),
            Self::Ja => ja(),
        }
    }
}
