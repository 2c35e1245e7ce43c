//! `sis presets`: every preset, its description and its enabled features.

use crate::format_of;
use clap::Args;
use serde::Serialize;
use sis_core::text::Text;
use sis_core::{presets, InputError, FEATURES};

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
    /// Newidle balance's avg_idle floor, ns: the LLC's balance cost, and before 5.16 also
    /// sysctl_sched_migration_cost (500 us). 0 = the balance cost only.
    newidle_min_avg_idle_ns: u64,
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
            newidle_min_avg_idle_ns: if p.newidle_migration_cost_gate {
                sis_core::kernel::state::MIGRATION_COST_NS
            } else {
                0
            },
            features: p.features.enabled_names(),
        })
        .collect();
    if format == "json" {
        return Ok(crate::json_lines(&all));
    }
    let mut s = String::new();
    for p in &all {
        s.line(format_args!("{:<20} {}", p.name, p.description));
        s.line(format_args!(
            "{:<20} imbalance_pct {}, busy_factor {}, newidle when avg_idle >= {}; features: {}",
            "",
            p.imbalance_pct,
            p.busy_factor,
            if p.newidle_min_avg_idle_ns > 0 {
                "max(balance cost, 500 us)"
            } else {
                "balance cost"
            },
            p.features.join(" ")
        ));
    }
    s.line(format_args!(
        "\nfeatures (override any with --feature NAME=on|off):"
    ));
    for f in FEATURES {
        s.line(format_args!("  {:<20} {}", f.name, f.help));
    }
    Ok(s)
}
