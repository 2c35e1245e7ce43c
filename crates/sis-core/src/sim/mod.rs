//! The simulator wing: the discrete-event engine that runs the kernel wing's decisions over
//! time, its event queue, the workloads, the PRNG, and the scenario with its input spellings
//! (scenario files, URL queries). It does not import `analysis`.

pub mod bench;
pub mod engine;
pub mod fields;
pub mod flat_json;
pub mod machine;
pub mod query;
mod queue;
pub mod rng;
pub mod scenario;
pub mod workload;
