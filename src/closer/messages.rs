//! Every reason the Closer writes for a human, in English and in Japanese.

use crate::language::Language;

pub fn model_says_incomplete(language: Language) -> String {
    language.pick(
        || "the model reports allComplete = false".to_owned(),
        || "モデルは allComplete = false と答えています".to_owned(),
    )
}

pub fn confidence_out_of_range(language: Language, confidence: f64) -> String {
    language.pick(
        || format!("confidence {confidence} is not a number in [0, 1]"),
        || format!("confidence {confidence} は [0, 1] の数ではありません"),
    )
}

pub fn confidence_below(language: Language, confidence: f64, threshold: f64) -> String {
    language.pick(
        || format!("confidence {confidence} is below the threshold {threshold}"),
        || format!("confidence {confidence} は閾値 {threshold} を下回っています"),
    )
}

pub fn empty_checklist(language: Language) -> String {
    language.pick(
        || "the checklist is empty".to_owned(),
        || "チェックリストが空です".to_owned(),
    )
}

pub fn all_complete_contradicted(language: Language, unfinished: &str) -> String {
    language.pick(
        || format!("allComplete is true but items are not completed: {unfinished}"),
        || format!("allComplete は true ですが、未完了の項目があります：{unfinished}"),
    )
}

pub fn duplicate_ids(language: Language, ids: &str) -> String {
    language.pick(
        || format!("duplicate checklist ids: {ids}"),
        || format!("チェックリストの id が重複しています：{ids}"),
    )
}

pub fn required_missing(language: Language, id: &str) -> String {
    language.pick(
        || format!("required item `{id}` is missing from the checklist"),
        || format!("必須項目 `{id}` がチェックリストにありません"),
    )
}

pub fn required_incomplete(language: Language, id: &str) -> String {
    language.pick(
        || format!("required item `{id}` is not completed"),
        || format!("必須項目 `{id}` が完了していません"),
    )
}

pub fn evidence_failed(language: Language, id: &str, description: &str) -> String {
    language.pick(
        || format!("required evidence `{id}` failed: {description}"),
        || format!("必須の確認 `{id}` が失敗しています：{description}"),
    )
}

pub fn prompt_failed(language: Language, error: &str) -> String {
    language.pick(
        || format!("prompt: {error}"),
        || format!("プロンプトを用意できません：{error}"),
    )
}

pub fn answer_unusable(language: Language, error: &str) -> String {
    language.pick(
        || format!("the model's answer could not be used: {error}"),
        || format!("モデルの回答を使えません：{error}"),
    )
}

pub fn iteration_limit(language: Language, max: u32) -> String {
    language.pick(
        || format!("the iteration limit ({max}) is reached; no further check is made"),
        || format!("反復の上限（{max} 回）に達しました。これ以上の確認は行いません"),
    )
}

pub fn not_checked(language: Language) -> String {
    language.pick(|| "Not checked".to_owned(), || "未確認".to_owned())
}
