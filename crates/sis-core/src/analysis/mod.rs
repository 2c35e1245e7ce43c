//! The analysis wing: what is built on the simulator and the decision path. Load sweeps and
//! their shards, replaying a real trace through each preset, one decision on a hand-built
//! state (`sis decide`), and the exports (Perfetto trace, seed-style text, CSV).

pub mod decide;
pub mod export;
pub mod replay;
pub mod sweep;
