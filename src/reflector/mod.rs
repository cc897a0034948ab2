//! Reflector (seed 004, ACE): turns an agent's trajectory, the ground truth and the test report into
//! lessons (Insights), and tags each playbook bullet the trajectory used as helpful, harmful or neutral.
//!
//! Pure core: [`models`] (the seed's data models, strictly validated) and [`prompt`] (per-dataset
//! templates). Orchestration: [`run`] (`Reflector::reflect`, one LLM call per round, iterative refinement).

pub mod models;
pub mod prompt;
pub mod run;

pub use models::{
    BulletEvaluation, BulletTag, Insight, ModelReflection, ReflectionResult, Trajectory,
};

pub use prompt::PromptBuilder;
pub use run::{Reflector, ReflectorOptions};
