//! sis-core: a deterministic simulator of the Linux wake-up path (`select_idle_sibling()` and
//! its LLC scan, throttled by SIS_PROP or SIS_UTIL), with the kernel's integer arithmetic.
//!
//! No web dependencies: the app and the CLI render what this crate computes.
//!
//! The hot path's `inline(always)` applies to native builds only
//! (`cfg_attr(not(target_arch = "wasm32"), ...)`): forced inlining duplicates the event loop,
//! which costs the app ~4 KB gzipped of its 250 KB budget; wasm keeps over half the native rate
//! without it (docs/performance.md).

pub mod bench;
pub mod cpumask;
pub mod decide;
pub mod engine;
pub mod error;
pub mod export;
pub mod features;
pub mod flat_json;
pub mod pelt;
pub mod query;
mod queue;
pub mod replay;
pub mod rng;
pub mod scenario;
pub mod select;
pub mod state;
pub mod stats;
pub mod sweep;
pub mod throttle;
pub mod topology;
pub mod trace;
pub mod util_est;
pub mod workload;

pub use engine::{run, RunReport, Simulation};
pub use error::InputError;
pub use features::{preset, presets, Features, Preset, FEATURES};
pub use scenario::{Scenario, WorkloadKind};
pub use topology::{Numbering, Topology, TopologySpec};
