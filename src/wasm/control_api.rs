//! The control loop (seed 002) exported to JavaScript: the pure step, a new state, the judge, and the
//! execution log's pure parts. The driver that performs the effects (`governor.loop(...)`) is the package's
//! `control-loop.js`, written against these exports.

use super::convert::{from_js, to_js};
use super::errors::invalid;
use super::llm_ports::{JsPromptLoader, JsQueryFn};
use super::ports::optional_function;
use crate::control::judge::{JudgePromptLocation, JudgeRequest, ask_judge};
use crate::control::judgement_answer::judgement_schema;
use crate::control::log::{DEFAULT_LOG_LIMIT_BYTES, execution_line, otel_record, retained, tail};
use crate::control::{ControlEvent, ControlState, LogChannel, LogRecord, Rules, step};
use crate::input::InputError;
use js_sys::Promise;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

#[wasm_bindgen(typescript_custom_section)]
const CONTROL_TYPES: &'static str = r#"
/** A new loop: its goal and rules. */
export interface ControlSetup {
  goal: string;
  /** Action types executed without asking (default deny: none). A conversation reply never asks. */
  whitelist?: string[];
  /** The first token of a developer command (default "/dev"). */
  privilegedPrefix?: string;
  /** Agent settings self-modification may change, with their starting values. */
  settings?: Record<string, unknown>;
  /** How many past results the judge is shown (default 20). */
  memoryLimit?: number;
}

/** The next state and what the host must do, in order. */
export interface ControlStepResult {
  state: ControlState;
  effects: ControlEffect[];
}

/** Where the judge's prompt is looked for: `{workingDir}/.agent/{agentId}/prompts/steps/judge/next_action/f_default.md`, then the embedded default. */
export interface JudgeSetup {
  loadPrompt?: PromptLoaderFn;
  workingDir?: string;
  agentId?: string;
}

/** Where the loop's logs go: the seed's channels as JSON lines, trimmed to a size limit by whole lines. */
export interface LogStore {
  append(channel: LogChannel, line: string): void | Promise<void>;
  /** The last `lines` lines (200 to 500), oldest first, as one text. */
  tail(channel: LogChannel, lines: number): string | Promise<string>;
  /** Bytes kept. */
  size(channel: LogChannel): number | Promise<number>;
}

/** Where the loop's state (and its rules) are saved on every `persist_state` / `persist_rules`. */
export interface ControlStorage {
  save(state: ControlState): void | Promise<void>;
  saveRules?(rules: Rules): void | Promise<void>;
}

/** What the human is asked: exactly two lines (what will be executed; the impact scope), y or n. */
export interface ApprovalRequest {
  actionId: string;
  lines: [string, string];
  action: Action;
}

/** A skill for actions that are not state changes: resolves to the outcome; a throw is a failure. */
export type ActionSkill = (action: Action) => { succeeded: boolean; detail?: string } | Promise<{ succeeded: boolean; detail?: string }>;

/** What the judge is called with: the QueryFn options and the signal that aborts it when a human interrupts. */
export interface JudgeQueryOptions extends QueryOptions {
  signal: AbortSignal;
}

export interface ControlLoopConfig {
  /** The goal; always part of what is judged. Ignored when `state` is given. */
  goal: string;
  whitelist?: string[];
  privilegedPrefix?: string;
  settings?: Record<string, unknown>;
  memoryLimit?: number;
  /** A persisted state to continue from (after a restart): what was waiting is asked again. */
  state?: ControlState;
  /** The model that judges (the built-in `openAICompatible(...)` is one); it gets `options.signal`. */
  judge: (prompt: string, options: JudgeQueryOptions) => QueryReply | Promise<QueryReply>;
  prompts?: JudgeSetup;
  /** One-line descriptions of the action types, for the judge. */
  actionTypes?: Record<string, string>;
  /** Shows the approval request; may return the answer ("y" / "n"), or the host calls `loop.answer`. */
  approve?: (request: ApprovalRequest) => void | string | Promise<void | string>;
  /** By action type: an ExecutorSkill applies a state change through the Executor (parameters node_id, from, to); a function runs anything else. */
  skills?: Record<string, ExecutorSkill | ActionSkill>;
  /** The chat channel: short reports, replies and questions. */
  chat?: (text: string) => void;
  /** The three logs; `memoryLogStore()` when omitted. */
  logs?: LogStore;
  storage?: ControlStorage;
  /** Where confirmations are kept; a new MemoryStore when omitted. */
  store?: ConfirmationStore;
  /** The key that signs the confirmation a y issues; a random one per loop when omitted. */
  signer?: SignerKey;
  now?: () => number;
  audit?: (record: AuditRecord) => void | Promise<void>;
  language?: Language;
  /** Checks whether a step is complete before success is reported; its pendingActions become the next situation. */
  closer?: Closer;
  /** Reviews an executor's result before it is reported. */
  watcher?: Watcher;
  /** After a task ends: the Reflector's lessons go into the playbook the judge reads. */
  reflection?: { reflector: Reflector; store: ConfirmationStore; playbook?: string; dataset?: string };
  /** Restarts the host (offered, with approval, when a rule needs a restart). */
  restart?: () => void | Promise<void>;
  /** Each log record as a GenAI-style span or event. */
  telemetry?: (record: OtelLogRecord) => void;
  onEffect?: (effect: ControlEffect, state: ControlState) => void;
  onJudgement?: (outcome: JudgeOutcome) => void;
  /** A port that threw or rejected (the loop goes on; a failed Apply is reported by the step). */
  onError?: (error: AgentGovernorError) => void;
}

/** `governor.loop(config)`: `closer: true` / `watcher: true` take them from the governor, and so does `reflection.reflector`. */
export type GovernorLoopConfig = Omit<ControlLoopConfig, "closer" | "watcher" | "reflection"> & {
  closer?: Closer | true;
  watcher?: Watcher | true;
  reflection?: { reflector?: Reflector; store: ConfirmationStore; playbook?: string; dataset?: string };
};

/** A governed agent. */
export interface ControlLoop {
  /** The situation changed: a change starts a judgement when the loop is idle. */
  observe(situation: { external?: unknown; internal?: unknown }): void;
  /** y / n to the pending approval (of `actionId` when given), or resume / discard after an interruption. */
  answer(text: string, actionId?: string): void;
  /** A human message (it always wins), or a developer command after the privileged prefix. */
  say(text: string): void;
  /** Undoes the most recent self-modification. */
  revert(): void;
  state(): ControlState;
  playbook(): string | null;
  /** Resolves once nothing is in flight. */
  settled(): Promise<void>;
  /** Aborts an in-flight judgement, starts nothing new, awaits an Apply already sent. */
  stop(): Promise<void>;
}

/** A GenAI-style span (`invoke_agent`, `execute_tool`) or event (an approval) for an OpenTelemetry collector. */
export interface OtelLogRecord {
  kind: "span" | "event";
  name: string;
  time: string;
  attributes: Record<string, string>;
}
"#;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ControlSetup {
    goal: String,
    #[serde(default)]
    whitelist: Vec<String>,
    #[serde(default)]
    privileged_prefix: Option<String>,
    #[serde(default)]
    settings: BTreeMap<String, Value>,
    #[serde(default)]
    memory_limit: Option<usize>,
}

/// The most past results a loop may keep for its judge.
const MAX_MEMORY_LIMIT: usize = 1000;

fn read_setup(setup: &JsValue) -> Result<ControlState, InputError> {
    let setup: ControlSetup = from_js("setup", setup)?;
    if setup.goal.trim().is_empty() {
        return Err(InputError::invalid("setup.goal", "must not be empty"));
    }
    if let Some(prefix) = &setup.privileged_prefix {
        if prefix.is_empty() || prefix.contains(char::is_whitespace) {
            return Err(InputError::invalid(
                "setup.privilegedPrefix",
                "must be one token (no spaces)",
            ));
        }
    }
    let mut rules = Rules {
        whitelist: setup.whitelist,
        adjustable_settings: setup.settings.keys().cloned().collect(),
        ..Rules::default()
    };
    if let Some(prefix) = setup.privileged_prefix {
        rules.privileged_prefix = prefix;
    }
    let mut state = ControlState::new(setup.goal, rules);
    state.settings = setup.settings;
    if let Some(limit) = setup.memory_limit {
        if limit == 0 || limit > MAX_MEMORY_LIMIT {
            return Err(InputError::invalid(
                "setup.memoryLimit",
                format!("must be from 1 to {MAX_MEMORY_LIMIT}"),
            ));
        }
        state.memory_limit = limit;
    }
    Ok(state)
}

/// A new loop, idle, for `setup.goal` with its rules. Nothing is judged until the first observation.
#[wasm_bindgen(js_name = newControlState, unchecked_return_type = "ControlState")]
pub fn new_control_state(
    #[wasm_bindgen(unchecked_param_type = "ControlSetup")] setup: JsValue,
) -> Result<JsValue, JsValue> {
    Ok(to_js(&read_setup(&setup).map_err(invalid)?))
}

/// The pure step: `state` and one `event` in; the next state and the effects out. No I/O, no clock:
/// the same inputs always give the same answer, so a host can persist, replay and test it.
#[wasm_bindgen(js_name = controlStep, unchecked_return_type = "ControlStepResult")]
pub fn control_step(
    #[wasm_bindgen(unchecked_param_type = "ControlState")] state: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ControlEvent")] event: JsValue,
) -> Result<JsValue, JsValue> {
    let state: ControlState = from_js("state", &state).map_err(invalid)?;
    let event: ControlEvent = from_js("event", &event).map_err(invalid)?;
    let (next, effects) = step(&state, &event);
    #[derive(serde::Serialize)]
    struct StepResult<'a> {
        state: &'a ControlState,
        effects: &'a [crate::control::ControlEffect],
    }
    Ok(to_js(&StepResult {
        state: &next,
        effects: &effects,
    }))
}

fn judge_location(setup: &JsValue) -> Result<JudgePromptLocation, InputError> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct Location {
        #[serde(default, rename = "loadPrompt")]
        _load_prompt: Option<serde::de::IgnoredAny>,
        #[serde(default)]
        working_dir: String,
        #[serde(default = "default_agent")]
        agent_id: String,
    }
    fn default_agent() -> String {
        "governor".to_owned()
    }
    if super::args::is_absent(setup) {
        return Ok(JudgePromptLocation {
            working_dir: String::new(),
            agent_id: default_agent(),
        });
    }
    // The loader is a function, which JSON drops: only the data fields are read here.
    let location: Location = from_js("setup", setup)?;
    Ok(JudgePromptLocation {
        working_dir: location.working_dir,
        agent_id: location.agent_id,
    })
}

/// Asks the judge about an `ask_judge` effect's situation: the C3L prompt rendered, the model queried with
/// the strict schema (re-asked once), the answer checked. Resolves to `{ ok: true, judgement }` or
/// `{ ok: false, error }` whatever the model does; rejects only on malformed input.
#[wasm_bindgen(js_name = judgeNextAction, unchecked_return_type = "Promise<JudgeOutcome>")]
pub fn judge_next_action(
    #[wasm_bindgen(unchecked_param_type = "JudgeRequest")] request: JsValue,
    #[wasm_bindgen(unchecked_param_type = "QueryFn")] query: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "JudgeSetup")] setup: JsValue,
) -> Result<Promise, JsValue> {
    let request: JudgeRequest = from_js("request", &request).map_err(invalid)?;
    let query = JsQueryFn::from_js("query", query)?;
    let location = judge_location(&setup).map_err(invalid)?;
    let loader = if super::args::is_absent(&setup) {
        JsPromptLoader(None)
    } else {
        JsPromptLoader(optional_function(&setup, "loadPrompt")?)
    };
    Ok(future_to_promise(async move {
        let outcome = ask_judge(&query, &loader, &location, &request).await;
        Ok(to_js(&outcome))
    }))
}

/// The strict JSON Schema of the judge's answer.
#[wasm_bindgen(js_name = judgementSchema, unchecked_return_type = "StrictSchema")]
pub fn judgement_output_schema() -> Result<JsValue, JsValue> {
    super::model_answer::strict_schema_js(&judgement_schema())
}

/// One line of the execution log, `{time, event_summary, cause, impact_scope}` and a newline.
#[wasm_bindgen(js_name = executionLogLine)]
pub fn execution_log_line(
    #[wasm_bindgen(unchecked_param_type = "string")] time: JsValue,
    #[wasm_bindgen(unchecked_param_type = "LogRecord")] record: JsValue,
) -> Result<String, JsValue> {
    let time = super::args::text("time", &time).map_err(invalid)?;
    let record: LogRecord = from_js("record", &record).map_err(invalid)?;
    Ok(execution_line(&time, &record))
}

fn optional_count(path: &str, value: &JsValue, default: usize) -> Result<usize, InputError> {
    match super::args::optional_number(path, value)? {
        None => Ok(default),
        Some(number) if number.fract() == 0.0 && (1.0..=9.0e15).contains(&number) => {
            Ok(number as usize)
        }
        Some(_) => Err(InputError::invalid(path, "must be a positive whole number")),
    }
}

/// What a log keeps under `limitBytes` (default 10 MB): its newest whole lines, the oldest dropped first.
#[wasm_bindgen(js_name = retainLog)]
pub fn retain_log(
    #[wasm_bindgen(unchecked_param_type = "string")] log: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "number")] limit_bytes: JsValue,
) -> Result<String, JsValue> {
    let log = super::args::text("log", &log).map_err(invalid)?;
    let limit =
        optional_count("limitBytes", &limit_bytes, DEFAULT_LOG_LIMIT_BYTES).map_err(invalid)?;
    Ok(retained(&log, limit).to_owned())
}

/// The last `lines` lines of a log (clamped to 200-500; default 300), as the judge reads them.
#[wasm_bindgen(js_name = logTail)]
pub fn log_tail(
    #[wasm_bindgen(unchecked_param_type = "string")] log: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "number")] lines: JsValue,
) -> Result<String, JsValue> {
    let log = super::args::text("log", &log).map_err(invalid)?;
    let lines = optional_count("lines", &lines, 300).map_err(invalid)?;
    Ok(tail(&log, lines).to_owned())
}

/// A log record as an OpenTelemetry GenAI-style span or event. `tool` names the action (`{ name, callId }`)
/// for `execute_tool` spans and approval events.
#[wasm_bindgen(js_name = otelLogRecord, unchecked_return_type = "OtelLogRecord")]
pub fn otel_log_record(
    #[wasm_bindgen(unchecked_param_type = "LogChannel")] channel: JsValue,
    #[wasm_bindgen(unchecked_param_type = "LogRecord")] record: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] time: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "{ name: string; callId: string }")]
    tool: JsValue,
) -> Result<JsValue, JsValue> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct Tool {
        name: String,
        call_id: String,
    }
    let channel: LogChannel = super::convert::from_js_any("channel", &channel).map_err(invalid)?;
    let record: LogRecord = from_js("record", &record).map_err(invalid)?;
    let time = super::args::text("time", &time).map_err(invalid)?;
    let tool: Option<Tool> = if super::args::is_absent(&tool) {
        None
    } else {
        Some(from_js("tool", &tool).map_err(invalid)?)
    };
    let tool = tool
        .as_ref()
        .map(|tool| (tool.name.as_str(), tool.call_id.as_str()));
    Ok(to_js(&otel_record(channel, &record, &time, tool)))
}
