//! The sis CLI's integration tests, one binary (ripgrep's layout) so CI links once.

mod catalogue;
mod cli;
mod docs;
mod replay;
mod sweep;
