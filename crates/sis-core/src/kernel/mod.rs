//! The kernel wing: the wake-up decision and everything it reads, as fair.c has it. It imports
//! neither `sim` nor `analysis`: a decision needs no event loop.

pub mod cpumask;
pub mod features;
pub mod nr_expr;
pub mod pelt;
pub mod pelt4;
pub mod select;
pub mod state;
pub mod stats;
pub mod throttle;
pub mod topology;
pub mod trace;
pub mod util_est;
