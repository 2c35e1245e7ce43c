//! `sis decide`: one wake-up decision on a hand-built state file, per preset.

use crate::args::{in_file, read_file};
use crate::format_of;
use clap::Args;
use sis_core::analysis::decide::{decide, DecideResult, StateFile};
use sis_core::{presets, InputError};

#[derive(Args, Debug)]
pub struct DecideArgs {
    /// The state file (JSON, design.md "Contracts → CLI")
    #[arg(long, value_name = "FILE", allow_hyphen_values = true)]
    state: Option<String>,
    /// The preset to decide with [default: linux-6.0]
    #[arg(
        long,
        value_name = "P",
        allow_hyphen_values = true,
        conflicts_with = "all_presets"
    )]
    preset: Option<String>,
    /// Decide with every preset (JSON: an array)
    #[arg(long)]
    all_presets: bool,
    /// text or json [default: text]
    #[arg(long, value_name = "FORMAT", allow_hyphen_values = true)]
    format: Option<String>,
}

pub fn main(a: &DecideArgs) -> Result<String, InputError> {
    // The values given first, then the missing --state (a typo is named either way).
    let format = format_of(&a.format, &["text", "json"])?;
    let preset = a.preset.as_deref().unwrap_or("linux-6.0");
    sis_core::preset(preset)?;
    let path = a
        .state
        .as_deref()
        .ok_or_else(|| InputError::range("state", "", "a state file (--state FILE is required)"))?;
    let file =
        StateFile::from_json(&read_file("state", path)?).map_err(|e| in_file(e, "state", path))?;
    let results: Vec<DecideResult> = if a.all_presets {
        presets()
            .iter()
            .map(|p| decide(&file, p.name))
            .collect::<Result<_, _>>()?
    } else {
        vec![decide(&file, preset)?]
    };
    Ok(match format {
        "json" => {
            let mut s = if a.all_presets {
                serde_json::to_string_pretty(&results)
            } else {
                serde_json::to_string_pretty(&results[0])
            }
            .unwrap_or_default();
            s.push('\n');
            s
        }
        _ => results
            .iter()
            .map(DecideResult::to_text)
            .collect::<Vec<_>>()
            .join("\n"),
    })
}
