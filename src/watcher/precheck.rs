//! Deterministic checks before any model call (seed 000 preconditions and checklist item 1): the personas
//! must differ, the executor must have completed, a task that needs a persona must have one, and the
//! artifacts must not be empty. Any of them decides the verdict (pass false) without asking the model.

use super::persona::divergence_violation;
use super::types::{Language, Persona, WatcherInput, WatcherOutput, is_completed};

pub(super) fn failing(
    issue: String,
    inspection_log: String,
    persona_applied: Option<String>,
) -> WatcherOutput {
    WatcherOutput {
        pass: false,
        issues: vec![issue],
        inspection_log,
        persona_applied,
        blindspots_covered: Vec::new(),
        misclassification_detected: false,
        reclassification_suggestion: None,
        ignored_input_fields: Vec::new(),
    }
}

/// A failed input check: the issue, and a log with the one line that failed.
fn precondition(
    language: Language,
    issue: String,
    check_ja: &str,
    check_en: &str,
) -> (String, String) {
    let log = match language {
        Language::Ja => format!(
            "## 入力検証\n\n- {check_ja}: ❌\n\n## 結論\n\n前提条件を満たさない。不合格。\n"
        ),
        Language::En => format!(
            "## Input check\n\n- {check_en}: ❌\n\n## Conclusion\n\nPrecondition not met. Fail.\n"
        ),
    };
    (issue, log)
}

/// The verdict when a task that needs a persona has none installed (seed 000 precondition).
pub fn persona_missing(language: Language) -> WatcherOutput {
    let issue = match language {
        Language::Ja => "PRECONDITION: persona が必要な課題だが、persona が注入されていない。",
        Language::En => "PRECONDITION: the task needs a persona, and none is installed.",
    };
    let (issue, log) = precondition(
        language,
        issue.to_owned(),
        "persona が必要な課題で persona が注入されているか",
        "A persona is installed for a task that needs one",
    );
    failing(issue, log, None)
}

/// The verdict when a persona review cannot use its persona prompt: pass false, never a silent plain
/// review (the plain fallback is the host's choice, `personaFallbackToPlain`).
pub fn persona_install_failed(persona: &Persona, why: &str, language: Language) -> WatcherOutput {
    let issue = match language {
        Language::Ja => format!(
            "PERSONA: {} の人格インストールに失敗しました：{why}",
            persona.name
        ),
        Language::En => format!(
            "PERSONA: the persona {} could not be installed: {why}",
            persona.name
        ),
    };
    let (issue, log) = precondition(
        language,
        issue,
        "人格インストール（persona のプロンプト）",
        "Persona install (the persona prompt)",
    );
    failing(issue, log, Some(persona.name.clone()))
}

/// The verdict when the input decides it by itself; `None` when the model must inspect.
pub fn precheck(input: &WatcherInput, language: Language) -> Option<WatcherOutput> {
    let persona_name = input.persona.as_ref().map(|p| p.name.clone());
    if let Some(violation) = divergence_violation(input) {
        let (issue, log) = match language {
            Language::Ja => (
                format!("PRECONDITION: {violation}"),
                format!(
                    "## 入力検証\n\n- persona が executor_persona と異なるか: ❌ {violation}\n\n## 結論\n\n前提条件を満たさない。不合格。\n"
                ),
            ),
            Language::En => (
                format!("PRECONDITION: {violation}"),
                format!(
                    "## Input check\n\n- The persona differs from the executor persona: ❌ {violation}\n\n## Conclusion\n\nPrecondition not met. Fail.\n"
                ),
            ),
        };
        return Some(failing(issue, log, None));
    }
    let Some(result) = &input.executor_result else {
        let (issue, log) = match language {
            Language::Ja => (
                "CRITICAL: executor_result がない。executor が完了していない。".to_owned(),
                "## 入力検証\n\n- executor_result が存在するか: ❌ ない\n\n## 結論\n\n前提条件を満たさない。不合格。\n".to_owned(),
            ),
            Language::En => (
                "CRITICAL: there is no executor result: the executor has not completed.".to_owned(),
                "## Input check\n\n- The executor result exists: ❌ missing\n\n## Conclusion\n\nPrecondition not met. Fail.\n".to_owned(),
            ),
        };
        return Some(failing(issue, log, persona_name));
    };
    if !is_completed(&result.status) {
        let issue = match language {
            Language::Ja => format!(
                "PRECONDITION: executor が完了していない（status: {}）。",
                result.status
            ),
            Language::En => format!(
                "PRECONDITION: the executor has not completed (status: {}).",
                result.status
            ),
        };
        let (issue, log) = precondition(
            language,
            issue,
            "executor が完了しているか",
            "The executor has completed",
        );
        return Some(failing(issue, log, persona_name));
    }
    if input.persona_required && input.persona.is_none() {
        return Some(persona_missing(language));
    }
    if result
        .artifacts
        .iter()
        .all(|artifact| artifact.trim().is_empty())
    {
        let (issue, log) = match language {
            Language::Ja => (
                "CRITICAL: artifacts が空。成果物が生成されていない。".to_owned(),
                "## 検査項目\n\n1. artifacts が空でないか: ❌ 空！\n\n## 結論\n\nクリティカルな問題あり。不合格。再実行を要求。\n".to_owned(),
            ),
            Language::En => (
                "CRITICAL: artifacts are empty: nothing was produced.".to_owned(),
                "## Inspection\n\n1. Artifacts are not empty: ❌ empty!\n\n## Conclusion\n\nCritical problem. Fail. Re-run requested.\n".to_owned(),
            ),
        };
        return Some(failing(issue, log, persona_name));
    }
    None
}
