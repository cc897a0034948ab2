//! The container (seed 004 requirement 9): the host's ports are given once, and every component is
//! obtained from it with those ports injected.

use crate::closer::{Closer, CloserOptions};
use crate::ports::{Clock, Llm, PromptLoader, Store};
use crate::reflector::{PromptBuilder, Reflector, ReflectorOptions};
use crate::watcher::{Watcher, WatcherOptions};

/// The host's ports: the LLM, prompt files, the store, the clock.
#[derive(Clone)]
pub struct Governor<M, L, S, C> {
    pub llm: M,
    pub loader: L,
    pub store: S,
    pub clock: C,
    /// The host's prompts directory for the Reflector's per-dataset templates.
    pub prompt_root: String,
}

impl<M: Llm + Clone, L: PromptLoader + Clone, S: Store + Clone, C: Clock + Clone>
    Governor<M, L, S, C>
{
    pub fn new(llm: M, loader: L, store: S, clock: C, prompt_root: &str) -> Self {
        Self {
            llm,
            loader,
            store,
            clock,
            prompt_root: prompt_root.to_owned(),
        }
    }

    /// A Reflector with the LLM client, a prompt builder and the playbook store injected.
    pub fn reflector(&self, options: ReflectorOptions) -> Reflector<M, L, S> {
        let prompts = PromptBuilder::new(self.loader.clone(), &self.prompt_root);
        Reflector::new(self.llm.clone(), prompts, self.store.clone(), options)
    }

    /// A Closer reading prompts through the host loader (it is given the LLM at each check).
    pub fn closer(&self, options: CloserOptions) -> Closer<L> {
        Closer::new(options, self.loader.clone())
    }

    /// A Watcher keeping its Learning Ledger in the store.
    pub fn watcher(&self, options: WatcherOptions) -> Watcher<L, S, C> {
        Watcher::new(
            options,
            self.loader.clone(),
            self.store.clone(),
            self.clock.clone(),
        )
    }
}
