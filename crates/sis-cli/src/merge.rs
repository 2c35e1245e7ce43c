//! `sis merge FILE...`: the shard files of `sis sweep ... --shard K/N` (any order) combined
//! and printed as the unsharded `sis sweep` prints them, byte for byte.

use crate::args::read_file;
use crate::format_of;
use crate::sweep::progress_bar;
use clap::Args;
use sis_core::analysis::sweep::shard::{merge, ShardFile};
use sis_core::analysis::sweep::{format_output, FORMATS};
use sis_core::InputError;

#[derive(Args, Debug)]
pub struct MergeArgs {
    /// Shard files written by `sis sweep ... --shard K/N`, every K of one N, in any order
    #[arg(value_name = "FILE", required = true)]
    files: Vec<String>,
    /// table, csv or json [default: table]
    #[arg(long, value_name = "FORMAT", allow_hyphen_values = true)]
    format: Option<String>,
}

pub fn main(a: &MergeArgs) -> Result<String, InputError> {
    let format = format_of(&a.format, &FORMATS)?;
    let bar = progress_bar("merge", a.files.len(), "files");
    let mut shards = Vec::with_capacity(a.files.len());
    for path in &a.files {
        let text = read_file("file", path)?;
        shards.push((path.clone(), ShardFile::parse(path, &text)?));
        bar.inc(1);
    }
    bar.finish_and_clear();
    let (spec, rows) = merge(shards)?;
    Ok(format_output(&spec, &rows, format))
}
