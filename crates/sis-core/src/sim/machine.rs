//! Machine presets: a topology and what a wake-up costs on it (issue 25). Every value is
//! taken once from the public source named beside it (docs/machines.md has the sources and
//! the arithmetic); none is set per kernel preset, and none is chosen to hit a table.

use crate::kernel::topology::Numbering;
use serde::{Deserialize, Serialize};

/// One cpuidle state as the driver declares it (`struct cpuidle_state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdleState {
    pub name: &'static str,
    pub exit_latency_ns: u64,
    pub target_residency_ns: u64,
    /// The state monitors the idle task's TIF_NEED_RESCHED (mwait): a waker sets the flag and
    /// sends no IPI (v5.19 arch/x86/include/asm/mwait.h mwait_idle_with_hints:
    /// current_set_polling_and_test; kernel/sched/core.c resched_curr: set_nr_and_not_polling,
    /// kernel/smp.c send_call_function_single_ipi: set_nr_if_polling).
    pub polls: bool,
}

/// A machine: its topology and its wake-up costs, ns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Machine {
    pub name: &'static str,
    pub summary: &'static str,
    pub llcs: u32,
    pub llc_weight: u32,
    pub smt: u32,
    pub cluster_size: u32,
    pub numbering: Numbering,
    /// Sending an IPI to the handler running on the target.
    pub ipi_ns: u64,
    /// Moving a contended cache line (the target runqueue's lock) between two cores of one
    /// LLC: what a remote try_to_wake_up spins for at least, and how long it holds the lock.
    pub lock_transfer_ns: u64,
    /// Probing one runqueue in select_idle_cpu (the scenario's `probe_cost_ns`).
    pub probe_cost_ns: u64,
    /// The extra run time of a task's first run on a CPU other than its last (cache refill).
    pub cold_start_ns: u64,
    /// The enabled idle states, shallowest first.
    pub idle_states: &'static [IdleState],
    /// Where the values come from (docs/machines.md has the detail).
    pub source: &'static str,
}

impl Machine {
    /// The state the cpuidle governor enters for a predicted idle time of `predicted_ns`:
    /// the deepest enabled state whose target residency fits it (v5.19
    /// drivers/cpuidle/governors/menu.c menu_select: `if (s->target_residency_ns >
    /// predicted_ns) break;`). The shallowest state if none fits.
    pub fn idle_state_for(&self, predicted_ns: u64) -> Option<&'static IdleState> {
        let states = self.idle_states;
        let fit = states
            .iter()
            .rev()
            .find(|s| s.target_residency_ns <= predicted_ns);
        fit.or(states.first())
    }

    /// Whether a wake-up costs anything on this machine (the `ideal` machine: nothing).
    pub fn has_costs(&self) -> bool {
        self.ipi_ns + self.lock_transfer_ns + self.cold_start_ns > 0 || !self.idle_states.is_empty()
    }
}

/// cpuidle's POLL state (drivers/cpuidle/poll_state.c), state 0 of every x86 driver here.
const POLL: IdleState = IdleState {
    name: "POLL",
    exit_latency_ns: 0,
    target_residency_ns: 0,
    polls: true,
};

/// linux v6.0 drivers/idle/intel_idle.c `spr_cstates` (C1E usable since 1548fac47a11; every
/// mwait state polls), as seed 000's runs had them: its harness disables C6 (290 us exit,
/// 800 us target) before every benchmark (Chen Yu's schedtests, run-schedtests.sh, 73754ea:
/// `pepc.standalone cstates config --disable C6`), so the governor never enters it.
const SPR_STATES: &[IdleState] = &[
    POLL,
    IdleState {
        name: "C1",
        exit_latency_ns: 1_000,
        target_residency_ns: 1_000,
        polls: true,
    },
    IdleState {
        name: "C1E",
        exit_latency_ns: 2_000,
        target_residency_ns: 4_000,
        polls: true,
    },
];

/// linux v6.0 drivers/idle/intel_idle.c `skl_cstates` (all mwait).
const SKL_STATES: &[IdleState] = &[
    POLL,
    IdleState {
        name: "C1",
        exit_latency_ns: 2_000,
        target_residency_ns: 2_000,
        polls: true,
    },
    IdleState {
        name: "C1E",
        exit_latency_ns: 10_000,
        target_residency_ns: 20_000,
        polls: true,
    },
    IdleState {
        name: "C3",
        exit_latency_ns: 70_000,
        target_residency_ns: 100_000,
        polls: true,
    },
    IdleState {
        name: "C6",
        exit_latency_ns: 85_000,
        target_residency_ns: 200_000,
        polls: true,
    },
    IdleState {
        name: "C7s",
        exit_latency_ns: 124_000,
        target_residency_ns: 800_000,
        polls: true,
    },
    IdleState {
        name: "C8",
        exit_latency_ns: 200_000,
        target_residency_ns: 800_000,
        polls: true,
    },
    IdleState {
        name: "C9",
        exit_latency_ns: 480_000,
        target_residency_ns: 5_000_000,
        polls: true,
    },
    IdleState {
        name: "C10",
        exit_latency_ns: 890_000,
        target_residency_ns: 5_000_000,
        polls: true,
    },
];

/// AMD Zen 2 through ACPI _CST (drivers/acpi/processor_idle.c: target_residency = latency *
/// latency_factor 2): C1 is FFH mwait (polls), C2 an I/O-port read (does not poll). The
/// firmware declares C2's exit as 400 us, but a measured wake from C2 takes 2.4 us more than
/// from C1, IPI included: that measurement is the machine's ipi_ns, and C2 adds no more.
const ZEN2_STATES: &[IdleState] = &[
    POLL,
    IdleState {
        name: "C1",
        exit_latency_ns: 1_000,
        target_residency_ns: 2_000,
        polls: true,
    },
    IdleState {
        name: "C2",
        exit_latency_ns: 0,
        target_residency_ns: 800_000,
        polls: false,
    },
];

/// Arm: WFI (v5.19 drivers/cpuidle/cpuidle-psci.c, state 0: exit_latency 1, target_residency
/// 1); arm64 has no TIF_POLLING_NRFLAG, so a wake-up always sends an IPI.
const WFI_STATES: &[IdleState] = &[IdleState {
    name: "WFI",
    exit_latency_ns: 1_000,
    target_residency_ns: 1_000,
    polls: false,
}];

/// Li, Ding, Shen, "Quantifying the Cost of Context Switch" (ExpCS 2007): the direct cost,
/// 3.8 us, a floor for a small working set's refill (docs/machines.md).
const COLD_START_NS: u64 = 3_800;

/// One runqueue probed by select_idle_cpu(). No source: the simulator's value on every machine.
/// Seed 000's own scan time implies about 2.2 us a probe on xeon-spr at 224 netperf threads
/// (docs/machines.md, `probe_cost_ns`; the guide's "Where the model differs" has the sweep).
const PROBE_COST_NS: u64 = 400;

pub static MACHINES: &[Machine] = &[
    Machine {
        name: "xeon-spr",
        summary: "seed 000's machine: a 2022 Xeon (Sapphire Rapids), one LLC of 112 CPUs, SMT2",
        llcs: 1,
        llc_weight: 112,
        smt: 2,
        cluster_size: 0,
        numbering: Numbering::Contiguous,
        // Norov's IPI benchmark under IPI virtualization (KVM, 2022): the closest published
        // figure. The line transfer is measured on this machine: the seed author's perf c2c of
        // loopback netperf on an 8480+ (schedtests 89166ec), median local HITM on the
        // sched_domain_shared line 263.5 cycles at the 2.0 GHz base clock.
        ipi_ns: 1_317,
        lock_transfer_ns: 132,
        probe_cost_ns: PROBE_COST_NS,
        cold_start_ns: COLD_START_NS,
        idle_states: SPR_STATES,
        source: "docs/machines.md#xeon-spr",
    },
    Machine {
        name: "desktop",
        summary: "a desktop: one LLC of 8 CPUs (4 cores, SMT2), Skylake client C-states",
        llcs: 1,
        llc_weight: 8,
        smt: 2,
        cluster_size: 0,
        numbering: Numbering::Contiguous,
        // The same IPI figure; i9-9900K's 21 ns core-to-core median.
        ipi_ns: 1_317,
        lock_transfer_ns: 21,
        probe_cost_ns: PROBE_COST_NS,
        cold_start_ns: COLD_START_NS,
        idle_states: SKL_STATES,
        source: "docs/machines.md#desktop",
    },
    Machine {
        name: "epyc-chiplet",
        summary: "a chiplet server (EPYC 7002): 16 LLCs of 8 CPUs (4 cores, SMT2)",
        llcs: 16,
        llc_weight: 8,
        smt: 2,
        cluster_size: 0,
        numbering: Numbering::Contiguous,
        // A Zen 2 wake from C2 less one from C1 (LKML 2021-10-23): IPI and real C2 exit;
        // EPYC 7742's 25 ns same-CCX core-to-core median.
        ipi_ns: 2_400,
        lock_transfer_ns: 25,
        probe_cost_ns: PROBE_COST_NS,
        cold_start_ns: COLD_START_NS,
        idle_states: ZEN2_STATES,
        source: "docs/machines.md#epyc-chiplet",
    },
    Machine {
        name: "arm-cluster",
        summary:
            "an Arm server with clusters (Kunpeng 920): 2 LLCs of 24 CPUs in clusters of 4, no SMT",
        llcs: 2,
        llc_weight: 24,
        smt: 1,
        cluster_size: 4,
        numbering: Numbering::Contiguous,
        // Norov's IPI benchmark example output (linux-arm-kernel 2017-12-19); Kunpeng
        // 920-6426's 34.5 ns same-cluster core-to-core median.
        ipi_ns: 5_669,
        lock_transfer_ns: 35,
        probe_cost_ns: PROBE_COST_NS,
        cold_start_ns: COLD_START_NS,
        idle_states: WFI_STATES,
        source: "docs/machines.md#arm-cluster",
    },
    Machine {
        name: "ideal",
        summary: "no wake-up costs beyond the scan: the model before issue 25, for comparison",
        llcs: 1,
        llc_weight: 16,
        smt: 2,
        cluster_size: 0,
        numbering: Numbering::Contiguous,
        ipi_ns: 0,
        lock_transfer_ns: 0,
        probe_cost_ns: PROBE_COST_NS,
        cold_start_ns: 0,
        idle_states: &[],
        source: "none: every cost but the probe is 0",
    },
];

/// The scenario field `machine`: `auto` (the machine whose LLC the scenario's is, else the
/// seed's) or one of [`MACHINES`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MachineName {
    #[default]
    Auto,
    XeonSpr,
    Desktop,
    EpycChiplet,
    ArmCluster,
    Ideal,
}

impl MachineName {
    pub const ALL: &'static [Self] = &[
        MachineName::Auto,
        MachineName::XeonSpr,
        MachineName::Desktop,
        MachineName::EpycChiplet,
        MachineName::ArmCluster,
        MachineName::Ideal,
    ];
    pub fn name(self) -> &'static str {
        match self {
            MachineName::Auto => "auto",
            MachineName::XeonSpr => "xeon-spr",
            MachineName::Desktop => "desktop",
            MachineName::EpycChiplet => "epyc-chiplet",
            MachineName::ArmCluster => "arm-cluster",
            MachineName::Ideal => "ideal",
        }
    }
    /// The machine it names (None: auto).
    pub fn machine(self) -> Option<&'static Machine> {
        MACHINES.iter().find(|m| m.name == self.name())
    }
}

/// The machine whose costs a scenario pays: the named one, or for `auto` the first whose LLC
/// shape (llc_weight, smt, cluster_size) is the scenario's, else the seed's (xeon-spr).
pub fn resolve(
    name: MachineName,
    llc_weight: u32,
    smt: u32,
    cluster_size: u32,
) -> &'static Machine {
    name.machine().unwrap_or_else(|| {
        MACHINES
            .iter()
            .filter(|m| m.has_costs())
            .find(|m| m.llc_weight == llc_weight && m.smt == smt && m.cluster_size == cluster_size)
            .unwrap_or(&MACHINES[0])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_has_a_machine_but_auto() {
        for n in MachineName::ALL {
            assert_eq!(
                n.machine().is_none(),
                *n == MachineName::Auto,
                "{}",
                n.name()
            );
        }
    }

    #[test]
    fn auto_picks_the_machine_with_the_scenarios_llc_else_the_seeds() {
        assert_eq!(resolve(MachineName::Auto, 112, 2, 0).name, "xeon-spr");
        assert_eq!(resolve(MachineName::Auto, 8, 2, 0).name, "desktop");
        assert_eq!(resolve(MachineName::Auto, 24, 1, 4).name, "arm-cluster");
        assert_eq!(resolve(MachineName::Auto, 16, 2, 0).name, "xeon-spr");
        assert_eq!(resolve(MachineName::Ideal, 112, 2, 0).name, "ideal");
    }

    #[test]
    fn the_governor_enters_the_deepest_state_whose_residency_fits() {
        let spr = MachineName::XeonSpr.machine().unwrap();
        assert_eq!(spr.idle_state_for(0).unwrap().name, "POLL");
        assert_eq!(spr.idle_state_for(3_999).unwrap().name, "C1");
        // C6 is disabled on the seed's machine: C1E however long the prediction.
        assert_eq!(spr.idle_state_for(799_999).unwrap().name, "C1E");
        assert_eq!(spr.idle_state_for(1 << 40).unwrap().name, "C1E");
        let ideal = MachineName::Ideal.machine().unwrap();
        assert!(ideal.idle_state_for(1 << 40).is_none() && !ideal.has_costs());
    }

    #[test]
    fn states_are_listed_shallowest_first() {
        for m in MACHINES {
            for w in m.idle_states.windows(2) {
                assert!(
                    w[0].target_residency_ns <= w[1].target_residency_ns,
                    "{}",
                    m.name
                );
            }
        }
    }
}
