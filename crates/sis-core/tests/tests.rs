//! sis-core's integration tests, one binary (ripgrep's layout) so CI links once.

mod decide_cases;
mod engine;
mod layout;
mod props;
mod replay;
mod replay_classes;
mod replay_corpus;
mod replay_corpus_cases;
mod replay_delayed;
mod replay_probes;
mod replay_sync;
mod scenario_props;
mod seed_001;
mod traced;
