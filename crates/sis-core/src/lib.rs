//! sis-core: a deterministic simulator of the Linux wake-up path (`select_idle_sibling()` and
//! its LLC scan, throttled by SIS_PROP or SIS_UTIL), with the kernel's integer arithmetic.
//!
//! No web dependencies: the app and the CLI render what this crate computes.
//!
//! Three wings, each importing only the ones before it:
//! - [`kernel`]: the wake-up decision and everything it reads, named as fair.c names them
//!   (select_task_rq_fair, select_idle_sibling, the throttles, PELT, the runqueues);
//! - [`sim`]: the simulator around it (the engine's event loop, the event queue, workloads,
//!   the PRNG, the scenario and its input spellings);
//! - [`analysis`]: what is built on runs and decisions (sweeps, trace replay, `decide` on a
//!   hand-built state, exports).
//!
//! [`error`] (the input error every wing returns) belongs to none of them.
//!
//! The hot path's `inline(always)` applies to native builds only
//! (`cfg_attr(not(target_arch = "wasm32"), ...)`): forced inlining duplicates the event loop,
//! which costs the app ~4 KB gzipped of its 250 KB budget; wasm keeps over half the native rate
//! without it (docs/performance.md).

pub mod analysis;
pub mod error;
pub mod kernel;
pub mod sim;
pub mod text;

pub use error::InputError;
pub use kernel::features::{preset, presets, Features, Preset, FEATURES};
pub use kernel::topology::{Numbering, Topology, TopologySpec};
pub use sim::engine::{run, RunReport, Simulation};
pub use sim::scenario::{Scenario, WorkloadKind};
