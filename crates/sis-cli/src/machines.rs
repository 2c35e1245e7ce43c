//! `sis machines`: every machine preset, its topology and its cited wake-up costs.

use crate::format_of;
use clap::Args;
use serde::Serialize;
use sis_core::sim::machine::{IdleState, MACHINES};
use sis_core::text::Text;
use sis_core::InputError;

#[derive(Args, Debug)]
pub struct MachinesArgs {
    /// table or json [default: table]
    #[arg(long, value_name = "FORMAT", allow_hyphen_values = true)]
    format: Option<String>,
}

#[derive(Serialize)]
struct StateJson {
    name: &'static str,
    exit_latency_ns: u64,
    target_residency_ns: u64,
    polls: bool,
}

#[derive(Serialize)]
struct MachineJson {
    name: &'static str,
    summary: &'static str,
    llcs: u32,
    llc_weight: u32,
    smt: u32,
    cluster_size: u32,
    ipi_ns: u64,
    lock_transfer_ns: u64,
    probe_cost_ns: u64,
    cold_start_ns: u64,
    idle_states: Vec<StateJson>,
    source: &'static str,
}

fn state(s: &IdleState) -> StateJson {
    StateJson {
        name: s.name,
        exit_latency_ns: s.exit_latency_ns,
        target_residency_ns: s.target_residency_ns,
        polls: s.polls,
    }
}

pub fn main(a: &MachinesArgs) -> Result<String, InputError> {
    let format = format_of(&a.format, &["table", "json"])?;
    let all: Vec<MachineJson> = MACHINES
        .iter()
        .map(|m| MachineJson {
            name: m.name,
            summary: m.summary,
            llcs: m.llcs,
            llc_weight: m.llc_weight,
            smt: m.smt,
            cluster_size: m.cluster_size,
            ipi_ns: m.ipi_ns,
            lock_transfer_ns: m.lock_transfer_ns,
            probe_cost_ns: m.probe_cost_ns,
            cold_start_ns: m.cold_start_ns,
            idle_states: m.idle_states.iter().map(state).collect(),
            source: m.source,
        })
        .collect();
    if format == "json" {
        return Ok(crate::json_lines(&all));
    }
    let mut s = String::new();
    for m in &all {
        s.line(format_args!("{:<14} {}", m.name, m.summary));
        s.line(format_args!(
            "{:<14} {} LLC x {} CPUs, smt {}, clusters {}; IPI {} ns, rq lock line {} ns, probe {} ns (no source: the simulator's), cold start {} ns",
            "", m.llcs, m.llc_weight, m.smt, m.cluster_size, m.ipi_ns, m.lock_transfer_ns,
            m.probe_cost_ns, m.cold_start_ns
        ));
        let states: Vec<String> = m
            .idle_states
            .iter()
            .map(|st| {
                format!(
                    "{} {}/{} us{}",
                    st.name,
                    st.exit_latency_ns as f64 / 1000.0,
                    st.target_residency_ns as f64 / 1000.0,
                    if st.polls { "" } else { " (IPI)" }
                )
            })
            .collect();
        s.line(format_args!(
            "{:<14} idle states (exit/target residency): {}; sources: {}",
            "",
            if states.is_empty() {
                "none".into()
            } else {
                states.join(", ")
            },
            m.source
        ));
    }
    s.line(format_args!(
        "\n--machine auto (the default) picks the machine whose LLC is the scenario's (llc_weight, smt, cluster_size), else xeon-spr's costs; a named machine also sets the topology and probe cost, which flags given with it override."
    ));
    Ok(s)
}
