//! The Closer as a runner's CompletionHandler (seed 001), with the outer loop's iteration guard.

use super::messages;
use super::run::{C3l, Closer, CloserInput, CloserResult};
use crate::language::Language;
use crate::ports::{Llm, PromptLoader};
use serde_json::Value;

/// Default number of completion checks before the handler stops asking (option `maxIterations`; the seed
/// sets none, and an outer loop without a limit never ends on a model that never says complete).
pub const DEFAULT_MAX_ITERATIONS: u32 = 5;
/// The highest `maxIterations`.
pub const MAX_ITERATIONS_LIMIT: u32 = 100;

/// The handler's state between checks; the Closer it asks is passed to each check.
#[derive(Debug, Clone, PartialEq)]
pub struct CloserCompletionHandler {
    step_id: String,
    c3l: C3l,
    max_iterations: u32,
    iterations: u32,
    last_result: Option<CloserResult>,
    language: Language,
}

/// What the next check is: a query to make, or the stop at the iteration limit.
#[derive(Debug, Clone, PartialEq)]
pub enum NextCheck {
    Ask(Box<CloserInput>),
    Exhausted(Box<CloserResult>),
}

impl CloserCompletionHandler {
    pub fn new(step_id: String, c3l: C3l, max_iterations: u32) -> Self {
        Self {
            step_id,
            c3l,
            max_iterations,
            iterations: 0,
            last_result: None,
            language: Language::En,
        }
    }

    /// The same handler, writing its own texts in `language`.
    pub fn with_language(self, language: Language) -> Self {
        Self { language, ..self }
    }

    pub fn is_complete(&self) -> bool {
        self.last_result
            .as_ref()
            .is_some_and(|result| result.complete)
    }

    /// True once `max_iterations` checks ran without completion: the outer loop must stop.
    pub fn is_exhausted(&self) -> bool {
        !self.is_complete() && self.iterations >= self.max_iterations
    }

    pub fn iterations(&self) -> u32 {
        self.iterations
    }

    pub fn last_result(&self) -> Option<&CloserResult> {
        self.last_result.as_ref()
    }

    /// Checks the iteration's structured output, carrying the last result into the retry prompt. Past the
    /// iteration limit nothing is asked and the result says so.
    pub async fn check_completion<L: PromptLoader>(
        &mut self,
        closer: &Closer<L>,
        structured_output: Option<Value>,
        llm: &impl Llm,
    ) -> &CloserResult {
        let result = match self.next_check(structured_output) {
            NextCheck::Ask(input) => closer.check(&input, llm).await,
            NextCheck::Exhausted(result) => *result,
        };
        self.record(result)
    }

    /// The first half of a check, for hosts that cannot hold the handler across the query.
    pub fn next_check(&mut self, structured_output: Option<Value>) -> NextCheck {
        if self.is_exhausted() {
            let mut stopped = self.last_result.clone().unwrap_or_else(empty_result);
            let message = messages::iteration_limit(self.language, self.max_iterations);
            stopped.complete = false;
            stopped.error = Some(message.clone());
            stopped.reasons.push(message);
            return NextCheck::Exhausted(Box::new(stopped));
        }
        self.iterations += 1;
        NextCheck::Ask(Box::new(CloserInput {
            structured_output: structured_output
                .unwrap_or_else(|| Value::Object(Default::default())),
            step_id: self.step_id.clone(),
            c3l: self.c3l.clone(),
            context: None,
            previous: self
                .last_result
                .clone()
                .filter(|previous| !previous.complete)
                .map(Box::new),
            required_items: Vec::new(),
            evidence: Vec::new(),
        }))
    }

    /// The second half: keeps the result as the last one.
    pub fn record(&mut self, result: CloserResult) -> &CloserResult {
        self.last_result.insert(result)
    }

    /// "Not checked" before the first check, then the model's summary (or the error).
    pub fn completion_description(&self) -> String {
        match &self.last_result {
            None => messages::not_checked(self.language),
            Some(result) => match &result.error {
                Some(error) if result.output.summary.is_empty() => error.clone(),
                _ => result.output.summary.clone(),
            },
        }
    }
}

fn empty_result() -> CloserResult {
    CloserResult {
        complete: false,
        output: Default::default(),
        prompt_used: None,
        error: None,
        reasons: Vec::new(),
        prompt_path: None,
        prompt_status: None,
        next_iteration_input: None,
        queries: 0,
        repairs: Vec::new(),
        ignored_fields: Vec::new(),
    }
}
