//! Every text the Executor writes for a human, in English and in Japanese. The Japanese texts of the six
//! steps and of a refused transition are the seed's own sentences (seed 003 5.2 and 6.3), followed by the
//! facts in parentheses.

use crate::language::Language;

pub fn not_found(language: Language, id: &str) -> String {
    language.pick(
        || format!("This confirmation ID was not found: `{id}`."),
        || format!("この承認 ID は見つかりませんでした（`{id}`）。"),
    )
}

pub fn signature_invalid(language: Language, why: &str) -> String {
    language.pick(
        || format!("This confirmation is not authentic: {why}."),
        || format!("この承認は本物と確認できません（{why}）。"),
    )
}

pub fn already_consumed(language: Language, at: &str) -> String {
    language.pick(
        || format!("This confirmation has already been used (consumed at {at})."),
        || format!("この承認は既に使用されています（{at} に消費）。"),
    )
}

pub fn in_flight(language: Language, since: &str) -> String {
    language.pick(
        || {
            format!(
                "An Apply with this confirmation started at {since} and was never committed; it is not applied \
                 again automatically. A human must reconcile it."
            )
        },
        || {
            format!(
                "この承認による Apply が {since} に開始され、確定していません。自動では再実行しません。人間が確認して\
                 ください。"
            )
        },
    )
}

pub fn undatable(language: Language, why: &str) -> String {
    language.pick(
        || format!("This confirmation cannot be dated: {why}."),
        || format!("この承認は期限切れです（承認日時を読み取れません：{why}）。"),
    )
}

pub fn not_yet_valid(language: Language, confirmed_at: &str, skew_ms: i64) -> String {
    language.pick(
        || {
            format!(
                "This confirmation is dated in the future ({confirmed_at}), beyond the allowed clock skew of {skew_ms} ms."
            )
        },
        || {
            format!(
                "この承認の日時は未来です（{confirmed_at}。許容される時計のずれ {skew_ms} ms を超えています）。"
            )
        },
    )
}

pub fn mandate_expired(language: Language, expires_at: &str) -> String {
    language.pick(
        || format!("The standing approval this change was made under expired at {expires_at}."),
        || format!("この変更の根拠である常設承認は {expires_at} に期限切れになりました。"),
    )
}

pub fn expired(language: Language, confirmed_at: &str) -> String {
    language.pick(
        || {
            format!(
                "This confirmation has expired: it was confirmed at {confirmed_at} and is valid for 24 hours."
            )
        },
        || format!("この承認は期限切れです（承認日時 {confirmed_at}、有効期間 24 時間）。"),
    )
}

pub fn cancelled(language: Language) -> String {
    language.pick(
        || "This confirmation was cancelled.".to_owned(),
        || "この承認は期限切れです（取り消されています）。".to_owned(),
    )
}

pub fn invalidated(language: Language, at: &str) -> String {
    language.pick(
        || {
            format!(
                "This confirmation was invalidated at {at}: the node's status had changed since approval."
            )
        },
        || format!("この承認は期限切れです（{at} に無効化：承認時から状態が変わっていました）。"),
    )
}

pub fn node_mismatch(language: Language, approved: &str, requested: &str) -> String {
    language.pick(
        || {
            format!(
                "The approved node differs from the target: approved `{approved}`, requested `{requested}`."
            )
        },
        || format!("承認された Node と対象が異なります（承認 `{approved}`、対象 `{requested}`）。"),
    )
}

pub fn change_mismatch(language: Language, field: &str, approved: &str, asked: &str) -> String {
    language.pick(
        || {
            format!(
                "The request does not match the approved change: {field} approved `{approved}`, requested `{asked}`."
            )
        },
        || format!("承認された変更内容と一致しません（{field}：承認 `{approved}`、要求 `{asked}`）。"),
    )
}

pub fn status_changed(language: Language, from: &str, current: &str) -> String {
    language.pick(
        || {
            format!(
                "The status has changed since approval (approved from `{from}`, now `{current}`). A new confirmation is required."
            )
        },
        || format!("承認時から状態が変わっています。再承認が必要です（承認時 `{from}`、現在 `{current}`）。"),
    )
}

/// A 422 from the skill: the seed's sentence, then the skill's own words when it gave any.
pub fn transition_refused(language: Language, skill_message: Option<&str>) -> String {
    let detail = skill_message.map(str::trim).filter(|m| !m.is_empty());
    language.pick(
        || match detail {
            Some(message) => format!(
                "The transition was refused. Approve again from the candidates below ({message})."
            ),
            None => {
                "The transition was refused. Approve again from the candidates below.".to_owned()
            }
        },
        || match detail {
            Some(message) => {
                format!("遷移が拒否されました。以下の候補から再承認してください（{message}）。")
            }
            None => "遷移が拒否されました。以下の候補から再承認してください".to_owned(),
        },
    )
}

pub fn no_skill(language: Language, change_type: &str) -> String {
    language.pick(
        || {
            format!(
                "No skill is configured for changes of type `{change_type}`; nothing was applied."
            )
        },
        || format!("種類 `{change_type}` の変更を扱う Skill がありません。何も適用していません。"),
    )
}

pub fn clock_failed(language: Language, error: &str) -> String {
    language.pick(
        || format!("The host clock failed: {error}"),
        || format!("ホストの時計を読めませんでした：{error}"),
    )
}

pub fn load_failed(language: Language, error: &str) -> String {
    language.pick(
        || format!("The store failed while loading the confirmation: {error}"),
        || format!("承認の読み込み中にストアが失敗しました：{error}"),
    )
}

pub fn stored_malformed(language: Language, error: &str) -> String {
    language.pick(
        || format!("The stored confirmation is malformed: {error}"),
        || format!("保存された承認の形式が不正です：{error}"),
    )
}

pub fn vanished(language: Language) -> String {
    language.pick(
        || "The confirmation vanished during the check.".to_owned(),
        || "検証中に承認が見つからなくなりました。".to_owned(),
    )
}

pub fn reserve_failed(language: Language, error: &str) -> String {
    language.pick(
        || format!("The store failed while reserving the confirmation: {error}"),
        || format!("承認の確保中にストアが失敗しました：{error}"),
    )
}

pub fn changed_while_reserving(language: Language) -> String {
    language.pick(
        || "The confirmation changed while it was being reserved; nothing was applied.".to_owned(),
        || "確保中に承認が変更されました。何も適用していません。".to_owned(),
    )
}

pub fn preview_failed(language: Language, error: &str) -> String {
    language.pick(
        || format!("Preview failed, nothing was applied: {error}"),
        || format!("Preview が失敗しました。何も適用していません：{error}"),
    )
}

pub fn apply_threw(language: Language, error: &str) -> String {
    language.pick(
        || {
            format!(
                "Apply failed with an unknown outcome: {error}. The confirmation stays in_flight and will not be \
                 applied again automatically; a human must reconcile it."
            )
        },
        || {
            format!(
                "Apply の結果が不明です：{error}。承認は in_flight のまま残り、自動では再実行しません。人間が確認して\
                 ください。"
            )
        },
    )
}

/// What a skill answered, for a failure that released the confirmation.
pub fn skill_failed(language: Language, status: u16, message: Option<&str>) -> String {
    language.pick(
        || match message {
            Some(message) => format!("The skill failed with status {status}: {message}"),
            None => format!("The skill failed with status {status}."),
        },
        || match message {
            Some(message) => format!("Skill がステータス {status} で失敗しました：{message}"),
            None => format!("Skill がステータス {status} で失敗しました。"),
        },
    )
}

pub fn not_applied(language: Language, message: Option<&str>) -> String {
    language.pick(
        || match message {
            Some(message) => format!("The skill answered 200 with `applied: false`: {message}"),
            None => "The skill answered 200 with `applied: false`.".to_owned(),
        },
        || match message {
            Some(message) => format!("Skill は 200 で `applied: false` と答えました：{message}"),
            None => "Skill は 200 で `applied: false` と答えました。".to_owned(),
        },
    )
}

/// An answer after which whether the change was made is unknown; the confirmation stays in flight.
pub fn outcome_unknown(language: Language, status: u16) -> String {
    language.pick(
        || {
            let what = match status {
                200 => "200 without `applied: true`".to_owned(),
                502 | 504 => format!("{status} (a gateway whose upstream may have applied the change)"),
                other => format!("with unexpected status {other}"),
            };
            format!(
                "The skill answered {what}; whether the change was made is unknown. The confirmation stays in_flight \
                 and will not be applied again automatically."
            )
        },
        || {
            let what = match status {
                200 => "200（`applied: true` なし）".to_owned(),
                502 | 504 => format!("{status}（上流で適用された可能性のあるゲートウェイ）"),
                other => format!("想定外のステータス {other}"),
            };
            format!(
                "Skill は {what} と答えました。変更が行われたかは不明です。承認は in_flight のまま残り、自動では\
                 再実行しません。"
            )
        },
    )
}

pub fn commit_lost(language: Language) -> String {
    language.pick(
        || {
            "The skill applied the change, but the confirmation's record changed before it could be marked consumed; \
             it is left as found and will not be applied again automatically."
                .to_owned()
        },
        || {
            "Skill は変更を適用しましたが、消費済みにする前に承認の記録が変更されました。見つかった状態のまま残し、\
             自動では再実行しません。"
                .to_owned()
        },
    )
}

pub fn commit_failed(language: Language, error: &str) -> String {
    language.pick(
        || {
            format!(
                "The skill applied the change, but the store failed while marking the confirmation consumed: {error}. \
                 It stays in_flight and will not be applied again automatically."
            )
        },
        || {
            format!(
                "Skill は変更を適用しましたが、承認を消費済みにする際にストアが失敗しました：{error}。承認は \
                 in_flight のまま残り、自動では再実行しません。"
            )
        },
    )
}

pub fn direct_apply_failed(language: Language, error: &str) -> String {
    language.pick(
        || format!("Apply failed: {error}"),
        || format!("Apply が失敗しました：{error}"),
    )
}

pub fn audit_not_written(language: Language, error: &str) -> String {
    language.pick(
        || format!("The audit record was not written: {error}"),
        || format!("監査記録を書き込めませんでした：{error}"),
    )
}

pub fn wrong_audience(
    language: Language,
    made_for: Option<&str>,
    this_guard: Option<&str>,
) -> String {
    let made_for = made_for.unwrap_or("no audience");
    let this_guard = this_guard.unwrap_or("none (this guard names no audience)");
    language.pick(
        || {
            format!(
                "This confirmation was made for {made_for:?}, not for this guard ({this_guard:?}); nothing was applied."
            )
        },
        || format!("この承認は {made_for:?} 向けに作成されたもので、このガード（{this_guard:?}）向けではありません。何も適用していません。"),
    )
}

pub fn record_tampered(language: Language, why: &str) -> String {
    language.pick(
        || format!("The stored confirmation was changed outside the Executor ({why}); it is refused, nothing was applied."),
        || format!("保存された承認が Executor の外で変更されています（{why}）。拒否し、何も適用していません。"),
    )
}

pub fn apply_running(language: Language) -> String {
    language.pick(
        || "An Apply of this confirmation is still running here: it cannot be settled as not applied until it ends (the skill may still act).".to_owned(),
        || "この承認の適用はまだ実行中です。終わるまで「適用されていない」とは確定できません（スキルがまだ動く可能性があります）。".to_owned(),
    )
}
