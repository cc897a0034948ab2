//! Deterministic checks before any model call: a missing executor result, a persona precondition
//! violation, or empty artifacts decide the verdict (pass false) without asking the model.

use super::persona::check_persona_divergence;
use super::types::{Language, WatcherInput, WatcherOutput};

fn failing(
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
    }
}

/// The verdict when the input decides it by itself; `None` when the model must inspect.
pub fn precheck(input: &WatcherInput, language: Language) -> Option<WatcherOutput> {
    let persona_name = input.persona.as_ref().map(|p| p.name.clone());
    if let Err(violation) =
        check_persona_divergence(input.executor_persona.as_ref(), input.persona.as_ref())
    {
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
