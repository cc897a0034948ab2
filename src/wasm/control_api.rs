//! The control loop (seed 002) exported to JavaScript: the pure step, a new state, the judge, and the
//! execution log's pure parts. The driver that performs the effects (`governor.loop(...)`) is the package's
//! `control-loop.js`, written against these exports.

use super::convert::{from_js, to_js};
use super::errors::invalid;
use super::llm_ports::{JsPromptLoader, JsQueryFn};
use super::ports::optional_function;
use crate::control::judge::{JudgePromptLocation, JudgeRequest, ask_judge};
use crate::control::judgement_answer::judgement_schema;
use crate::control::log::{
    DEFAULT_LOG_LIMIT_BYTES, OtelFacts, execution_line, otel_record, retained_from, tail,
};
use crate::control::render::{MAX_PARAMETER_DEPTH, Renderer, check_renderer, json_depth};
use crate::control::{ControlEvent, ControlState, LogChannel, LogRecord, Rules, bounds, step};
use crate::input::InputError;
use js_sys::Promise;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

#[wasm_bindgen(typescript_custom_section)]
const CONTROL_TYPES: &'static str = r#"
/** The action a log record is about, for `otelLogRecord`. */
export interface OtelTool {
  name: string;
  callId: string;
  /** The action's digest (what was approved and is executed). */
  changeDigest?: string;
  /** `person` or `whitelist`, once approved. */
  approvedBy?: string;
  /** The approval request a person answered. */
  requestId?: string;
  /** For an execution record: whether the action succeeded. */
  succeeded?: boolean;
}

/** A new loop: its goal and rules. */
export interface ControlSetup {
  goal: string;
  /** Action types executed without asking (default deny: none). A conversation reply never asks. */
  whitelist?: string[];
  /** The first token of a developer command (default "/dev"). */
  privilegedPrefix?: string;
  /** Agent settings self-modification may change, with their starting values. */
  settings?: Record<string, unknown>;
  /** How many past results the judge is shown (default 20, at most 1000). */
  memoryLimit?: number;
  /** How many bytes of past results the loop keeps (default 65536, from 1024 to 131072); the oldest go first. */
  memoryLimitBytes?: number;
  /** Answers that are neither y nor n re-ask an approval this many times (default 3); then the loop waits. */
  maxInvalidAnswers?: number;
  /** How the host's action types read in approval requests (templates over the action's parameters). */
  renderers?: Record<string, Renderer>;
  /** Rules persisted after an approved change (`saveRules`): they replace `whitelist` and `privilegedPrefix`. */
  rules?: Rules;
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

/**
 * Where the loop's state (and its rules) are saved on every `persist_state` / `persist_rules`. An approved
 * action runs only after `save` of the state marking it executing has resolved; a rejected `save` means it
 * does not run. `loadRules` gives back the rules last saved, at start.
 */
export interface ControlStorage {
  save(state: ControlState): void | Promise<void>;
  saveRules?(rules: Rules): void | Promise<void>;
  loadRules?(): Rules | null | undefined | Promise<Rules | null | undefined>;
}

/**
 * What a person is asked: exactly two lines rendered by the machine from the action (what will be executed;
 * the impact scope), answered y or n with `loop.answer(text, requestId)`. `note` is the agent's own words:
 * show it labelled as such, never as what is approved. `digest` is what the `y` binds to.
 */
/**
 * What an `approve` port returns to set its own request aside before anyone answered it, because what it would
 * act on is gone (the node moved on): nothing is executed and the loop judges again. A person's answer is
 * never withdrawn.
 */
export interface ApprovalWithdrawal {
  withdraw: string;
}

/**
 * What an `approve` port returns when a person declined with a reason (their words, one line): the loop stops
 * as for `n`, the judge reads the words, and the same change is not asked for again until the situation or an
 * instruction changed. `"n"` is a decline without a reason.
 */
export interface ApprovalDecline {
  decline: string;
}

/**
 * What an `approve` port returns when a person edited the change before approving it: its parameters as they
 * signed them (the same action type). The machine renders the lines again and runs the edited action, once.
 */
export interface ApprovalEdited {
  edited: Record<string, unknown>;
}

export interface ApprovalRequest {
  requestId: string;
  actionId: string;
  lines: [string, string];
  note: string | null;
  digest: string;
  action: Action;
}

/** An action found executing after a restart: a person says whether it was applied. */
export interface ReconcileRequest {
  actionId: string;
  lines: [string, string];
  action: Action | null;
}

/** What a UI shows about the loop (see `ControlLoop.status`). */
export interface ControlLoopStatus {
  mode: Mode;
  /** Whether `stop()` was called. */
  stopped: boolean;
  /** Why the loop stopped; `kind: "declined"` is "stopped after your decline" (a message starts again). */
  halt: Halt | null;
  /** The approval request waiting for y or n. */
  pending: Omit<ApprovalRequest, "action"> & { action: Action } | null;
  /** Actions whose outcome is unknown, for `reconcile(actionId, "applied" | "not_applied")`. */
  unreconciled: { actionId: string; lines: [string, string] }[];
}

/** A skill for actions that are not state changes: resolves to the outcome; a throw is a failure. */
/**
 * What a skill reports: `succeeded`, a short `detail`, and `notApplied: true` (with `succeeded: false`) when it
 * knows nothing was applied because the world had moved on from what was approved: the loop then judges again
 * instead of stopping.
 */
export interface SkillOutcome { succeeded: boolean; detail?: string; notApplied?: boolean }
export type ActionSkill = (action: Action) => SkillOutcome | Promise<SkillOutcome>;

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
  memoryLimitBytes?: number;
  maxInvalidAnswers?: number;
  /** How the host's action types read in approval requests; every parameter is shown. */
  renderers?: Record<string, Renderer>;
  /** Rules saved after an approved change; or `storage.loadRules()`. */
  rules?: Rules;
  /**
   * A persisted state to continue from (after a restart): what was waiting is asked again, and an action
   * found executing is never run again: its outcome is unknown until a person reconciles it.
   */
  state?: ControlState;
  /** The model that judges (the built-in `openAICompatible(...)` is one); it gets `options.signal`. */
  judge: (prompt: string, options: JudgeQueryOptions) => QueryReply | Promise<QueryReply>;
  prompts?: JudgeSetup;
  /** One-line descriptions of the action types, for the judge. */
  actionTypes?: Record<string, string>;
  /**
   * Shows the approval request; may return the answer ("y" / "n"), or the host calls `loop.answer`. An
   * answer that is neither is asked again on a later turn of the event loop, at most `maxInvalidAnswers` times.
   */
  approve?: (request: ApprovalRequest) => void | string | ApprovalWithdrawal | ApprovalDecline | ApprovalEdited | Promise<void | string | ApprovalWithdrawal | ApprovalDecline | ApprovalEdited>;
  /** Asks a person whether an action with an unknown outcome was applied; or the host calls `loop.reconcile`. */
  reconcile?: (request: ReconcileRequest) => void | "applied" | "not_applied" | Promise<void | "applied" | "not_applied">;
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
  /**
   * Standing approvals: the loop's agent as mandates name it, and the approvers' public keys that sign them.
   * A state change a registered, live mandate covers is approved without asking (`registerMandate`).
   */
  standingApprovals?: { agentId: string; keys: VerificationKeys };
  now?: () => number;
  audit?: (record: AuditRecord) => void | Promise<void>;
  language?: Language;
  /** Checks whether a step is complete before success is reported; its pendingActions become the next situation. */
  closer?: Closer;
  /** Reviews an executor's result before it is reported. */
  watcher?: Watcher;
  /** After a task ends: the Reflector's lessons go into the playbook the judge reads; with `gate`, only
   * through the acceptance gate (a `GatedPlaybook` stored under the same name). */
  reflection?: ReflectionConfig;
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
  reflection?: Omit<ReflectionConfig, "reflector"> & { reflector?: Reflector };
};

/** Where the loop's lessons go. */
export interface ReflectionConfig {
  reflector: Reflector;
  store: ConfirmationStore;
  /** The playbook's name in the store (default "control"). */
  playbook?: string;
  dataset?: string;
  /** The acceptance gate: a reflection's deltas are kept only when the held-out score does not regress. */
  gate?: HeldOutEvaluation & {
    policy?: GatePolicy;
    /** Each decision of the gate (accepted, rejected, refused again, unchanged). */
    onOutcome?: (outcome: GateOutcome) => void;
  };
}

/** A governed agent. */
export interface ControlLoop {
  /** The situation changed (a part left out keeps its value): a change starts a judgement when idle. */
  observe(situation: { external?: unknown; internal?: unknown }): void;
  /**
   * y / n to the approval request `requestId` (an answer for another request throws `answer_refused`), or
   * resume / discard after an interruption (no id). Throws `loop_stopped` after `stop()`.
   */
  answer(text: string, requestId?: string): void;
  /**
   * A person declines the approval request `requestId` with their reason (one line; the judge reads it as their
   * words, and the same change is not asked for again until the situation or an instruction changed). Throws
   * `answer_refused` for another request, `loop_stopped` after `stop()`.
   */
  decline(requestId: string, reason: string): void;
  /**
   * A person approves the request `requestId` with the change edited (its parameters, same action type): the
   * machine renders its lines again and runs the edited action, once. Throws `answer_refused` when the edit
   * cannot be shown (or for another request), `loop_stopped` after `stop()`.
   */
  approveEdited(requestId: string, parameters: Record<string, unknown>): void;
  /** A person says whether an action with an unknown outcome was applied. */
  reconcile(actionId: string, outcome: "applied" | "not_applied"): void;
  /**
   * A person's reply to the agent, deciding nothing: read at the next judgement (at once when the loop is
   * idle); nothing waiting is interrupted, and it is never a developer command. Throws `invalid_input` for an
   * empty reply, `loop_stopped` after `stop()`.
   */
  reply(text: string): void;
  /** A human message (it always wins), or a developer command after the privileged prefix. */
  say(text: string): void;
  /** Undoes the most recent self-modification. */
  revert(): void;
  /** Registers a person's signed standing approval (needs `standingApprovals`); resolves to its record. */
  registerMandate(mandate: Mandate): Promise<MandateRecord>;
  /** The registered standing approvals. */
  mandates(): Promise<{ record: MandateRecord; version: string }[]>;
  state(): ControlState;
  status(): ControlLoopStatus;
  playbook(): string | null;
  /** Resolves once nothing the loop started is running; with `timeoutMs`, rejects with `timeout` after it. */
  settled(options?: { timeoutMs?: number }): Promise<void>;
  /** Aborts an in-flight judgement; nothing is judged, asked or executed after it resolves; awaits an Apply already sent. */
  stop(options?: { timeoutMs?: number }): Promise<void>;
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
    #[serde(default)]
    memory_limit_bytes: Option<usize>,
    #[serde(default)]
    max_invalid_answers: Option<u32>,
    #[serde(default)]
    renderers: BTreeMap<String, Renderer>,
    #[serde(default)]
    rules: Option<Rules>,
}

/// A fresh random value for action ids (unique across restarts): 8 bytes, hex.
fn random_boot() -> Result<String, InputError> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(|error| {
        InputError::invalid("", format!("this host gives no random numbers: {error}"))
    })?;
    Ok(hex::encode(bytes))
}

fn check_rules(path: &str, rules: &Rules) -> Result<(), InputError> {
    bounds::check_rules(rules).map_err(|problem| {
        InputError::invalid(format!("{path}.{}", problem.field), problem.message)
    })
}

fn check_renderers(path: &str, renderers: &BTreeMap<String, Renderer>) -> Result<(), InputError> {
    if renderers.len() > bounds::MAX_WHITELIST_ENTRIES {
        return Err(InputError::invalid(
            path,
            format!("at most {} renderers", bounds::MAX_WHITELIST_ENTRIES),
        ));
    }
    for (action_type, renderer) in renderers {
        check_renderer(renderer)
            .map_err(|why| InputError::invalid(format!("{path}.{action_type}"), why))?;
    }
    Ok(())
}

fn read_setup(setup: &JsValue) -> Result<ControlState, InputError> {
    let setup: ControlSetup = from_js("setup", setup)?;
    if setup.goal.trim().is_empty() {
        return Err(InputError::invalid("setup.goal", "must not be empty"));
    }
    if setup.goal.len() > bounds::MAX_GOAL_BYTES {
        return Err(InputError::invalid(
            "setup.goal",
            format!("at most {} bytes", bounds::MAX_GOAL_BYTES),
        ));
    }
    if let Some((key, _)) = setup
        .settings
        .iter()
        .find(|(_, value)| json_depth(value) > MAX_PARAMETER_DEPTH)
    {
        return Err(InputError::invalid(
            format!("setup.settings.{key}"),
            format!("nests deeper than {MAX_PARAMETER_DEPTH} levels"),
        ));
    }
    if bounds::json_bytes(&setup.settings) > bounds::MAX_SETTINGS_BYTES {
        return Err(InputError::invalid(
            "setup.settings",
            format!("at most {} bytes as JSON", bounds::MAX_SETTINGS_BYTES),
        ));
    }
    let mut rules = Rules {
        whitelist: setup.whitelist,
        adjustable_settings: setup.settings.keys().cloned().collect(),
        ..Rules::default()
    };
    if let Some(prefix) = setup.privileged_prefix {
        rules.privileged_prefix = prefix;
    }
    check_rules("setup", &rules)?;
    if let Some(loaded) = setup.rules {
        check_rules("setup.rules", &loaded)?;
        rules = Rules {
            adjustable_settings: rules.adjustable_settings,
            ..loaded
        };
    }
    check_renderers("setup.renderers", &setup.renderers)?;
    let mut state = ControlState::new(setup.goal, rules);
    state.settings = setup.settings;
    state.renderers = setup.renderers;
    state.boot = random_boot()?;
    if let Some(limit) = setup.memory_limit {
        if limit == 0 || limit > bounds::MAX_MEMORY_LIMIT {
            return Err(InputError::invalid(
                "setup.memoryLimit",
                format!("must be from 1 to {}", bounds::MAX_MEMORY_LIMIT),
            ));
        }
        state.memory_limit = limit;
    }
    if let Some(limit) = setup.memory_limit_bytes {
        if !(1024..=bounds::MAX_MEMORY_LIMIT_BYTES).contains(&limit) {
            return Err(InputError::invalid(
                "setup.memoryLimitBytes",
                format!("must be from 1024 to {}", bounds::MAX_MEMORY_LIMIT_BYTES),
            ));
        }
        state.memory_limit_bytes = limit;
    }
    if let Some(count) = setup.max_invalid_answers {
        if !(1..=100).contains(&count) {
            return Err(InputError::invalid(
                "setup.maxInvalidAnswers",
                "must be from 1 to 100",
            ));
        }
        state.max_invalid_answers = count;
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

/// The largest saved state `controlStep` reads (it trims it to the loop's bounds, 512 KiB).
const MAX_STATE_INPUT_BYTES: usize = 16 * 1024 * 1024;

/// The largest counter JavaScript holds exactly (2^53 - 1): revisions and ids beyond it would round.
const MAX_SAFE_COUNTER: u64 = (1 << 53) - 1;

/// Counters a host could only have altered: beyond what JavaScript numbers hold exactly.
fn check_counters(state: &ControlState) -> Result<(), InputError> {
    for (path, value) in [
        ("state.revision", state.revision),
        ("state.judgement_id", state.judgement_id),
        ("state.actions_created", state.actions_created),
    ] {
        if value > MAX_SAFE_COUNTER / 2 {
            return Err(InputError::invalid(
                path,
                "is larger than the loop ever counts",
            ));
        }
    }
    Ok(())
}

/// What the step cannot check by type: a restart's rules and renderers are the host's configuration.
fn check_event(event: &ControlEvent) -> Result<(), InputError> {
    if let ControlEvent::StatePersisted { revision }
    | ControlEvent::StateNotPersisted { revision, .. } = event
    {
        if *revision > MAX_SAFE_COUNTER {
            return Err(InputError::invalid(
                "event.revision",
                "is not a revision the loop gave",
            ));
        }
    }
    if let ControlEvent::HostRestarted {
        rules, renderers, ..
    } = event
    {
        if let Some(rules) = rules {
            check_rules("event.rules", rules)?;
        }
        if let Some(renderers) = renderers {
            check_renderers("event.renderers", renderers)?;
        }
    }
    Ok(())
}

/// A fresh random value for `host_restarted`'s `boot` (action ids stay unique across restarts).
#[wasm_bindgen(js_name = newBootId)]
pub fn new_boot_id() -> Result<String, JsValue> {
    random_boot().map_err(invalid)
}

/// The pure step: `state` and one `event` in; the next state and the effects out. No I/O, no clock:
/// the same inputs always give the same answer, so a host can persist, replay and test it.
#[wasm_bindgen(js_name = controlStep, unchecked_return_type = "ControlStepResult")]
pub fn control_step(
    #[wasm_bindgen(unchecked_param_type = "ControlState")] state: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ControlEvent")] event: JsValue,
) -> Result<JsValue, JsValue> {
    // A saved state of any size is read, then trimmed to the loop's bounds: never refused for its size.
    let mut state: ControlState =
        super::convert::from_js_within("state", &state, MAX_STATE_INPUT_BYTES).map_err(invalid)?;
    check_counters(&state).map_err(invalid)?;
    bounds::fit_loaded(&mut state);
    let event: ControlEvent = from_js("event", &event).map_err(invalid)?;
    check_event(&event).map_err(invalid)?;
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

/// What a log keeps under `limitBytes` bytes of UTF-8 (default 10 MB, the seed's): its newest whole lines,
/// as many as fit, the oldest dropped first. Lines end in `\n` (a `\r` before it stays with its line); the
/// cut is always at a line start, never inside a character. A newest line longer than the limit by itself
/// is kept alone; a log that fits is returned as it is. `log` may be up to 64 MiB (`MAX_LOG_TEXT_BYTES`,
/// in UTF-16 code units and in bytes of UTF-8); a longer log, a non-string or text with a lone surrogate
/// is an `AgentGovernorError` (`invalid_input`, path `log`).
#[wasm_bindgen(js_name = retainLog, unchecked_return_type = "string")]
pub fn retain_log(
    #[wasm_bindgen(unchecked_param_type = "string")] log: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "number")] limit_bytes: JsValue,
) -> Result<JsValue, JsValue> {
    let bytes =
        super::args::large_utf8("log", &log, super::args::MAX_LOG_TEXT_BYTES).map_err(invalid)?;
    let limit =
        optional_count("limitBytes", &limit_bytes, DEFAULT_LOG_LIMIT_BYTES).map_err(invalid)?;
    // The cut is after a newline, so the kept bytes are whole UTF-8 text; a log that fits goes back as the
    // caller's own string (nothing is copied out).
    Ok(match bytes.get(retained_from(&bytes, limit)..) {
        Some(kept) if kept.len() < bytes.len() => super::args::utf8_to_js(kept).into(),
        _ => log,
    })
}

/// The last `lines` lines of a log (clamped to 200-500; default 300), as the judge reads them: whole lines
/// with their newlines, the newest last; the whole log when it has fewer. Only about the tail is copied
/// into wasm memory. `log` may be up to 64 Mi UTF-16 code units long (`MAX_LOG_TEXT_BYTES`); a longer
/// log, a non-string or text with a lone surrogate is an `AgentGovernorError` (`invalid_input`, path
/// `log`).
#[wasm_bindgen(js_name = logTail)]
pub fn log_tail(
    #[wasm_bindgen(unchecked_param_type = "string")] log: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "number")] lines: JsValue,
) -> Result<String, JsValue> {
    let log = super::args::checked_string("log", &log, super::args::MAX_LOG_TEXT_BYTES)
        .map_err(invalid)?;
    let lines = optional_count("lines", &lines, 300).map_err(invalid)?;
    Ok(tail_of_js(log, lines))
}

/// [`tail`] of a log left in JS: suffixes of 64 Ki code units, then twice as long each time, are copied
/// until one holds the line start the tail begins at (or is the whole log). A cut after a newline inside a
/// suffix is the whole log's cut too; where the suffix itself begins (mid-line, even between the halves
/// of a surrogate pair, which read as U+FFFD) is never part of the answer.
fn tail_of_js(log: &js_sys::JsString, lines: usize) -> String {
    let units = log.length();
    let mut size: u32 = 1 << 16;
    loop {
        let from = units.saturating_sub(size);
        let suffix = String::from(log.slice(from, units));
        let kept = tail(&suffix, lines);
        if from == 0 || kept.len() < suffix.len() {
            return kept.to_owned();
        }
        size = size.saturating_mul(2);
    }
}

/// A log record as an OpenTelemetry GenAI-style span or event. `tool` names the action (`OtelTool`: its type,
/// its id, and what the loop knows of it: the change digest, who approved, the outcome)
/// for `execute_tool` spans and approval events.
#[wasm_bindgen(js_name = otelLogRecord, unchecked_return_type = "OtelLogRecord")]
pub fn otel_log_record(
    #[wasm_bindgen(unchecked_param_type = "LogChannel")] channel: JsValue,
    #[wasm_bindgen(unchecked_param_type = "LogRecord")] record: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] time: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "OtelTool")] tool: JsValue,
) -> Result<JsValue, JsValue> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct Tool {
        name: String,
        call_id: String,
        #[serde(default)]
        change_digest: Option<String>,
        #[serde(default)]
        approved_by: Option<String>,
        #[serde(default)]
        request_id: Option<String>,
        #[serde(default)]
        succeeded: Option<bool>,
    }
    let channel: LogChannel = super::convert::from_js_any("channel", &channel).map_err(invalid)?;
    let record: LogRecord = from_js("record", &record).map_err(invalid)?;
    let time = super::args::text("time", &time).map_err(invalid)?;
    let tool: Option<Tool> = if super::args::is_absent(&tool) {
        None
    } else {
        Some(from_js("tool", &tool).map_err(invalid)?)
    };
    let facts = tool
        .as_ref()
        .map_or_else(OtelFacts::default, |tool| OtelFacts {
            change_digest: tool.change_digest.clone(),
            approved_by: tool.approved_by.clone(),
            request_id: tool.request_id.clone(),
            succeeded: tool.succeeded,
        });
    let tool = tool
        .as_ref()
        .map(|tool| (tool.name.as_str(), tool.call_id.as_str()));
    Ok(to_js(&otel_record(channel, &record, &time, tool, &facts)))
}
