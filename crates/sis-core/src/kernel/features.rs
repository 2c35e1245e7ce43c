//! Kernel presets as bundles of named features, overridable one at a time.

use serde::{Deserialize, Serialize};

/// The scheduler features that change the wake-up path. Names follow `features.h` where the
/// kernel has one; the others name the era's code shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Features {
    /// SIS_PROP: scan depth from the waker's avg_idle and the LLC's avg_scan_cost.
    pub sis_prop: bool,
    /// SIS_PROP_AGED: 5.14+ uses the aged `wake_avg_idle` (no /512) instead of `avg_idle / 512`.
    pub sis_prop_aged: bool,
    /// SIS_AVG_CPU: legacy "skip the scan when avg_idle < avg_cost" (removed in 5.12).
    pub sis_avg_cpu: bool,
    /// SIS_UTIL: scan depth `nr_idle_scan` from the LLC's sum of cpu_util_cfs() (6.0+).
    pub sis_util: bool,
    /// SIS_UTIL_RFC: the RFC's boolean `overloaded` (no scan at all above 100/imbalance_pct).
    pub sis_util_rfc: bool,
    /// SIS_UTIL_SMALL_LLC: `nr_scan * 32 / llc_weight` when `llc_weight <= 16` (v4 changelog idea).
    pub sis_util_small_llc: bool,
    /// SIS_UTIL_IDLE_AWARE: subtract each idle CPU's capacity from sum_util (RFC workaround).
    pub sis_util_idle_aware: bool,
    /// SIS_SINGLE_PASS: Mel Gorman's merged select_idle_core/select_idle_cpu loop (5.12+);
    /// off = the legacy three passes.
    pub single_pass: bool,
    /// SIS_CORE_BREAK: legacy select_idle_core stops at a core's first busy sibling (5.6+).
    pub core_break: bool,
    /// SIS_SMT_TARGET: legacy third pass, select_idle_smt(target) (4.13..5.11).
    pub smt_target: bool,
    /// SIS_SMT_PREV: select_idle_smt(prev) before the LLC scan when no idle core (5.13+).
    pub smt_prev: bool,
    /// SIS_SCAN_NEXT: the LLC scan starts at target + 1 (5.15+), else at target.
    pub scan_from_next: bool,
    /// SIS_RECENT: recent_used_cpu is an idle candidate after target and prev (4.16+).
    pub recent: bool,
    /// RECENT_WAKER_UPDATE: the fast path sets the waker's recent_used_cpu to its CPU when
    /// want_affine (4.16-5.15).
    pub recent_waker_update: bool,
    /// RECENT_PREV_UPDATE: `p->recent_used_cpu = prev` whenever SIS reaches the check (5.15+).
    pub recent_prev_update: bool,
    /// SCHED_IDLE_AS_IDLE: a CPU running only SCHED_IDLE tasks counts as idle (5.4+).
    pub sched_idle_as_idle: bool,
    /// SIS_CLUSTER: scan the target's cluster first, with prev/recent fallbacks (6.7+).
    pub cluster: bool,
    /// LB_PROMOTE: select_task_rq_fair_thin replaces the whole path; no nr_idle_scan updates.
    pub lb_promote: bool,
    /// WA_IDLE: wake_affine_idle.
    pub wa_idle: bool,
    /// WA_WEIGHT: wake_affine_weight.
    pub wa_weight: bool,
    /// WA_BIAS: bias wake_affine_weight by imbalance_pct.
    pub wa_bias: bool,
    /// WA_LEGACY: 4.4's wake_affine (no WA_IDLE/WA_WEIGHT split): affine when the loads are
    /// balanced, and always when the waker's CPU has no load left.
    pub wa_legacy: bool,
    /// SIS_GROUP_WALK: 4.4's select_idle_sibling: after target and prev, the first wholly idle
    /// group of the LLC domain (a core), then an idle SMT sibling of target; no budget.
    pub sis_group_walk: bool,
    /// WA_IDLE_PREV: wake_affine_idle's last branch, "prev idle -> prev" (5.11).
    pub wa_idle_prev: bool,
    /// WAKE_AFFINE_LLC: 4.13's wake_affine(): same LLC -> affine, else wake_affine_llc().
    pub wake_affine_llc: bool,
    /// SIS_SPAN_NR: select_idle_cpu walks span(sd) and tests cpus_allowed inside the loop,
    /// so CPUs the task may not use still consume nr (4.13-5.5).
    pub span_nr: bool,
    /// IDLE_CORES_THIS: a failed idle-core scan clears has_idle_cores in the waker's LLC,
    /// `set_idle_cores(this, false)` (5.12.0; fixed in 5.13).
    pub idle_cores_this: bool,
    /// SYNC_NOT_EXITING: select_task_rq_fair's `sync` is WF_SYNC without PF_EXITING (4.16).
    #[serde(default)]
    pub sync_not_exiting: bool,
    /// UTIL_EST: cpu_util_cfs() is max(util_avg, util_est.enqueued) (4.17+, features.h).
    #[serde(default)]
    pub util_est: bool,
    /// SCX_DFL: sched_ext's scx_select_cpu_dfl() (v6.12) replaces the whole path.
    #[serde(default)]
    pub scx_dfl: bool,
    /// SCX_TOPO: 6.13+ scx_select_cpu_dfl(): a sync wake-up keeps an idle prev that shares the
    /// waker's LLC, and idle cores then idle CPUs are looked for in prev's LLC first.
    #[serde(default)]
    pub scx_topo: bool,
    /// SIS_CURRENT: Chen Yu's v8 (April 2023): a short waker and a short wakee that wake each
    /// other stay on the waker's CPU (wake_affine and select_idle_sibling), at any load.
    #[serde(default)]
    pub sis_current: bool,
    /// SCX_SYNC_NODE_MASK: 6.15's sync shortcut tests idle_cpumask(cpu_to_node(waker)), a
    /// per-node mask nothing updates without SCX_OPS_BUILTIN_IDLE_PER_NODE: it never fires.
    #[serde(default)]
    pub scx_sync_node_mask: bool,
    /// SIS_FILTER: Abel Wu's v3 "filter out overloaded cpus in SIS" (May 2022): select_idle_cpu
    /// skips the LLC's CPUs the tick, idle entry and load balance last saw overloaded.
    #[serde(default)]
    pub sis_filter: bool,
    /// SIS_NODE: Peter Zijlstra's multi-LLC select_idle_sibling (tip c5214e13ad60, June 2023,
    /// pulled before 6.5): when the target's LLC has no idle CPU, scan the node's other LLCs.
    #[serde(default)]
    pub sis_node: bool,
    /// SIS_SHORT: Chen Yu's v6 "wake up short task on current CPU" (February 2023).
    #[serde(default)]
    pub sis_short: bool,
    /// SIS_CACHE: Chen Yu's v2 "Introduce SIS_CACHE to choose previous CPU" (November 2023).
    #[serde(default)]
    pub sis_cache: bool,
    /// WA_414: 4.14-4.15's wake_affine_idle (an idle waker CPU pulls, with no shared-cache
    /// test and no idle-prev preference) and wake_affine_weight (`<=`, no sync +1).
    #[serde(default)]
    pub wa_414: bool,
    /// TTWU_QUEUE_IDLE: 6.0's ttwu_queue_cond() puts a wake-up onto an idle CPU of the
    /// waker's LLC on that CPU's wakelist (f3dd3f674555): an IPI, no remote rq lock.
    #[serde(default)]
    pub ttwu_queue_idle: bool,
    /// DELAY_DEQUEUE: EEVDF (6.12) leaves a task that blocks while not eligible queued,
    /// `sched_delayed`, and its wake-up is ttwu_runnable() where it is: no CPU is selected.
    /// Read by the replay, which rebuilds EEVDF's lag from the trace (replay/eevdf.rs).
    #[serde(default)]
    pub delay_dequeue: bool,
    /// UTIL_EST_RUNNABLE: util_est_update() leaves the EWMA where it is, rather than let it
    /// fall, when the task did not get all the CPU time it wanted: its util_avg plus 1% below
    /// its runnable_avg (6.8, 50181c0cff31). Read by the replay, whose tasks keep a runnable
    /// signal; the simulator's do not.
    #[serde(default)]
    pub util_est_runnable: bool,
}

/// One row of the feature table: its name, what it means, where it comes from.
pub struct FeatureInfo {
    pub name: &'static str,
    pub help: &'static str,
    get: fn(&Features) -> bool,
    set: fn(&mut Features, bool),
}

macro_rules! feature_table {
    ($($name:literal, $field:ident, $help:literal;)*) => {
        pub static FEATURES: &[FeatureInfo] = &[
            $(FeatureInfo { name: $name, help: $help, get: |f| f.$field, set: |f, v| f.$field = v },)*
        ];
    };
}

feature_table! {
    "SIS_PROP", sis_prop, "Scan depth proportional to the waker's idle time over the average scan cost (nr >= 4: the loop pre-decrements, so 3 probes). Mel Gorman, seed 003.";
    "SIS_PROP_AGED", sis_prop_aged, "SIS_PROP on wake_avg_idle, halved every jiffy and charged with scan time (5.14, 'Age the average idle time').";
    "SIS_AVG_CPU", sis_avg_cpu, "Skip the scan entirely when avg_idle/512 < avg_scan_cost; off by default, removed in 5.12 (seed 003 patch 1/4).";
    "SIS_UTIL", sis_util, "Scan at most nr_idle_scan CPUs, set at periodic LLC balance from the LLC's sum of cpu_util_cfs(): llc_weight * (1 - x^2 * pct^2/10000). Chen Yu, seed 000.";
    "SIS_UTIL_RFC", sis_util_rfc, "The RFC's boolean form: skip the scan when total_capacity*100 < sum_util*imbalance_pct. Seed 001.";
    "SIS_UTIL_SMALL_LLC", sis_util_small_llc, "For llc_weight <= 16, scale nr_scan by 32/llc_weight (the v4 changelog's small-LLC idea, unmerged). Seed 000.";
    "SIS_UTIL_IDLE_AWARE", sis_util_idle_aware, "Subtract each idle CPU's capacity from sum_util so an idle CPU keeps the scan alive (the RFC's workaround). Seed 001.";
    "SIS_SINGLE_PASS", single_pass, "One select_idle_core/select_idle_cpu loop that remembers the first idle CPU while it looks for an idle core (5.12). Seed 003.";
    "SIS_CORE_BREAK", core_break, "Legacy select_idle_core stops at a core's first busy SMT sibling instead of looking at all of them (5.6).";
    "SIS_SMT_TARGET", smt_target, "Legacy third pass: select_idle_smt(target) after select_idle_core and select_idle_cpu (4.13-5.11).";
    "SIS_SMT_PREV", smt_prev, "When the LLC has no idle core, try prev's idle SMT siblings before scanning (5.13). Rik van Riel, seed 004.";
    "SIS_SCAN_NEXT", scan_from_next, "The LLC scan starts at target+1 instead of target (5.15, 56498cfb045d).";
    "SIS_RECENT", recent, "Check p->recent_used_cpu (idle, same LLC, allowed) after target and prev, and hand prev to it when taken (4.16, 32e839dda3ba).";
    "RECENT_WAKER_UPDATE", recent_waker_update, "select_task_rq_fair also sets the waker's recent_used_cpu to the waking CPU when want_affine (4.16-5.15; removed in 5.16).";
    "RECENT_PREV_UPDATE", recent_prev_update, "p->recent_used_cpu = prev whenever select_idle_sibling reaches the check (5.15, 89aafd67f28c).";
    "SCHED_IDLE_AS_IDLE", sched_idle_as_idle, "A CPU running only SCHED_IDLE tasks counts as idle for the wake-up (5.4+).";
    "SIS_CLUSTER", cluster, "Scan the target's cluster first, then the rest of the LLC; prev/recent in another cluster are fallbacks (6.7).";
    "LB_PROMOTE", lb_promote, "select_task_rq_fair_thin: prev, recent_used_cpu, the LLC's first idle CPU, then any allowed one, else prev; nr_idle_scan is not updated. Seed 002.";
    "WA_IDLE", wa_idle, "wake_affine_idle: pull to the waker's CPU when it is idle or a sync waker is about to sleep.";
    "WA_WEIGHT", wa_weight, "wake_affine_weight: compare waker and prev load.";
    "WA_BIAS", wa_bias, "Bias wake_affine_weight towards prev by half of imbalance_pct.";
    "WA_LEGACY", wa_legacy, "4.4's wake_affine: pull to the waker's CPU when its load plus the task's is within half of imbalance_pct of prev's (replaced by WA_IDLE/WA_WEIGHT in 4.14).";
    "SIS_GROUP_WALK", sis_group_walk, "4.4's select_idle_sibling: after target and prev, the first wholly idle core of the LLC from target's, then target's idle SMT sibling; no budget (replaced in 4.9).";
    "WA_IDLE_PREV", wa_idle_prev, "wake_affine_idle ends with 'return prev_cpu if idle' (5.11); 4.14-5.10 fall through to wake_affine_weight there.";
    "WAKE_AFFINE_LLC", wake_affine_llc, "4.13's wake_affine(): same LLC -> affine, else numa_wake_affine() on the nodes' load.";
    "WA_414", wa_414, "4.14's wake_affine: an idle waker CPU pulls, any LLC, idle prev or not; a load tie pulls.";
    "SIS_SPAN_NR", span_nr, "select_idle_cpu walks the whole domain and tests cpus_allowed inside the loop: CPUs the task may not use consume the budget (4.13-5.5).";
    "UTIL_EST", util_est, "cpu_util_cfs(), and so SIS_UTIL's sum, is max(util_avg, util_est): the utilisation of the runqueue's tasks at their last sleep (4.17; modelled as 5.13-6.7).";
    "SCX_DFL", scx_dfl, "sched_ext's built-in idle selection, scx_select_cpu_dfl() as in 6.12, replaces the whole path: the sync waker's CPU, prev's or any idle core, prev, any idle CPU; no runqueue probes.";
    "SCX_TOPO", scx_topo, "scx_select_cpu_dfl() from 6.13: a sync wake-up keeps an idle prev in the waker's LLC; prev's LLC, then node, is searched before the whole machine.";
    "SCX_SYNC_NODE_MASK", scx_sync_node_mask, "6.15: the sync shortcut to the waker's CPU tests a per-node idle mask only SCX_OPS_BUILTIN_IDLE_PER_NODE updates: empty, so it never fires (fixed in 2026).";
    "SIS_FILTER", sis_filter, "Abel Wu's v3 (May 2022, unmerged): select_idle_cpu skips CPUs last seen running two or more tasks.";
    "SIS_NODE", sis_node, "Peter Zijlstra's (tip, June 2023; pulled before 6.5): with no idle CPU in target's LLC, scan the node's other LLCs.";
    "SIS_SHORT", sis_short, "Chen Yu's v6 (Feb 2023, unmerged): a short wakee of a short waker stays on the waker's CPU once the LLC is over half busy.";
    "SIS_CURRENT", sis_current, "Chen Yu's v8 (Apr 2023, unmerged): a short pair that last woke each other stays on the waker's CPU.";
    "SIS_CACHE", sis_cache, "Chen Yu's v2 (Nov 2023, unmerged): an idle CPU stays cache-hot for its last task's average short sleep; scans pass over up to nr/2.";
    "TTWU_QUEUE_IDLE", ttwu_queue_idle, "After the choice, a wake-up onto an idle CPU of the waker's LLC goes on that CPU's wakelist: the waker sends an IPI and takes no rq lock, the target activates the task (6.0, Tianchen Ding, f3dd3f674555; not for sched_ext tasks).";
    "DELAY_DEQUEUE", delay_dequeue, "EEVDF leaves a task that blocks while not eligible queued (sched_delayed) until picked; waking it is ttwu_runnable() where it is, with no CPU selection, and it counts in nr_running (6.12, 152e11f6df29). Replay only: the simulator's runqueues are not EEVDF's.";
    "UTIL_EST_RUNNABLE", util_est_runnable, "A task's util_est does not fall after an activation in which it waited: util_avg + 1% below runnable_avg means it did not get all the CPU time it wanted, so the EWMA is left as it was (6.8, Vincent Guittot, 50181c0cff31). Replay only: the simulator's tasks keep no runnable signal.";
    "SYNC_NOT_EXITING", sync_not_exiting, "A waker in do_exit() (PF_EXITING) wakes without WF_SYNC's effect: no sync pull to its CPU (4.16, 24d0c1d6e65f). The replay infers an exiting waker; the simulator's tasks never exit.";
    "IDLE_CORES_THIS", idle_cores_this, "A failed idle-core scan clears has_idle_cores of the waker's LLC, not the target's (5.12.0; fixed in 5.13 by 02dbb7246c5b).";
}

impl Features {
    /// Whether a path of its own replaces select_task_rq_fair (LB_PROMOTE's thin path,
    /// sched_ext's default): no select_idle_sibling target, no nr_idle_scan to keep.
    pub fn replaces_sis(&self) -> bool {
        self.lb_promote || self.scx_dfl
    }

    pub fn get(&self, name: &str) -> Option<bool> {
        FEATURES
            .iter()
            .find(|f| f.name == name)
            .map(|f| (f.get)(self))
    }

    /// Sets a feature by name; `Err` carries the valid names for a suggestion.
    pub fn set(&mut self, name: &str, on: bool) -> Result<(), crate::InputError> {
        match FEATURES.iter().find(|f| f.name.eq_ignore_ascii_case(name)) {
            Some(f) => {
                (f.set)(self, on);
                Ok(())
            }
            None => Err(crate::InputError::unknown(
                "feature",
                name,
                FEATURES.iter().map(|f| f.name),
            )),
        }
    }

    /// The named features that are on, in table order.
    pub fn enabled_names(&self) -> Vec<&'static str> {
        FEATURES
            .iter()
            .filter(|f| (f.get)(self))
            .map(|f| f.name)
            .collect()
    }

    /// A neutral bundle for validating override names.
    pub fn default_for_check() -> Self {
        Self::none()
    }

    const fn none() -> Self {
        Features {
            sis_prop: false,
            sis_prop_aged: false,
            sis_avg_cpu: false,
            sis_util: false,
            sis_util_rfc: false,
            sis_util_small_llc: false,
            sis_util_idle_aware: false,
            single_pass: false,
            core_break: false,
            smt_target: false,
            smt_prev: false,
            scan_from_next: false,
            recent: false,
            recent_waker_update: false,
            recent_prev_update: false,
            sched_idle_as_idle: false,
            cluster: false,
            lb_promote: false,
            wa_idle: true,
            wa_weight: true,
            wa_bias: true,
            wa_legacy: false,
            sis_group_walk: false,
            wa_idle_prev: true,
            wake_affine_llc: false,
            span_nr: false,
            idle_cores_this: false,
            sync_not_exiting: false,
            util_est: false,
            scx_dfl: false,
            scx_topo: false,
            sis_current: false,
            scx_sync_node_mask: false,
            sis_filter: false,
            sis_node: false,
            sis_short: false,
            sis_cache: false,
            wa_414: false,
            ttwu_queue_idle: false,
            delay_dequeue: false,
            util_est_runnable: false,
        }
    }
}

/// A kernel preset: a feature bundle plus the era's load-balance defaults.
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    pub name: &'static str,
    pub description: &'static str,
    pub features: Features,
    /// The LLC domain's default imbalance_pct.
    pub imbalance_pct: u32,
    pub busy_factor: u32,
    /// Newidle balance also needs `avg_idle >= sysctl_sched_migration_cost` (before 5.16).
    pub newidle_migration_cost_gate: bool,
}

const fn legacy_44() -> Features {
    Features {
        wa_legacy: true,
        sis_group_walk: true,
        ..Features::none()
    }
}
impl Preset {
    /// On 6.7's path (`modern_67`, whose cluster-first scan only those presets have): EEVDF
    /// (6.6) orders their runqueues, not CFS's vruntime with wake-up preemption.
    pub fn eevdf(&self) -> bool {
        self.features.cluster
    }

    /// task_hot() treats an SMT sibling's tasks as never cache hot from 5.10 (ec73240b1627,
    /// "sched/fair: Ignore cache hotness for SMT migration"); busy_factor 32 marks the presets
    /// before 5.10, as in [`Self::cpu_load_runnable`].
    pub fn task_hot_ignores_smt(&self) -> bool {
        self.busy_factor != 32
    }

    /// wake_affine's cpu_load() is 4.x's runnable_load_avg (`weighted_cpuload()`: the
    /// runnable tasks' load only) rather than load_avg with blocked load, which replaced it in
    /// 5.7 (0dacee1bfa70). busy_factor 32 marks the presets before 5.10, and none is 5.7-5.9.
    pub fn cpu_load_runnable(&self) -> bool {
        self.busy_factor == 32
    }

    /// rt.c find_lowest_rq() picks with cpumask_any_and_distribute() (5.11, 14e292f8d453)
    /// rather than cpumask_first_and().
    pub fn rt_distribute(&self) -> bool {
        !matches!(
            self.name,
            "linux-4.4" | "linux-4.13" | "linux-4.14" | "linux-5.10"
        )
    }

    /// sd_init's imbalance_pct for the levels above the LLC (DIE/PKG, NUMA): 125 until 5.10,
    /// where VG2020 (2208cdaa56c9, with busy_factor 32 -> 16) made it 117.
    pub fn pkg_imbalance_pct(&self) -> u32 {
        if self.busy_factor == 32 {
            125
        } else {
            117
        }
    }
}

const fn legacy_413() -> Features {
    Features {
        sis_prop: true,
        smt_target: true,
        wa_idle: false,
        wa_weight: false,
        wa_bias: false,
        wa_idle_prev: false,
        wake_affine_llc: true,
        span_nr: true,
        ..Features::none()
    }
}
/// linux-4.14 features.h: WA_IDLE, WA_WEIGHT, WA_BIAS replace 4.13's wake_affine; the rest
/// of the wake-up path is 4.13's text.
const fn legacy_414() -> Features {
    Features {
        wa_idle: true,
        wa_weight: true,
        wa_bias: true,
        wa_414: true,
        wake_affine_llc: false,
        ..legacy_413()
    }
}
const fn legacy_510() -> Features {
    Features {
        wa_idle: true,
        wa_weight: true,
        wa_bias: true,
        wake_affine_llc: false,
        span_nr: false,
        sched_idle_as_idle: true,
        core_break: true,
        recent: true,
        recent_waker_update: true,
        util_est: true,
        sync_not_exiting: true,
        ..legacy_413()
    }
}
const fn mel_512() -> Features {
    Features {
        sis_prop: true,
        single_pass: true,
        sched_idle_as_idle: true,
        recent: true,
        recent_waker_update: true,
        idle_cores_this: true,
        util_est: true,
        sync_not_exiting: true,
        ..Features::none()
    }
}
const fn rik_513() -> Features {
    Features {
        smt_prev: true,
        idle_cores_this: false,
        ..mel_512()
    }
}
const fn aged_515() -> Features {
    Features {
        sis_prop_aged: true,
        scan_from_next: true,
        recent_prev_update: true,
        ..rik_513()
    }
}
/// v5.19-rc1 (seed 000's vanilla): 5.15's select_idle_sibling and SIS_PROP scan (seed 000's
/// hunk context: `time = cpu_clock(this)` before `for_each_cpu_wrap(cpu, cpus, target + 1)`),
/// without 4.16-5.15's waker recent_used_cpu update (a7ba894821b6, 5.16).
const fn vanilla_519() -> Features {
    Features {
        recent_waker_update: false,
        ..aged_515()
    }
}
const fn sisutil_60() -> Features {
    Features {
        sis_prop: false,
        sis_util: true,
        ..vanilla_519()
    }
}
/// v6.0: seed 000 merged (sisutil_60) and core.c's ttwu_queue_cond() sending a wake-up onto an
/// idle same-LLC CPU through its wakelist (f3dd3f674555, merged alongside). The seed's posted
/// patches (sis-util-*) sit on 5.19-rc1 and keep the rq lock.
const fn linux_60() -> Features {
    Features {
        ttwu_queue_idle: true,
        ..sisutil_60()
    }
}
const fn modern_67() -> Features {
    Features {
        cluster: true,
        ..linux_60()
    }
}
/// v6.12: 6.7's wake-up path, with EEVDF's delayed dequeue (152e11f6df29, DELAY_DEQUEUE on by
/// default in kernel/sched/features.h).
const fn modern_612() -> Features {
    Features {
        delay_dequeue: true,
        util_est_runnable: true,
        ..modern_67()
    }
}

/// Every preset, in era order, with a one-line description: a table in the binary's data,
/// not a Vec built on every lookup.
pub fn presets() -> &'static [Preset] {
    PRESETS
}

static PRESETS: &[Preset] = &[
        Preset { name: "linux-4.4", description: "4.4's group walk (target, prev, the LLC's first wholly idle core, target's idle sibling) and wake_affine; LLC imbalance_pct 117 (SMT 110, 125 above).", features: legacy_44(), imbalance_pct: 117, busy_factor: 32, newidle_migration_cost_gate: true },
        Preset { name: "linux-4.13", description: "Three passes: select_idle_core, select_idle_cpu (SIS_PROP on avg_idle/512), select_idle_smt(target); 'same LLC -> affine'; imbalance_pct 117.", features: legacy_413(), imbalance_pct: 117, busy_factor: 32, newidle_migration_cost_gate: true },
        Preset { name: "linux-4.14", description: "4.13's scan with 4.14's WA_IDLE/WA_WEIGHT wake_affine.", features: legacy_414(), imbalance_pct: 117, busy_factor: 32, newidle_migration_cost_gate: true },
        Preset { name: "linux-5.10", description: "4.13 plus WA_IDLE/WA_WEIGHT/WA_BIAS, recent_used_cpu, the allowed mask before the scan, busy_factor 16; sched-idle CPUs count as idle.", features: legacy_510(), imbalance_pct: 117, busy_factor: 16, newidle_migration_cost_gate: true },
        Preset { name: "linux-5.12", description: "Mel Gorman's single pass (seed 003): one loop for idle core and idle CPU, SIS_PROP only without an idle core; a failed core scan clears the waker's LLC flag.", features: mel_512(), imbalance_pct: 117, busy_factor: 16, newidle_migration_cost_gate: true },
        Preset { name: "linux-5.13", description: "5.12 plus select_idle_smt(prev) before the LLC scan (Rik van Riel, seed 004).", features: rik_513(), imbalance_pct: 117, busy_factor: 16, newidle_migration_cost_gate: true },
        Preset { name: "linux-5.15", description: "Aged wake_avg_idle for SIS_PROP, scan from target+1, recent_used_cpu = prev rule.", features: aged_515(), imbalance_pct: 117, busy_factor: 16, newidle_migration_cost_gate: true },
        Preset { name: "linux-5.19", description: "v5.19-rc1, seed 000's vanilla: 5.15's SIS_PROP scan, no waker recent_used_cpu update, no migration-cost gate on newidle balance (both 5.16).", features: vanilla_519(), imbalance_pct: 117, busy_factor: 16, newidle_migration_cost_gate: false },
        Preset { name: "linux-6.0", description: "SIS_UTIL on, SIS_PROP off: the merged form of seed 000; a wake-up onto an idle CPU of the waker's LLC goes on its wakelist (no rq lock).", features: linux_60(), imbalance_pct: 117, busy_factor: 16, newidle_migration_cost_gate: false },
        Preset { name: "linux-6.7", description: "SIS_PROP removed; cluster-first scan where the topology has clusters.", features: modern_67(), imbalance_pct: 117, busy_factor: 16, newidle_migration_cost_gate: false },
        Preset { name: "linux-6.12", description: "6.7's path; EEVDF's delayed dequeue wakes a task still queued sched_delayed where it is, and a sync waker's CPU is taken when it runs one task besides its delayed ones (6.12.37+ stable; the replay infers delays; the simulator runs 6.7's path); util_est's EWMA does not fall after an activation in which the task waited (6.8; the replay only).", features: modern_612(), imbalance_pct: 117, busy_factor: 16, newidle_migration_cost_gate: false },
        Preset { name: "sis-util-v4", description: "Seed 000 as posted: SIS_PROP computes nr, then SIS_UTIL overrides it.", features: Features { sis_prop: true, ..sisutil_60() }, imbalance_pct: 117, busy_factor: 16, newidle_migration_cost_gate: false },
        Preset { name: "sis-util-rfc", description: "Seed 001: a boolean 'overloaded' flag stops the scan above 100/imbalance_pct; SIS_PROP still on, as in the kernel it was posted against.", features: Features { sis_util_rfc: true, sis_util: false, sis_prop: true, ..sisutil_60() }, imbalance_pct: 117, busy_factor: 16, newidle_migration_cost_gate: false },
        Preset { name: "sis-util-small-llc", description: "Seed 000's idea: nr_scan * 32 / llc_weight when llc_weight <= 16.", features: Features { sis_util_small_llc: true, ..sisutil_60() }, imbalance_pct: 117, busy_factor: 16, newidle_migration_cost_gate: false },
        Preset { name: "sis-util-idle-aware", description: "Seed 001's workaround: idle CPUs' capacity subtracted from sum_util.", features: Features { sis_util_idle_aware: true, ..sisutil_60() }, imbalance_pct: 117, busy_factor: 16, newidle_migration_cost_gate: false },
        Preset { name: "scx-default", description: "sched_ext's built-in idle selection as in 6.12: the sync waker's CPU while idle CPUs exist, prev's or any idle core, prev, any idle CPU, else prev.", features: Features { scx_dfl: true, ttwu_queue_idle: false, ..modern_67() }, imbalance_pct: 117, busy_factor: 16, newidle_migration_cost_gate: false },
        Preset { name: "scx-default-6.15", description: "scx_select_cpu_dfl() as in 6.15: 6.12's plus prev's LLC and node steps; the waker's-CPU shortcut never fires.", features: Features { scx_dfl: true, scx_topo: true, scx_sync_node_mask: true, ttwu_queue_idle: false, ..modern_67() }, imbalance_pct: 117, busy_factor: 16, newidle_migration_cost_gate: false },
        Preset { name: "sis-filter", description: "Abel Wu's v3 (May 2022, on 5.19's SIS_PROP path): the scan skips CPUs the last tick saw overloaded.", features: Features { sis_filter: true, ..vanilla_519() }, imbalance_pct: 117, busy_factor: 16, newidle_migration_cost_gate: false },
        Preset { name: "sis-node", description: "Peter Zijlstra's SIS_NODE (tip, June 2023): when the target's LLC has no idle CPU, scan the node's other LLCs too.", features: Features { sis_node: true, ..linux_60() }, imbalance_pct: 117, busy_factor: 16, newidle_migration_cost_gate: false },
        Preset { name: "sis-short", description: "Chen Yu's SIS_SHORT v6 (February 2023): a short wakee of a short waker stays on the waker's CPU once the LLC is over half busy.", features: Features { sis_short: true, ..linux_60() }, imbalance_pct: 117, busy_factor: 16, newidle_migration_cost_gate: false },
        Preset { name: "sis-current", description: "Chen Yu's SIS_CURRENT v8 (April 2023): a short pair that wake each other stay on the waker's CPU, at any load.", features: Features { sis_current: true, ..linux_60() }, imbalance_pct: 117, busy_factor: 16, newidle_migration_cost_gate: false },
        Preset { name: "sis-cache", description: "Chen Yu's SIS_CACHE v2 (November 2023): an idle CPU stays cache-hot for its last task's average short sleep, and scans pass over it.", features: Features { sis_cache: true, ..modern_67() }, imbalance_pct: 117, busy_factor: 16, newidle_migration_cost_gate: false },
        Preset { name: "lb-promote-thin", description: "Seed 002: select_task_rq_fair_thin (prev, recent, first idle in LLC, then anywhere), no nr_idle_scan updates.", features: Features { lb_promote: true, ..modern_67() }, imbalance_pct: 117, busy_factor: 16, newidle_migration_cost_gate: false },
        Preset { name: "full-scan", description: "No throttle at all: the baseline every throttle is measured against.", features: Features { sis_prop: false, sis_util: false, ..modern_67() }, imbalance_pct: 117, busy_factor: 16, newidle_migration_cost_gate: false },
];

/// Where a posted patch's preset was read: its posting on lore.kernel.org, or the kernel
/// source it models (the app links it beside the preset picker). None for mainline releases.
pub fn posting(preset: &str) -> Option<&'static str> {
    Some(match preset {
        "sis-util-v4" => "https://lore.kernel.org/lkml/20220612163428.849378-1-yu.c.chen@intel.com/",
        "sis-filter" => "https://lore.kernel.org/lkml/20220505122331.42696-1-wuyun.abel@bytedance.com/",
        "sis-node" => "https://lore.kernel.org/lkml/20230530113249.GA156198@hirez.programming.kicks-ass.net/",
        "sis-short" => "https://lore.kernel.org/lkml/cover.1677069490.git.yu.c.chen@intel.com/",
        "sis-cache" => "https://lore.kernel.org/lkml/cover.1700548379.git.yu.c.chen@intel.com/",
        "sis-current" => "https://lore.kernel.org/lkml/cover.1682661027.git.yu.c.chen@intel.com/",
        "scx-default" => "https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/tree/kernel/sched/ext.c?h=v6.12",
        "scx-default-6.15" => "https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/tree/kernel/sched/ext_idle.c?h=v6.15",
        _ => return None,
    })
}

/// Looks a preset up by name; the error suggests the closest name.
pub fn preset(name: &str) -> Result<Preset, crate::InputError> {
    PRESETS
        .iter()
        .find(|p| p.name == name)
        .copied()
        .ok_or_else(|| crate::InputError::unknown("preset", name, PRESETS.iter().map(|p| p.name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_posted_proposal_links_its_posting_and_every_release_none() {
        for p in presets() {
            let proposal = !p.name.starts_with("linux-") && p.name != "full-scan";
            let linked = posting(p.name).is_some();
            // The seeds' other patches are cited in ../shared/seeds, not linked yet.
            if matches!(
                p.name,
                "sis-filter"
                    | "sis-node"
                    | "sis-short"
                    | "sis-current"
                    | "sis-cache"
                    | "scx-default"
                    | "scx-default-6.15"
            ) {
                assert!(linked, "{} has no posting", p.name);
            }
            if !proposal {
                assert!(!linked, "{} is a release", p.name);
            }
        }
        assert_eq!(posting("linux-6.0"), None);
    }

    /// The presets of posted proposals are their base kernel with one feature added: the
    /// proposal is exactly that feature, nothing else moved.
    #[test]
    fn each_proposal_is_its_base_kernel_plus_its_own_feature() {
        for (name, base, feature) in [
            ("sis-filter", "linux-5.19", "SIS_FILTER"),
            ("sis-node", "linux-6.0", "SIS_NODE"),
            ("sis-short", "linux-6.0", "SIS_SHORT"),
            ("sis-current", "linux-6.0", "SIS_CURRENT"),
            ("sis-cache", "linux-6.7", "SIS_CACHE"),
        ] {
            let mut f = preset(base).unwrap().features;
            f.set(feature, true).unwrap();
            assert_eq!(f, preset(name).unwrap().features, "{name}");
        }
        // sched_ext 6.15 is 6.12's default idle selection plus its two changes.
        let mut f = preset("scx-default").unwrap().features;
        f.set("SCX_TOPO", true).unwrap();
        f.set("SCX_SYNC_NODE_MASK", true).unwrap();
        assert_eq!(f, preset("scx-default-6.15").unwrap().features);
    }

    #[test]
    fn linux_5_19_is_6_0_with_sis_prop_instead_of_sis_util_and_5_15_after_5_16() {
        // Seed 000 compares v5.19-rc1 (SIS_PROP) with its patch (SIS_UTIL, merged in 6.0).
        let (v519, v60, v515) = (
            preset("linux-5.19").unwrap(),
            preset("linux-6.0").unwrap(),
            preset("linux-5.15").unwrap(),
        );
        let mut f = v60.features;
        f.sis_prop = true;
        f.sis_util = false;
        // 6.0's core.c also sends a wake-up onto an idle CPU through its wakelist.
        assert!(f.ttwu_queue_idle);
        f.ttwu_queue_idle = false;
        assert_eq!(f, v519.features);
        assert_eq!(
            (
                v519.imbalance_pct,
                v519.busy_factor,
                v519.newidle_migration_cost_gate
            ),
            (
                v60.imbalance_pct,
                v60.busy_factor,
                v60.newidle_migration_cost_gate
            )
        );
        // 5.16 removed the waker's recent_used_cpu update and the newidle migration-cost gate.
        let mut f = v515.features;
        f.recent_waker_update = false;
        assert_eq!(f, v519.features);
        assert!(v515.newidle_migration_cost_gate && !v519.newidle_migration_cost_gate);
    }

    #[test]
    fn presets_have_unique_names_and_the_design_table() {
        let names: Vec<_> = presets().iter().map(|p| p.name).collect();
        for want in [
            "linux-4.13",
            "linux-5.10",
            "linux-5.12",
            "linux-5.13",
            "linux-5.15",
            "linux-5.19",
            "linux-6.0",
            "linux-6.7",
            "sis-util-v4",
            "sis-util-rfc",
            "sis-util-small-llc",
            "sis-util-idle-aware",
            "lb-promote-thin",
            "full-scan",
        ] {
            assert_eq!(names.iter().filter(|n| **n == want).count(), 1, "{want}");
        }
    }

    #[test]
    fn era_features() {
        // linux-4.13 topology.c sd_init: SD_SHARE_PKG_RESOURCES -> imbalance_pct = 117.
        assert_eq!(preset("linux-4.13").unwrap().imbalance_pct, 117);
        assert_eq!(preset("linux-4.13").unwrap().pkg_imbalance_pct(), 125);
        assert_eq!(preset("linux-5.10").unwrap().pkg_imbalance_pct(), 117);
        assert!(preset("sis-util-rfc").unwrap().features.sis_prop);
        assert!(!preset("linux-5.10").unwrap().features.wa_idle_prev);
        assert!(preset("linux-5.12").unwrap().features.wa_idle_prev);
        let f60 = preset("linux-6.0").unwrap().features;
        assert!(f60.sis_util && !f60.sis_prop);
        let v4 = preset("sis-util-v4").unwrap().features;
        assert!(v4.sis_util && v4.sis_prop);
        assert!(!preset("linux-5.12").unwrap().features.smt_prev);
        assert!(preset("linux-5.13").unwrap().features.smt_prev);
        // recent_used_cpu arrived in 4.16; the waker's update went in 5.16.
        let recent = |p: &str| {
            let f = preset(p).unwrap().features;
            (f.recent, f.recent_waker_update)
        };
        assert_eq!(recent("linux-4.13"), (false, false));
        assert_eq!(recent("linux-4.14"), (false, false));
        // linux-4.14 features.h adds WA_IDLE, WA_WEIGHT and WA_BIAS in 4.14's own shape; the
        // rest of the wake-up path is 4.13's text.
        let (v413, v414) = (preset("linux-4.13").unwrap(), preset("linux-4.14").unwrap());
        let mut f = v414.features;
        assert!(f.wa_idle && f.wa_weight && f.wa_bias && f.wa_414 && !f.wa_idle_prev);
        (
            f.wa_idle,
            f.wa_weight,
            f.wa_bias,
            f.wa_414,
            f.wake_affine_llc,
        ) = (false, false, false, false, true);
        assert_eq!(f, v413.features);
        assert_eq!(
            (v414.imbalance_pct, v414.busy_factor),
            (v413.imbalance_pct, v413.busy_factor)
        );
        assert_eq!(recent("linux-5.10"), (true, true));
        assert_eq!(recent("linux-5.15"), (true, true));
        assert_eq!(recent("linux-6.0"), (true, false));
        assert_eq!(recent("sis-util-v4"), (true, false));
        // UTIL_EST came in 4.17: every preset from 5.10 on has it.
        for p in presets() {
            let old = matches!(p.name, "linux-4.4" | "linux-4.13" | "linux-4.14");
            assert_eq!(p.features.util_est, !old, "{}", p.name);
        }
    }

    #[test]
    fn override_by_name_and_unknown_name_suggests() {
        let mut f = preset("linux-6.0").unwrap().features;
        f.set("SIS_PROP", true).unwrap();
        assert_eq!(f.get("SIS_PROP"), Some(true));
        let e = f.set("SIS_UTL", true).unwrap_err().to_string();
        assert!(e.contains("SIS_UTIL"), "{e}");
        let e = preset("linux-6.1").unwrap_err().to_string();
        assert!(e.contains("linux-6.0") || e.contains("linux-6.7"), "{e}");
    }
}
