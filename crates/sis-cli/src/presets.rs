//! `sis presets`: every preset, its description and its enabled features.

use crate::format_of;
use clap::Args;
use serde::Serialize;
use sis_core::{presets, InputError, FEATURES};
use std::fmt::Write;

#[derive(Args, Debug)]
pub struct PresetsArgs {
    /// table or json [default: table]
    #[arg(long, value_name = "FORMAT", allow_hyphen_values = true)]
    format: Option<String>,
}

#[derive(Serialize)]
struct PresetJson {
    name: &'static str,
    description: &'static str,
    imbalance_pct: u32,
    busy_factor: u32,
    /// The features the preset turns on, in the feature table's order.
    features: Vec<&'static str>,
}

pub fn main(a: &PresetsArgs) -> Result<String, InputError> {
    let format = format_of(&a.format, &["table", "json"])?;
    let all: Vec<PresetJson> = presets()
        .iter()
        .map(|p| PresetJson {
            name: p.name,
            description: p.description,
            imbalance_pct: p.imbalance_pct,
            busy_factor: p.busy_factor,
            features: p.features.enabled_names(),
        })
        .collect();
    if format == "json" {
        let mut s = serde_json::to_string_pretty(&all).unwrap_or_default();
        s.push('\n');
        return Ok(s);
    }
    let mut s = String::new();
    for p in &all {
        let _ = writeln!(s, "{:<20} {}", p.name, p.description);
        let _ = writeln!(
            s,
            "{:<20} imbalance_pct {}, busy_factor {}; features: {}",
            "",
            p.imbalance_pct,
            p.busy_factor,
            p.features.join(" ")
        );
    }
    let _ = writeln!(s, "\nfeatures (override any with --feature NAME=on|off):");
    for f in FEATURES {
        let _ = writeln!(s, "  {:<20} {}", f.name, f.help);
    }
    Ok(s)
}
